package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// The engine records an OOM kill in two places: the container's
// State.OOMKilled and an "oom" event. Engine 20.10 sets OOMKilled only when
// containerd's TaskOOM reaches the daemon before TaskExit; one that arrives
// later (seen here on a loaded engine) is lost from the state but still
// logged as an event. A missed OOM kill is not harmless: a program whose
// child was OOM-killed while the parent exited 0 would be judged true. So
// behaves also follows each container's events, from before its start to
// its removal, and an "oom" there counts as an OOM kill.
//
// The subscription is live, not a replay: the engine keeps only its last
// 256 events for replay, and on a busy engine an OOM-killed child whose
// container then thrashes for seconds (seen: up to a minute) has its "oom"
// pushed out of them before the container is removed.

// oomWatch is a live subscription to one container's "oom" and "destroy"
// events.
type oomWatch struct {
	id     string
	msgs   <-chan events.Message
	errs   <-chan error
	cancel context.CancelFunc
}

// watchOOM subscribes to the container's "oom" and "destroy" events. The
// subscription is in place when it returns (the engine has answered), so
// it must be made before the container starts; the engine's answer is
// bounded by EngineTimeout. parent should outlive the run's cancellation (a
// cleanup context): the subscription is read after the removal. Stop ends
// it.
func (s *Sandbox) watchOOM(parent context.Context, id string) (*oomWatch, error) {
	ctx, cancel := context.WithCancel(parent)
	w := &oomWatch{id: id, cancel: cancel}
	// The client's Events returns once the engine has answered the
	// request, with no deadline of its own: it waits aside.
	done := make(chan struct{})
	go func() {
		w.msgs, w.errs = s.cli.Events(ctx, events.ListOptions{Filters: oomFilters(id)})
		close(done)
	}()
	select {
	case <-done:
		return w, nil
	case <-time.After(s.opt.EngineTimeout):
		cancel()
		return nil, context.DeadlineExceeded
	case <-parent.Done():
		cancel()
		return nil, parent.Err()
	}
}

func (w *oomWatch) stop() { w.cancel() }

// oomBeforeDestroy reads the subscription up to the container's "destroy"
// event, which the engine logs before a removal returns, within timeout:
// whether an "oom" came first. Events reach a subscriber in the order they
// were logged, so every "oom" the engine logged for the container while it
// existed is seen.
func (w *oomWatch) oomBeforeDestroy(timeout time.Duration) (bool, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case m := <-w.msgs:
			if m.Actor.ID != w.id {
				continue // the filter's job; checked so that a broad answer cannot mislead
			}
			switch m.Action {
			case events.ActionOOM:
				return true, nil
			case events.ActionDestroy:
				return false, nil
			}
		case err := <-w.errs:
			if err == nil || errors.Is(err, io.EOF) {
				// A live subscription never ends by itself: the engine, or
				// the path to it, went away (kept as EOF for noteTransport).
				err = fmt.Errorf("the engine ended the event stream (%w)", io.EOF)
			}
			return false, fmt.Errorf("following the container's events: %w", err)
		case <-deadline.C:
			return false, fmt.Errorf("the engine did not report the container's removal within %s", timeout)
		}
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
		Filters: oomFilters(id),
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

// oomFilters select one container's "oom" and "destroy" events.
func oomFilters(id string) filters.Args {
	return filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("container", id),
		filters.Arg("event", string(events.ActionOOM)),
		filters.Arg("event", string(events.ActionDestroy)),
	)
}
