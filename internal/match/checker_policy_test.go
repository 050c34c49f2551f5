package match_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/match"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/rescore"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// checked turns the policy spec into one whose echo/x a checker judges:
// the checker c (check.sh) under a profile of its own, cp.
func checked(s string) string {
	s = strings.Replace(s, "programs:", `  cp: {image: "sha256:`+strings.Repeat("c", 64)+`", command: ["/bin/sh"], timeout: 5s, memory: 32MiB}
checkers: {c: {file: check.sh, profile: cp}}
programs:`, 1)
	return strings.Replace(s, `args: ["x"], expect: {stdout: {equals: "x"}}`, `args: ["x"], expect: {stdout: {checker: c, answer: "x"}}`, 1)
}

// checkedReport is the report of a run of the checked spec sp as the
// engine records it: every case printed its argument, and the checker c
// said "wrong answer" (exit 1) of echo/x's stdout, its run recording what
// its containers were built from. edit changes it before it is written.
func checkedReport(t *testing.T, sp *spec.Spec, edit func(r *report.Report)) report.Report {
	t.Helper()
	in := assemble.Input{Spec: sp, RunID: "run-1"}
	ch := sp.Checkers[0]
	cprof := sp.CheckerJob(ch, nil).Profile
	capplied := runner.Apply(cprof)
	for _, p := range sp.Programs {
		prof := sp.Job(p).Profile
		ap := runner.Apply(prof)
		obs := runner.Observation{ExecutionID: "exec-" + p.Name, Acquisition: runner.AcquisitionComplete,
			Settings: runner.Settings{Image: prof.Image, ImageID: prof.Image, Applied: ap}}
		if ap.Build != nil {
			code := 0
			obs.Build = &runner.Event{ExitCode: &code, Command: ap.Build.Command, ImageDigest: prof.Image}
		}
		for _, c := range p.Cases {
			code := 0
			out := c.Invocation.Args[0] + "\n"
			obs.Events = append(obs.Events, runner.Event{ExitCode: &code, Stdout: runner.Stream{Data: []byte(out), Bytes: int64(len(out))},
				StdinSHA256: emptySHA256, ImageDigest: prof.Image,
				ProgramSHA256: p.Program.Digest(), Command: append(ap.Command, c.Invocation.Args...), Applied: &ap})
		}
		rec := reporttest.Ran(p, obs, 0)
		for k, c := range p.Cases {
			if c.Expect.CheckerName() == "" {
				continue
			}
			ev := obs.Events[k]
			one := 1
			cev := runner.Event{ExitCode: &one, Stderr: runner.Stream{Data: []byte("wrong answer\n"), Bytes: 13},
				ImageDigest: cprof.Image, ProgramSHA256: ch.Program.Digest(), Command: []string{"/bin/sh", "check.sh"}, Applied: &capplied}
			a := capplied.Clone()
			cr := assemble.CheckerRun{Checker: ch.Name, Run: 0, Stream: "stdout", ProgramSHA256: ch.Program.Digest(),
				InputSHA256: sum(c.Invocation.Stdin), OutputSHA256: sum(ev.Stdout.Data), AnswerSHA256: sum([]byte("x")),
				Applied: &a, Event: cev}
			runs, res := verdict.JudgeCheckedRuns(c.Expect, nil, []runner.Event{ev}, []verdict.Checked{{Stdout: &cev}})
			kc := &rec.Cases[k]
			kc.Runs, kc.Result, kc.Checkers = []assemble.RunResult{{Event: ev, Result: runs[0]}}, res, []assemble.CheckerRun{cr}
		}
		in.Programs = append(in.Programs, rec)
	}
	r := assemble.Report(in)
	if edit != nil {
		edit(&r)
		r = report.Folded(r, nil)
	}
	path := filepath.Join(t.TempDir(), "stored.json")
	if err := os.WriteFile(path, reporttest.Encoded(t, r), 0o644); err != nil {
		t.Fatal(err)
	}
	stored, err := reportread.File(path, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestCheckerPolicies: rescore judges a checked case with its stored
// checker run when the run's key is the spec's now (the checker's files,
// image, settings and build, the input, the stored run's output and the
// answer), whatever changed elsewhere in the expectation; otherwise it
// refuses at the case, naming the checker and the part that differs.
// reuse takes the program's stored run either way (its checker runs
// again).
func TestCheckerPolicies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		spec    func(string) string // applied after checked
		files   map[string]string   // the files of the spec's folder now
		stored  func(r *report.Report)
		rescore string // what rescore's error says, "" when it accepts
	}{
		{name: "the stored checker run matches"},
		{name: "an expectation elsewhere changed", spec: func(s string) string {
			return strings.Replace(s, `{checker: c, answer: "x"}}`, `{checker: c, answer: "x"}, exit_code: 0}`, 1)
		}},
		{name: "the checker file changed", files: map[string]string{"check.sh": "exit 1\n"},
			rescore: `case "x" of program "echo": checker "c": check.sh changed since the stored run (sha256 `},
		{name: "the answer changed", spec: func(s string) string { return strings.Replace(s, `answer: "x"`, `answer: "y"`, 1) },
			rescore: `case "x" of program "echo": checker "c": its answer changed since the stored check (sha256 ` + sum([]byte("y"))[:12] + `, stored ` + sum([]byte("x"))[:12] + `)`},
		{name: "a setting of the checker's profile changed", spec: func(s string) string {
			return strings.Replace(s, `timeout: 5s, memory: 32MiB`, `timeout: 6s, memory: 32MiB`, 1)
		},
			rescore: `case "x" of program "echo": checker "c": profile "cp"'s limits.timeout_ms is 6000, the stored run had 5000`},
		{name: "the checker's image changed", spec: func(s string) string {
			return strings.Replace(s, strings.Repeat("c", 64), strings.Repeat("d", 64), 1)
		},
			rescore: `case "x" of program "echo": checker "c": profile "cp"'s image is "sha256:dddd`},
		{name: "the stored checker run recorded no settings", stored: func(r *report.Report) { r.Programs[0].Cases[0].CheckerRuns[0].Applied = nil },
			rescore: `checker "c": profile "cp"'s settings: not recorded by the stored run`},
		{name: "no stored checker run", stored: func(r *report.Report) { r.Programs[0].Cases[0].CheckerRuns = nil },
			rescore: `case "x" of program "echo": checker "c": the stored case has no run of it on stdout of run 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stored := checkedReport(t, loadPolicySpec(t, checked), tt.stored)
			sp := loadPolicySpec(t, func(s string) string {
				s = checked(s)
				if tt.spec != nil {
					s = tt.spec(s)
				}
				return s
			})
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(filepath.Dir(sp.Path), name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.files != nil { // loaded again: the checker's files are read at load
				var err error
				if sp, err = spec.Load(sp.Path, spec.Options{}); err != nil {
					t.Fatal(err)
				}
			}

			path := filepath.Join(t.TempDir(), "stored.json")
			if err := os.WriteFile(path, reporttest.Encoded(t, stored), 0o644); err != nil {
				t.Fatal(err)
			}
			store, err := reuse.Load([]string{path}, 64<<20)
			if err != nil {
				t.Fatal(err)
			}
			if a := store.Match(sp.Programs[0], match.Wants(sp, nil, nil)[0], false)[0]; !a.Reused() || !a.Recheck {
				t.Errorf("reuse: reused %v, recheck %v (%+v); want the program's run reused, its checker run again", a.Reused(), a.Recheck, a.NotReused)
			}

			records, errs := rescore.Match(sp, stored, "stored.json")
			if tt.rescore != "" {
				if records != nil || errs == nil || !strings.Contains(errs.Error(), tt.rescore) {
					t.Errorf("rescore: errors %v, want one containing %q", errs, tt.rescore)
				}
				return
			}
			if errs != nil {
				t.Fatalf("rescore refused it: %v", errs)
			}
			// Judged with the stored checker's event: its exit 1 and its
			// words, and the checker run kept with the case.
			c := records[0].Cases[0]
			if c.Result.Verdict != verdict.False || !strings.Contains(c.Result.Reason, "checker c: wrong answer") {
				t.Errorf("rescored echo/x: %v %q, want false with the checker's words", c.Result.Verdict, c.Result.Reason)
			}
			if len(c.Checkers) != 1 || c.Checkers[0].Applied == nil || c.Checkers[0].Event.ExitCode == nil || *c.Checkers[0].Event.ExitCode != 1 {
				t.Errorf("rescored echo/x keeps checker runs %+v, want the stored one", c.Checkers)
			}
		})
	}
}
