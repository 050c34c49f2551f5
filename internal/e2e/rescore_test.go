package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestRescore runs a spec on the real daemon, then rescores its report
// against edited expectations: the verdicts follow the new expectations,
// the programs keep the stored execution IDs, nothing asks for a sandbox,
// and the daemon, followed live through the rescore, creates no container
// with its run's label; an edited input is refused with the spec's
// position.
func TestRescore(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	spec := func(want, arg string) string {
		return fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %q
    command: ["/bin/sh"]
    timeout: 20s
programs:
  - name: double
    file: double.sh
    profile: sh
    cases:
      - {name: two, args: [%q], expect: {stdout: {equals: %q}}}
      - {name: stdin, stdin: "a\nb\n", expect: {stdout: {equals: "2"}}}
`, img.busybox, arg, want)
	}
	files := map[string]string{"double.sh": "if [ -n \"$1\" ]; then echo $(($1 * 2)); else wc -l | tr -d ' '; fi\n"}
	run := runBehaves(t, context.Background(), spec("4", "2"), files)
	if run.code != 0 {
		t.Fatalf("run: exit %d, want 0\n%s", run.code, indent(run.stderr))
	}
	_, rescore := rescorer(t, run, files)

	creates := watchCreates(t, cl)
	code, out, rep := rescore(spec("5", "2"))
	made := creates()
	if code != cli.ExitFalse {
		t.Fatalf("rescore with expect 5: exit %d, want %d\n%s", code, cli.ExitFalse, indent(out))
	}
	p := rep.Programs[0]
	if p.Cases[0].Verdict != verdict.False || !strings.Contains(p.Cases[0].Reason, `expected "5", got "4"`) || p.Cases[1].Verdict != verdict.True {
		t.Errorf("rescored cases: %+v / %+v", p.Cases[0], p.Cases[1])
	}
	if p.ExecutionID != run.report.Programs[0].ExecutionID || rep.RunID == run.report.RunID {
		t.Errorf("execution %q (stored %q), run %q (stored %q): want the stored execution in a new run", p.ExecutionID, run.report.Programs[0].ExecutionID, rep.RunID, run.report.RunID)
	}
	if n := len(made[rep.RunID]); n != 0 || rep.RunID == "" {
		t.Errorf("the daemon created %d containers for the rescore's run %q, want none", n, rep.RunID)
	}
	if n := len(made[run.report.RunID]); n != 0 {
		t.Errorf("the daemon created %d containers for the stored run %q during the rescore, want none", n, run.report.RunID)
	}

	// The stored expectation gives the stored verdicts back.
	if code, out, rep := rescore(spec("4", "2")); code != 0 || rep.Verdict != verdict.True {
		t.Errorf("rescore with the stored spec: exit %d, verdict %s\n%s", code, rep.Verdict, indent(out))
	}
	// A changed input cannot be answered by the stored evidence.
	code, out, _ = rescore(spec("6", "3"))
	if code != cli.ExitUsage || !strings.Contains(out, "behaves.yml:12:") || !strings.Contains(out, `args are ["3"], the stored case had ["2"]`) {
		t.Errorf("rescore with other args: exit %d, want 2 and the case's position\n%s", code, indent(out))
	}
}

// rescorer writes files and run's report into a folder and returns it with
// a function that rescores that report against a spec text (written there
// as behaves.yml): the exit code, what behaves printed, and the rescored
// report, read as behaves reads reports whenever rescore wrote one. A
// rescore that asks for a sandbox fails the test.
func rescorer(t *testing.T, run outcome, files map[string]string) (string, func(specText string) (int, string, report.Report)) {
	t.Helper()
	dir := writeTree(t, files)
	old := filepath.Join(dir, "old.json")
	b, err := json.Marshal(run.report)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, func(specText string) (int, string, report.Report) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "behaves.yml"), []byte(specText), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "new.json")
		var stdout, stderr bytes.Buffer
		code := cli.Main(context.Background(), []string{"rescore", "--spec", filepath.Join(dir, "behaves.yml"), "--report", old, "--report-out", out}, cli.Env{
			Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv,
			NewSandbox: func(context.Context, string) (runner.Sandbox, io.Closer, error) {
				t.Errorf("rescore asked for a sandbox")
				return nil, nil, fmt.Errorf("no sandbox in rescore")
			},
		})
		var rep report.Report
		if _, err := os.Stat(out); err == nil {
			if rep, err = reportread.File(out, reportwrite.DefaultMaxReportSize); err != nil {
				t.Fatalf("the rescored report does not read: %v", err)
			}
			if b, err := os.ReadFile(out); err == nil {
				schematest.Check(t, "the rescored report", b)
			}
		}
		return code, stdout.String() + stderr.String(), rep
	}
}
