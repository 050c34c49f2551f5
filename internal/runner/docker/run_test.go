package docker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/google/go-cmp/cmp"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

func TestBoundedWriter(t *testing.T) {
	t.Parallel()
	var fired int
	w := newBoundedWriter(5, 12, func() { fired++ })
	for _, chunk := range []string{"abc", "defg", "hijkl"} { // 12 bytes: at the ceiling, not past it
		if n, err := w.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if got := w.stream(); !cmp.Equal(got, runner.Stream{Data: []byte("abcde"), Truncated: true, Bytes: 12}) {
		t.Errorf("stream = %+v", got)
	}
	if fired != 0 {
		t.Errorf("ceiling fired at the ceiling")
	}
	w.Write([]byte("m"))
	w.Write([]byte("nop"))
	if fired != 1 {
		t.Errorf("ceiling fired %d times past the ceiling, want once", fired)
	}
	if got := w.stream(); got.Bytes != 16 || string(got.Data) != "abcde" {
		t.Errorf("after the ceiling: %+v (keeps counting, keeps nothing more)", got)
	}

	exact := newBoundedWriter(3, 0, nil)
	exact.Write([]byte("abc"))
	if got := exact.stream(); got.Truncated || got.Bytes != 3 || string(got.Data) != "abc" {
		t.Errorf("exactly at the limit: %+v", got)
	}
	exact.Write(nil)
	none := newBoundedWriter(0, 0, nil)
	if got := none.stream(); got.Data == nil || got.Truncated {
		t.Errorf("empty stream: %+v (want non-nil empty data)", got)
	}
	none.Write(make([]byte, 1<<20)) // no ceiling: never fires, never fails
	if got := none.stream(); !got.Truncated || got.Bytes != 1<<20 || len(got.Data) != 0 {
		t.Errorf("limit 0: %+v", got)
	}

	// What the writer reserves never passes the limit (append alone would
	// round up to twice it): behaves' memory formula counts on it.
	const limit = 100_000
	grow := newBoundedWriter(limit, 0, nil)
	for grow.n < 3*limit {
		grow.Write(make([]byte, 777))
		if cap(grow.data) > limit {
			t.Fatalf("after %d bytes the writer reserves %d, over the limit %d", grow.n, cap(grow.data), limit)
		}
	}
	if got := grow.stream(); len(got.Data) != limit || !got.Truncated {
		t.Errorf("kept %d bytes, truncated %v", len(got.Data), got.Truncated)
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	start := "2026-05-07T21:09:36.100000000Z"
	end := "2026-05-07T21:09:36.350000000Z"
	exited := func(code int, oom bool) *container.State {
		return &container.State{Status: "exited", ExitCode: code, OOMKilled: oom, StartedAt: start, FinishedAt: end}
	}
	intp := func(i int) *int { return &i }
	tests := []struct {
		name string
		st   *container.State
		res  pumpResult
		want runner.Event
	}{
		{"exit 0", exited(0, false), pumpResult{exited: true}, runner.Event{ExitCode: intp(0), Duration: 250 * time.Millisecond}},
		{"exit 3", exited(3, false), pumpResult{exited: true}, runner.Event{ExitCode: intp(3), Duration: 250 * time.Millisecond}},
		{"timeout kill hit: 137 and TimedOut", exited(137, false), pumpResult{exited: true, timedOut: true, killed: true},
			runner.Event{ExitCode: intp(137), TimedOut: true, Duration: 250 * time.Millisecond}},
		{"OOM, main exited 0", exited(0, true), pumpResult{exited: true}, runner.Event{ExitCode: intp(0), ResourceLimit: runner.LimitMemory, Duration: 250 * time.Millisecond}},
		{"ceiling", exited(137, false), pumpResult{exited: true, ceilingHit: true, killed: true},
			runner.Event{ExitCode: intp(137), ResourceLimit: runner.LimitOutput, Duration: 250 * time.Millisecond}},
		{"memory wins over output", exited(137, true), pumpResult{exited: true, ceilingHit: true, killed: true},
			runner.Event{ExitCode: intp(137), ResourceLimit: runner.LimitMemory, Duration: 250 * time.Millisecond}},
		{"exited but grace expired: exit code and the fault", exited(0, false), pumpResult{exited: true, fault: "grace"},
			runner.Event{ExitCode: intp(0), SandboxError: "grace", Duration: 250 * time.Millisecond}},
		{"still running after kill: no exit code", &container.State{Status: "running", StartedAt: start, FinishedAt: "0001-01-01T00:00:00Z"},
			pumpResult{timedOut: true, killed: true, fault: "grace"},
			runner.Event{SandboxError: "container still running after kill"}},
		{"kill accepted, but the program exited 0 by itself", exited(0, false), pumpResult{exited: true, timedOut: true, killed: true},
			runner.Event{ExitCode: intp(0), Duration: 250 * time.Millisecond}},
		{"not exited, no kill", &container.State{Status: "running", StartedAt: start, FinishedAt: "0001-01-01T00:00:00Z"},
			pumpResult{fault: "waiting for container: boom"},
			runner.Event{SandboxError: "waiting for container: boom"}},
		{"dead", &container.State{Status: "dead"}, pumpResult{exited: true},
			runner.Event{SandboxError: `container not exited after the run (status "dead")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ev runner.Event
			judge(&ev, tt.st, tt.res, time.Now(), 250*time.Millisecond)
			if tt.st.Status != "exited" {
				ev.Duration = 0 // measured: not asserted
			}
			if diff := cmp.Diff(tt.want, ev); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKillEndedRun: the timeout rule reads the engine's record, not the
// kill's answer: 137 and a recorded run time that reached the timeout,
// within the record's resolution and 0.1% of the timeout.
func TestKillEndedRun(t *testing.T) {
	t.Parallel()
	st := func(code int, start, end string) *container.State {
		return &container.State{Status: "exited", ExitCode: code, StartedAt: start, FinishedAt: end}
	}
	const s0 = "2026-05-07T21:09:36.100000000Z"
	tests := []struct {
		name    string
		st      *container.State
		timeout time.Duration
		want    bool
	}{
		{"137, ran past the timeout", st(137, s0, "2026-05-07T21:09:37.300000001Z"), time.Second, true},
		{"137, ran exactly the timeout", st(137, s0, "2026-05-07T21:09:37.100000000Z"), time.Second, true},
		{"137, short by less than 0.1%", st(137, s0, "2026-05-07T21:09:37.099500000Z"), time.Second, true},
		{"137, short by more than the slack", st(137, s0, "2026-05-07T21:09:37.090000000Z"), time.Second, false},
		{"137 well before the timeout: exited by itself", st(137, s0, "2026-05-07T21:09:36.400000000Z"), time.Second, false},
		{"0 after the timeout: exited by itself", st(0, s0, "2026-05-07T21:09:38.100000000Z"), time.Second, false},
		{"1 after the timeout", st(1, s0, "2026-05-07T21:09:38.100000000Z"), time.Second, false},
		{"whole seconds: a second of resolution", st(137, "2026-05-07T21:09:36Z", "2026-05-07T21:09:37Z"), 1500 * time.Millisecond, true},
		{"whole seconds, well short", st(137, "2026-05-07T21:09:36Z", "2026-05-07T21:09:37Z"), 3 * time.Second, false},
		{"no valid record: the exit code decides", st(137, "0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"), time.Second, true},
		{"not exited", &container.State{Status: "running", ExitCode: 137, StartedAt: s0}, time.Second, false},
	}
	for _, tt := range tests {
		if got := killEndedRun(tt.st, tt.timeout); got != tt.want {
			t.Errorf("%s: killEndedRun = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRunDurationFallsBackToMeasured(t *testing.T) {
	t.Parallel()
	started := time.Now()
	res := pumpResult{exited: true, exitedAt: started.Add(42 * time.Millisecond)}
	st := &container.State{Status: "exited", StartedAt: "garbage", FinishedAt: "2026-05-07T21:09:36Z"}
	if got := runDuration(st, started, res); got != 42*time.Millisecond {
		t.Errorf("duration = %s, want the measured 42ms", got)
	}
}

// fakeContainer is the engine's side of an attach connection plus the wait
// channels, for pump tests.
type fakeContainer struct {
	engineSide net.Conn
	stdout     io.Writer
	stderr     io.Writer
	waitC      chan container.WaitResponse
	waitErrC   chan error
	kills      atomic.Int32
}

func newFakeContainer(t *testing.T) (*fakeContainer, pumpInput) {
	t.Helper()
	ours, theirs := net.Pipe()
	f := &fakeContainer{
		engineSide: theirs,
		stdout:     stdcopy.NewStdWriter(theirs, stdcopy.Stdout),
		stderr:     stdcopy.NewStdWriter(theirs, stdcopy.Stderr),
		waitC:      make(chan container.WaitResponse, 1),
		waitErrC:   make(chan error, 1),
	}
	t.Cleanup(func() { theirs.Close() })
	return f, pumpInput{
		conn:     types.NewHijackedResponse(ours, ""),
		stdout:   newBoundedWriter(1<<20, 0, nil),
		stderr:   newBoundedWriter(1<<20, 0, nil),
		waitC:    f.waitC,
		waitErrC: f.waitErrC,
		timeout:  10 * time.Second,
		grace:    10 * time.Second,
	}
}

// exit ends the streams and reports the exit, as the engine does.
func (f *fakeContainer) exit(code int64) {
	f.engineSide.Close()
	f.waitC <- container.WaitResponse{StatusCode: code}
}

func TestPumpNormalExit(t *testing.T) {
	t.Parallel()
	f, in := newFakeContainer(t)
	in.stdin = []byte("hello")
	in.kill = func() (bool, error) { t.Error("kill called"); return false, nil }
	go func() {
		buf := make([]byte, 5)
		io.ReadFull(f.engineSide, buf)
		f.stdout.Write(bytes.ToUpper(buf))
		f.stderr.Write([]byte("warn"))
		f.exit(0)
	}()
	res := pump(context.Background(), in)
	if res.fault != "" || !res.exited || res.timedOut || res.interrupted || res.stdinBytes != 5 {
		t.Errorf("result = %+v", res)
	}
	if got := string(in.stdout.stream().Data) + "|" + string(in.stderr.stream().Data); got != "HELLO|warn" {
		t.Errorf("streams = %q", got)
	}
}

// TestPumpStreamEndsBeforeExit: when the output ends before the exit is
// reported, pump inspects the container at once. Exited: the engine ended
// the stream, the output is complete, and that inspect is the run's.
// Running: the stream was ended by the path to the engine, the evidence is
// incomplete (a fault), and the container is killed.
func TestPumpStreamEndsBeforeExit(t *testing.T) {
	t.Parallel()
	for _, status := range []container.ContainerState{container.StateExited, container.StateRunning} {
		f, in := newFakeContainer(t)
		in.kill = func() (bool, error) {
			f.kills.Add(1)
			f.waitC <- container.WaitResponse{StatusCode: 137}
			return true, nil
		}
		in.inspect = func(context.Context) (container.InspectResponse, error) {
			if status == container.StateExited {
				defer func() { f.waitC <- container.WaitResponse{} }() // the exit is reported after the stream's end
			}
			return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{State: &container.State{Status: status}}}, nil
		}
		go func() {
			f.stdout.Write([]byte("part"))
			f.engineSide.Close()
		}()
		res := pump(context.Background(), in)
		switch status {
		case container.StateExited:
			if res.fault != "" || !res.inspectDone || res.inspected.State.Status != container.StateExited || f.kills.Load() != 0 {
				t.Errorf("exited at the stream's end: result = %+v, kills %d; want the inspect kept, no fault, no kill", res, f.kills.Load())
			}
		default:
			if !strings.Contains(res.fault, "ended while the container was still running") || res.inspectDone || f.kills.Load() != 1 || res.timedOut {
				t.Errorf("running at the stream's end: result = %+v, kills %d; want the fault, a kill, no timeout", res, f.kills.Load())
			}
		}
	}
}

func TestPumpStdinNotReadIsNotAFault(t *testing.T) {
	t.Parallel()
	f, in := newFakeContainer(t)
	in.stdin = bytes.Repeat([]byte("x"), 1<<20)
	in.kill = func() (bool, error) { return false, nil }
	go func() {
		io.ReadFull(f.engineSide, make([]byte, 100)) // reads 100 bytes, then exits
		f.exit(0)
	}()
	res := pump(context.Background(), in)
	if res.fault != "" || !res.exited {
		t.Errorf("result = %+v", res)
	}
	if res.stdinBytes != 100 {
		t.Errorf("stdin bytes = %d, want the 100 the program read", res.stdinBytes)
	}
}

func TestPumpTimeout(t *testing.T) {
	t.Parallel()
	for _, running := range []bool{true, false} {
		f, in := newFakeContainer(t)
		in.timeout = 10 * time.Millisecond
		in.kill = func() (bool, error) {
			f.kills.Add(1)
			go f.exit(137)
			return running, nil // running=false: "is not running", it had exited on its own
		}
		res := pump(context.Background(), in)
		if res.timedOut != running || res.killed != running || res.fault != "" || f.kills.Load() != 1 {
			t.Errorf("running=%v: result = %+v, kills = %d", running, res, f.kills.Load())
		}
	}
}

func TestPumpKillFailureIsAFault(t *testing.T) {
	t.Parallel()
	f, in := newFakeContainer(t)
	in.timeout = 10 * time.Millisecond
	in.grace = 20 * time.Millisecond
	in.kill = func() (bool, error) { return false, errors.New("engine gone") }
	res := pump(context.Background(), in)
	_ = f
	if res.timedOut || !strings.Contains(res.fault, "killing container after the timeout: engine gone") {
		t.Errorf("result = %+v", res)
	}
}

func TestPumpOutputCeiling(t *testing.T) {
	t.Parallel()
	f, in := newFakeContainer(t)
	ceiling := make(chan struct{}, 1)
	in.ceiling = ceiling
	in.stdout = newBoundedWriter(10, 100, func() { ceiling <- struct{}{} })
	in.kill = func() (bool, error) {
		f.kills.Add(1)
		go f.exit(137)
		return true, nil
	}
	go func() {
		for i := 0; i < 50; i++ {
			if _, err := f.stdout.Write(make([]byte, 10)); err != nil {
				return // killed
			}
		}
	}()
	res := pump(context.Background(), in)
	if !res.ceilingHit || !res.killed || res.timedOut || res.fault != "" || f.kills.Load() != 1 {
		t.Errorf("result = %+v, kills = %d", res, f.kills.Load())
	}
	if s := in.stdout.stream(); !s.Truncated || s.Bytes <= 100 || len(s.Data) != 10 {
		t.Errorf("stdout = %+v", s)
	}
}

func TestPumpGraceExpiry(t *testing.T) {
	t.Parallel()
	f, in := newFakeContainer(t)
	in.grace = 20 * time.Millisecond
	in.kill = func() (bool, error) { return false, nil }
	f.waitC <- container.WaitResponse{StatusCode: 0} // exited, but the streams never end
	res := pump(context.Background(), in)
	if !res.exited || !strings.Contains(res.fault, "not both observed") {
		t.Errorf("result = %+v", res)
	}
}

func TestPumpWaitError(t *testing.T) {
	t.Parallel()
	f, in := newFakeContainer(t)
	in.kill = func() (bool, error) { return false, nil }
	f.waitErrC <- errors.New("unexpected EOF")
	f.engineSide.Close()
	res := pump(context.Background(), in)
	if res.exited || res.fault != "waiting for container: unexpected EOF" {
		t.Errorf("result = %+v", res)
	}
}

func TestPumpInterrupted(t *testing.T) {
	t.Parallel()
	_, in := newFakeContainer(t)
	in.stdin = bytes.Repeat([]byte("x"), 1<<20) // a blocked stdin write must not hang pump
	in.kill = func() (bool, error) { t.Error("pump killed on interruption; Run does"); return false, nil }
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	res := pump(ctx, in)
	if !res.interrupted || res.timedOut {
		t.Errorf("result = %+v", res)
	}
}

func TestFaultText(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	if got := faultText(ctx, "creating container", errors.New("boom"), time.Minute); got != "creating container: boom" {
		t.Errorf("got %q", got)
	}
	if got := faultText(ctx, "starting container", context.DeadlineExceeded, time.Minute); got != "starting container: the engine did not answer within 1m0s" {
		t.Errorf("got %q", got)
	}
	cancel()
	if got := faultText(ctx, "creating container", context.Canceled, time.Minute); got != "interrupted" {
		t.Errorf("got %q", got)
	}
}

// hangingEngine is an engine whose container calls hang until their
// context ends, except those a test makes answer.
type hangingEngine struct {
	dockerAPI
	createOK bool
	removed  atomic.Int32
}

func (h *hangingEngine) ContainerCreate(ctx context.Context, _ *container.Config, _ *container.HostConfig, _ *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	if h.createOK {
		return container.CreateResponse{ID: "id-" + name}, nil
	}
	<-ctx.Done()
	return container.CreateResponse{}, ctx.Err()
}

func (h *hangingEngine) ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error) {
	return container.InspectResponse{}, cerrdefs.ErrNotFound
}

func (h *hangingEngine) ContainerAttach(ctx context.Context, id string, _ container.AttachOptions) (types.HijackedResponse, error) {
	ours, theirs := net.Pipe()
	go func() { <-ctx.Done(); theirs.Close() }()
	return types.NewHijackedResponse(ours, ""), nil
}

func (h *hangingEngine) ContainerWait(ctx context.Context, id string, _ container.WaitCondition) (<-chan container.WaitResponse, <-chan error) {
	errC := make(chan error, 1)
	go func() { <-ctx.Done(); errC <- ctx.Err() }()
	return make(chan container.WaitResponse), errC
}

// Events answers nothing until its context ends, as a quiet engine does.
func (h *hangingEngine) Events(ctx context.Context, _ events.ListOptions) (<-chan events.Message, <-chan error) {
	errC := make(chan error, 1)
	go func() { <-ctx.Done(); errC <- ctx.Err() }()
	return make(chan events.Message), errC
}

func (h *hangingEngine) ContainerStart(ctx context.Context, id string, _ container.StartOptions) error {
	<-ctx.Done()
	return ctx.Err()
}

func (h *hangingEngine) ContainerRemove(ctx context.Context, id string, opt container.RemoveOptions) error {
	if !opt.Force || !opt.RemoveVolumes {
		return errors.New("removal not forced or keeps volumes")
	}
	h.removed.Add(1)
	return nil
}

func TestRunHangingEngineIsASandboxError(t *testing.T) {
	t.Parallel()
	for _, createOK := range []bool{false, true} {
		eng := &hangingEngine{createOK: createOK}
		s := testSandbox(eng)
		s.opt.EngineTimeout = 50 * time.Millisecond
		a := &Attempt{sb: s, applied: runner.Apply(testProfile()), img: testImage(), volume: "v"}
		ev, err := a.Run(context.Background(), runner.Invocation{})
		if err != nil {
			t.Fatalf("createOK=%v: cleanup error %v", createOK, err)
		}
		// The name: the engine may still make it (see lookAfterFailedCreate).
		want := "creating container behaves-test-1: the engine did not answer within 50ms"
		if createOK {
			want = "starting container: the engine did not answer within 50ms"
			if eng.removed.Load() != 1 {
				t.Errorf("the created container was not removed")
			}
		}
		if ev.SandboxError != want || ev.ExitCode != nil || ev.TimedOut {
			t.Errorf("createOK=%v: event %+v, want SandboxError %q", createOK, ev, want)
		}
	}
}

// stuckRemoval is a hangingEngine whose removals hang until their context
// ends.
type stuckRemoval struct{ hangingEngine }

func (s *stuckRemoval) ContainerRemove(ctx context.Context, id string, _ container.RemoveOptions) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestRunRemovalFailureAndAbandonedCleanup(t *testing.T) {
	t.Parallel()
	// A removal that cannot finish is the call's error, within the cleanup
	// deadline, even though the run context is cancelled.
	s := testSandbox(&stuckRemoval{hangingEngine{createOK: true}})
	s.opt.EngineTimeout, s.opt.CleanupTimeout = 20*time.Millisecond, 30*time.Millisecond
	a := &Attempt{sb: s, applied: runner.Apply(testProfile()), img: testImage(), volume: "v"}
	ev, err := a.Run(context.Background(), runner.Invocation{})
	if err == nil || !strings.HasPrefix(err.Error(), "removing container behaves-test-1: ") || ev.SandboxError == "" {
		t.Errorf("event %+v, err %v", ev, err)
	}

	// Options.Cleanup cancelled (a second signal): cleanup is abandoned at
	// once instead of waiting out its deadline.
	abandoned, abandon := context.WithCancel(context.Background())
	abandon()
	s = testSandbox(&stuckRemoval{hangingEngine{createOK: true}})
	s.opt.EngineTimeout, s.opt.CleanupTimeout, s.opt.Cleanup = 20*time.Millisecond, time.Hour, abandoned
	a = &Attempt{sb: s, applied: runner.Apply(testProfile()), img: testImage(), volume: "v"}
	if _, err := a.Run(context.Background(), runner.Invocation{}); !errors.Is(err, context.Canceled) {
		t.Errorf("abandoned cleanup: err = %v", err)
	}
}
