package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/shard"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// scriptSandbox runs programs whose entry file starts with a one-word script
// the sandbox itself interprets (what follows it only changes the file), so the engine's judging, holding and folding
// can be checked without a container engine (the e2e tests run the same
// engine on Docker):
//
//	echo     stdout is stdin
//	upper    stdout is stdin in upper case
//	flip     stdout alternates "heads", "tails" across its runs
//	lose     every invocation reports the sandbox lost
type scriptSandbox struct {
	mu    sync.Mutex
	flips int
	// ran counts each program's invocations, by script; prepared the
	// program attempts (each a container in a real sandbox).
	ran      map[string]int
	prepared int
	builds   int
	// checkers counts the checker programs prepared, and requests keeps
	// every request prepared.
	checkers int
	requests []runner.Request
}

func (s *scriptSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	s.mu.Lock()
	s.prepared += len(batch)
	for _, r := range batch {
		if r.Checker {
			s.checkers++
		}
		s.requests = append(s.requests, r)
	}
	s.mu.Unlock()
	out := make([]runner.Prepared, len(batch))
	for i, r := range batch {
		src, err := r.Program.Files[r.Program.Entry].ReadAll()
		if err != nil {
			out[i].Err = err
			continue
		}
		script, _, _ := strings.Cut(strings.TrimSpace(string(src)), " ")
		out[i].Attempt = scriptAttempt{sb: s, script: script, req: r}
	}
	return out
}

type scriptAttempt struct {
	sb     *scriptSandbox
	script string
	req    runner.Request
}

// Settings are what a sandbox records of the profile (as the Docker
// sandbox does: TestEvidenceKeyOfARealRun holds it to the key).
func (a scriptAttempt) Settings() runner.Settings {
	p := a.req.Profile
	st := runner.Settings{Image: p.Image, ImageID: scriptImageID, User: p.User, Runtime: p.Runtime,
		NetworkFiles: p.NetworkFiles.OrDefault(), TmpfsBytes: maps.Clone(p.Tmpfs), Applied: runner.Apply(p)}
	for k, v := range p.Env {
		st.Env = append(st.Env, k+"="+v)
	}
	slices.Sort(st.Env)
	return st
}

// scriptImageID is the image ID the script sandbox says it ran: the
// specs' pin, an image ID, as the Docker sandbox says for an ID pin.
const scriptImageID = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

func (a scriptAttempt) Close(context.Context) error { return nil }

// Build runs the profile's build stage: "slowbuild" is killed at its
// timeout, as the Docker sandbox records it, "badbuild" exits 1 (a
// compile error); any other script builds.
func (a scriptAttempt) Build(ctx context.Context) (runner.Event, error) {
	p := a.req.Profile
	b := p.Build
	a.sb.mu.Lock()
	a.sb.builds++
	a.sb.mu.Unlock()
	code := 0
	switch a.script {
	case "slowbuild":
		code = 137
	case "badbuild":
		code = 1
	}
	return runner.Event{
		ExitCode:      &code,
		TimedOut:      a.script == "slowbuild",
		Command:       runner.BuildArgv(b.Command, runner.DefaultProgramDir+"/"+p.ProgramName),
		ImageDigest:   b.Image,
		ProgramSHA256: a.req.Program.Digest(),
		Limits: runner.Limits{TimeoutMS: b.Timeout.Milliseconds(), MemoryBytes: b.Memory, CPUs: b.CPUs, Pids: b.Pids,
			OutputLimit: b.OutputLimit, OutputCeiling: b.OutputCeiling},
		Duration: time.Millisecond,
	}, nil
}

func (a scriptAttempt) Run(ctx context.Context, inv runner.Invocation) (runner.Event, error) {
	s := a.sb
	s.mu.Lock()
	if s.ran == nil {
		s.ran = map[string]int{}
	}
	s.ran[a.script]++
	out := ""
	switch a.script {
	case "echo":
		out = string(inv.Stdin)
	case "upper":
		out = strings.ToUpper(string(inv.Stdin))
	case "flip":
		out = []string{"heads", "tails"}[s.flips%2]
		s.flips++
	case "lose":
		s.mu.Unlock()
		return runner.Event{SandboxError: "engine gone"}, runner.Lost(errors.New("engine gone"))
	case "cut":
		out = string(inv.Stdin)
	}
	s.mu.Unlock()
	code := 0
	errOut := ""
	switch a.script {
	case "slow":
		code = 137 // killed at its timeout, as the Docker sandbox records it
	case "check":
		// A checker, testlib's way: its args are the paths of the input,
		// the output and the answer, delivered with its files.
		file := func(k int) string {
			if k >= len(inv.Args) {
				return ""
			}
			data, err := a.req.Program.Files[strings.TrimPrefix(inv.Args[k], runner.DefaultProgramDir+"/")].ReadAll()
			if err != nil {
				return err.Error()
			}
			return string(data)
		}
		switch output, answer := file(1), file(2); {
		case answer == "":
			code, errOut = 3, "FAIL no answer"
		case output != answer:
			code, errOut = 1, "wrong answer "+output+" is not "+answer
		}
	}
	stdout := runner.Stream{Data: []byte(out), Bytes: int64(len(out))}
	if a.script == "cut" {
		stdout.Truncated, stdout.Bytes = true, stdout.Bytes+100
	}
	p := a.req.Profile
	sum := sha256.Sum256(inv.Stdin)
	return runner.Event{
		ExitCode:      &code,
		TimedOut:      a.script == "slow",
		Stdout:        stdout,
		Stderr:        runner.Stream{Data: []byte(errOut), Bytes: int64(len(errOut))},
		Command:       append(append(slices.Clone(p.Command), runner.DefaultProgramDir+"/"+p.ProgramName), inv.Args...),
		StdinSHA256:   hex.EncodeToString(sum[:]),
		ProgramSHA256: a.req.Program.Digest(),
		ImageDigest:   scriptImageID,
		Limits: runner.Limits{TimeoutMS: p.Timeout.Milliseconds(), MemoryBytes: p.Memory, CPUs: p.CPUs, Pids: p.Pids,
			OutputLimit: p.OutputLimit, OutputCeiling: p.OutputCeiling},
		Duration: time.Millisecond,
	}, nil
}

