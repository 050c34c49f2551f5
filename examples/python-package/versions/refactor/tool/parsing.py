"""What counts as a word is decided here alone."""

import string


def words(text):
    """The words of text in order, lower-cased, without the punctuation
    around them. Numbers are not words."""
    found = []
    for token in text.split():
        word = token.strip(string.punctuation).lower()
        if word[0].isdigit():
            continue
        found.append(word)
    return found
