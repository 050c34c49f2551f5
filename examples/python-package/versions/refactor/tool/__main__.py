"""python3 -m tool: reads stdin, prints the most frequent words."""

import sys

from tool.cli import main

sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout))
