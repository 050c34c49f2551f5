package docker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// Follow calls each, in one goroutine, for every event the engine reports
// that matches args, from when it is called until stop is called. It reads
// the live stream, not a replay: the engine keeps only its last 256 events
// for a query after the fact, which a busy engine overruns, so a count or
// a "nothing made" read from a replay can miss what it looks for. (The
// bench and the tests count containers with it.)
//
// The subscription asks for events since the moment Follow was called:
// the engine answers a subscription's request before it subscribes, and
// an event logged in between would otherwise be lost; with a since, the
// engine hands over what it logged from then and subscribes in one step.
// That moment is this host's clock, so Follow is for an engine on this
// host.
//
// stop returns once each has been called for the last time, with the
// error that ended the stream before stop did (ctx's end among them; nil
// when stop ended it); it may be called more than once.
func Follow(ctx context.Context, cli EventSource, args filters.Args, each func(events.Message)) (stop func() error) {
	from := time.Now()
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	msgs, errs := cli.Events(ctx, events.ListOptions{
		Since:   fmt.Sprintf("%d.%09d", from.Unix(), from.Nanosecond()),
		Filters: args,
	})
	var stopped atomic.Bool
	var streamErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case m := <-msgs:
				each(m)
			case err := <-errs:
				// Only stop's own cancellation ends the stream as asked.
				if !stopped.Load() || parent.Err() != nil || !errors.Is(err, context.Canceled) {
					streamErr = fmt.Errorf("the event stream ended early: %w", err)
				}
				return
			}
		}
	}()
	var once sync.Once
	return func() error {
		once.Do(func() {
			stopped.Store(true)
			cancel()
			<-done
		})
		return streamErr
	}
}
