// Package reporttest holds the runs that the tests of the report, of its
// builder (package assemble) and of its renderers share, for tests only:
// a spec, the runner's observations and the judge's verdicts, and the
// reports assembled from them as a run assembles them. A report's tests
// read and render what behaves writes, so their fixtures are assembled,
// not written by hand.
package reporttest

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// IntP returns a pointer to v (an exit code).
func IntP(v int) *int { return &v }

// StartedAt is when the fixtures' runs started.
var StartedAt = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// Limits are the fixtures' container limits.
var Limits = runner.Limits{
	TimeoutMS: 5000, MemoryBytes: 128 << 20, CPUs: 0.5, Pids: 64,
	OutputLimit: 64 << 10, OutputCeiling: 4 << 20, NoFile: 256, FileSize: 64 << 20,
}

// Profile is the profile the fixtures' programs ran under, as the sandbox
// gets it: Settings and Limits are what the Docker sandbox records for it.
func Profile() runner.Profile {
	return runner.Profile{
		Name: "python", Image: Settings.Image, Command: []string{"python3", "-I"}, ProgramName: "main.py",
		Timeout: 5 * time.Second, Memory: 128 << 20, CPUs: 0.5, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20,
		User: "65534:65534", Tmpfs: map[string]int64{"/tmp": 16 << 20}, Env: map[string]string{"LANG": "C.UTF-8"},
	}
}

// Settings are the fixtures' container settings: what the Docker sandbox
// records for the profile the fixtures describe (runner/docker's
// TestReportFixtureIsTheSandboxs checks it, and Limits).
var Settings = runner.Settings{
	Image:        "python@sha256:" + Hex64('a'),
	ImageID:      "sha256:" + Hex64('b'),
	ImageEnv:     []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
	Entrypoint:   []string{"python3", "-I", "/program/main.py"},
	User:         "65534:65534",
	NetworkMode:  "none",
	NetworkFiles: runner.NetworkFilesNone,
	TmpfsBytes:   map[string]int64{"/tmp": 16 << 20},
	ProgramDir:   "/program",
	Env:          []string{"LANG=C.UTF-8"},
	Applied: runner.Applied{
		Image: "python@sha256:" + Hex64('a'), Command: []string{"python3", "-I", "/program/main.py"}, User: "65534:65534",
		Env: []string{"LANG=C.UTF-8"}, Tmpfs: map[string]int64{"/tmp": 16 << 20}, NetworkFiles: runner.NetworkFilesNone,
		Limits: runner.Limits{TimeoutMS: 5000, MemoryBytes: 128 << 20, CPUs: 0.5, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20},
	},
	Container: runner.Container{
		Hostname:        "behaves",
		NetworkDisabled: true,
		ReadonlyRootfs:  true,
		CapDrop:         []string{"ALL"},
		SecurityOpt:     []string{"no-new-privileges"},
		Memory:          128 << 20,
		MemorySwap:      128 << 20,
		NanoCPUs:        5e8,
		PidsLimit:       64,
		Ulimits:         map[string]int64{"nofile": 256, "fsize": 64 << 20, "core": 0},
		IpcMode:         "private",
		LogDriver:       "none",
		Init:            true,
		Tmpfs:           map[string]string{"/tmp": "rw,nosuid,nodev,noexec,size=16777216"},
		ProgramMount:    "volume:behaves-run-0001-program:/program:ro",
	},
}

// Hex64 is c 64 times: a digest's worth of hex digits.
func Hex64(c byte) string { return string(bytes.Repeat([]byte{c}, 64)) }

// Event is the event of a python case that exited with code and printed
// stdout, run with args.
func Event(code *int, stdout string, args ...string) runner.Event {
	return runner.Event{
		ExitCode:      code,
		Stdout:        runner.Stream{Data: []byte(stdout), Bytes: int64(len(stdout))},
		StdinSHA256:   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		Command:       append([]string{"python3", "-I", "/program/main.py"}, args...),
		ImageDigest:   Settings.ImageID,
		Duration:      42 * time.Millisecond,
		ProgramSHA256: "0f00",
		Limits:        Limits,
	}
}

// Program is a spec's python program entry at line of behaves.yml.
func Program(name, file string, line int, cases ...spec.Case) spec.Program {
	return spec.Program{
		ID:      "id-" + name,
		Name:    name,
		File:    file,
		Profile: "python",
		Pos:     spec.Pos{File: "behaves.yml", Line: line, Col: 5},
		Program: runner.Program{Files: runner.FilesOf(map[string][]byte{"main.py": []byte("print(1)\n")}), Entry: "main.py"},
		Cases:   cases,
	}
}

