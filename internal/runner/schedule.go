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
}

// Run runs every job's invocations on sb, at most opt.Parallel at a time, and
// returns one observation per job in the jobs' order. A job's program is
// prepared once, before its first invocation, and closed after its last.
// When ctx is cancelled no new invocation starts; those running are stopped
// by the sandbox; every prepared program is still closed.
func Run(ctx context.Context, sb Sandbox, jobs []Job, opt Options) []Observation {
	if opt.Parallel < 1 {
		opt.Parallel = 1
	}
	if opt.Cleanup == nil {
		opt.Cleanup = context.Background()
	}
	states := make([]*jobState, len(jobs))
	for i, j := range jobs {
		events := make([]Event, len(j.Invocations))
		for k := range events {
			events[k].SandboxError = NotRunInterrupted
		}
		states[i] = &jobState{box: sb, job: j, left: len(j.Invocations), obs: Observation{
			ExecutionID: uuid.NewString(),
			Events:      events,
		}}
	}

	type item struct{ job, inv int }
	items := make(chan item)
	var wg sync.WaitGroup
	for w := 0; w < opt.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range items {
				st := states[it.job]
				ev := st.run(ctx, it.inv, opt.Cleanup)
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
			case items <- item{i, k}:
			}
		}
	}
	close(items)
	wg.Wait()

	out := make([]Observation, len(states))
	for i, st := range states {
		st.close(opt.Cleanup) // after an interruption some were not closed yet
		out[i] = st.observation()
	}
	return out
}

// jobState is one job's attempt, shared by the workers running its
// invocations.
type jobState struct {
	box Sandbox
	job Job

	prepareOnce sync.Once
	attempt     Attempt
	prepareErr  error

	mu      sync.Mutex
	obs     Observation
	left    int  // invocations not yet finished
	stopped bool // a container could not be removed: run no more
	closed  bool
}

func (s *jobState) prepare(ctx context.Context) (Attempt, error) {
	s.prepareOnce.Do(func() {
		a, err := s.box.Prepare(ctx, s.job.Program, s.job.Profile)
		if err != nil {
			var left []string
			err, left = splitLeftovers(err)
			if err == nil {
				err = errors.New("preparing the program failed")
			}
			s.mu.Lock()
			s.obs.SandboxWarnings = append(s.obs.SandboxWarnings, left...)
			s.mu.Unlock()
		}
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("%s (%w)", NotRunInterrupted, err)
		}
		s.attempt, s.prepareErr = a, err
		if err == nil {
			s.mu.Lock()
			s.obs.Settings = a.Settings()
			s.mu.Unlock()
		}
	})
	return s.attempt, s.prepareErr
}

// run runs invocation k and records its event.
func (s *jobState) run(ctx context.Context, k int, cleanup context.Context) Event {
	ev := s.runOne(ctx, k)
	s.mu.Lock()
	s.obs.Events[k] = ev
	s.left--
	last := s.left == 0
	s.mu.Unlock()
	if last {
		s.close(cleanup)
	}
	return ev
}

func (s *jobState) runOne(ctx context.Context, k int) Event {
	if ctx.Err() != nil {
		return Event{SandboxError: NotRunInterrupted}
	}
	a, err := s.prepare(ctx)
	if err != nil {
		return Event{SandboxError: err.Error()}
	}
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return Event{SandboxError: NotRunStopped}
	}
	ev, err := a.Run(ctx, s.job.Invocations[k])
	if err != nil {
		s.mu.Lock()
		s.stopped = true
		s.obs.SandboxWarnings = append(s.obs.SandboxWarnings, err.Error())
		s.mu.Unlock()
	}
	return ev
}

// close removes what Prepare made, once, on a fresh context.
func (s *jobState) close(parent context.Context) {
	s.mu.Lock()
	if s.closed || s.attempt == nil {
		s.closed = true
		s.mu.Unlock()
		return
	}
	s.closed = true
	a := s.attempt
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
func (s *jobState) observation() Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.obs
	o.Events = append([]Event(nil), s.obs.Events...)
	o.SandboxWarnings = append([]string{}, s.obs.SandboxWarnings...)
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