// recordSink keeps what the engine hands it.
type recordSink struct {
	mu    sync.Mutex
	cases map[[2]int]sunk
}

type sunk struct {
	runs int
	refs int
	// checks are the case's checker runs.
	checks []assemble.CheckerRun
	res    verdict.CaseResult
	n      int // how many times the case arrived
	from   *report.Origin
	not    *report.NotReused
}

func (r *recordSink) AddCase(p, c int, k assemble.Case) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cases == nil {
		r.cases = map[[2]int]sunk{}
	}
	key := [2]int{p, c}
	s := r.cases[key]
	r.cases[key] = sunk{runs: len(k.Runs), refs: len(k.References), checks: k.Checkers, res: k.Result, n: s.n + 1, from: k.ReusedFrom, not: k.NotReused}
}

// loadSpec writes files (path → content) and the spec into a directory
// and loads the spec as behaves run does.
func loadSpec(t *testing.T, specYAML string, files map[string]string) *spec.Spec {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "behaves.yml")
	if err := os.WriteFile(path, []byte(specYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Load(path, spec.Options{})
	if err != nil {
		t.Fatalf("load spec: %v", err)
	}
	return sp
}

const pin = `"sha256:0000000000000000000000000000000000000000000000000000000000000000"`

const testSpec = `version: 1
profiles:
  p: {image: ` + pin + `, command: ["x"], timeout: 1s, memory: 16MiB}
programs:
  - name: ref
    file: upper.txt
    profile: p
    cases:
      - {name: shout, stdin: "hi", expect: {stdout: {equals: "HI"}}}
  - name: echo
    file: echo.txt
    profile: p
    reference: ref
    cases:
      - {name: plain, stdin: "same", expect: {stdout: {equals: "same"}}}
      - {name: differs, stdin: "abc", expect: {same_as: reference}}
  - name: coin
    file: flip.txt
    profile: p
    cases:
      - {name: heads, repeat: 4, expect: {stdout: {equals: "heads"}}}
`

var testFiles = map[string]string{"upper.txt": "upper", "echo.txt": "echo", "flip.txt": "flip", "lose.txt": "lose", "slow.txt": "slow", "slowbuild.txt": "slowbuild", "badbuild.txt": "badbuild",
	"check.txt": "check", "cut.txt": "cut"}

func verdicts(rep report.Report) []string {
	var out []string
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			out = append(out, p.Name+"/"+c.Name+"="+c.Verdict.String())
		}
	}
	return out
}

func TestRunJudgesReferencesAndRepeats(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	plan := NewPlan(sp, Selection{}, 2)
	sb := &scriptSandbox{}
	sink := &recordSink{}
	var progress []verdict.Verdict
	var mu sync.Mutex
	out := plan.Run(t.Context(), sb, Options{
		RunID: "r", StartedAt: time.Now(), Cleanup: context.Background(),
		OnCase: func(v verdict.Verdict) { mu.Lock(); progress = append(progress, v); mu.Unlock() },
	}, sink)
	if out.Err != nil {
		t.Fatalf("run failed: %v", out.Err)
	}
	// coin flips heads, tails, heads, tails: some runs true, some false,
	// which is undetermined (nondeterministic), never true or false.
	got := verdicts(out.Report)
	want := []string{"ref/shout=true", "echo/plain=true", "echo/differs=false", "coin/heads=undetermined"}
	if !slices.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if c := out.Report.Programs[2].Cases[0]; !strings.Contains(c.Reason, "nondetermin") {
		t.Errorf("coin/heads reason %q, want it to say the runs disagreed", c.Reason)
	}
	// The reference ran once for the same_as case's input, besides its
	// own case; coin ran its 4 repeats.
	if sb.ran["upper"] != 2 || sb.ran["echo"] != 2 || sb.ran["flip"] != 4 {
		t.Errorf("invocations per program: %v, want upper 2, echo 2, flip 4", sb.ran)
	}
	if len(sink.cases) != plan.Cases() || len(progress) != plan.Cases() {
		t.Errorf("sink got %d cases, progress %d; the plan has %d", len(sink.cases), len(progress), plan.Cases())
	}
	for k, s := range sink.cases {
		if s.n != 1 {
			t.Errorf("case %v reached the sink %d times", k, s.n)
		}
	}
	if s := sink.cases[[2]int{2, 0}]; s.runs != 4 {
		t.Errorf("coin/heads went to the sink with %d runs, want 4", s.runs)
	}
	if s := sink.cases[[2]int{1, 1}]; s.refs != 1 {
		t.Errorf("echo/differs went to the sink with %d reference runs, want 1", s.refs)
	}
}

