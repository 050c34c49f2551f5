package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSandbox records what it is given and answers from a script.
type fakeSandbox struct {
	prepareErr error
	// prepareErrFor, when set, fails the programs whose entry it names.
	prepareErrFor map[string]error
	// runErr returns the cleanup error for an invocation (by its first arg).
	runErr  func(inv Invocation) error
	closeEr error
	// block, when set, makes Run wait until ctx is done.
	block bool

	mu        sync.Mutex
	prepared  int
	closed    int
	batches   []int // the size of every Prepare call
	maxOpen   int   // most attempts prepared and not yet closed at once
	ran       []string
	inFlight  int32
	maxFlight int32
	started   chan struct{}
}

type fakeAttempt struct{ sb *fakeSandbox }

func (f *fakeSandbox) Prepare(ctx context.Context, batch []Request) []Prepared {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, len(batch))
	out := make([]Prepared, len(batch))
	for i, r := range batch {
		f.prepared++
		switch {
		case f.prepareErr != nil:
			out[i].Err = f.prepareErr
		case f.prepareErrFor[r.Program.Entry] != nil:
			out[i].Err = f.prepareErrFor[r.Program.Entry]
		default:
			out[i].Attempt = fakeAttempt{f}
		}
	}
	open := f.prepared - f.closed
	for _, r := range out {
		if r.Err != nil {
			open--
		}
	}
	f.maxOpen = max(f.maxOpen, open)
	return out
}

func (a fakeAttempt) Settings() Settings { return Settings{Image: "fake"} }

func (a fakeAttempt) Run(ctx context.Context, inv Invocation) (Event, error) {
	f := a.sb
	n := atomic.AddInt32(&f.inFlight, 1)
	defer atomic.AddInt32(&f.inFlight, -1)
	for {
		m := atomic.LoadInt32(&f.maxFlight)
		if n <= m || atomic.CompareAndSwapInt32(&f.maxFlight, m, n) {
			break
		}
	}
	f.mu.Lock()
	f.ran = append(f.ran, strings.Join(inv.Args, " "))
	f.mu.Unlock()
	if f.started != nil {
		f.started <- struct{}{}
	}
	if f.block {
		<-ctx.Done()
		return Event{SandboxError: "interrupted"}, nil
	}
	time.Sleep(time.Millisecond) // let workers overlap
	code := 0
	ev := Event{ExitCode: &code, Stdout: Stream{Data: []byte(strings.Join(inv.Args, " "))}}
	var err error
	if f.runErr != nil {
		err = f.runErr(inv)
	}
	return ev, err
}

func (a fakeAttempt) Close(ctx context.Context) error {
	a.sb.mu.Lock()
	defer a.sb.mu.Unlock()
	a.sb.closed++
	return a.sb.closeEr
}

// mustRun is Run where the sandbox is never lost: an error fails the test.
func mustRun(t *testing.T, ctx context.Context, sb Sandbox, jobs []Job, opt Options) []Observation {
	t.Helper()
	obs, err := Run(ctx, sb, jobs, opt)
	if err != nil {
		t.Fatalf("Run: %v (the sandbox was not lost)", err)
	}
	return obs
}

func jobsOf(programs, cases int) []Job {
	var jobs []Job
	for p := 0; p < programs; p++ {
		j := Job{Program: Program{Entry: fmt.Sprintf("p%d", p)}}
		for c := 0; c < cases; c++ {
			j.Invocations = append(j.Invocations, Invocation{Args: []string{fmt.Sprintf("p%d", p), fmt.Sprintf("c%d", c)}})
		}
		jobs = append(jobs, j)
	}
	return jobs
}

