package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// CleanupTimeout bounds closing one attempt (removing its program volume).
// It runs on a fresh context so that it still happens after cancellation.
const CleanupTimeout = 8 * time.Second

// Reasons recorded for invocations that never ran.
const (
	NotRunInterrupted = "not run: the run was interrupted"
	NotRunStopped     = "not run: an earlier container of this program could not be removed"
)

// MaxBatch is the largest batch of programs the scheduler asks the sandbox
// to prepare at once. It matches what one Docker helper container fills (32
// volumes): each batch costs the engine one copy (it mounts the helper's
// root and extracts in a re-exec of its own binary: about 140 ms per copy
// in a trace on the project's machine, whatever the size), so suites of
// many one-case programs pay it per 32 programs rather than per 16.
const MaxBatch = 32

// Options tune Run.
type Options struct {
	// Parallel is the number of invocations in flight at once (at least 1).
	Parallel int
	// Cleanup is the parent of every cleanup context (default
	// context.Background()). Cancelling it abandons cleanup: what could not
	// be removed is listed in the sandbox warnings.
	Cleanup context.Context
	// OnEvent, when set, is called after each invocation, from any worker.
	OnEvent func(job, invocation int, ev Event)
	// DropOutput keeps the observations free of stream bytes (Data nil;
	// Bytes and Truncated stay): a caller that takes each event's output
	// through OnEvent sets it, so that the run's memory does not grow with
	// the output of every case.
	DropOutput bool
}

// Run runs every job's invocations on sb, at most opt.Parallel at a time, and
// returns one observation per job in the jobs' order. Programs are prepared
// ahead of the workers, in the jobs' order, in batches (see preparer); a
// job's program is closed after its last invocation. When ctx is cancelled
// no new invocation starts; those running are stopped by the sandbox; every
// prepared program is still closed.
//
// The error is non-nil only when the sandbox was lost (a *LostError from
// Prepare or Attempt.Run): the run failed. From then on no program is
// prepared and no invocation starts; those running end by themselves (their
// engine calls fail fast, or at their deadlines); every prepared program is
// still closed, with the usual cleanup deadlines; and every invocation that
// did not start is undetermined with the loss as its reason ("not run: …").
func Run(ctx context.Context, sb Sandbox, jobs []Job, opt Options) ([]Observation, error) {
	if opt.Parallel < 1 {
		opt.Parallel = 1
	}
	if opt.Cleanup == nil {
		opt.Cleanup = context.Background()
	}
	lost := &lostState{stop: make(chan struct{})}
	var closing sync.WaitGroup // the closes run aside of the workers
	p := &preparer{
		box:   sb,
		lost:  lost,
		first: min(opt.Parallel, MaxBatch),
		// Room for the programs the workers run and two batches ahead.
		room: make(chan struct{}, opt.Parallel+2*MaxBatch),
	}
	for _, j := range jobs {
		events := make([]Event, len(j.Invocations))
		for k := range events {
			events[k].SandboxError = NotRunInterrupted
		}
		p.states = append(p.states, &jobState{job: j, room: p.room, lost: lost, closing: &closing, ready: make(chan struct{}), left: len(j.Invocations), ran: make([]bool, len(j.Invocations)), obs: Observation{
			ExecutionID: uuid.NewString(),
			Events:      events,
		}})
	}
	prepared := make(chan struct{})
	go func() {
		defer close(prepared)
		p.run(ctx)
	}()

	type item struct{ job, inv int }
	items := make(chan item)
	var wg sync.WaitGroup
	for w := 0; w < opt.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range items {
				st := p.states[it.job]
				ev := st.run(ctx, it.inv, opt.Cleanup, opt.DropOutput)
				if opt.OnEvent != nil {
					opt.OnEvent(it.job, it.inv, ev)
				}
			}
		}()
	}
