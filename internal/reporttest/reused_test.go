package reporttest

import (
	"slices"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
)

// TestReused keeps the fixture what its comment says: it is read back
// checked, and its counts are those the renderers' tests expect.
func TestReused(t *testing.T) {
	t.Parallel()
	r := Reused(t)
	ru := r.Reuse
	if ru == nil {
		t.Fatal("no reuse block")
	}
	if ru.Reused != 6 || ru.Ran != 4 || len(ru.Sources) != 2 {
		t.Errorf("reuse = %+v, want 6 reused, 4 ran, 2 sources", ru)
	}
	want := []report.ReasonCount{{Reason: "changed: program", Cases: 2}, {Reason: "no stored run", Cases: 1}, {Reason: "undetermined", Cases: 1}}
	if !slices.Equal(ru.NotReused, want) {
		t.Errorf("not_reused = %v, want %v", ru.NotReused, want)
	}
	hostile := false
	for _, p := range r.Programs {
		for _, c := range p.Cases {
			if c.NotReused != nil && c.NotReused.Detail == HostileDetail {
				hostile = true
			}
		}
	}
	if !hostile {
		t.Error("no case keeps the hostile detail as it is")
	}
}
