package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
)

// images are the locally built test images (scripts/images.sh).
type images struct{ busybox, python, entrypoint string }

func testImages(tb testing.TB) images {
	tb.Helper()
	return images{
		busybox:    dockertest.Image(tb, "BEHAVES_IMAGE_BUSYBOX"),
		python:     dockertest.Image(tb, "BEHAVES_IMAGE_PYTHON"),
		entrypoint: dockertest.Image(tb, "BEHAVES_IMAGE_ENTRYPOINT"),
	}
}

// outcome is what one `behaves run` did.
type outcome struct {
	code           int
	stdout, stderr string
	report         report.Report
}

// program finds a program in the report by name.
func (o outcome) program(tb testing.TB, name string) report.Program {
	tb.Helper()
	for _, p := range o.report.Programs {
		if p.Name == name {
			return p
		}
	}
	tb.Fatalf("no program %q in the report", name)
	return report.Program{}
}

// writeTree writes files (path → content) into a fresh folder and returns it.
func writeTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// runBehaves writes the spec and its files into a fresh folder, runs
// `behaves run` there against the real daemon with extra args, decodes the
// report, and checks that the run left no container or volume behind.
func runBehaves(tb testing.TB, ctx context.Context, spec string, files map[string]string, args ...string) outcome {
	tb.Helper()
	cl := dockertest.Client(tb)
	o := runSpec(tb, ctx, spec, files, args...)
	dockertest.AssertNothingLeft(tb, cl, o.report.RunID)
	return o
}

// runSpec writes the spec and its files into a fresh folder, runs `behaves
// run` there with extra args (the Docker client from the environment), and
// decodes the report. It checks nothing about leftovers: its callers do.
func runSpec(tb testing.TB, ctx context.Context, spec string, files map[string]string, args ...string) outcome {
	tb.Helper()
	if files == nil {
		files = map[string]string{}
	}
	return runSpecIn(tb, ctx, writeTree(tb, files), spec, args...)
}

// runSpecIn is runSpec in dir, a folder that holds the spec's files
// already: the spec is written there as behaves.yml.
func runSpecIn(tb testing.TB, ctx context.Context, dir, spec string, args ...string) outcome {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, "behaves.yml"), []byte(spec), 0o644); err != nil {
		tb.Fatal(err)
	}
	reportPath := filepath.Join(tb.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	argv := append([]string{"run", "--spec", filepath.Join(dir, "behaves.yml"), "--report", reportPath}, args...)
	code := cli.Main(ctx, argv, cli.Env{
		Stdout:     &stdout,
		Stderr:     &stderr,
		Getenv:     os.Getenv,
		NewSandbox: cli.DockerSandbox(context.Background()),
	})
	o := outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
	b, err := os.ReadFile(reportPath)
	if err != nil {
		tb.Fatalf("no report (exit %d): %v\nstderr:\n%s", code, err, indent(o.stderr))
	}
	if err := json.Unmarshal(b, &o.report); err != nil {
		tb.Fatalf("the report is not valid JSON: %v", err)
	}
	schematest.Check(tb, "the report of behaves run", b)
	return o
}

// indent prefixes every line, for readable failure messages.
func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// readWritten reads a report behaves wrote, as behaves reads one
// (reportread.File), after checking it against the strict schema.
func readWritten(tb testing.TB, path string, limit int64) (report.Report, error) {
	tb.Helper()
	if b, err := os.ReadFile(path); err == nil {
		schematest.Check(tb, path, b)
	}
	return reportread.File(path, limit)
}
