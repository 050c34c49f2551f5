package match_test

// The policies of match's two callers, side by side on one fixture: what
// reuse does with each kind of stored case (its reason, when it runs the
// case now) and what rescore does with it (accepts it, or refuses the spec
// with an error naming the part).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// policySpec is the spec of the policy table: echo prints its argument;
// built is compiled first. edit is applied to its text.
const policySpec = `version: 1
profiles:
  p: {image: "sha256:` + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + `", command: ["/bin/sh"], timeout: 5s, memory: 64MiB, env: {MODE: a}}
  b: {image: "sha256:` + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + `", command: ["/build/main"], timeout: 5s, memory: 64MiB,
      build: {command: ["cc", "-o", "/build/main"]}}
programs:
  - name: echo
    file: echo.sh
    profile: p
    cases:
      - {name: x, args: ["x"], expect: {stdout: {equals: "x"}}}
  - name: built
    file: main.c
    profile: b
    cases:
      - {name: one, args: ["1"], expect: {stdout: {equals: "1"}}}
      - {name: two, args: ["2"], expect: {stdout: {equals: "2"}}}
`

// emptySHA256 is the digest of no bytes.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// loadPolicySpec loads policySpec, edited, from a folder of its own.
func loadPolicySpec(t *testing.T, edit func(string) string) *spec.Spec {
	t.Helper()
	dir := t.TempDir()
	text := policySpec
	if edit != nil {
		text = edit(text)
	}
	for name, body := range map[string]string{"behaves.yml": text, "echo.sh": "echo \"$1\"\n", "main.c": "int main(){}\n", "check.sh": "exit 0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sp, err := spec.Load(filepath.Join(dir, "behaves.yml"), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// policyReport is the report of a run of sp in which every case printed
// its argument, as the engine records it (settings from runner.Apply);
// edit changes it. It is written, read back as rescore reads it, and
// loaded as reuse loads it.
func policyReport(t *testing.T, sp *spec.Spec, edit func(r *report.Report)) (report.Report, *reuse.Store) {
	t.Helper()
	in := assemble.Input{Spec: sp, RunID: "run-1"}
	for _, p := range sp.Programs {
		prof := sp.Job(p).Profile
		ap := runner.Apply(prof)
		obs := runner.Observation{ExecutionID: "exec-" + p.Name, Acquisition: runner.AcquisitionComplete,
			Settings: runner.Settings{Image: prof.Image, ImageID: prof.Image, Applied: ap}}
		if ap.Build != nil {
			code := 0
			obs.Build = &runner.Event{ExitCode: &code, Command: ap.Build.Command, ImageDigest: prof.Image}
		}
		var results []verdict.CaseResult
		for _, c := range p.Cases {
			code := 0
			out := c.Invocation.Args[0] + "\n"
			ev := runner.Event{ExitCode: &code, Stdout: runner.Stream{Data: []byte(out), Bytes: int64(len(out))},
				StdinSHA256: emptySHA256, ImageDigest: prof.Image,
				ProgramSHA256: p.Program.Digest(), Command: append(ap.Command, c.Invocation.Args...), Applied: &ap}
			obs.Events = append(obs.Events, ev)
			results = append(results, verdict.Judge(c.Expect, ev))
		}
		in.Programs = append(in.Programs, reporttest.Ran(p, obs, 0, results...))
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
	s, err := reuse.Load([]string{path}, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return stored, s
}

// TestPolicies are reuse's and rescore's policies, reason by reason. For
// reuse: what a stored case must be, beyond what match.Check holds it to,
// to answer a case as a new run would, and the reason a case runs now
// otherwise. For rescore: every case must be answered by the stored case
// of its program's id and its name, whatever that case's verdict was, or
// the spec is refused with an error naming what differs; a part left
// unrecorded is refused unless the stored case never ran. (reuse's refusal
// of evidence from more runs than a report may name: TestPolicySources.)
func TestPolicies(t *testing.T) {
	t.Parallel()
	const (
		ReasonNoStoredRun = reuse.ReasonNoStoredRun
		ReasonChanged     = reuse.ReasonChanged
		ReasonUnrecorded  = reuse.ReasonUnrecorded
		ReasonRepeat      = reuse.ReasonRepeat
		ReasonOmitted     = reuse.ReasonOmitted
		ReasonSandbox     = reuse.ReasonSandbox
		ReasonTimedOut    = reuse.ReasonTimedOut
		ReasonUndecided   = reuse.ReasonUndecided
		ReasonInterrupted = reuse.ReasonInterrupted
		ReasonFailed      = reuse.ReasonFailed
		ReasonBuild       = reuse.ReasonBuild
	)
	for _, tt := range []struct {
		name   string
		spec   func(string) string
		stored func(r *report.Report)
		// want is each case's (echo/x, built/one, built/two) reason, ""
		// when it is reused.
		want [3]string
		// rescore is what rescore's error says, "" when it accepts the
		// stored report.
		rescore string
	}{
		{name: "unchanged", want: [3]string{"", "", ""}},
		{name: "a new input", spec: func(s string) string { return strings.Replace(s, `{name: x, args: ["x"]`, `{name: y, args: ["y"]`, 1) },
			want: [3]string{ReasonNoStoredRun, "", ""}, rescore: `case "y" of program "echo": stored.json has no such case`},
		{name: "changed args", spec: func(s string) string {
			return strings.Replace(s, `args: ["x"], expect: {stdout: {equals: "x"}}`, `args: ["z"], expect: {stdout: {equals: "z"}}`, 1)
		},
			want: [3]string{ReasonChanged + "args", "", ""}, rescore: `case "x" of program "echo": args are ["z"], the stored case had ["x"]`},
		{name: "changed env", spec: func(s string) string { return strings.Replace(s, `env: {MODE: a}`, `env: {MODE: b}`, 1) },
			want: [3]string{ReasonChanged + "env", "", ""}, rescore: `program "echo": profile "p"'s env is ["MODE=b"], the stored run had ["MODE=a"]`},
		{name: "changed repeat", spec: func(s string) string {
			return strings.Replace(s, `{name: x, args: ["x"],`, `{name: x, repeat: 2, args: ["x"],`, 1)
		},
			want: [3]string{ReasonRepeat, "", ""}, rescore: `case "x" of program "echo": repeat is 2, the stored case ran 1 time`},
		{name: "settings unrecorded", stored: func(r *report.Report) { r.Programs[0].Settings.Applied = report.Applied{} },
			want: [3]string{ReasonUnrecorded + "settings", "", ""}, rescore: `program "echo": profile "p"'s settings: not recorded by the stored run`},
		{name: "settings unrecorded by a case that never ran", stored: func(r *report.Report) {
			r.Programs[0].Settings.Applied = report.Applied{}
			c := &r.Programs[0].Cases[0]
			c.Event.ExitCode, c.Event.SandboxError, c.Event.Stdout, c.Event.StdoutBytes, c.Event.StdoutKeptBytes = nil, "not run", "", 0, 0
			c.Event.StdoutSHA256 = emptySHA256
		},
			// What it never ran under is not held against it: it stays
			// undetermined under rescore; reuse never reuses it.
			want: [3]string{ReasonUnrecorded + "settings", "", ""}},
		{name: "another program id", stored: func(r *report.Report) { r.Programs[0].ID = "id-other" },
			// reuse finds a stored case by its program file and input too.
			want: [3]string{"", "", ""}, rescore: `program "echo" (echo.sh): stored.json has no evidence for it`},
		{name: "evidence format unrecorded", stored: func(r *report.Report) {
			for k := range r.Programs {
				r.Programs[k].EvidenceFormat = 0
			}
		},
			want:    [3]string{ReasonUnrecorded + "format", ReasonUnrecorded + "format", ReasonUnrecorded + "format"},
			rescore: `program "echo": stored.json was written by an earlier behaves, which did not record its evidence format`},
		{name: "evidence format of another behaves", stored: func(r *report.Report) { r.Programs[0].EvidenceFormat++ },
			want: [3]string{ReasonChanged + "format", "", ""}, rescore: `program "echo": `},
		{name: "output omitted", stored: func(r *report.Report) {
			e := &r.Programs[0].Cases[0].Event // as the writer leaves it past its budget: the digest, not the bytes
			e.StdoutOmitted, e.Stdout, e.StdoutBase64 = true, "", ""
		},
			want: [3]string{ReasonOmitted, "", ""}},
		{name: "sandbox error", stored: func(r *report.Report) { r.Programs[0].Cases[0].Event.SandboxError = "lost" },
			want: [3]string{ReasonSandbox, "", ""}},
		{name: "timed out", stored: func(r *report.Report) { r.Programs[0].Cases[0].Event.TimedOut = true },
			want: [3]string{ReasonTimedOut, "", ""}},
		{name: "undetermined", spec: func(s string) string {
			return strings.Replace(s, `{name: x, args: ["x"], expect: {stdout: {equals: "x"}}}`, `{name: x, args: ["x"], expect: {stdout: {contains: "y"}}}`, 1)
		},
			stored: func(r *report.Report) {
				r.Programs[0].Cases[0].Event.StdoutTruncated = true
				r.Programs[0].Cases[0].Event.StdoutBytes = 1 << 20
			},
			want: [3]string{ReasonUndecided, "", ""}},
		{name: "interrupted", stored: func(r *report.Report) { r.Interrupted = true },
			want: [3]string{ReasonInterrupted, ReasonInterrupted, ReasonInterrupted}},
		{name: "failed", stored: func(r *report.Report) { r.Error = "the sandbox was lost" },
			want: [3]string{ReasonFailed, ReasonFailed, ReasonFailed}},
		{name: "one case of a built program changed", spec: func(s string) string {
			return strings.Replace(s, `args: ["2"], expect: {stdout: {equals: "2"}}`, `args: ["3"], expect: {stdout: {equals: "3"}}`, 1)
		},
			want: [3]string{"", ReasonBuild, ReasonChanged + "args"}, rescore: `case "two" of program "built": args are ["3"], the stored case had ["2"]`},
		{name: "a checker judges it", spec: func(s string) string {
			s = strings.Replace(s, "programs:", "checkers: {c: {file: check.sh, profile: p}}\nprograms:", 1)
			return strings.Replace(s, `args: ["x"], expect: {stdout: {equals: "x"}}`, `args: ["x"], expect: {stdout: {checker: c, answer: "x"}}`, 1)
		},
			// reuse takes the program's stored run (its checker runs
			// again on it: Answer.Recheck); rescore, which runs nothing,
			// refuses: no stored checker run answers (TestCheckerPolicies
			// has those that do).
			want: [3]string{"", "", ""}, rescore: `case "x" of program "echo": checker "c": the stored case has no run of it on stdout of run 1`},
		{name: "a checker judges it, and the stored output was cut", spec: func(s string) string {
			s = strings.Replace(s, "programs:", "checkers: {c: {file: check.sh, profile: p}}\nprograms:", 1)
			return strings.Replace(s, `args: ["x"], expect: {stdout: {equals: "x"}}`, `args: ["x"], expect: {stdout: {checker: c, answer: "x"}}`, 1)
		},
			stored: func(r *report.Report) {
				r.Programs[0].Cases[0].Event.StdoutTruncated = true
				r.Programs[0].Cases[0].Event.StdoutBytes = 1 << 20
			},
			// No checker can judge a cut stream: the stored run does not
			// settle the case, and it runs again. rescore needs no
			// checker run for it either: it is undetermined, as a run
			// judges it.
			want: [3]string{ReasonUndecided, "", ""}},
		{name: "a failed build that timed out", stored: func(r *report.Report) {
			b := r.Programs[1].Build
			b.TimedOut, b.ExitCode = true, new(137)
			for k := range r.Programs[1].Cases {
				c := &r.Programs[1].Cases[k]
				c.Event = report.Event{BuildFailure: "build failed: timed out", StdoutSHA256: emptySHA256, StderrSHA256: emptySHA256}
			}
		}, want: [3]string{"", ReasonTimedOut, ReasonTimedOut}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sp := loadPolicySpec(t, tt.spec)
			stored, store := policyReport(t, loadPolicySpec(t, nil), tt.stored)
			wants := match.Wants(sp, nil, nil)
			echo, built := store.Match(sp.Programs[0], wants[0], false), store.Match(sp.Programs[1], wants[1], true)
			got := [3]string{}
			for i, a := range []reuse.Answer{echo[0], built[0], built[1]} {
				if !a.Reused() {
					got[i] = a.NotReused.Reason
				}
			}
			if got != tt.want {
				t.Errorf("reuse: reasons %q, want %q", got, tt.want)
			}

			records, errs := rescore.Match(sp, stored, "stored.json")
			switch {
			case tt.rescore == "" && errs != nil:
				t.Errorf("rescore refused it: %v", errs)
			case tt.rescore != "" && (records != nil || !strings.Contains(errs.Error(), tt.rescore)):
				t.Errorf("rescore: errors %v, want one containing %q", errs, tt.rescore)
			}
		})
	}
}

// TestPolicySources is reuse's last refusal: a report names at most
// report.MaxReuseRuns runs its evidence came from, so a case whose stored
// evidence came from one run more runs now, with reason "too many source
// runs". The stored report ran one case itself and reused each of the
// others from a run of its own, each listed in its reuse.sources: the
// first report.MaxReuseRuns answers fill the list, and the case of the
// report's own run, the one more, runs now. rescore, which names no
// sources, takes them all.
func TestPolicySources(t *testing.T) {
	t.Parallel()
	n := report.MaxReuseRuns + 1
	var cases strings.Builder
	for k := range n {
		fmt.Fprintf(&cases, "      - {name: c%d, args: [\"%d\"], expect: {stdout: {equals: \"%d\"}}}\n", k, k, k)
	}
	edit := func(s string) string {
		from := s[strings.Index(s, "programs:"):]
		return strings.Replace(s, from, "programs:\n  - name: echo\n    file: echo.sh\n    profile: p\n    cases:\n"+cases.String(), 1)
	}
	sp := loadPolicySpec(t, edit)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stored, store := policyReport(t, sp, func(r *report.Report) {
		r.Reuse = &report.Reuse{}
		for k := range n - 1 {
			run := fmt.Sprintf("run-%04d", k)
			r.Reuse.Sources = append(r.Reuse.Sources, report.ReuseSource{RunID: run, StartedAt: at})
			r.Programs[0].Cases[k].ReusedFrom = &report.Origin{RunID: run, ExecutionID: "exec-" + run}
		}
	})
	answers := store.Match(sp.Programs[0], match.Wants(sp, nil, nil)[0], false)
	for k, a := range answers[:n-1] {
		if !a.Reused() || a.From.RunID != fmt.Sprintf("run-%04d", k) {
			t.Fatalf("case c%d: reused %v from %+v (%+v), want it reused from its run", k, a.Reused(), a.From, a.NotReused)
		}
	}
	if last := answers[n-1]; last.Reused() || last.NotReused.Reason != reuse.ReasonSources {
		t.Errorf("case c%d, of the report's own run: reused %v (%+v), want it run for %q", n-1, last.Reused(), last.NotReused, reuse.ReasonSources)
	}
	if got := len(store.Sources()); got != report.MaxReuseRuns {
		t.Errorf("%d sources listed, want %d", got, report.MaxReuseRuns)
	}
	if _, errs := rescore.Match(sp, stored, "stored.json"); errs != nil {
		t.Errorf("rescore refused it: %v", errs)
	}
}
