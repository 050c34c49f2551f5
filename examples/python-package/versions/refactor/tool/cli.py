"""The command line: arguments in, one "COUNT WORD" line per word out."""

import argparse
from collections import Counter

from tool.parsing import words


def main(argv, stdin, stdout):
    parser = argparse.ArgumentParser(prog="wordfreq", description="Print the most frequent words of stdin.")
    parser.add_argument("--top", type=int, default=3, help="how many words to print (default 3)")
    args = parser.parse_args(argv)
    counts = Counter(words(stdin.read()))
    # Most frequent first; words as frequent as each other alphabetically.
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    for word, n in ranked[: args.top]:
        print(n, word, file=stdout)
    return 0