func TestRunObservesEveryInvocationInOrder(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{}
	obs := mustRun(t, context.Background(), sb, jobsOf(3, 4), Options{Parallel: 3})
	if len(obs) != 3 {
		t.Fatalf("got %d observations, want 3", len(obs))
	}
	ids := map[string]bool{}
	for p, o := range obs {
		if o.Acquisition != AcquisitionComplete {
			t.Errorf("program %d: acquisition %q, want complete (reasons %v)", p, o.Acquisition, o.Reasons)
		}
		if ids[o.ExecutionID] || o.ExecutionID == "" {
			t.Errorf("program %d: execution ID %q is empty or repeated", p, o.ExecutionID)
		}
		ids[o.ExecutionID] = true
		if o.Settings.Image != "fake" {
			t.Errorf("program %d: settings not recorded: %+v", p, o.Settings)
		}
		for c, ev := range o.Events {
			want := fmt.Sprintf("p%d c%d", p, c)
			if string(ev.Stdout.Data) != want {
				t.Errorf("event %d/%d holds %q, want %q", p, c, ev.Stdout.Data, want)
			}
		}
	}
	if sb.prepared != 3 || sb.closed != 3 {
		t.Errorf("prepared %d and closed %d attempts, want 3 and 3", sb.prepared, sb.closed)
	}
	if sb.maxFlight > 3 {
		t.Errorf("%d invocations ran at once, want at most 3", sb.maxFlight)
	}
}

// TestRunDropOutput guards the run's memory: with DropOutput the events
// reach OnEvent with their output, and the observations keep none of it.
func TestRunDropOutput(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{}
	var mu sync.Mutex
	seen := map[string]bool{}
	obs, _ := Run(context.Background(), sb, jobsOf(2, 3), Options{
		Parallel:   2,
		DropOutput: true,
		OnEvent: func(job, inv int, ev Event) {
			mu.Lock()
			defer mu.Unlock()
			seen[fmt.Sprintf("%d/%d %s", job, inv, ev.Stdout.Data)] = true
		},
	})
	for p, o := range obs {
		for c, ev := range o.Events {
			if !seen[fmt.Sprintf("%d/%d p%d c%d", p, c, p, c)] {
				t.Errorf("event %d/%d did not reach OnEvent with its output", p, c)
			}
			if ev.Stdout.Data != nil || ev.Stderr.Data != nil || ev.ExitCode == nil {
				t.Errorf("event %d/%d: observation holds output %q, exit code %v", p, c, ev.Stdout.Data, ev.ExitCode)
			}
		}
	}
}

func TestRunPrepareFailureMakesEveryCaseUnobserved(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{prepareErr: errors.New("image not present: pull it before scoring")}
	obs := mustRun(t, context.Background(), sb, jobsOf(1, 3), Options{Parallel: 2})
	o := obs[0]
	if o.Acquisition != AcquisitionError {
		t.Errorf("acquisition %q, want error", o.Acquisition)
	}
	if len(o.Reasons) != 1 || !strings.Contains(o.Reasons[0], "image not present") {
		t.Errorf("reasons %q, want the prepare error once", o.Reasons)
	}
	for c, ev := range o.Events {
		if !strings.Contains(ev.SandboxError, "image not present") {
			t.Errorf("case %d: sandbox error %q", c, ev.SandboxError)
		}
	}
	if sb.prepared != 1 || len(sb.ran) != 0 || sb.closed != 0 {
		t.Errorf("prepared %d, ran %d, closed %d; want 1, 0, 0", sb.prepared, len(sb.ran), sb.closed)
	}
}

// TestRunPreparesAheadInGrowingBatches: programs are prepared in the jobs'
// order in batches of one per worker, then doubling up to MaxBatch; each is
// prepared and closed once, and preparation never runs further ahead than
// its room (the workers' programs and two batches).
func TestRunPreparesAheadInGrowingBatches(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{}
	obs := mustRun(t, context.Background(), sb, jobsOf(100, 1), Options{Parallel: 2})
	for p, o := range obs {
		if o.Acquisition != AcquisitionComplete || string(o.Events[0].Stdout.Data) != fmt.Sprintf("p%d c0", p) {
			t.Fatalf("program %d: %s %q", p, o.Acquisition, o.Events[0].Stdout.Data)
		}
	}
	if want := []int{2, 4, 8, 16, 32, 32, 6}; !slices.Equal(sb.batches, want) {
		t.Errorf("batch sizes %v, want %v", sb.batches, want)
	}
	if sb.prepared != 100 || sb.closed != 100 {
		t.Errorf("prepared %d and closed %d attempts, want 100 and 100", sb.prepared, sb.closed)
	}
	if room := 2 + 2*MaxBatch; sb.maxOpen > room {
		t.Errorf("%d attempts open at once, want at most %d", sb.maxOpen, room)
	}
}

