package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// exampleExpectation is an example's expected.json: what `behaves run`
// must conclude on it with the local test images.
type exampleExpectation struct {
	// Images maps a profile to the environment variable holding the local
	// image that replaces its placeholder (--image PROFILE=ID).
	Images map[string]string `json:"images"`
	// Flags are more flags for behaves run, as the example's comment shows
	// them (a ceiling it needs raised, say).
	Flags []string `json:"flags"`
	// ExitCode is run's exit code.
	ExitCode int `json:"exit_code"`
	// Programs maps every program's name to its verdict.
	Programs map[string]verdict.Verdict `json:"programs"`
	// Cases are cases to check one by one, with where the report places
	// them.
	Cases []struct {
		Program string          `json:"program"`
		Case    string          `json:"case"`
		Verdict verdict.Verdict `json:"verdict"`
		File    string          `json:"file"`
		Line    int             `json:"line"`
		Col     int             `json:"col"`
		// Runs, when not 0, is how many runs the case must keep (its
		// repeat), and Nondeterministic whether the runs disagreed.
		Runs             int  `json:"runs"`
		Nondeterministic bool `json:"nondeterministic"`
		// ReferenceRuns, when not 0, is how many runs of its reference a
		// same_as case must keep (reference_events).
		ReferenceRuns int `json:"reference_runs"`
	} `json:"cases"`
	// Rescore, when set, rescores the run's report against another spec
	// of the example's folder, as its comment shows: the exit code and
	// every program's verdict then, with nothing run.
	Rescore *struct {
		Spec     string                     `json:"spec"`
		ExitCode int                        `json:"exit_code"`
		Programs map[string]verdict.Verdict `json:"programs"`
	} `json:"rescore"`
}

// TestExamples runs every runnable example (examples/*/behaves.yml, as it
// is in the repository, so the workspace rule applies to it as to a user's
// spec) against the real daemon and checks the verdicts its expected.json
// states. An example without expected.json is an error: every example the
// docs show must run.
func TestExamples(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "behaves.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) == 0 {
		t.Fatal("no examples/*/behaves.yml found")
	}
	cl := dockertest.Client(t)
	for _, spec := range specs {
		dir := filepath.Dir(spec)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
			if err != nil {
				t.Fatalf("every example states what it concludes in expected.json: %v", err)
			}
			var want exampleExpectation
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("expected.json: %v", err)
			}
			reportPath := filepath.Join(t.TempDir(), "report.json")
			argv := []string{"run", "--spec", spec, "--report", reportPath}
			for profile, env := range want.Images {
				argv = append(argv, "--image", profile+"="+dockertest.Image(t, env))
			}
			argv = append(argv, want.Flags...)
			var stdout, stderr bytes.Buffer
			code := cli.Main(context.Background(), argv, cli.Env{
				Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv,
				NewSandbox: cli.DockerSandbox(context.Background()),
			})
			rep, err := readWritten(t, reportPath, reportwrite.DefaultMaxReportSize)
			if err != nil {
				t.Fatalf("exit %d, no report: %v\nstdout:\n%s\nstderr:\n%s", code, err, indent(stdout.String()), indent(stderr.String()))
			}
			dockertest.AssertNothingLeft(t, cl, rep.RunID)
			if code != want.ExitCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want.ExitCode, indent(stdout.String()), indent(stderr.String()))
			}
			got := map[string]verdict.Verdict{}
			cases := map[[2]string]report.Case{}
			for _, p := range rep.Programs {
				got[p.Name] = p.Verdict
				for _, c := range p.Cases {
					cases[[2]string{p.Name, c.Name}] = c
				}
			}
			if len(got) != len(want.Programs) {
				t.Errorf("programs %v, want %v", got, want.Programs)
			}
			for name, v := range want.Programs {
				if got[name] != v {
					t.Errorf("program %s: %s, want %s", name, got[name], v)
				}
			}
			for _, w := range want.Cases {
				c, ok := cases[[2]string{w.Program, w.Case}]
				if !ok {
					t.Errorf("no case %s / %s in the report", w.Program, w.Case)
					continue
				}
				if c.Verdict != w.Verdict || c.File != w.File || c.Line != w.Line || c.Col != w.Col {
					t.Errorf("case %s / %s: %s at %q:%d:%d, want %s at %q:%d:%d (reason: %s)",
						w.Program, w.Case, c.Verdict, c.File, c.Line, c.Col, w.Verdict, w.File, w.Line, w.Col, c.Reason)
				}
				if w.Runs != 0 && (c.RunCount() != w.Runs || c.Nondeterministic != w.Nondeterministic) {
					t.Errorf("case %s / %s: %d runs, nondeterministic %v; want %d, %v (reason: %s)",
						w.Program, w.Case, c.RunCount(), c.Nondeterministic, w.Runs, w.Nondeterministic, c.Reason)
				}
				if w.ReferenceRuns != 0 && len(c.ReferenceEvents) != w.ReferenceRuns {
					t.Errorf("case %s / %s: %d reference events, want %d (reason: %s)",
						w.Program, w.Case, len(c.ReferenceEvents), w.ReferenceRuns, c.Reason)
				}
			}
			if want.Rescore != nil {
				out := filepath.Join(t.TempDir(), "rescored.json")
				rargv := []string{"rescore", "--spec", filepath.Join(dir, want.Rescore.Spec), "--report", reportPath, "--report-out", out}
				rargv = append(rargv, argv[5:]...) // the same --image and flags as the run
				var rout, rerr bytes.Buffer
				code := cli.Main(context.Background(), rargv, cli.Env{
					Stdout: &rout, Stderr: &rerr, Getenv: os.Getenv,
					NewSandbox: func(context.Context, string) (runner.Sandbox, io.Closer, error) {
						t.Error("rescore asked for a sandbox")
						return nil, nil, errors.New("no sandbox in rescore")
					},
				})
				if code != want.Rescore.ExitCode {
					t.Errorf("rescore: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want.Rescore.ExitCode, indent(rout.String()), indent(rerr.String()))
				}
				rep, err := readWritten(t, out, reportwrite.DefaultMaxReportSize)
				if err != nil {
					t.Fatalf("rescore wrote no report: %v", err)
				}
				for _, p := range rep.Programs {
					if w, ok := want.Rescore.Programs[p.Name]; !ok || p.Verdict != w {
						t.Errorf("rescored program %s: %s, want %s", p.Name, p.Verdict, w)
					}
				}
				if len(rep.Programs) != len(want.Rescore.Programs) {
					t.Errorf("rescored %d programs, want %d", len(rep.Programs), len(want.Rescore.Programs))
				}
			}
		})
	}
}
