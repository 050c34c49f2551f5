package spec

import (
	"strings"
	"testing"
)

// TestSelect: --program patterns name programs by name or by their
// files: entry's name, keep the spec's order, and a pattern that names
// nothing is an error that says what there is.
func TestSelect(t *testing.T) {
	t.Parallel()
	s := &Spec{Path: "behaves.yml", Programs: []Program{
		{Name: "gate"}, {Name: "sum/a.go", Group: "sum"}, {Name: "sum/b.go", Group: "sum"}, {Name: "compare"},
	}}
	names := func(ps []Program) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		patterns []string
		want     string
	}{
		{[]string{"sum"}, "sum/a.go sum/b.go"},
		{[]string{"compare", "gate"}, "gate compare"},
		{[]string{"sum/b*"}, "sum/b.go"},
		{[]string{"*"}, "gate sum/a.go sum/b.go compare"},
	} {
		got, err := s.Select(tt.patterns)
		if err != nil || names(got) != tt.want {
			t.Errorf("Select(%q) = %q, %v; want %q", tt.patterns, names(got), err, tt.want)
		}
	}
	if _, err := s.Select([]string{"gate", "sun"}); err == nil || !strings.Contains(err.Error(), `--program "sun" names no program of behaves.yml (did you mean "sum`) {
		t.Errorf("Select of a typo: %v", err)
	}
	if err := CheckProgramPattern("a[b"); err == nil {
		t.Error("CheckProgramPattern accepts a bad glob")
	}
}