// Case is a spec's case at line of behaves.yml.
func Case(name string, line int, exp verdict.Expectation, args ...string) spec.Case {
	return spec.Case{
		Name:       name,
		Pos:        spec.Pos{File: "behaves.yml", Line: line, Col: 11},
		Invocation: runner.Invocation{Args: args},
		Expect:     exp,
	}
}

// WithStdin is c given stdin.
func WithStdin(c spec.Case, stdin string) spec.Case {
	c.Invocation.Stdin = []byte(stdin)
	return c
}

// Equals is an equals matcher of s.
func Equals(s string) *verdict.Matcher {
	return &verdict.Matcher{Kind: verdict.Equals, Value: s, Normalize: verdict.NormalizeTrailing}
}

// Check is one check of a case's result.
func Check(what string, v verdict.Verdict, expected, actual, reason string) verdict.Check {
	return verdict.Check{What: what, Verdict: v, Expected: expected, Actual: actual, Reason: reason}
}

// Input is a small run covering the three verdicts, a truncated stream,
// invalid UTF-8 output, a sandbox error, a program whose image is missing
// and a sandbox warning.
func Input() assemble.Input {
	fizz := "1\n2\nFizz\n4\nBuzz\n"
	invalid := "ok\xff\xfe\n"
	big := "line 1\nline 2\nline 3\nli"
	sp := &spec.Spec{
		Path: "behaves.yml",
		Root: ".",
		Programs: []spec.Program{
			Program("fizzbuzz", "solutions/fizzbuzz.py", 10,
				Case("up to 5", 14, verdict.Expectation{Stdout: Equals(fizz), Stderr: Equals("")}, "5"),
				WithStdin(Case("binary", 20, verdict.Expectation{Stdout: &verdict.Matcher{Kind: verdict.Contains, Value: "ok", IgnoreCase: true}}, "--binary"), "\x00\x01\x02\xff"),
			),
			Program("samples/wrong.py", "samples/wrong.py", 30,
				Case("up to 5", 14, verdict.Expectation{Stdout: Equals(fizz), Stderr: Equals("")}, "5"),
				WithStdin(Case("loop", 24, verdict.Expectation{ExitCode: 0}, "--forever"), strings.Repeat("y\n", 300)),
			),
			Program("big-output", "solutions/big.py", 40,
				Case("many lines", 44, verdict.Expectation{Stdout: &verdict.Matcher{Kind: verdict.Regex, Value: `^line \d+$`, Normalize: verdict.NormalizeExact}}),
				Case("create fails", 50, verdict.Expectation{}),
			),
			Program("missing-image", "solutions/missing.py", 60,
				Case("a", 64, verdict.Expectation{}),
				Case("b", 66, verdict.Expectation{}),
			),
		},
	}

	wrongOut := "1\n2\n3\n4\n5\n"
	wrong := Event(IntP(0), wrongOut, "5")
	wrong.Stderr = runner.Stream{Data: []byte("warning: no fizz\n"), Bytes: 17}
	loop := Event(IntP(137), "", "--forever") // the status Docker records for its kill
	loop.TimedOut = true
	loop.Duration = 5 * time.Second
	bigEv := Event(IntP(0), big)
	bigEv.Stdout.Truncated = true
	bigEv.Stdout.Bytes = 1 << 20
	failEv := runner.Event{Command: []string{"python3", "-I", "/program/main.py"}, Limits: Limits,
		SandboxError: "creating container: connection reset"}

	// samples/wrong.py and big-output are two samples of one files:
	// entry: one false, one undetermined.
	sp.Programs[1].Group, sp.Programs[2].Group = "samples", "samples"
	obs := []runner.Observation{
		{ExecutionID: "11111111-1111-4111-8111-111111111111", Acquisition: runner.AcquisitionComplete, Settings: Settings,
			Events: []runner.Event{Event(IntP(0), fizz, "5"), Event(IntP(0), invalid, "--binary")}},
		{ExecutionID: "22222222-2222-4222-8222-222222222222", Acquisition: runner.AcquisitionComplete, Settings: Settings,
			Events: []runner.Event{wrong, loop}},
		{ExecutionID: "33333333-3333-4333-8333-333333333333", Acquisition: runner.AcquisitionPartial, Settings: Settings,
			Reasons:         []string{"create fails: creating container: connection reset"},
			SandboxWarnings: []string{"volume behaves-333 not removed: device busy"},
			Events:          []runner.Event{bigEv, failEv}},
		{ExecutionID: "44444444-4444-4444-8444-444444444444", Acquisition: runner.AcquisitionError,
			// As the runner gives it: every case's event carries the
			// sandbox's reason (runner/docker's missingImage).
			Reasons: []string{MissingImage},
			Events:  []runner.Event{{Limits: Limits, SandboxError: MissingImage}, {Limits: Limits, SandboxError: MissingImage}}},
	}
	durations := []time.Duration{400 * time.Millisecond, 5400 * time.Millisecond, 0, 0}
	in := assemble.Input{
		Spec:      sp,
		RunID:     "run-0001",
		StartedAt: StartedAt,
		Duration:  6789 * time.Millisecond,
		Version:   "v0.1.0-test",
		PassAt:    []int{1, 2},
	}
	for i, p := range sp.Programs {
		// The verdicts are the judge's, as in a real run.
		in.Programs = append(in.Programs, Ran(p, obs[i], durations[i]))
	}
	return in
}

