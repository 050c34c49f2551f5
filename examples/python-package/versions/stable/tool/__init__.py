"""wordfreq: the most frequent words of a text (python3 -m tool)."""
