package htmlreport

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestNotGatingShown: a program whose verdict does not decide the run's
// says so on the page.
func TestNotGatingShown(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	in.Programs[1].Spec.NotGating = true
	page := renderString(t, assemble.Report(in), Limits{})
	if n := strings.Count(page, `<span class="badge">not gating</span>`); n != 1 {
		t.Errorf("%d not-gating badges, want 1 (the one program)", n)
	}
}
