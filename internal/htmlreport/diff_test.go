package htmlreport

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// lcs is the length of a longest common subsequence, by the quadratic
// table: the reference the diff is checked against.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// apply checks that ops turn a into b and returns the edits it makes.
func apply(t *testing.T, a, b []string, ops []op) int {
	t.Helper()
	i, j, edits := 0, 0, 0
	for _, o := range ops {
		if o.n <= 0 {
			t.Fatalf("op %+v of no lines", o)
		}
		switch o.kind {
		case opEqual:
			for n := 0; n < o.n; n++ {
				if i >= len(a) || j >= len(b) || a[i] != b[j] {
					t.Fatalf("equal op at %d,%d does not match", i, j)
				}
				i++
				j++
			}
		case opDelete:
			i += o.n
			edits += o.n
		case opInsert:
			j += o.n
			edits += o.n
		}
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("ops end at %d,%d, not %d,%d", i, j, len(a), len(b))
	}
	return edits
}

func randomLines(r *rand.Rand, n, alphabet int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(r.IntN(alphabet))
	}
	return out
}

// TestDiffShortest checks, on random texts, that the script is valid and
// as short as the LCS allows.
func TestDiffShortest(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 2000; k++ {
		a := randomLines(r, r.IntN(30), 1+r.IntN(6))
		b := randomLines(r, r.IntN(30), 1+r.IntN(6))
		edits := apply(t, a, b, diffLines(a, b))
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("%q → %q: %d edits, the shortest has %d", a, b, edits, want)
		}
	}
}

// TestDiffCapped checks that past maxEdits the script is still valid:
// the common prefix and suffix kept, the middle replaced.
func TestDiffCapped(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	a := append([]string{"head"}, randomLines(r, 2000, 1000)...)
	b := append([]string{"head"}, randomLines(r, 2000, 1000)...)
	a, b = append(a, "tail"), append(b, "tail")
	ops := diffLines(a, b)
	if edits := apply(t, a, b, ops); edits != 4000 {
		t.Errorf("%d edits, want the 4000 middle lines", edits)
	}
	if ops[0] != (op{opEqual, 1}) || ops[len(ops)-1] != (op{opEqual, 1}) {
		t.Errorf("the common head and tail are not kept: %v … %v", ops[0], ops[len(ops)-1])
	}
}

// TestRowsMarkChanges checks the side-by-side layout: a changed line is
// paired, a missing one marked on its side.
func TestRowsMarkChanges(t *testing.T) {
	t.Parallel()
	mk := func(ss ...string) []line {
		var out []line
		for _, s := range ss {
			out = append(out, line{Segs: []seg{{Text: s}}, key: s})
		}
		return out
	}
	got := rows(mk("1", "2", "Fizz", "4", "Buzz"), mk("1", "2", "3", "4"), true)
	var classes []string
	for _, r := range got {
		classes = append(classes, r.Class+":"+r.LN+"/"+r.RN)
	}
	want := []string{":1/1", ":2/2", "chg:3/3", ":4/4", "del:5/"}
	if len(classes) != len(want) {
		t.Fatalf("rows %q, want %q", classes, want)
	}
	for i := range want {
		if classes[i] != want[i] {
			t.Fatalf("rows %q, want %q", classes, want)
		}
	}
}

// TestKeyNormalizes checks that lines differing only where the matcher
// does not look are not marked.
func TestKeyNormalizes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		cmp  comparison
		same bool
	}{
		{"x  \r", "x", comparison{norm: "trailing"}, true},
		{"x  ", "x", comparison{norm: "exact"}, false},
		{" a \t b ", "a b", comparison{norm: "whitespace"}, true},
		{"ABC", "abc", comparison{norm: "trailing", ignoreCase: true}, true},
		{"ABC", "abc", comparison{norm: "trailing"}, false},
	}
	for _, c := range cases {
		if got := key([]byte(c.a), c.cmp) == key([]byte(c.b), c.cmp); got != c.same {
			t.Errorf("%q vs %q under %+v: same %v, want %v", c.a, c.b, c.cmp, got, c.same)
		}
	}
}

// TestCutBounds checks that an excerpt keeps within its lines and cost,
// cuts a long line, and says what it left out.
func TestCutBounds(t *testing.T) {
	t.Parallel()
	data := []byte("a\nb\nc\nd\n")
	ex := cut(data, 2, 1<<20, comparison{})
	if len(ex.lines) != 2 || ex.cutBytes != 4 || ex.cutLines != 2 {
		t.Errorf("2 lines of 4: kept %d, cut %d bytes and %d lines", len(ex.lines), ex.cutBytes, ex.cutLines)
	}
	long := make([]byte, 100000)
	for i := range long {
		long[i] = 'x'
	}
	ex = cut(long, 10, 1000, comparison{})
	if ex.cost() > 1000 || ex.cutBytes == 0 || ex.cutLines != 1 {
		t.Errorf("a 100000-byte line in 1000: cost %d, cut %d bytes, %d lines", ex.cost(), ex.cutBytes, ex.cutLines)
	}
	if ex.note() == "" {
		t.Error("no note for a cut excerpt")
	}
}
