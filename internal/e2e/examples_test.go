package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/actionstest"
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
	// Groups, when set, maps every sample group (a files: or dirs: entry)
	// to its counts and pass@k, as the report states them.
	Groups map[string]exampleGroup `json:"groups"`
	// Annotations, when set, are the workflow-command annotations that
	// `behaves publish --annotations` prints for the run's report, in the
	// order it prints them (every one: a list that leaves one out fails).
	Annotations []exampleAnnotation `json:"annotations"`
	// Rescore, when set, rescores the run's report against another spec
	// of the example's folder, as its comment shows: the exit code and
	// every program's verdict then, with nothing run.
	Rescore *struct {
		Spec     string                     `json:"spec"`
		ExitCode int                        `json:"exit_code"`
		Programs map[string]verdict.Verdict `json:"programs"`
	} `json:"rescore"`
}

// exampleGroup is a sample group's counts and its pass@k by k.
type exampleGroup struct {
	N            int                `json:"n"`
	True         int                `json:"true"`
	False        int                `json:"false"`
	Undetermined int                `json:"undetermined"`
	PassAt       map[string]float64 `json:"pass_at"`
}

// exampleAnnotation is one annotation an example's expected.json states:
// its level (error, warning), the repository file and line, and its title.
type exampleAnnotation struct {
	Level string `json:"level"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	Title string `json:"title"`
}

// publishedAnnotations runs `behaves publish --annotations` on the report
// at reportPath, with no GITHUB_* variable (offline: nothing but stdout is
// written), and returns its exit code, the annotations the runner would
// read from its stdout (actionstest.Commands: outside stop-commands
// regions), and its stdout for failure messages.
func publishedAnnotations(t *testing.T, reportPath string) (int, []exampleAnnotation, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), []string{"publish", "--report", reportPath, "--annotations"}, cli.Env{
		Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" },
		NewSandbox: func(context.Context, string) (runner.Sandbox, io.Closer, error) {
			t.Error("publish asked for a sandbox")
			return nil, nil, errors.New("no sandbox in publish")
		},
	})
	var got []exampleAnnotation
	for _, c := range actionstest.Commands(stdout.String()) {
		if c.Name != "error" && c.Name != "warning" && c.Name != "notice" {
			continue
		}
		a, err := parseAnnotation(c.Text)
		if err != nil {
			t.Errorf("publish printed %q: %v", c.Text, err)
			continue
		}
		got = append(got, a)
	}
	return code, got, stdout.String() + stderr.String()
}

// parseAnnotation reads "::LEVEL file=F,line=N,…,title=T::message" as the
// runner does: properties split at "," and "=", then unescaped.
func parseAnnotation(line string) (exampleAnnotation, error) {
	info, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "::"), "::")
	if !ok {
		return exampleAnnotation{}, errors.New("no second ::")
	}
	level, props, _ := strings.Cut(info, " ")
	a := exampleAnnotation{Level: level}
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	for _, kv := range strings.Split(props, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return exampleAnnotation{}, fmt.Errorf("property %q has no =", kv)
		}
		v = unescape.Replace(v)
		switch k {
		case "file":
			a.File = v
		case "line":
			n, err := strconv.Atoi(v)
			if err != nil {
				return exampleAnnotation{}, fmt.Errorf("line %q: %w", v, err)
			}
			a.Line = n
		case "title":
			a.Title = v
		}
	}
	return a, nil
}

// TestExamples runs every runnable example (examples/*/behaves.yml, as it
// is in the repository, so the workspace rule applies to it as to a user's
// spec) against the real daemon and checks the verdicts its expected.json
// states, and, where it states them, the annotations `behaves publish`
// prints from the report the run wrote. An example without expected.json
// is an error: every example the docs show must run.
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
			if want.Groups != nil {
				got := map[string]exampleGroup{}
				for _, g := range rep.Groups {
					eg := exampleGroup{N: g.N, True: g.True, False: g.False, Undetermined: g.Undetermined, PassAt: map[string]float64{}}
					for k, v := range g.PassAt {
						if v == nil {
							t.Errorf("group %s: pass@%s is null (%s)", g.Name, k, g.PassAtReasons[k])
							continue
						}
						eg.PassAt[k] = *v
					}
					got[g.Name] = eg
				}
				if fmt.Sprint(got) != fmt.Sprint(want.Groups) {
					t.Errorf("groups %+v, want %+v", got, want.Groups)
				}
			}
			if want.Annotations != nil {
				pcode, anns, out := publishedAnnotations(t, reportPath)
				if pcode != want.ExitCode {
					t.Errorf("publish: exit code %d, want %d (run's)\n%s", pcode, want.ExitCode, indent(out))
				}
				if fmt.Sprint(anns) != fmt.Sprint(want.Annotations) {
					t.Errorf("publish printed the annotations\n%s\nwant\n%s\nits output:\n%s",
						indent(fmt.Sprintf("%+v", anns)), indent(fmt.Sprintf("%+v", want.Annotations)), indent(out))
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
