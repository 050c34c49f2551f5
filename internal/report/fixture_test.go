package report

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

func intp(v int) *int { return &v }

var startedAt = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

var limits = runner.Limits{
	TimeoutMS: 5000, MemoryBytes: 128 << 20, CPUs: 0.5, Pids: 64,
	OutputLimit: 64 << 10, OutputCeiling: 4 << 20, NoFile: 256, FileSize: 16 << 20,
}

var settings = runner.Settings{
	Image:           "python@sha256:" + sixtyFour('a'),
	ImageID:         "sha256:" + sixtyFour('b'),
	ImageEnv:        []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
	Entrypoint:      []string{"python3", "-I"},
	User:            "65534:65534",
	Hostname:        "behaves",
	NetworkMode:     "none",
	NetworkFiles:    runner.NetworkFilesNone,
	NetworkDisabled: true,
	ReadonlyRootfs:  true,
	CapDrop:         []string{"ALL"},
	SecurityOpt:     []string{"no-new-privileges"},
	Memory:          128 << 20,
	MemorySwap:      128 << 20,
	NanoCPUs:        5e8,
	PidsLimit:       64,
	Ulimits:         map[string]int64{"nofile": 256, "fsize": 16 << 20, "core": 0},
	IpcMode:         "private",
	LogDriver:       "none",
	Init:            true,
	Tmpfs:           map[string]string{"/tmp": "size=16777216,nosuid,nodev,noexec"},
	ProgramMount:    "volume:behaves-run-0001-program:/program:ro",
	ProgramDir:      "/program",
	Env:             []string{"LANG=C.UTF-8"},
}

func sixtyFour(c byte) string { return string(bytes.Repeat([]byte{c}, 64)) }

func event(code *int, stdout string, args ...string) runner.Event {
	return runner.Event{
		ExitCode:      code,
		Stdout:        runner.Stream{Data: []byte(stdout), Bytes: int64(len(stdout))},
		StdinSHA256:   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		Command:       append([]string{"python3", "-I", "/program/main.py"}, args...),
		ImageDigest:   settings.ImageID,
		Duration:      42 * time.Millisecond,
		ProgramSHA256: "0f00",
		Limits:        limits,
	}
}

func prog(name, file string, line int, cases ...spec.Case) spec.Program {
	return spec.Program{
		ID:      "id-" + name,
		Name:    name,
		File:    file,
		Profile: "python",
		Pos:     spec.Pos{File: "behaves.yml", Line: line, Col: 5},
		Program: runner.Program{Files: map[string][]byte{"main.py": []byte("print(1)\n")}, Entry: "main.py"},
		Cases:   cases,
	}
}

func kase(name string, line int, exp verdict.Expectation, args ...string) spec.Case {
	return spec.Case{
		Name:       name,
		Pos:        spec.Pos{File: "behaves.yml", Line: line, Col: 11},
		Invocation: runner.Invocation{Args: args},
		Expect:     exp,
	}
}

func withStdin(c spec.Case, stdin string) spec.Case {
	c.Invocation.Stdin = []byte(stdin)
	return c
}

func equals(s string) *verdict.Matcher {
	return &verdict.Matcher{Kind: verdict.Equals, Value: s, Normalize: verdict.NormalizeTrailing}
}

func check(what string, v verdict.Verdict, expected, actual, reason string) verdict.Check {
	return verdict.Check{What: what, Verdict: v, Expected: expected, Actual: actual, Reason: reason}
}

