// Package linediff computes the shortest line edit script between an
// expected and an actual text, bounded, for the renderers that show how
// output differs (the HTML report's side by side, the summary's diff).
package linediff

// Kind is one step of a line diff.
type Kind uint8

const (
	Equal  Kind = iota // the line is on both sides
	Delete             // the line is only in the expected text
	Insert             // the line is only in the actual text
)

// Op is a run of N lines of one Kind.
type Op struct {
	Kind Kind
	N    int
}

// maxEdits bounds the edit distance the diff searches: Myers' algorithm
// takes O((N+M)·D) time and, with its trace, O(D²) memory. Past it, the
// lines between the common prefix and the common suffix are all marked.
const maxEdits = 256

// Lines returns the edit script that turns a into b (line keys),
// shortest when its length is at most maxEdits.
func Lines(a, b []string) []Op {
	// The common prefix and suffix cost nothing and are the usual case.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []Op
	add := func(k Kind, n int) {
		if n == 0 {
			return
		}
		if len(ops) > 0 && ops[len(ops)-1].Kind == k {
			ops[len(ops)-1].N += n
			return
		}
		ops = append(ops, Op{k, n})
	}
	add(Equal, pre)
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if mid, ok := myers(ma, mb); ok {
		for _, o := range mid {
			add(o.Kind, o.N)
		}
	} else {
		add(Delete, len(ma))
		add(Insert, len(mb))
	}
	add(Equal, suf)
	return ops
}

// myers is Myers' greedy shortest edit script (1986), keeping for each d
// only the diagonals -d..d of V, so that the trace takes O(D²). It gives up
// (false) past maxEdits edits.
func myers(a, b []string) ([]Op, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return []Op{{Delete, n}, {Insert, m}}, true
	}
	limit := min(n+m, maxEdits)
	// v[k+off] is the furthest x on diagonal k.
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		snap := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[k-1+off] < v[k+1+off] {
				x = v[k+1+off] // down: an insertion
			} else {
				x = v[k-1+off] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[k+off] = x
			if x >= n && y >= m {
				for j := -d; j <= d; j++ {
					snap[j+d] = v[j+off]
				}
				trace = append(trace, snap)
				return backtrack(trace, n, m), true
			}
		}
		for j := -d; j <= d; j++ {
			snap[j+d] = v[j+off]
		}
		trace = append(trace, snap)
	}
	return nil, false
}

// backtrack walks the trace from (n, m) back to (0, 0) and returns the
// script in order.
func backtrack(trace [][]int, n, m int) []Op {
	var rev []Kind // one entry per line, reversed
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // diagonals -(d-1)..d-1
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, Equal)
			x--
			y--
		}
		if pk == k+1 {
			rev = append(rev, Insert)
		} else {
			rev = append(rev, Delete)
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		rev = append(rev, Equal)
		x--
		y--
	}
	var ops []Op
	for i := len(rev) - 1; i >= 0; i-- {
		if len(ops) > 0 && ops[len(ops)-1].Kind == rev[i] {
			ops[len(ops)-1].N++
			continue
		}
		ops = append(ops, Op{rev[i], 1})
	}
	return ops
}
