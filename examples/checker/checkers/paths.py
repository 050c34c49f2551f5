# A checker for the shortest path problem, testlib's way in Python: its
# arguments are the input, the program's output and the answer (the
# jury's shortest path); it exits 0 when the output is a shortest path,
# 1 (wrong answer) when it is not, 2 (presentation error) when it is not
# a list of vertices, 3 when the answer itself is not a path (the checker
# cannot judge). Messages go to stderr, as testlib writes them.
import sys

OK, WA, PE, FAIL = 0, 1, 2, 3


def quit(code, msg):
    prefix = {OK: "ok", WA: "wrong answer", PE: "wrong output format", FAIL: "FAIL"}[code]
    print(prefix + " " + msg, file=sys.stderr)
    sys.exit(code)


def numbers(text, code, what):
    try:
        return [int(x) for x in text.split()]
    except ValueError:
        quit(code, what + " is not a list of integers")


graph, output, answer = (open(p).read() for p in sys.argv[1:4])
tokens = numbers(graph, FAIL, "the input")
n, m, s, t = tokens[:4]
edges = set()
for i in range(m):
    u, v = tokens[4 + 2 * i], tokens[5 + 2 * i]
    edges |= {(u, v), (v, u)}


def check(path, code, whose):
    """The path's length in edges, or -1 for "no path"; quits with code
    when it is not a path from s to t."""
    if path == [-1]:
        return -1
    if not path:
        quit(code, whose + " is empty")
    if path[0] != s or path[-1] != t:
        quit(code, "%s goes from %d to %d, not from %d to %d" % (whose, path[0], path[-1], s, t))
    for u, v in zip(path, path[1:]):
        if (u, v) not in edges:
            quit(code, "%s uses %d-%d, which is not an edge" % (whose, u, v))
    return len(path) - 1


best = check(numbers(answer, FAIL, "the answer"), FAIL, "the answer")
got = check(numbers(output, PE, "the output"), WA, "the path")
if best == -1 and got != -1:
    quit(FAIL, "the program found a path where the answer says there is none")
if got != best:
    quit(WA, "a path of %d edges, the shortest has %d" % (got, best))
quit(OK, "no path, as the answer says" if got == -1 else "a shortest path of %d edges" % got)
