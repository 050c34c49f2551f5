package gitindex

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"mul.py", "mul.py", 0},
		{"mul.py", "mull.py", 1},
		{"mul.py", "ml.py", 1},
		{"mul.py", "mol.py", 1},
		{"mul.py", "mlu.py", 1}, // a transposition is one edit
		{"solutions/mul.py", "soultions/mul.py", 1},
		{"ca", "abc", 3},         // optimal string alignment: no edit of a transposed pair
		{"a.py", "abcdef.py", 3}, // above max 2: max+1
		{"kitten", "sitting", 3}, // above max 2: max+1
	} {
		want := min(tt.want, 3)
		if got := Distance(tt.a, tt.b, 2); got != want {
			t.Errorf("Distance(%q, %q, 2) = %d, want %d", tt.a, tt.b, got, want)
		}
		if got := Distance(tt.b, tt.a, 2); got != want {
			t.Errorf("Distance(%q, %q, 2) = %d, want %d", tt.b, tt.a, got, want)
		}
	}
}

// TestNear: only tracked entries are candidates (not intent-to-add, not
// skip-worktree, not a submodule's gitlink), the nearest win, ties come
// in lexical order.
func TestNear(t *testing.T) {
	t.Parallel()
	r := &Repo{index: &Index{entries: map[string]Entry{
		"solutions/mul.py":  {Mode: ModeRegular},
		"solutions/mud.py":  {Mode: ModeRegular},
		"solutions/sum.py":  {Mode: ModeRegular},
		"solutions/mil.py":  {Mode: ModeRegular, IntentToAdd: true},
		"solutions/mulx.py": {Mode: ModeRegular, SkipWorktree: true},
		"solutions/mu.py":   {Mode: ModeGitlink},
	}}}
	for _, tt := range []struct {
		rel  string
		want []string
	}{
		{"solutions/mull.py", []string{"solutions/mul.py"}},
		{"soultions/mul.py", []string{"solutions/mul.py"}},
		{"solutions/mu_.py", []string{"solutions/mud.py", "solutions/mul.py"}},
		{"solutions/mil2.py", []string{"solutions/mul.py"}}, // mil.py is intent-to-add; mul.py is 2 away
		{"other/thing.py", nil},
		{"solutions/mul.py", []string{"solutions/mud.py"}}, // itself is no suggestion
	} {
		got := r.Near(tt.rel, 2)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Near(%q) = %q, want %q", tt.rel, got, tt.want)
		}
	}
}
