package publish

import (
	"fmt"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/ghlimits"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// hugeReport has 5,000 failing cases (50 programs of 100) whose stdout and
// stderr are 64 KiB each, and 2,000 true programs.
func hugeReport() report.Report {
	out := strings.Repeat(strings.Repeat("x", 63)+"\n", 1024) // 64 KiB
	var progs []report.Program
	for i := range 50 {
		var cases []report.Case
		for j := range 100 {
			c := kase(fmt.Sprintf("case %d", j), 100+j, verdict.False, "stdout differs", intp(1), out, out, out, "a")
			cases = append(cases, c)
		}
		progs = append(progs, program(fmt.Sprintf("gen-%02d", i), fmt.Sprintf("gen/%02d.py", i), 10, cases...))
	}
	for i := range 2000 {
		progs = append(progs, program(fmt.Sprintf("ok-%04d", i), fmt.Sprintf("ok/%04d.py", i), 20,
			kase("c", 14, verdict.True, "", intp(0), "", "", "")))
	}
	return finish(report.Report{Spec: "behaves.yml", SpecFile: "behaves.yml", Programs: progs})
}

func TestHugeReportStaysWithinLimits(t *testing.T) {
	t.Parallel()
	r := hugeReport()
	// A check run that carries 1,250 of the 5,050 annotations: the sentence
	// counting the rest fits within each limit too.
	opt := Options{RunURL: testRunURL, Annotations: true, CheckRun: true, CheckRunAnnotations: 1250}
	for _, tt := range []struct {
		name  string
		md    string
		limit int
	}{
		{"summary", Summary(r, opt), StepSummaryLimit - 1},
		{"comment", Comment(r, opt), ghlimits.CommentBytes},
		{"check run", CheckRunSummary(r, opt), ghlimits.CheckRunSummaryBytes},
	} {
		if len(tt.md) > tt.limit {
			t.Errorf("%s: %d bytes, above %d", tt.name, len(tt.md), tt.limit)
		}
		// Trimmed, saying so, and still well-formed: every block that was
		// opened is closed and the footer is there.
		for _, want := range []string{"**Trimmed** to stay within GitHub's limit of", "true programs are left out of the table",
			"output is cut to 512 bytes and 8 lines a block", "cases that are not true are not described", "behaves `v0.1.0-test`",
			"3800 of the 5050 annotations were not sent to the check run"} {
			if !strings.Contains(tt.md, want) {
				t.Errorf("%s: does not say %q", tt.name, want)
			}
		}
		if open, closed := strings.Count(tt.md, "<details>"), strings.Count(tt.md, "</details>"); open == 0 || open != closed {
			t.Errorf("%s: %d <details> opened, %d closed", tt.name, open, closed)
		}
		got := inspect(cmarkGFM(t, tt.md))
		if got.nested != 0 || len(got.details) != strings.Count(tt.md, "<details>") {
			t.Errorf("%s: %d rendered <details> (%d nested)", tt.name, len(got.details), got.nested)
		}
	}
}

// The stages give way one after another: a report that fits whole is not
// trimmed; one whose true rows push it over the budget loses those first.
func TestTrimmingStages(t *testing.T) {
	t.Parallel()
	r := fixture()
	for i := range 40 {
		r.Programs = append(r.Programs, program(fmt.Sprintf("ok-%02d", i), fmt.Sprintf("ok/%02d.py", i), 90,
			kase("c", 14, verdict.True, "", intp(0), "", "", "")))
	}
	r = finish(r)
	full := CheckRunSummary(r, Options{})
	if strings.Contains(full, "Trimmed") {
		t.Fatalf("a small report was trimmed:\n%s", full)
	}
	without := render(r, Options{}, len(full)-1, "")
	if !strings.Contains(without, "the 43 true programs are left out of the table") || strings.Contains(without, "output is cut") {
		t.Errorf("one byte short: want the true rows left out and nothing more:\n%s", without)
	}
	if len(without) > len(full)-1 {
		t.Errorf("%d bytes, above the budget %d", len(without), len(full)-1)
	}
	tiny := render(r, Options{}, 1500, "")
	if len(tiny) > 1500 || !strings.Contains(tiny, "output is cut to 512 bytes") || !strings.Contains(tiny, "not described") {
		t.Errorf("%d bytes, want at most 1500, shortened, with cases not described:\n%s", len(tiny), tiny)
	}
}
