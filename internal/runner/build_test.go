package runner

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

func TestBuildFailure(t *testing.T) {
	t.Parallel()
	code := func(n int) *int { return &n }
	gccErr := "/program/main.c: In function 'main':\n/program/main.c:3:5: error: 'x' undeclared\n"
	for _, tt := range []struct {
		name string
		ev   Event
		want string
	}{
		{"success", Event{ExitCode: code(0)}, ""},
		{"sandbox error: not evidence", Event{ExitCode: code(1), SandboxError: "starting container: boom"}, ""},
		{"exit with gcc's first error line", Event{ExitCode: code(1), Stderr: Stream{Data: []byte(gccErr)}}, "build failed: exit 1: /program/main.c:3:5: error: 'x' undeclared"},
		{"no error line: the first line", Event{ExitCode: code(2), Stdout: Stream{Data: []byte("\n  make: nothing\n")}}, "build failed: exit 2: make: nothing"},
		{"go: the positioned line", Event{ExitCode: code(1), Stderr: Stream{Data: []byte("# command-line-arguments\n/program/typo.go:12:14: undefined: totl\n")}}, "build failed: exit 1: /program/typo.go:12:14: undefined: totl"},
		{"silent", Event{ExitCode: code(1)}, "build failed: exit 1"},
		{"timed out", Event{ExitCode: code(137), TimedOut: true, Limits: Limits{TimeoutMS: 60000}}, "build failed: timed out after 60s"},
		{"memory", Event{ExitCode: code(137), ResourceLimit: LimitMemory}, "build failed: killed: memory limit"},
		{"output size", Event{ExitCode: code(0), ResourceLimit: LimitBuildOutput}, "build failed: /build holds more than output_size"},
		{"no exit code", Event{}, "build failed: no exit code observed"},
	} {
		if got := BuildFailure(tt.ev); got != tt.want {
			t.Errorf("%s: BuildFailure = %q, want %q", tt.name, got, tt.want)
		}
	}
	long := strings.Repeat("é", 300)
	if got := BuildFailure(Event{ExitCode: code(1), Stderr: Stream{Data: []byte(long)}}); len(got) > 250 || !strings.HasSuffix(got, "…") {
		t.Errorf("a long line is not cut: %d bytes", len(got))
	}
}

// buildBox prepares attempts that build (with the event build gives) and
// counts builds and runs.
type buildBox struct {
	build  Event
	builds atomic.Int32
	runs   atomic.Int32
	noBld  bool // attempts that cannot build
}

type buildAttempt struct{ b *buildBox }
type plainAttempt struct{ b *buildBox }

func (b *buildBox) Prepare(ctx context.Context, batch []Request) []Prepared {
	out := make([]Prepared, len(batch))
	for i := range batch {
		if b.noBld {
			out[i].Attempt = plainAttempt{b}
		} else {
			out[i].Attempt = buildAttempt{b}
		}
	}
	return out
}

func (a buildAttempt) Settings() Settings { return Settings{} }
func (a buildAttempt) Run(ctx context.Context, inv Invocation) (Event, error) {
	a.b.runs.Add(1)
	code := 0
	return Event{ExitCode: &code}, nil
}
func (a buildAttempt) Close(ctx context.Context) error { return nil }
func (a buildAttempt) Build(ctx context.Context) (Event, error) {
	a.b.builds.Add(1)
	return a.b.build, nil
}
func (a plainAttempt) Settings() Settings { return Settings{} }
func (a plainAttempt) Run(ctx context.Context, inv Invocation) (Event, error) {
	return buildAttempt(a).Run(ctx, inv)
}
func (a plainAttempt) Close(ctx context.Context) error { return nil }

func TestRunBuildsOncePerAttempt(t *testing.T) {
	t.Parallel()
	code := func(n int) *int { return &n }
	job := func(build bool) Job {
		j := Job{Program: Program{Entry: "main.c"}, Invocations: make([]Invocation, 5)}
		if build {
			j.Profile.Build = &Build{Command: []string{"gcc"}}
		}
		return j
	}
	for _, tt := range []struct {
		name       string
		box        *buildBox
		jobs       []Job
		builds     int32
		runs       int32
		wantFail   string // each event's BuildFailure
		wantSandbx string // each event's SandboxError prefix
	}{
		{"success: built once, every case runs", &buildBox{build: Event{ExitCode: code(0)}}, []Job{job(true)}, 1, 5, "", ""},
		{"a failed build runs no case", &buildBox{build: Event{ExitCode: code(1), Stderr: Stream{Data: []byte("e.c:1: error: x\n")}}}, []Job{job(true)}, 1, 0, "build failed: exit 1: e.c:1: error: x", ""},
		{"a build not observed: undetermined", &buildBox{build: Event{SandboxError: "starting container: no"}}, []Job{job(true)}, 1, 0, "", "build: starting container: no"},
		{"no build stage: no build", &buildBox{}, []Job{job(false)}, 0, 5, "", ""},
		{"a sandbox that cannot build", &buildBox{noBld: true}, []Job{job(true)}, 0, 0, "", "the sandbox cannot run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			obs, err := Run(context.Background(), tt.box, tt.jobs, Options{Parallel: 3, OnEvent: func(int, int, Event) { mu.Lock(); mu.Unlock() }})
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.box.builds.Load(); got != tt.builds {
				t.Errorf("%d builds, want %d", got, tt.builds)
			}
			if got := tt.box.runs.Load(); got != tt.runs {
				t.Errorf("%d runs, want %d", got, tt.runs)
			}
			if (obs[0].Build != nil) != (tt.builds > 0) {
				t.Errorf("observation's build %+v, want one iff the build ran", obs[0].Build)
			}
			for k, ev := range obs[0].Events {
				if ev.BuildFailure != tt.wantFail || !strings.HasPrefix(ev.SandboxError, tt.wantSandbx) || (tt.wantSandbx == "") != (ev.SandboxError == "") {
					t.Errorf("event %d: build failure %q, sandbox error %q; want %q and %q", k, ev.BuildFailure, ev.SandboxError, tt.wantFail, tt.wantSandbx)
				}
			}
		})
	}
}

// The observation keeps the start of a build's output, marked truncated,
// and the reason comes from all of it.
func TestBuildOutputKept(t *testing.T) {
	t.Parallel()
	code := 1
	long := strings.Repeat("warning: é\n", 1000) + "main.c:9: error: late\n"
	box := &buildBox{build: Event{ExitCode: &code, Stderr: Stream{Data: []byte(long), Bytes: int64(len(long))}}}
	obs, err := Run(context.Background(), box, []Job{{Program: Program{Entry: "main.c"}, Profile: Profile{Build: &Build{}}, Invocations: make([]Invocation, 1)}}, Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := obs[0].Build
	if b == nil || len(b.Stderr.Data) > BuildOutputKept || !b.Stderr.Truncated || b.Stderr.Bytes != int64(len(long)) || !utf8.Valid(b.Stderr.Data) {
		t.Errorf("build stderr kept %d bytes (truncated %v, %d total), want at most %d, truncated, valid text", len(b.Stderr.Data), b.Stderr.Truncated, b.Stderr.Bytes, BuildOutputKept)
	}
	if got := obs[0].Events[0].BuildFailure; got != "build failed: exit 1: main.c:9: error: late" {
		t.Errorf("reason %q, want the error line past the kept start", got)
	}
}