feed:
	for i, j := range jobs {
		for k := range j.Invocations {
			select {
			case <-ctx.Done():
				break feed
			case <-lost.stop:
				break feed
			case items <- item{i, k}:
			}
		}
	}
	close(items)
	wg.Wait()
	<-prepared // after an interruption, a batch may still be in the sandbox
	closing.Wait()

	out := make([]Observation, len(p.states))
	for i, st := range p.states {
		st.close(opt.Cleanup) // after an interruption some were not closed yet
		out[i] = st.observation()
	}
	if l := lost.err(); l != nil {
		return out, l
	}
	return out, nil
}

// lostState records the first loss of the sandbox in a run; stop is closed
// then, so that nothing new starts.
type lostState struct {
	mu   sync.Mutex
	lost *LostError
	stop chan struct{}
}

// set records l unless a loss was recorded already.
func (s *lostState) set(l *LostError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost == nil {
		s.lost = l
		close(s.stop)
	}
}

// err is the loss recorded, or nil.
func (s *lostState) err() *LostError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// notRunLost is the reason of an invocation that did not start because the
// sandbox was lost.
func notRunLost(l *LostError) string { return "not run: " + l.Error() }

// preparer prepares the jobs' programs ahead of the workers, in the jobs'
// order, so that a worker rarely waits for a delivery and the sandbox can
// deliver several programs at once. The first batch has one program per
// worker (so that every worker can start soon); each next batch is twice
// as large, up to MaxBatch. A prepared program holds a slot of room until it
// is closed, which bounds how far preparation runs ahead. Slots are always
// freed: the jobs before the one a worker waits for are all prepared, and
// their invocations were fed first, so they finish.
type preparer struct {
	box    Sandbox
	lost   *lostState
	states []*jobState
	first  int
	room   chan struct{}
}

// run prepares every job with invocations; when ctx is cancelled or the
// sandbox is lost it stops, and every job not prepared gets the
// interruption or the loss as its error, so that no worker waits for it.
func (p *preparer) run(ctx context.Context) {
	var pending []*jobState
	for _, st := range p.states {
		if len(st.job.Invocations) == 0 {
			st.settle(ctx, Prepared{}) // nothing to run, nothing to prepare
			continue
		}
		pending = append(pending, st)
	}
	defer func() {
		reason := NotRunInterrupted
		if l := p.lost.err(); l != nil {
			reason = notRunLost(l)
		}
		for _, st := range pending {
			st.settle(ctx, Prepared{Err: errors.New(reason)})
		}
	}()
	for size := p.first; len(pending) > 0; size = min(2*size, MaxBatch) {
		batch := pending[:min(size, len(pending))]
		for _, st := range batch {
			select {
			case p.room <- struct{}{}:
				st.mu.Lock()
				st.holdsRoom = true
				st.mu.Unlock()
			case <-ctx.Done():
				return
			case <-p.lost.stop:
				return
			}
		}
		reqs := make([]Request, len(batch))
		for i, st := range batch {
			reqs[i] = Request{Program: st.job.Program, Profile: st.job.Profile, Checker: st.job.Checker}
		}
		res := p.box.Prepare(ctx, reqs)
		for i, st := range batch {
			r := Prepared{Err: errors.New("the sandbox returned no result for this program")}
			if i < len(res) {
				r = res[i]
			}
			st.settle(ctx, r)
		}
		pending = pending[len(batch):]
	}
}

// jobState is one job's attempt, shared by the workers running its
// invocations.
type jobState struct {
	job     Job
	room    chan struct{}   // the preparer's slots
	lost    *lostState      // the run's
	closing *sync.WaitGroup // the run's closes in progress

	ready      chan struct{} // closed once attempt or prepareErr is set
	attempt    Attempt
	prepareErr error

	mu        sync.Mutex
	holdsRoom bool // a slot of room is held until close
	obs       Observation
	ran       []bool // the invocations a worker took
	left      int    // invocations not yet finished
	stopped   bool   // a container could not be removed: run no more
	closed    bool
	// applied is the attempt's Settings().Applied (nil when it recorded
	// none), set with attempt before ready closes: every event of the job
	// shares it, read-only.
	applied *Applied

	buildOnce sync.Once
	// buildStop, once the build ran, is the event every invocation gets
	// instead of running (nil: the build succeeded, or there is none).
	buildStop *Event
}