// Ran is the record of program p whose attempt obs ran each case once
// (case j's run is obs.Events[j]), its wall time d: each case judged by
// results[j] when given, else as verdict.Judge judges its run.
func Ran(p spec.Program, obs runner.Observation, d time.Duration, results ...verdict.CaseResult) assemble.Program {
	rec := assemble.Program{Spec: p, Attempt: obs, Duration: d}
	rec.Attempt.Events = nil
	for j, c := range p.Cases {
		k := assemble.Case{Spec: c}
		if j < len(obs.Events) {
			res := verdict.Judge(c.Expect, obs.Events[j])
			if j < len(results) {
				res = results[j]
			}
			k.Runs, k.Result = []assemble.RunResult{{Event: obs.Events[j], Result: res}}, res
		}
		rec.Cases = append(rec.Cases, k)
	}
	return rec
}

// Report is the report of Input.
func Report() report.Report { return assemble.Report(Input()) }

// MissingImage is the sandbox's reason for Input's program whose image is
// missing.
const MissingImage = "image not present: sha256:5555555555555555555555555555555555555555555555555555555555555555 is a local image ID, which cannot be pulled: build or load the image on this engine, or give the profile another with --image PROFILE=REF"

// ErrRun is a run's own failure.
var ErrRun = errors.New("docker daemon unreachable")

// RepeatInput is a run of one program whose cases ran more than once: a
// nondeterministic one (true, false with output that is not text, true), a
// steady one (two true runs) and one that ran once. Results are judged and
// folded as a run does; runs[j] are case j's runs.
func RepeatInput() (in assemble.Input, runs [][]assemble.RunResult) {
	parity := Case("parity", 14, verdict.Expectation{Stdout: Equals("0")})
	parity.Repeat = 3
	steady := Case("steady", 18, verdict.Expectation{Stdout: Equals("ok")})
	steady.Repeat = 2
	once := Case("once", 22, verdict.Expectation{Stdout: Equals("ok")})
	once.Repeat = 1
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{Program("coin", "coin.py", 10, parity, steady, once)}}

	odd := Event(IntP(0), "1\xff\n")
	odd.Stderr = runner.Stream{Data: []byte("odd\n"), Bytes: 4}
	evs := [][]runner.Event{
		{Event(IntP(0), "0\n"), odd, Event(IntP(0), "0\n")},
		{Event(IntP(0), "ok\n"), Event(IntP(0), "ok\n")},
		{Event(IntP(0), "ok\n")},
	}
	runs = make([][]assemble.RunResult, len(evs))
	rec := assemble.Program{Spec: sp.Programs[0], Duration: time.Second, Attempt: runner.Observation{
		ExecutionID: "55555555-5555-4555-8555-555555555555", Acquisition: runner.AcquisitionComplete, Settings: Settings}}
	for j, c := range sp.Programs[0].Cases {
		var rs []verdict.CaseResult
		for _, ev := range evs[j] {
			res := verdict.Judge(c.Expect, ev)
			runs[j] = append(runs[j], assemble.RunResult{Event: ev, Result: res})
			rs = append(rs, res)
		}
		rec.Cases = append(rec.Cases, assemble.Case{Spec: c, Runs: runs[j], Result: verdict.Fold(rs).CaseResult})
	}
	in = assemble.Input{
		Spec:      sp,
		Programs:  []assemble.Program{rec},
		RunID:     "run-0002",
		StartedAt: StartedAt,
		Duration:  time.Second,
		Version:   "v0.1.0-test",
	}
	return in, runs
}