// fixtureInput is a small run covering the three verdicts, a truncated
// stream, invalid UTF-8 output, a sandbox error, a program whose image is
// missing and a sandbox warning.
func fixtureInput() Input {
	fizz := "1\n2\nFizz\n4\nBuzz\n"
	invalid := "ok\xff\xfe\n"
	big := "line 1\nline 2\nline 3\nli"
	sp := &spec.Spec{
		Path: "behaves.yml",
		Root: ".",
		Programs: []spec.Program{
			prog("fizzbuzz", "solutions/fizzbuzz.py", 10,
				kase("up to 5", 14, verdict.Expectation{Stdout: equals(fizz), Stderr: equals("")}, "5"),
				withStdin(kase("binary", 20, verdict.Expectation{Stdout: &verdict.Matcher{Kind: verdict.Contains, Value: "ok", IgnoreCase: true}}, "--binary"), "\x00\x01\x02\xff"),
			),
			prog("samples/wrong.py", "samples/wrong.py", 30,
				kase("up to 5", 14, verdict.Expectation{Stdout: equals(fizz), Stderr: equals("")}, "5"),
				withStdin(kase("loop", 24, verdict.Expectation{ExitCode: 0}, "--forever"), strings.Repeat("y\n", 300)),
			),
			prog("big-output", "solutions/big.py", 40,
				kase("many lines", 44, verdict.Expectation{Stdout: &verdict.Matcher{Kind: verdict.Regex, Value: `^line \d+$`, Normalize: verdict.NormalizeExact}}),
				kase("create fails", 50, verdict.Expectation{}),
			),
			prog("missing-image", "solutions/missing.py", 60,
				kase("a", 64, verdict.Expectation{}),
				kase("b", 66, verdict.Expectation{}),
			),
		},
	}

	wrongOut := "1\n2\n3\n4\n5\n"
	wrong := event(intp(0), wrongOut, "5")
	wrong.Stderr = runner.Stream{Data: []byte("warning: no fizz\n"), Bytes: 17}
	loop := event(intp(137), "", "--forever") // the status Docker records for its kill
	loop.TimedOut = true
	loop.Duration = 5 * time.Second
	bigEv := event(intp(0), big)
	bigEv.Stdout.Truncated = true
	bigEv.Stdout.Bytes = 1 << 20
	failEv := runner.Event{Command: []string{"python3", "-I", "/program/main.py"}, Limits: limits,
		SandboxError: "creating container: connection reset"}

	// samples/wrong.py and big-output are two samples of one files:
	// entry: one false, one undetermined.
	sp.Programs[1].Group, sp.Programs[2].Group = "samples", "samples"
	obs := []runner.Observation{
		{ExecutionID: "11111111-1111-4111-8111-111111111111", Acquisition: runner.AcquisitionComplete, Settings: settings,
			Events: []runner.Event{event(intp(0), fizz, "5"), event(intp(0), invalid, "--binary")}},
		{ExecutionID: "22222222-2222-4222-8222-222222222222", Acquisition: runner.AcquisitionComplete, Settings: settings,
			Events: []runner.Event{wrong, loop}},
		{ExecutionID: "33333333-3333-4333-8333-333333333333", Acquisition: runner.AcquisitionPartial, Settings: settings,
			Reasons:         []string{"create fails: creating container: connection reset"},
			SandboxWarnings: []string{"volume behaves-333 not removed: device busy"},
			Events:          []runner.Event{bigEv, failEv}},
		{ExecutionID: "44444444-4444-4444-8444-444444444444", Acquisition: runner.AcquisitionError,
			// As the runner gives it: every case's event carries the
			// sandbox's reason (runner/docker's missingImage).
			Reasons: []string{missingImage},
			Events:  []runner.Event{{Limits: limits, SandboxError: missingImage}, {Limits: limits, SandboxError: missingImage}}},
	}
	return Input{
		Spec:         sp,
		Observations: obs,
		// The verdicts are the judge's, as in a real run.
		Results: judged(sp, obs),
		Programs: []ProgramResult{
			{Duration: 400 * time.Millisecond},
			{Duration: 5400 * time.Millisecond},
			{},
			{},
		},
		RunID:     "run-0001",
		StartedAt: startedAt,
		Duration:  6789 * time.Millisecond,
		Version:   "v0.1.0-test",
		PassAt:    []int{1, 2},
	}
}

func fixture() Report { return Build(fixtureInput()) }

const missingImage = "image not present: sha256:5555555555555555555555555555555555555555555555555555555555555555 is a local image ID, which cannot be pulled: build or load the image on this engine, or give the profile another with --image PROFILE=REF"

// judged is what verdict.Judge makes of each case's event, as in a real
// run.
func judged(sp *spec.Spec, obs []runner.Observation) [][]verdict.CaseResult {
	out := make([][]verdict.CaseResult, len(sp.Programs))
	for i, p := range sp.Programs {
		for j, c := range p.Cases {
			out[i] = append(out[i], verdict.Judge(c.Expect, obs[i].Events[j]))
		}
	}
	return out
}

var errRun = errors.New("docker daemon unreachable")