// settle records the preparation's result and wakes the workers waiting
// for it. Leftovers of a failed preparation go to the sandbox warnings; a
// loss of the sandbox is recorded for the run; a failure caused by the
// interruption says so.
func (s *jobState) settle(ctx context.Context, r Prepared) {
	a, err := r.Attempt, r.Err
	if err != nil {
		var left []string
		var lost *LostError
		err, left, lost = splitFailure(err)
		if lost != nil {
			s.lost.set(lost)
		}
		switch {
		case err == nil && lost != nil:
			err = lost
		case err == nil:
			err = errors.New("preparing the program failed")
		}
		if ctx.Err() != nil && err.Error() != NotRunInterrupted {
			err = fmt.Errorf("%s (%w)", NotRunInterrupted, err)
		}
		a = nil
		s.mu.Lock()
		s.obs.SandboxWarnings = append(s.obs.SandboxWarnings, left...)
		s.mu.Unlock()
	}
	if a == nil && err == nil && len(s.job.Invocations) > 0 {
		err = errors.New("the sandbox returned no attempt for this program")
	}
	s.mu.Lock()
	if a != nil {
		s.obs.Settings = a.Settings()
		if ap := s.obs.Settings.Applied; ap.Image != "" {
			s.applied = &ap
		}
		if w, ok := a.(Warner); ok {
			s.obs.SandboxWarnings = append(s.obs.SandboxWarnings, w.Warnings()...)
		}
	}
	if err != nil && s.job.Profile.Build != nil {
		// The build was due but never ran: the report says why.
		s.obs.Build = &Event{SandboxError: err.Error()}
	}
	if a == nil && s.holdsRoom {
		s.holdsRoom = false
		<-s.room
	}
	s.attempt, s.prepareErr = a, err
	s.mu.Unlock()
	close(s.ready)
}

// run runs invocation k and records its event (without its stream bytes
// when drop is set). After the program's last invocation its attempt is
// closed aside (Run waits for it), so that the worker can start the next
// program's invocation while the engine removes this one's volume.
func (s *jobState) run(ctx context.Context, k int, cleanup context.Context, drop bool) Event {
	ev := s.runOne(ctx, k)
	kept := ev
	if drop {
		kept.Stdout.Data, kept.Stderr.Data = nil, nil
	}
	s.mu.Lock()
	s.obs.Events[k] = kept
	s.ran[k] = true
	s.left--
	last := s.left == 0
	s.mu.Unlock()
	if last {
		s.closing.Add(1)
		go func() {
			defer s.closing.Done()
			s.close(cleanup)
		}()
	}
	return ev
}

func (s *jobState) runOne(ctx context.Context, k int) Event {
	if ctx.Err() != nil {
		return Event{SandboxError: NotRunInterrupted}
	}
	<-s.ready // settled promptly after a loss too: the preparer stops then
	a, err := s.attempt, s.prepareErr
	if err != nil {
		return Event{SandboxError: err.Error()}
	}
	if reason := s.notRunReason(); reason != "" {
		return Event{SandboxError: reason}
	}
	b, ok := a.(Builder)
	if !ok && s.job.Profile.Build != nil {
		return Event{SandboxError: "the sandbox cannot run the profile's build stage"}
	}
	if s.job.Profile.Build != nil {
		s.buildOnce.Do(func() { s.build(ctx, b) })
		s.mu.Lock()
		stop := s.buildStop
		s.mu.Unlock()
		if stop != nil {
			ev := *stop // a failed build's: the case is false on it
			ev.Applied = s.applied
			return ev
		}
		if reason := s.notRunReason(); reason != "" {
			return Event{SandboxError: reason}
		}
	}
	ev, err := a.Run(ctx, s.job.Invocations[k])
	s.noteRunError(err)
	if ev.Applied == nil {
		ev.Applied = s.applied
	}
	return ev
}

// notRunReason says why an invocation must not start, or "" when it may.
// The loss of the sandbox comes first: a removal failure that came with
// the loss (the same engine call failed) is not the reason the rest of the
// run did not start.
func (s *jobState) notRunReason() string {
	if l := s.lost.err(); l != nil {
		return notRunLost(l)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return NotRunStopped
	}
	return ""
}