// SameAs writes, through a Writer whose case entries total at most
// max bytes, a program with a same_as case that differs from its
// reference (which ran twice, agreeing, on "2 1") and a written case, and
// returns the report's bytes.
func SameAs(t testing.TB, max int64) []byte {
	t.Helper()
	sa := &verdict.SameAs{Reference: "ref", Streams: []string{"stdout"}, Normalize: verdict.NormalizeTrailing}
	diff := WithStdin(Case("sorted", 12, verdict.Expectation{SameAs: sa}), "2 1\n")
	plain := Case("plain", 16, verdict.Expectation{Stdout: Equals("x")})
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{Program("cand", "cand.py", 10, diff, plain)}}
	sp.Programs[0].Reference = "ref"

	refs := []runner.Event{Event(IntP(0), "1 2\n"), Event(IntP(0), "1 2\n")}
	refs[1].Stderr = runner.Stream{Data: []byte("warn\xff\n"), Bytes: 6}
	cand := Event(IntP(0), "2 1\n")
	res := verdict.JudgeSameAs(*sa, refs, cand)
	plainEv := Event(IntP(0), "x\n")
	plainRes := verdict.Judge(plain.Expect, plainEv)

	path := filepath.Join(t.TempDir(), "report.json")
	w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: max})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cases := []assemble.Case{
		{Spec: diff, Runs: []assemble.RunResult{{Event: cand, Result: res}}, Result: res, References: refs},
		{Spec: plain, Runs: []assemble.RunResult{{Event: plainEv, Result: plainRes}}, Result: plainRes},
	}
	for c, k := range cases {
		w.AddCase(0, c, k)
	}
	in := assemble.Input{
		Spec: sp,
		Programs: []assemble.Program{{Spec: sp.Programs[0], Duration: time.Second, Cases: cases, Attempt: runner.Observation{
			ExecutionID: "55555555-5555-4555-8555-555555555555", Acquisition: runner.AcquisitionComplete, Settings: Settings}}},
		RunID:     "run-0003",
		StartedAt: StartedAt,
		Duration:  time.Second,
		Version:   "v0.1.0-test",
	}
	if _, err := Commit(t, w, assemble.Report(in)); err != nil {
		t.Fatal(err)
	}
	return Written(t, path)
}

// FailedBuild is a report of one program whose build failed: its build
// object holds gcc's stderr, its case the build failure.
func FailedBuild() report.Report {
	code := 1
	why := "build failed: exit 1: main.c:1: error: x"
	sp := &spec.Spec{
		Path: "behaves.yml",
		Profiles: map[string]spec.Profile{"python": {Runtime: runner.Profile{Build: &runner.Build{
			OutputSize: 64 << 20, Tmpfs: map[string]int64{"/tmp": 64 << 20},
		}}}},
		Programs: []spec.Program{Program("c", "main.c", 3, Case("one", 5, verdict.Expectation{}))},
	}
	ev := runner.Event{BuildFailure: why}
	obs := runner.Observation{
		ExecutionID: "x", Acquisition: runner.AcquisitionComplete, Events: []runner.Event{ev},
		Build: &runner.Event{ExitCode: &code, Stderr: runner.Stream{Data: []byte("main.c:1: error: x\n"), Bytes: 19}, Command: []string{"gcc", "/program/main.c"}},
	}
	return assemble.Report(assemble.Input{Spec: sp, Programs: []assemble.Program{Ran(sp.Programs[0], obs, 0)}, RunID: "r"})
}

// Big is 50 programs of 20 cases each: a third false with multi-line
// output, a third undetermined, the rest true.
func Big() report.Report {
	in := assemble.Input{Spec: &spec.Spec{Path: "behaves.yml", Root: "."}, StartedAt: StartedAt, Duration: time.Minute}
	out := strings.Repeat("some output line\n", 200)
	for p := range 50 {
		var cases []spec.Case
		var events []runner.Event
		var results []verdict.CaseResult
		for c := range 20 {
			cases = append(cases, Case(fmt.Sprintf("case %d", c), 10+c, verdict.Expectation{Stdout: Equals(out)}, fmt.Sprint(c)))
			events = append(events, Event(IntP(0), out, fmt.Sprint(c)))
			v := verdict.Verdict((p + c) % 3)
			results = append(results, verdict.CaseResult{Verdict: v, Reason: "stdout differs", Checks: []verdict.Check{
				Check("exit_code", verdict.True, "0", "0", ""),
				Check("stdout", v, `"…"`, `"…"`, "differs"),
			}})
		}
		prog := Program(fmt.Sprintf("sample-%02d", p), "s.py", p, cases...)
		in.Spec.Programs = append(in.Spec.Programs, prog)
		in.Programs = append(in.Programs, Ran(prog, runner.Observation{Acquisition: runner.AcquisitionComplete, Settings: Settings, Events: events}, 0, results...))
	}
	return assemble.Report(in)
}

