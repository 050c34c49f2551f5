// A checker for the shortest path problem, written with testlib's
// conventions (https://github.com/MikeMirzayanov/testlib): it is run as
//
//   paths <input> <output> <answer>
//
// reads the graph from the input, the program's path from the output and
// the jury's shortest path from the answer, and exits 0 (_ok) when the
// output is a shortest path, 1 (_wa) when it is a path that is not the
// shortest or no path at all, 2 (_pe) when the output is not a list of
// integers, 3 (_fail) when the input or the answer is broken: the checker
// cannot judge. Its message goes to stderr, as testlib writes it.
// reader.h stands in for testlib.h: the three streams and quitf.
#include <set>
#include <utility>
#include <vector>

#include "reader.h"

typedef std::set<std::pair<long long, long long>> Edges;

// length checks that path goes from s to t along edges and returns its
// number of edges, or -1 for "no path" (the single token -1); it quits
// with how when it does not.
static long long length(const std::vector<long long> &path, long long s, long long t, const Edges &edges, Outcome how, const char *whose) {
    if (path.size() == 1 && path[0] == -1) return -1;
    if (path.empty()) quitf(how, "%s is empty", whose);
    if (path.front() != s || path.back() != t)
        quitf(how, "%s goes from %lld to %lld, not from %lld to %lld", whose, path.front(), path.back(), s, t);
    for (size_t i = 1; i < path.size(); i++)
        if (!edges.count({path[i - 1], path[i]}))
            quitf(how, "%s uses %lld-%lld, which is not an edge", whose, path[i - 1], path[i]);
    return (long long)path.size() - 1;
}

int main(int argc, char **argv) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong(), m = inf.readLong(), s = inf.readLong(), t = inf.readLong();
    (void)n;
    Edges edges;
    for (long long i = 0; i < m; i++) {
        long long u = inf.readLong(), v = inf.readLong();
        edges.insert({u, v});
        edges.insert({v, u});
    }
    long long best = length(ans.readLongs(), s, t, edges, _fail, "the answer");
    long long got = length(ouf.readLongs(), s, t, edges, _wa, "the path");
    if (best == -1 && got != -1) quitf(_fail, "the program found a path where the answer says there is none");
    if (got != best) quitf(_wa, "a path of %lld edges, the shortest has %lld", got, best);
    if (got == -1) quitf(_ok, "no path, as the answer says");
    quitf(_ok, "a shortest path of %lld edges", got);
}
