package reportwrite_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// entrySizes are the bytes of the first case's entry in the report, with
// and without its output (all of reporttest.BudgetRun's are alike).
func entrySizes(t *testing.T, in assemble.Input) (full, bare int64) {
	t.Helper()
	full, bare, err := reportwrite.EntrySizes(assemble.Report(in).Programs[0].Cases[0])
	if err != nil {
		t.Fatal(err)
	}
	if full < 2*4*int64(in.Programs[0].Cases[0].Runs[0].Event.Stdout.Bytes)/3 {
		t.Fatalf("entry of %d bytes: the output is not in it", full)
	}
	return full, bare
}

// spoolSize is the bytes in w's spool folder.
func spoolSize(t *testing.T, w *assemble.Writer) int64 {
	t.Helper()
	entries, err := os.ReadDir(w.SpoolDir())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// TestWriterBudget guards --max-report-size: true cases' output goes
// first, then undetermined, false last; what is left out is marked with
// its size and digest; verdicts stay; neither the spool nor the report
// grows past the budget.
func TestWriterBudget(t *testing.T) {
	t.Parallel()
	const n = 10 << 10
	T, F, U := verdict.True, verdict.False, verdict.Undetermined
	// Added in this order: trues fill the budget, then the false and
	// undetermined ones must push them out.
	verdicts := []verdict.Verdict{T, T, T, T, U, F, F, T, U}
	in := reporttest.BudgetRun(verdicts, n)
	full, bare := entrySizes(t, in)
	budget := 4*full + 6*bare // four entries with output, the rest without
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for j, c := range in.Programs[0].Cases {
		w.AddCase(0, j, c)
		if got := spoolSize(t, w); got > budget {
			t.Fatalf("after case %d the spool holds %d bytes, over the budget %d", j, got, budget)
		}
	}
	in = reporttest.AddAll(w, in) // already added: nothing changes
	if _, err := reporttest.Commit(t, w, assemble.Report(in)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) > budget+8<<10 {
		t.Errorf("report is %d bytes, budget %d", len(data), budget)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(bytes.Repeat([]byte{1}, n)))
	omitted := 0
	for j, c := range r.Programs[0].Cases {
		e := c.Event
		if c.Verdict != verdicts[j] {
			t.Errorf("case %d: verdict %v, want %v", j, c.Verdict, verdicts[j])
		}
		if e.StdoutKeptBytes != n || e.StdoutSHA256 != sum || e.StderrSHA256 != sum {
			t.Errorf("case %d: kept %d, sha256 %s: the evidence's identity is lost", j, e.StdoutKeptBytes, e.StdoutSHA256)
		}
		if e.StdoutOmitted != e.StderrOmitted {
			t.Errorf("case %d: one stream omitted, not the other", j)
		}
		switch {
		case e.StdoutOmitted:
			omitted++
			if e.StdoutBase64 != "" || e.Stdout != "" || e.StderrBase64 != "" {
				t.Errorf("case %d: omitted, but output is there", j)
			}
			if c.Verdict != verdict.True {
				t.Errorf("case %d (%v): output omitted while true cases' output went first", j, c.Verdict)
			}
		case !bytes.Equal(e.StdoutData(), bytes.Repeat([]byte{1}, n)) || !bytes.Equal(e.StderrData(), bytes.Repeat([]byte{1}, n)):
			t.Errorf("case %d: output not kept exactly", j)
		case e.Stdout != "":
			t.Errorf("case %d: control characters stored as JSON text, not base64", j)
		}
	}
	// Four fit: the four not true ones keep theirs, every true one loses it.
	if omitted != 5 || r.OutputOmittedCases != 5 {
		t.Errorf("%d cases omitted (output_omitted_cases %d), want the 5 true ones", omitted, r.OutputOmittedCases)
	}
}

// TestWriterBudgetRanks guards the order among cases that are not true:
// a false case pushes out an undetermined one, never another false one,
// and a case that finds no room is omitted itself.
func TestWriterBudgetRanks(t *testing.T) {
	t.Parallel()
	const n = 10 << 10
	T, F, U := verdict.True, verdict.False, verdict.Undetermined
	verdicts := []verdict.Verdict{U, F, F, T, U}
	in := reporttest.BudgetRun(verdicts, n)
	full, bare := entrySizes(t, in)
	w, err := assemble.NewWriter(filepath.Join(t.TempDir(), "report.json"), reportwrite.Options{MaxSize: full + 4*bare})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for j, c := range in.Programs[0].Cases {
		w.AddCase(0, j, c)
	}
	r, err := reporttest.Commit(t, w, assemble.Report(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, true, true, true} // omitted?
	for j, c := range r.Programs[0].Cases {
		if c.Event.StdoutOmitted != want[j] {
			t.Errorf("case %d (%v): omitted %v, want %v", j, c.Verdict, c.Event.StdoutOmitted, want[j])
		}
	}
}

// TestWriterExcerpts guards the memory a run keeps for the terminal: only
// the first cases that are not true, in the spec's order, hold the start of
// their output, and never more than a block's worth.
func TestWriterExcerpts(t *testing.T) {
	t.Parallel()
	F := verdict.False
	in := reporttest.BudgetRun([]verdict.Verdict{F, F, F, F}, 64<<10)
	w, err := assemble.NewWriter(filepath.Join(t.TempDir(), "report.json"), reportwrite.Options{Excerpts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, j := range []int{3, 1, 2, 0} { // finished out of order
		w.AddCase(0, j, in.Programs[0].Cases[j])
	}
	r, err := reporttest.Commit(t, w, assemble.Report(in))
	if err != nil {
		t.Fatal(err)
	}
	excerptBytes := report.ExcerptMax + utf8.UTFMax // ExcerptMax and a rune, to cut at
	for j, c := range r.Programs[0].Cases {
		stdout, stderr := c.HeldOutput()
		if got, want := stdout != nil, j < 2; got != want {
			t.Errorf("case %d: excerpt held %v, want %v", j, got, want)
		}
		if stdout != nil && (len(stdout) != excerptBytes || len(stderr) != excerptBytes) {
			t.Errorf("case %d: excerpt of %d and %d bytes, want %d", j, len(stdout), len(stderr), excerptBytes)
		}
	}
}

// TestWriterFilesBudget: a program's files list counts toward the
// budget; one that does not fit beside the case entries is left out
// whole, marked, its count kept, and the report still reads (the digest
// it no longer vouches for stays).
func TestWriterFilesBudget(t *testing.T) {
	t.Parallel()
	const n = 1 << 10
	verdicts := []verdict.Verdict{verdict.False, verdict.True}
	for _, tt := range []struct {
		name    string
		slack   int64 // the budget beyond the case entries
		omitted bool
	}{
		{"room for the list", 1 << 20, false},
		{"no room for it", 1 << 10, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := reporttest.BudgetRun(verdicts, n)
			in.RunID, in.StartedAt, in.Version = "run-0001", reporttest.StartedAt, "v0.1.0-test"
			p := &in.Programs[0].Spec
			p.Program = runner.Program{Folder: true, Files: runner.FilesOf(map[string][]byte{})}
			for i := range 300 {
				p.Program.Files[fmt.Sprintf("pkg/module_%03d.sh", i)] = runner.BytesFile([]byte(fmt.Sprintf("echo %d\n", i)))
			}
			full, _ := entrySizes(t, in)
			budget := int64(len(verdicts))*full + tt.slack
			path := filepath.Join(t.TempDir(), "report.json")
			w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: budget})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			in = reporttest.AddAll(w, in)
			if _, err := reporttest.Commit(t, w, assemble.Report(in)); err != nil {
				t.Fatal(err)
			}
			r, err := reporttest.ReadFile(t, path, 1<<30)
			if err != nil {
				t.Fatalf("the report does not read back: %v", err)
			}
			got := r.Programs[0]
			if got.FilesOmitted != tt.omitted || got.FileCount != 300 || (len(got.Files) == 0) != tt.omitted {
				t.Errorf("files_omitted %v, file_count %d, %d listed; want omitted %v, 300", got.FilesOmitted, got.FileCount, len(got.Files), tt.omitted)
			}
			if got.ProgramSHA256 != p.Program.Digest() {
				t.Errorf("program_sha256 %s, want %s", got.ProgramSHA256, p.Program.Digest())
			}
			for _, c := range got.Cases {
				if c.Event.StdoutOmitted {
					t.Errorf("case %s lost its output to the files list", c.Name)
				}
			}
		})
	}
}
