"""The problem's harness, the same for every candidate: prints the Roman
numeral of each number given as an argument, one a line, from the
candidate's own solution.to_roman (the candidate's folder is /program,
on PYTHONPATH)."""

import sys

from solution import to_roman

for arg in sys.argv[1:]:
    print(to_roman(int(arg)))
