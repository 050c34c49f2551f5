package e2e

import (
	"context"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/runner/docker"
)

// followEvents is docker.Follow for a test: from now until the returned
// stop is called (or the test ends), each is called for every event the
// daemon reports that matches args, from its live stream (these tests run
// in parallel, and a replay of the daemon's last 256 events could miss
// what a test looks for, so that "nothing made" passed without looking).
// A stream that ends early fails the test.
func followEvents(t *testing.T, cl *client.Client, args filters.Args, each func(events.Message)) (stop func()) {
	t.Helper()
	end := docker.Follow(context.Background(), cl, args, each)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := end(); err != nil {
				t.Errorf("following the daemon's events: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