// TestRunPrepareFailureInABatch: one program of a batch that cannot be
// prepared is undetermined with its reason; the others of the batch run.
func TestRunPrepareFailureInABatch(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{prepareErrFor: map[string]error{"p1": errors.New("delivering the program: disk full")}}
	obs := mustRun(t, context.Background(), sb, jobsOf(3, 2), Options{Parallel: 3})
	for p, o := range obs {
		want := AcquisitionComplete
		if p == 1 {
			want = AcquisitionError
		}
		if o.Acquisition != want {
			t.Errorf("program %d: acquisition %s, want %s (reasons %q)", p, o.Acquisition, want, o.Reasons)
		}
	}
	if r := obs[1].Reasons; len(r) != 1 || r[0] != "delivering the program: disk full" {
		t.Errorf("reasons of the failed program %q", r)
	}
	if sb.closed != 2 || len(sb.ran) != 4 {
		t.Errorf("closed %d, ran %d; want 2 and 4", sb.closed, len(sb.ran))
	}
}

func TestRunRemovalFailureStopsTheProgram(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{runErr: func(inv Invocation) error {
		if inv.Args[1] == "c1" {
			return errors.New("removing container x: engine said no")
		}
		return nil
	}}
	obs := mustRun(t, context.Background(), sb, jobsOf(1, 4), Options{Parallel: 1})
	o := obs[0]
	if o.Acquisition != AcquisitionPartial {
		t.Errorf("acquisition %q, want partial", o.Acquisition)
	}
	if o.Events[0].SandboxError != "" || o.Events[1].SandboxError != "" {
		t.Errorf("cases observed before and at the failed removal lost their evidence: %q, %q", o.Events[0].SandboxError, o.Events[1].SandboxError)
	}
	for _, c := range []int{2, 3} {
		if o.Events[c].SandboxError != NotRunStopped {
			t.Errorf("case %d: sandbox error %q, want %q", c, o.Events[c].SandboxError, NotRunStopped)
		}
	}
	if len(o.SandboxWarnings) != 1 || !strings.Contains(o.SandboxWarnings[0], "removing container x") {
		t.Errorf("sandbox warnings %q", o.SandboxWarnings)
	}
	if sb.closed != 1 {
		t.Errorf("closed %d attempts, want 1", sb.closed)
	}
}

