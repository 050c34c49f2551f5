package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/htmlreport"
	"github.com/behaves-dev/behaves/internal/runner"
)

// TestHTMLCommand guards behaves html: a report written by a run renders
// to a page with the policy and the failing case; a forged report is
// refused (exit 4) and leaves no page; a stray argument is a usage error.
func TestHTMLCommand(t *testing.T) {
	t.Parallel()
	_, _, reportPath := ranAction(t, fakeSpec(1, 1), ExitFalse)
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	r := runMain(t, t.Context(), nil, "html", "--report", reportPath, "-o", out)
	if r.code != ExitTrue {
		t.Fatalf("behaves html: exit %d\n%s", r.code, r.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{htmlreport.CSP, "fails aa", "::error::forged", `data-verdict="false"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	good, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, dir, "forged.json", strings.ReplaceAll(string(good), `"verdict": "false"`, `"verdict": "true"`))
	forgedOut := filepath.Join(dir, "forged.html")
	r = runMain(t, t.Context(), nil, "html", "--report", filepath.Join(dir, "forged.json"), "-o", forgedOut)
	if r.code != ExitRunFailed || !strings.Contains(r.stderr, "reading report") {
		t.Errorf("a forged report: exit %d, want %d and why:\n%s", r.code, ExitRunFailed, r.stderr)
	}
	if _, err := os.Stat(forgedOut); !os.IsNotExist(err) {
		t.Errorf("a page was written for a forged report: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
	if r := runMain(t, t.Context(), nil, "html", "--report", reportPath, "extra"); r.code != ExitUsage {
		t.Errorf("a stray argument: exit %d, want %d", r.code, ExitUsage)
	}
}

// TestActionHTMLInput guards the html input: the page is written where it
// says (relative to the workspace), and the log and the html output name
// it; the
// report's verdict still decides the exit code.
func TestActionHTMLInput(t *testing.T) {
	t.Parallel()
	ws, e, _ := ranAction(t, fakeSpec(1, 1), ExitFalse)
	r := e.main(t, Env{}, map[string]string{"command": "publish", "comment": "off", "html": "out/behaves-report.html"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("publish with html: exit %d, want %d\n%s", r.code, ExitFalse, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(ws, "out")); err == nil {
		t.Fatal("out/ exists before the test made it") // the page needs its folder
	}
	if !strings.Contains(r.stdout, "the HTML report was not written") || strings.Contains(r.stdout, "wrote the HTML page") {
		t.Errorf("a page whose folder is missing: no warning, or a claim that it was written\n%s", r.stdout)
	}
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = e.main(t, Env{}, map[string]string{"command": "publish", "comment": "off", "html": "out/behaves-report.html"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("publish with html: exit %d, want %d\n%s", r.code, ExitFalse, r.stdout)
	}
	page, err := os.ReadFile(filepath.Join(ws, "out", "behaves-report.html"))
	if err != nil {
		t.Fatalf("the html input wrote no page: %v\n%s", err, r.stdout)
	}
	if !strings.Contains(string(page), htmlreport.CSP) {
		t.Error("the page lacks its policy")
	}
	// The log names the page, as run --html's does.
	if !strings.Contains(r.stdout, "behaves: wrote the HTML page to out/behaves-report.html\n") {
		t.Errorf("the log does not name the page:\n%s", r.stdout)
	}
	if out := e.file(t, "set_output"); !strings.Contains(out, "\nout/behaves-report.html\n") || !strings.Contains(out, "html<<") {
		t.Errorf("outputs %q lack html", out)
	}
}

// TestRunHTML guards run --html: from the start of the run a stale page at
// the path is replaced by one saying the run did not finish; at the end the
// page is the one behaves html renders from the report the run wrote.
func TestRunHTML(t *testing.T) {
	t.Parallel()
	spec := shSpec(t, `[{name: passes, expect: {exit_code: 1}}, {name: fails}]`)
	dir := t.TempDir()
	rpath := filepath.Join(dir, "r.json")
	hpath := filepath.Join(dir, "r.html")
	gittest.WriteFile(t, dir, "r.html", "<p>all good (stale)</p>")
	var during []byte
	probe := func(ctx context.Context, id string) (runner.Sandbox, io.Closer, error) {
		during, _ = os.ReadFile(hpath)
		return exitOneHostile(), io.NopCloser(nil), nil
	}
	r := runMain(t, t.Context(), probe, "run", "--spec", spec, "--report", rpath, "--html", hpath)
	if r.code != ExitFalse {
		t.Fatalf("run --html: exit %d, want %d\n%s", r.code, ExitFalse, r.stderr)
	}
	if !strings.Contains(string(during), htmlreport.CSP) || !strings.Contains(string(during), "the run did not finish") {
		t.Errorf("during the run the page is not one saying the run did not finish:\n%.400s", during)
	}
	page, err := os.ReadFile(hpath)
	if err != nil {
		t.Fatalf("run --html wrote no page: %v", err)
	}
	conv := filepath.Join(dir, "converted.html")
	if r := runMain(t, t.Context(), nil, "html", "--report", rpath, "-o", conv); r.code != ExitTrue {
		t.Fatalf("behaves html: exit %d\n%s", r.code, r.stderr)
	}
	if string(mustRead(t, conv)) != string(page) {
		t.Error("run --html wrote another page than behaves html renders from the same report")
	}
	if !strings.Contains(string(page), `data-verdict="false"`) {
		t.Error("the page lacks the false case")
	}

	// A spec error still leaves a page, naming the problem.
	bad := writeSpec(t, map[string]string{"behaves.yml": "version: 1\nprofiles: {}\nprograms: []\nbogus: 1\n"})
	r = runMain(t, t.Context(), fixed(&recordingSandbox{}), "run", "--spec", bad, "--report", rpath, "--html", hpath)
	if r.code != ExitUsage {
		t.Fatalf("a spec error: exit %d, want %d", r.code, ExitUsage)
	}
	if page := mustRead(t, hpath); !strings.Contains(string(page), "bogus") {
		t.Errorf("after a spec error the page does not name the problem:\n%.400s", page)
	}

	// A page that cannot be written fails the run, as --junit's does.
	r = runMain(t, t.Context(), fixed(exitOneHostile()), "run", "--spec", spec, "--report", rpath, "--html", filepath.Join(dir, "missing", "r.html"))
	if r.code != ExitRunFailed || !strings.Contains(r.stderr, "missing") {
		t.Errorf("an unwritable page: exit %d, want %d and why:\n%s", r.code, ExitRunFailed, r.stderr)
	}
}
