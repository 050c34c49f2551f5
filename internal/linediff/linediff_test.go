package linediff

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
func apply(t *testing.T, a, b []string, ops []Op) int {
	t.Helper()
	i, j, edits := 0, 0, 0
	for _, o := range ops {
		if o.N <= 0 {
			t.Fatalf("op %+v of no lines", o)
		}
		switch o.Kind {
		case Equal:
			for n := 0; n < o.N; n++ {
				if i >= len(a) || j >= len(b) || a[i] != b[j] {
					t.Fatalf("equal op at %d,%d does not match", i, j)
				}
				i++
				j++
			}
		case Delete:
			i += o.N
			edits += o.N
		case Insert:
			j += o.N
			edits += o.N
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
		edits := apply(t, a, b, Lines(a, b))
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
	ops := Lines(a, b)
	if edits := apply(t, a, b, ops); edits != 4000 {
		t.Errorf("%d edits, want the 4000 middle lines", edits)
	}
	if ops[0] != (Op{Equal, 1}) || ops[len(ops)-1] != (Op{Equal, 1}) {
		t.Errorf("the common head and tail are not kept: %v … %v", ops[0], ops[len(ops)-1])
	}
}