// BudgetRun is a program with one case per verdict given, each writing n
// control characters to stdout and to stderr.
func BudgetRun(verdicts []verdict.Verdict, n int) assemble.Input {
	out := bytes.Repeat([]byte{1}, n)
	p := Program("flood", "flood.sh", 1)
	var events []runner.Event
	var results []verdict.CaseResult
	for i, v := range verdicts {
		p.Cases = append(p.Cases, Case(fmt.Sprintf("c%d", i), 10+i, verdict.Expectation{}))
		ev := Event(IntP(0), "")
		ev.Stdout = runner.Stream{Data: out, Bytes: int64(n)}
		ev.Stderr = runner.Stream{Data: out, Bytes: int64(n)}
		events = append(events, ev)
		results = append(results, verdict.CaseResult{Verdict: v, Reason: "r"})
	}
	return assemble.Input{
		Spec:     &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{p}},
		Programs: []assemble.Program{Ran(p, runner.Observation{Events: events, Acquisition: runner.AcquisitionComplete}, 0, results...)},
	}
}

// AddAll gives w every case of in, as a run does while it goes, and
// returns in with the records' output dropped (what the run engine keeps
// once the sink has taken it).
func AddAll(w *assemble.Writer, in assemble.Input) assemble.Input {
	progs := make([]assemble.Program, len(in.Programs))
	for i, p := range in.Programs {
		progs[i] = p
		progs[i].Cases = make([]assemble.Case, len(p.Cases))
		for j, c := range p.Cases {
			if len(c.Runs) > 0 {
				w.AddCase(i, j, c)
			}
			progs[i].Cases[j] = c.WithoutOutput()
		}
	}
	in.Programs = progs
	return in
}

// RepeatReport is the report of RepeatInput.
func RepeatReport() report.Report {
	in, _ := RepeatInput()
	return assemble.Report(in)
}

// Encoded is r as report.Encode writes it, checked against the strict
// report schema: what behaves writes of r
// (package assemble's golden files hold Input's and RepeatInput's).
func Encoded(t testing.TB, r report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the encoded report", buf.Bytes())
	return buf.Bytes()
}

// ReuseSources are the stored runs Reused took evidence from: the first a
// run under Actions (its evidence answers most reused cases), the second
// one outside it.
var ReuseSources = []report.ReuseSource{
	{
		RunID:     "run-0100",
		StartedAt: StartedAt.Add(-24 * time.Hour),
		GitHub: report.GitHub{
			RunID: "9876543210", RunAttempt: "2", Repository: "owner/repo", EventName: "pull_request",
			SHA:     "0123456789abcdef0123456789abcdef01234567",
			HeadSHA: "abc1234def5678901234567890abcdef12345678",
		},
	},
	{RunID: "run-0099", StartedAt: StartedAt.Add(-48 * time.Hour)},
}

// HostileDetail is a not_reused detail quoting what an attacker's stored
// report may hold: markup, table and code delimiters, a colour escape, a
// mention, a workflow command and line breaks.
const HostileDetail = "stored stdout was <script>alert(1)</script> | cell | `code` \x1b[31mred\x1b[0m @mention\n::error::pwned\r\n# heading ]]> &amp; <!--"

