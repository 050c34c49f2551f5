package docker

import (
	"context"
	"errors"
	"sync"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// Follow calls each, in one goroutine, for every event the engine reports
// that matches args, from when it returns until stop is called or ctx
// ends. It reads the live stream, not a replay: the engine keeps only its
// last 256 events for a query after the fact, which a busy engine
// overruns, so a count or a "nothing made" read from a replay can miss
// what it looks for. (The bench and the tests count containers with it.)
// stop returns once each has been called for the last time, with the
// error that ended the stream before stop did (nil when stop ended it);
// it may be called more than once.
func Follow(ctx context.Context, cli EventSource, args filters.Args, each func(events.Message)) (stop func() error) {
	ctx, cancel := context.WithCancel(ctx)
	msgs, errs := cli.Events(ctx, events.ListOptions{Filters: args})
	var streamErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case m := <-msgs:
				each(m)
			case err := <-errs:
				if !errors.Is(err, context.Canceled) || ctx.Err() == nil {
					streamErr = err
				}
				return
			}
		}
	}()
	var once sync.Once
	return func() error {
		once.Do(func() {
			cancel()
			<-done
		})
		return streamErr
	}
}