func TestRunCancellationStopsStartingAndClosesEverything(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{block: true, started: make(chan struct{}, 10)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []Observation)
	go func() {
		obs, err := Run(ctx, sb, jobsOf(2, 5), Options{Parallel: 2})
		if err != nil {
			t.Errorf("Run: %v (the sandbox was not lost)", err)
		}
		done <- obs
	}()
	<-sb.started
	<-sb.started
	cancel()
	var obs []Observation
	select {
	case obs = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if len(sb.ran) != 2 {
		t.Errorf("%d invocations started, want only the 2 in flight", len(sb.ran))
	}
	if sb.closed != sb.prepared {
		t.Errorf("prepared %d attempts but closed %d", sb.prepared, sb.closed)
	}
	for p, o := range obs {
		if o.Acquisition == AcquisitionComplete {
			t.Errorf("program %d: acquisition complete after an interruption", p)
		}
		for c, ev := range o.Events {
			if ev.SandboxError == "" {
				t.Errorf("program %d case %d: observed although interrupted", p, c)
			}
		}
	}
}

func TestAcquisition(t *testing.T) {
	t.Parallel()
	ok := Event{}
	bad := Event{SandboxError: "x"}
	for _, tc := range []struct {
		events []Event
		want   Acquisition
	}{
		{[]Event{ok, ok}, AcquisitionComplete},
		{[]Event{ok, bad}, AcquisitionPartial},
		{[]Event{bad, bad}, AcquisitionError},
		{nil, AcquisitionError},
	} {
		if got, _ := acquisition(tc.events); got != tc.want {
			t.Errorf("acquisition(%v) = %q, want %q", tc.events, got, tc.want)
		}
	}
}

// TestRunStopsWhenTheSandboxIsLost: an invocation whose Run reports the loss
// of the sandbox (a *LostError, here joined with a removal failure) ends
// the run: Run returns the loss, starts nothing new (not one case after
// another failing against a dead engine), closes every prepared program,
// keeps what was observed, and gives every invocation that did not start
// the loss as its reason.
func TestRunStopsWhenTheSandboxIsLost(t *testing.T) {
	t.Parallel()
	lostErr := errors.New("the engine became unreachable: connection refused")
	var sb *fakeSandbox
	sb = &fakeSandbox{runErr: func(inv Invocation) error {
		if strings.Join(inv.Args, " ") != "p0 c1" {
			return nil
		}
		// The loss comes once p0 c0 is in flight: two workers may take
		// p0's cases in either order, and under load the second may start
		// c1 before the first starts c0.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			sb.mu.Lock()
			started := slices.Contains(sb.ran, "p0 c0")
			sb.mu.Unlock()
			if started {
				break
			}
		}
		return errors.Join(errors.New("removing container x: connection refused"), Lost(lostErr))
	}}
	const programs, cases = 100, 20 // more programs than the room (2 + 2*MaxBatch)
	obs, err := Run(context.Background(), sb, jobsOf(programs, cases), Options{Parallel: 2})
	var lost *LostError
	if !errors.As(err, &lost) || !errors.Is(err, lostErr) {
		t.Fatalf("Run returned %v, want the loss", err)
	}
	if len(sb.ran) > 5 {
		t.Errorf("%d invocations started, want only those in flight when the sandbox was lost", len(sb.ran))
	}
	if sb.closed != sb.prepared || sb.prepared >= programs {
		t.Errorf("prepared %d programs (of %d), closed %d: want preparation stopped and everything prepared closed", sb.prepared, programs, sb.closed)
	}
	if ev := obs[0].Events[0]; ev.SandboxError != "" || string(ev.Stdout.Data) != "p0 c0" {
		t.Errorf("the case observed before the loss lost its evidence: %+v", ev)
	}
	if w := strings.Join(obs[0].SandboxWarnings, "\n"); !strings.Contains(w, "removing container x") || strings.Contains(w, lostErr.Error()) {
		t.Errorf("warnings %q: want the removal failure, not the loss", obs[0].SandboxWarnings)
	}
	notRun := 0
	for p, o := range obs {
		for c, ev := range o.Events {
			if ev.SandboxError == "" {
				continue
			}
			if !strings.HasPrefix(ev.SandboxError, "not run: ") || !strings.Contains(ev.SandboxError, lostErr.Error()) {
				t.Errorf("program %d case %d: reason %q, want the loss", p, c, ev.SandboxError)
			}
			notRun++
		}
	}
	if notRun < programs*cases-5 {
		t.Errorf("%d invocations not run with the loss as reason, want all but those in flight", notRun)
	}
}

// TestRunStopsWhenPreparingLosesTheSandbox: a program whose preparation
// reports the loss gets its own cause as reason; the run stops preparing,
// and the programs not prepared are not run, with the loss as reason.
func TestRunStopsWhenPreparingLosesTheSandbox(t *testing.T) {
	t.Parallel()
	lostErr := errors.New("the engine became unreachable: EOF")
	sb := &fakeSandbox{prepareErrFor: map[string]error{
		"p1": errors.Join(errors.New("creating the program volume: EOF"), Lost(lostErr)),
	}}
	const programs = 60
	obs, err := Run(context.Background(), sb, jobsOf(programs, 2), Options{Parallel: 1})
	if !errors.Is(err, lostErr) {
		t.Fatalf("Run returned %v, want the loss", err)
	}
	if got := obs[1].Events[0].SandboxError; got != "creating the program volume: EOF" {
		t.Errorf("the program whose preparation failed: reason %q, want its own cause", got)
	}
	if sb.prepared >= programs {
		t.Errorf("all %d programs were prepared after the loss", sb.prepared)
	}
	if sb.closed != sb.prepared-1 {
		t.Errorf("prepared %d (one failed), closed %d", sb.prepared, sb.closed)
	}
	last := obs[programs-1]
	if ev := last.Events[0]; !strings.HasPrefix(ev.SandboxError, "not run: ") || !strings.Contains(ev.SandboxError, lostErr.Error()) {
		t.Errorf("a program after the loss: reason %q, want the loss", ev.SandboxError)
	}
}
