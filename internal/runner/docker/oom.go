package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	"github.com/behaves-dev/behaves/internal/runner"
)

// The engine records an OOM kill in two places: the container's
// State.OOMKilled and an "oom" event. Engine 20.10 sets OOMKilled only when
// containerd's TaskOOM reaches the daemon before TaskExit; one that arrives
// later (seen here on a loaded engine) is lost from the state but still
// logged as an event. A missed OOM kill is not harmless: a program whose
// child was OOM-killed while the parent exited 0 would be judged true. So
// behaves also follows the events of each container it runs (an
// invocation's or a build's), from before its start to its removal, and an
// "oom" there counts as an OOM kill.
//
// The subscription is live, not a replay: the engine keeps only its last
// 256 events for replay, and on a busy engine an OOM-killed child whose
// container then thrashes for seconds (seen: up to a minute) has its "oom"
// pushed out of them before the container is removed.
//
// One subscription serves the whole run (eventStream): it asks for the
// "oom" and "destroy" events of the run's containers (by their run-id
// label) and routes them by container ID to each container's watch,
// registered before it starts. One request per run instead of one per
// invocation: the engine's work per invocation is then the floor's (issue
// 16).

// eventStream is one live subscription to the "oom" and "destroy" events
// of the run's containers, routed to their watches by container ID. Once
// it ended (the engine, or the path to it, went away; or the
// sandbox was closed), every watch on it is done with its end as error,
// and the sandbox subscribes again for the watches that come later.
type eventStream struct {
	cancel context.CancelFunc

	mu      sync.Mutex
	watches map[string]*oomWatch
	ended   error // why the stream ended, once it has
}

// oomWatch follows one container's events on the run's stream.
type oomWatch struct {
	id     string
	stream *eventStream
	done   chan struct{} // closed at the container's "destroy" or the stream's end
	// Set before done is closed (under stream.mu until then).
	oom bool  // an "oom" came
	err error // the stream ended before the "destroy"
}

// watchOOM registers the container with the run's event stream, subscribing
// first when there is none (the run's first container, or the last stream
// ended). The subscription is in place when it returns (the engine has
// answered), so it must be called before the container starts; the
// engine's answer is bounded by EngineTimeout and by ctx. Stop ends the
// watch.
func (s *Sandbox) watchOOM(ctx context.Context, id string) (*oomWatch, error) {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if s.evClosed {
		return nil, errors.New("the sandbox was closed")
	}
	if s.events == nil || s.events.isEnded() {
		st, err := s.subscribe(ctx)
		if err != nil {
			return nil, err
		}
		s.events = st
	}
	return s.events.Watch(id), nil
}

// subscribe starts an event stream for the run. The stream outlives the
// run's cancellation (watches are read after the removals) and ends when
// the sandbox is closed, or cleanup is abandoned (Options.Cleanup).
func (s *Sandbox) subscribe(ctx context.Context) (*eventStream, error) {
	parent := s.opt.Cleanup
	if parent == nil {
		parent = context.Background()
	}
	return subscribeRunEvents(ctx, parent, s.cli, s.opt.RunID, s.opt.EngineTimeout)
}

// EventSource is the part of the Engine API client an eventStream uses.
type EventSource interface {
	Events(ctx context.Context, options events.ListOptions) (<-chan events.Message, <-chan error)
}

// subscribeRunEvents subscribes to the "oom" and "destroy" events of the
// containers labelled with runID, as a Sandbox does once per run
// (a Floor once per pass under floor.Variant.OOMWatch). It returns once
// the engine has answered, within timeout and ctx. The stream lives until
// Close, or until parent ends.
func subscribeRunEvents(ctx, parent context.Context, cli EventSource, runID string, timeout time.Duration) (*eventStream, error) {
	sctx, cancel := context.WithCancel(parent)
	st := &eventStream{cancel: cancel, watches: map[string]*oomWatch{}}
	// The client's Events returns once the engine has answered the
	// request, with no deadline of its own: it waits aside.
	var msgs <-chan events.Message
	var errs <-chan error
	answered := make(chan struct{})
	go func() {
		msgs, errs = cli.Events(sctx, events.ListOptions{Filters: runEventFilters(runID)})
		close(answered)
	}()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-answered:
	case <-deadline.C:
		cancel()
		return nil, context.DeadlineExceeded
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	go st.route(msgs, errs)
	return st, nil
}

// Close ends the stream: the watches still on it are done with the
// stream's end.
func (st *eventStream) Close() { st.cancel() }

// closeEvents ends the run's event stream (Close).
func (s *Sandbox) closeEvents() {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	s.evClosed = true
	if s.events != nil {
		s.events.Close()
	}
}