// build runs the program's build stage (once, by the first worker to need
// it; the others wait for it in buildOnce) and records its event and what
// the invocations get when it did not succeed: a failed build (observed)
// makes them false through Event.BuildFailure, a build the sandbox could
// not observe makes them undetermined.
func (s *jobState) build(ctx context.Context, b Builder) {
	ev, err := b.Build(ctx)
	s.noteRunError(err)
	var stop *Event
	switch {
	case ev.SandboxError != "":
		stop = &Event{SandboxError: "build: " + ev.SandboxError}
	case BuildFailure(ev) != "":
		stop = &Event{BuildFailure: BuildFailure(ev), ProgramSHA256: ev.ProgramSHA256}
	}
	// The reason above was taken from all the build kept; the observation
	// keeps its start.
	ev.Stdout = keepStart(ev.Stdout, BuildOutputKept)
	ev.Stderr = keepStart(ev.Stderr, BuildOutputKept)
	s.mu.Lock()
	s.obs.Build = &ev
	s.buildStop = stop
	s.mu.Unlock()
}

// noteRunError records the error of an Attempt's Run or Build: a removal
// failure stops the program's remaining cases and is a sandbox warning; a
// loss of the sandbox stops the run.
func (s *jobState) noteRunError(err error) {
	if err != nil {
		cause, left, lost := splitFailure(err)
		if lost != nil {
			s.lost.set(lost)
		}
		s.mu.Lock()
		if cause != nil || len(left) > 0 {
			s.stopped = true
		}
		if cause != nil {
			s.obs.SandboxWarnings = append(s.obs.SandboxWarnings, cause.Error())
		}
		s.obs.SandboxWarnings = append(s.obs.SandboxWarnings, left...)
		s.mu.Unlock()
	}
}

// close removes what Prepare made, once, on a fresh context, and frees
// the preparer's slot.
func (s *jobState) close(parent context.Context) {
	s.mu.Lock()
	if s.closed || s.attempt == nil {
		s.closed = true
		s.mu.Unlock()
		return
	}
	s.closed = true
	a := s.attempt
	if s.holdsRoom {
		s.holdsRoom = false
		defer func() { <-s.room }()
	}
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(parent, CleanupTimeout)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		s.mu.Lock()
		s.obs.SandboxWarnings = append(s.obs.SandboxWarnings, err.Error())
		s.mu.Unlock()
	}
}

// observation returns the finished observation with its acquisition state.
// After a loss of the sandbox, the invocations no worker took say why: the
// program's preparation failed, or the loss.
func (s *jobState) observation() Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.obs
	o.Events = append([]Event(nil), s.obs.Events...)
	if l := s.lost.err(); l != nil {
		reason := notRunLost(l)
		if s.prepareErr != nil { // settled before Run returns
			reason = s.prepareErr.Error()
		}
		for k, ran := range s.ran {
			if !ran {
				o.Events[k] = Event{SandboxError: reason}
			}
		}
	}
	o.SandboxWarnings = append([]string{}, s.obs.SandboxWarnings...)
	if s.obs.Build != nil {
		b := *s.obs.Build
		o.Build = &b
	}
	o.Acquisition, o.Reasons = acquisition(o.Events)
	return o
}

// acquisition derives the acquisition state from the events: complete when
// every event was observed, error when none was, partial otherwise; the
// reasons are the distinct sandbox errors in order.
func acquisition(events []Event) (Acquisition, []string) {
	observed := 0
	reasons := []string{}
	seen := map[string]bool{}
	for _, ev := range events {
		if ev.SandboxError == "" {
			observed++
			continue
		}
		if !seen[ev.SandboxError] {
			seen[ev.SandboxError] = true
			reasons = append(reasons, ev.SandboxError)
		}
	}
	switch {
	case observed == len(events) && len(events) > 0:
		return AcquisitionComplete, reasons
	case observed == 0:
		return AcquisitionError, reasons
	default:
		return AcquisitionPartial, reasons
	}
}
