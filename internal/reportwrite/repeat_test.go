package reportwrite_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
)

// TestRepeatBudgetCountsEveryRun guards the size budget: the extra runs'
// output counts against it. A budget that holds the case with one run's
// output but not with three leaves the repeated case's output out.
func TestRepeatBudgetCountsEveryRun(t *testing.T) {
	t.Parallel()
	in, runs := reporttest.RepeatInput()
	big := strings.Repeat("0", 4000) + "\n"
	for k := range runs[1] {
		runs[1][k].Event.Stdout = runner.Stream{Data: []byte(big), Bytes: int64(len(big))}
	}
	// The steady case's entry is about 6 KiB without output and 17.5 KiB
	// with it (4,001 bytes in event, runs[0] and runs[1]); run once, it is
	// about 6 KiB with its output.
	w, err := assemble.NewWriter(filepath.Join(t.TempDir(), "r.json"), reportwrite.Options{MaxSize: 14 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddCase(0, 1, assemble.Case{Spec: in.Spec.Programs[0].Cases[1], Runs: runs[1], Result: in.Programs[0].Cases[1].Result})
	if w.Omitted() != 1 || w.Used() > 14<<10 {
		t.Errorf("omitted %d cases, used %d bytes; want the case left out within the budget", w.Omitted(), w.Used())
	}
	single, err := assemble.NewWriter(filepath.Join(t.TempDir(), "r.json"), reportwrite.Options{MaxSize: 14 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	single.AddCase(0, 1, assemble.Case{Spec: in.Spec.Programs[0].Cases[1], Runs: runs[1][:1], Result: in.Programs[0].Cases[1].Result})
	if single.Omitted() != 0 {
		t.Errorf("one run's output was left out too (used %d): the budget is too small for this test", single.Used())
	}
}