// route hands each event to its container's watch until the stream ends.
func (st *eventStream) route(msgs <-chan events.Message, errs <-chan error) {
	for {
		select {
		case m := <-msgs:
			st.deliver(m)
		case err := <-errs:
			if err == nil || errors.Is(err, io.EOF) {
				// A live subscription never ends by itself: the engine, or
				// the path to it, went away (kept as EOF for noteTransport).
				err = fmt.Errorf("the engine ended the event stream (%w)", io.EOF)
			}
			st.end(err)
			return
		}
	}
}

// deliver routes one event. Events reach a subscriber in the order they
// were logged, so every "oom" the engine logged for a container while it
// existed comes before its "destroy".
func (st *eventStream) deliver(m events.Message) {
	st.mu.Lock()
	defer st.mu.Unlock()
	w := st.watches[m.Actor.ID] // the filter's job; checked so that a broad answer cannot mislead
	if w == nil {
		return
	}
	switch m.Action {
	case events.ActionOOM:
		w.oom = true
	case events.ActionDestroy:
		delete(st.watches, w.id)
		close(w.done)
	}
}

// end makes every watch on the stream done with err, and the stream ended.
func (st *eventStream) end(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended != nil {
		return
	}
	st.ended = err
	for id, w := range st.watches {
		w.err = err
		close(w.done)
		delete(st.watches, id)
	}
	st.cancel()
}

func (st *eventStream) isEnded() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.ended != nil
}

// Watch registers a container (before its start); on a stream that has
// ended, the watch is done at once with the stream's end.
func (st *eventStream) Watch(id string) *oomWatch {
	w := &oomWatch{id: id, stream: st, done: make(chan struct{})}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended != nil {
		w.err = st.ended
		close(w.done)
		return w
	}
	st.watches[id] = w
	return w
}

// Stop ends the watch: a container whose "destroy" will not come (it could
// not be removed) is no longer routed.
func (w *oomWatch) Stop() {
	w.stream.mu.Lock()
	defer w.stream.mu.Unlock()
	if w.stream.watches[w.id] == w {
		delete(w.stream.watches, w.id)
	}
}

// OOMBeforeDestroy waits for the container's "destroy" event, which the
// engine logs before a removal returns, within timeout: whether an "oom"
// came first.
func (w *oomWatch) OOMBeforeDestroy(timeout time.Duration) (bool, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-w.done:
		if w.err != nil {
			return false, fmt.Errorf("following the container's events: %w", w.err)
		}
		return w.oom, nil
	case <-deadline.C:
		return false, fmt.Errorf("the engine did not report the container's removal within %s", timeout)
	}
}

// oomLoggedUntilNow reports whether the engine logged an "oom" event for a
// container that could not be removed (so no "destroy" will come), from its
// creation (created, as the engine gave it) up to now, by replay. Bounded
// by EngineTimeout on parent.
func (s *Sandbox) oomLoggedUntilNow(parent context.Context, id, created string) (bool, error) {
	ctx, cancel := context.WithTimeout(parent, s.opt.EngineTimeout)
	defer cancel()
	now := time.Now()
	msgs, errs := s.cli.Events(ctx, events.ListOptions{
		Since:   created,
		Until:   fmt.Sprintf("%d.%09d", now.Unix(), now.Nanosecond()),
		Filters: containerEventFilters(id),
	})
	for {
		select {
		case m := <-msgs:
			if m.Actor.ID == id && m.Action == events.ActionOOM {
				return true, nil
			}
		case err := <-errs:
			switch {
			case err == nil || errors.Is(err, io.EOF):
				return false, nil // read up to now
			case errors.Is(err, context.DeadlineExceeded):
				return false, fmt.Errorf("the engine's event log did not answer within %s", s.opt.EngineTimeout)
			}
			return false, err
		}
	}
}

// runEventFilters select the "oom" and "destroy" events of the run's
// containers: those that run invocations and build stages (Attempt.Run)
// and the helpers, whose events go to no watch. The engine ANDs label
// filters, so the roles that are watched cannot be named.
func runEventFilters(runID string) filters.Args {
	return filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("label", runner.LabelRunID+"="+runID),
		filters.Arg("event", string(events.ActionOOM)),
		filters.Arg("event", string(events.ActionDestroy)),
	)
}

// containerEventFilters select one container's "oom" and "destroy" events.
func containerEventFilters(id string) filters.Args {
	return filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("container", id),
		filters.Arg("event", string(events.ActionOOM)),
		filters.Arg("event", string(events.ActionDestroy)),
	)
}
