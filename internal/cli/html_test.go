package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/htmlreport"
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
// says (relative to the workspace) and the html output names it; the
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
	if !strings.Contains(r.stdout, "the HTML report was not written") {
		t.Errorf("a page whose folder is missing: no warning\n%s", r.stdout)
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
	if out := e.file(t, "set_output"); !strings.Contains(out, "\nout/behaves-report.html\n") || !strings.Contains(out, "html<<") {
		t.Errorf("outputs %q lack html", out)
	}
}