// Reused is the report of a run given stored reports (behaves run
// --reuse), written as the engine writes one (assemble.Writer.AddCase
// with each case's reused_from or not_reused, then Commit) and read back
// with reportread.File, so that it is checked as any stored report is.
//
// Program "sorter" is answered wholly by stored evidence: two true cases,
// a false one and a true case that ran 3 times (6 invocations reused, 5
// of them from run-0100, the false case from run-0099). Program "greeter"
// ran now: two cases because the program changed (one true, one false)
// and one whose stored evidence did not settle it (false, its detail
// HostileDetail). Program "fresh" ran now: no stored run. So 6 of 10
// invocations were reused. The run is under Actions, in the repository
// of the first source.
func Reused(t testing.TB) report.Report {
	t.Helper()
	eq := func(s string) verdict.Expectation { return verdict.Expectation{Stdout: Equals(s)} }
	thrice := Case("thrice", 20, eq("3\n"), "3")
	thrice.Repeat = 3
	sorter := Program("sorter", "solutions/sort.py", 10,
		Case("empty", 14, eq("")),
		Case("one", 16, eq("1\n"), "1"),
		Case("many", 18, eq("1 2 3\n"), "3", "1", "2"),
		thrice,
	)
	greeter := Program("greeter", "solutions/greet.py", 30,
		Case("hello", 34, eq("hello\n"), "hello"),
		Case("bye", 36, eq("bye\n"), "bye"),
		Case("hostile", 38, eq("ok\n"), "--hostile"),
	)
	fresh := Program("fresh", "solutions/fresh.py", 50, Case("new", 54, eq("new\n"), "new"))
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{sorter, greeter, fresh}}

	const (
		storedExec = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
		olderExec  = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
	)
	fromStored := &report.Origin{RunID: ReuseSources[0].RunID, ExecutionID: storedExec}
	fromOlder := &report.Origin{RunID: ReuseSources[1].RunID, ExecutionID: olderExec}
	changed := report.NewNotReused("changed: program", "the program file's digest is 1234abcd…, the stored run's 0f00…")
	type want struct {
		stdout     []string // one per run
		reusedFrom *report.Origin
		notReused  *report.NotReused
	}
	wants := [][]want{
		{
			{stdout: []string{""}, reusedFrom: fromStored},
			{stdout: []string{"1\n"}, reusedFrom: fromStored},
			{stdout: []string{"3 1 2\n"}, reusedFrom: fromOlder},
			{stdout: []string{"3\n", "3\n", "3\n"}, reusedFrom: fromStored},
		},
		{
			{stdout: []string{"hello\n"}, notReused: changed},
			{stdout: []string{"ciao\n"}, notReused: changed},
			{stdout: []string{"nope\n"}, notReused: report.NewNotReused("undetermined", HostileDetail)},
		},
		{
			{stdout: []string{"new\n"}, notReused: report.NewNotReused("no stored run", "no stored report holds a run of this program file on this input (args and stdin)")},
		},
	}

	path := filepath.Join(t.TempDir(), "report.json")
	w, err := assemble.NewWriter(path, reportwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	execs := []string{"66666666-6666-4666-8666-666666666666", "77777777-7777-4777-8777-777777777777", "88888888-8888-4888-8888-888888888888"}
	durations := []time.Duration{0, 300 * time.Millisecond, 100 * time.Millisecond}
	var progs []assemble.Program
	for i, p := range sp.Programs {
		rec := assemble.Program{Spec: p, Duration: durations[i], Attempt: runner.Observation{ExecutionID: execs[i], Acquisition: runner.AcquisitionComplete, Settings: Settings}}
		for j, c := range p.Cases {
			wc := wants[i][j]
			var runs []assemble.RunResult
			var rs []verdict.CaseResult
			for _, out := range wc.stdout {
				ev := Event(IntP(0), out, c.Invocation.Args...)
				res := verdict.Judge(c.Expect, ev)
				runs = append(runs, assemble.RunResult{Event: ev, Result: res})
				rs = append(rs, res)
			}
			res := rs[0]
			if len(rs) > 1 {
				res = verdict.Fold(rs).CaseResult
			}
			k := assemble.Case{Spec: c, Runs: runs, Result: res, ReusedFrom: wc.reusedFrom, NotReused: wc.notReused}
			w.AddCase(i, j, k)
			rec.Cases = append(rec.Cases, k.WithoutOutput())
		}
		progs = append(progs, rec)
	}
	in := assemble.Input{
		Spec:      sp,
		Programs:  progs,
		RunID:     "run-0101",
		StartedAt: StartedAt,
		Duration:  2 * time.Second,
		Version:   "v0.1.0-test",
		GitHub: report.GitHub{
			RunID: "9876543299", RunAttempt: "1", Repository: "owner/repo", EventName: "pull_request",
			SHA:     "1111111111111111111111111111111111111111",
			HeadSHA: "2222222222222222222222222222222222222222",
		},
		Reuse: &report.Reuse{Sources: ReuseSources},
	}
	if _, err := Commit(t, w, assemble.Report(in)); err != nil {
		t.Fatal(err)
	}
	r, err := ReadFile(t, path, reportwrite.DefaultMaxReportSize)
	if err != nil {
		t.Fatalf("reading the reused run's report back: %v", err)
	}
	return r
}
