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
// for every exited container whose state says no OOM kill, behaves asks the
// event log once more, after the removal.

// oomLogged reports whether the engine logged an "oom" event for the
// container id since created (the container's creation time as the engine
// gave it). Called after the container was removed, it reads up to the
// "destroy" event: the engine logs it before the removal returns and its
// log is ordered, so every "oom" logged for the container while it existed
// is seen. A container that could not be removed has no "destroy": the log
// is read up to now instead. Replay of past events is immediate; the call is
// bounded by EngineTimeout on parent.
func (s *Sandbox) oomLogged(parent context.Context, id, created string, removed bool) (bool, error) {
	ctx, cancel := context.WithTimeout(parent, s.opt.EngineTimeout)
	defer cancel()
	until := ""
	if !removed {
		now := time.Now()
		until = fmt.Sprintf("%d.%09d", now.Unix(), now.Nanosecond())
	}
	msgs, errs := s.cli.Events(ctx, events.ListOptions{
		Since: created,
		Until: until,
		Filters: filters.NewArgs(
			filters.Arg("type", string(events.ContainerEventType)),
			filters.Arg("container", id),
			filters.Arg("event", string(events.ActionOOM)),
			filters.Arg("event", string(events.ActionDestroy)),
		),
	})
	for {
		select {
		case m := <-msgs:
			if m.Actor.ID != id {
				continue // the filter's job; checked so a broad answer cannot mislead
			}
			switch m.Action {
			case events.ActionOOM:
				return true, nil
			case events.ActionDestroy:
				return false, nil
			}
		case err := <-errs:
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				return false, fmt.Errorf("the engine's event log did not answer within %s", s.opt.EngineTimeout)
			case (err == nil || errors.Is(err, io.EOF)) && !removed:
				return false, nil // read up to now
			case err == nil || errors.Is(err, io.EOF):
				return false, errors.New("the engine's event log ended before the container's removal")
			}
			return false, err
		}
	}
}
