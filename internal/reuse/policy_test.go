package reuse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
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
	for name, body := range map[string]string{"behaves.yml": text, "echo.sh": "echo \"$1\"\n", "main.c": "int main(){}\n"} {
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
// edit changes it before it is written and loaded as a store.
func policyReport(t *testing.T, sp *spec.Spec, edit func(r *report.Report)) *Store {
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
				ProgramSHA256: report.ProgramDigest(p.Program), Command: append(ap.Command, c.Invocation.Args...), Applied: &ap}
			obs.Events = append(obs.Events, ev)
			results = append(results, verdict.Judge(c.Expect, ev))
		}
		in.Observations = append(in.Observations, obs)
		in.Results = append(in.Results, results)
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
	s, err := Load([]string{path}, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPolicy is reuse's policy, reason by reason: what a stored case must
// be, beyond what match.Check holds it to, to answer a case as a new run
// would; and the reason a case runs now otherwise.
func TestPolicy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		spec   func(string) string
		stored func(r *report.Report)
		// want is each case's (echo/x, built/one, built/two) reason, ""
		// when it is reused.
		want [3]string
	}{
		{name: "unchanged", want: [3]string{"", "", ""}},
		{name: "a new input", spec: func(s string) string { return strings.Replace(s, `{name: x, args: ["x"]`, `{name: y, args: ["y"]`, 1) },
			want: [3]string{ReasonNoStoredRun, "", ""}},
		{name: "changed args", spec: func(s string) string {
			return strings.Replace(s, `args: ["x"], expect: {stdout: {equals: "x"}}`, `args: ["z"], expect: {stdout: {equals: "z"}}`, 1)
		},
			want: [3]string{ReasonChanged + "args", "", ""}},
		{name: "changed env", spec: func(s string) string { return strings.Replace(s, `env: {MODE: a}`, `env: {MODE: b}`, 1) },
			want: [3]string{ReasonChanged + "env", "", ""}},
		{name: "changed repeat", spec: func(s string) string {
			return strings.Replace(s, `{name: x, args: ["x"],`, `{name: x, repeat: 2, args: ["x"],`, 1)
		},
			want: [3]string{ReasonRepeat, "", ""}},
		{name: "settings unrecorded", stored: func(r *report.Report) { r.Programs[0].Settings.Applied = report.Applied{} },
			want: [3]string{ReasonUnrecorded + "settings", "", ""}},
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
			want: [3]string{"", ReasonBuild, ReasonChanged + "args"}},
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
			store := policyReport(t, loadPolicySpec(t, nil), tt.stored)
			answers := store.Match(sp, nil, nil)
			got := [3]string{}
			for i, a := range []Answer{answers[0][0], answers[1][0], answers[1][1]} {
				if !a.Reused() {
					got[i] = a.NotReused.Reason
				}
			}
			if got != tt.want {
				t.Errorf("reasons %q, want %q", got, tt.want)
			}
		})
	}
}