func TestRunWithoutSandboxIsUndetermined(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	plan := NewPlan(sp, Selection{}, 0)
	if plan.Parallel < 1 {
		t.Fatalf("default parallel %d", plan.Parallel)
	}
	sink := &recordSink{}
	out := plan.Run(t.Context(), nil, Options{StartedAt: time.Now(), Cleanup: context.Background(), SandboxErr: errors.New("no daemon")}, sink)
	if out.Err == nil || !strings.Contains(out.Err.Error(), "no daemon") {
		t.Fatalf("run error %v, want the sandbox's reason", out.Err)
	}
	if out.Report.Verdict != verdict.Undetermined {
		t.Errorf("report verdict %s, want undetermined", out.Report.Verdict)
	}
	for _, v := range verdicts(out.Report) {
		if !strings.HasSuffix(v, "=undetermined") {
			t.Errorf("%s: without a sandbox every case is undetermined", v)
		}
	}
	if len(sink.cases) != plan.Cases() {
		t.Errorf("sink got %d cases, want all %d", len(sink.cases), plan.Cases())
	}
}

func TestRunLostSandboxFailsTheRunNotThePrograms(t *testing.T) {
	sp := loadSpec(t, `version: 1
profiles:
  p: {image: `+pin+`, command: ["x"], timeout: 1s, memory: 16MiB}
programs:
  - name: gone
    file: lose.txt
    profile: p
    cases:
      - {name: a, expect: {stdout: {equals: ""}}}
      - {name: b, repeat: 3, expect: {stdout: {equals: ""}}}
`, testFiles)
	sink := &recordSink{}
	out := NewPlan(sp, Selection{}, 1).Run(t.Context(), &scriptSandbox{}, Options{StartedAt: time.Now(), Cleanup: context.Background()}, sink)
	var lost *runner.LostError
	if !errors.As(out.Err, &lost) {
		t.Fatalf("run error %v, want the lost sandbox", out.Err)
	}
	for _, v := range verdicts(out.Report) {
		if !strings.HasSuffix(v, "=undetermined") {
			t.Errorf("%s: a lost sandbox settles nothing", v)
		}
	}
	if out.Report.Verdict != verdict.Undetermined {
		t.Errorf("report verdict %s, want undetermined", out.Report.Verdict)
	}
	if s := sink.cases[[2]int{0, 1}]; s.n != 1 || s.runs != 3 {
		t.Errorf("case b reached the sink %d times with %d runs, want once with 3", s.n, s.runs)
	}
}

func TestRunShardRunsOnlyItsPrograms(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	var total int
	seen := map[string]int{}
	for i := 1; i <= 2; i++ {
		plan := NewPlan(sp, Selection{Shard: &shard.Ref{Index: i, Count: 2}}, 1)
		out := plan.Run(t.Context(), &scriptSandbox{}, Options{StartedAt: time.Now(), Cleanup: context.Background()}, &recordSink{})
		if out.Err != nil {
			t.Fatalf("shard %d: %v", i, out.Err)
		}
		if out.Report.Shard == nil || out.Report.Shard.Index != i {
			t.Errorf("shard %d: report shard %+v", i, out.Report.Shard)
		}
		for _, p := range out.Report.Programs {
			seen[p.Name]++
		}
		total += plan.Cases()
		// A shard's same_as case finds its reference even when the
		// reference program is another shard's.
		for _, v := range verdicts(out.Report) {
			if strings.HasPrefix(v, "echo/differs") && !strings.HasSuffix(v, "=false") {
				t.Errorf("shard %d: %s, want false against the reference", i, v)
			}
		}
	}
	if len(sp.Programs) != 3 {
		t.Fatalf("NewPlan changed the spec: %d programs", len(sp.Programs))
	}
	if total != 4 || seen["ref"] != 1 || seen["echo"] != 1 || seen["coin"] != 1 {
		t.Errorf("shards ran %v (%d cases), want each program once, 4 cases", seen, total)
	}
}
