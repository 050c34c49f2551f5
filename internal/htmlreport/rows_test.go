package htmlreport

import "testing"

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
