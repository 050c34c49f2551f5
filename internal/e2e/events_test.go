package e2e

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// followEvents calls each, in one goroutine, for every event the daemon
// reports that matches args, from now until the returned stop is called
// (or the test ends). It is a live subscription because the daemon keeps
// only its last 256 events for a later query, which a busy daemon (these
// tests run in parallel) overruns: a query after the fact can miss what
// it looks for, and a test that asserts "nothing made" would then pass
// without having looked. stop returns once each has been called for the
// last time; a subscription that fails fails the test.
func followEvents(t *testing.T, cl *client.Client, args filters.Args, each func(events.Message)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	msgs, errs := cl.Events(ctx, events.ListOptions{Filters: args})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case m := <-msgs:
				each(m)
			case err := <-errs:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("following the daemon's events: %v", err)
				}
				return
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}
