package docker

import (
	"context"
	"errors"
	"testing"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// streamSource answers Events with its own channels, as the client does:
// messages until the caller's context ends, then that context's error.
type streamSource struct {
	msgs chan events.Message
	errs chan error
	got  events.ListOptions
}

func (s *streamSource) Events(ctx context.Context, opt events.ListOptions) (<-chan events.Message, <-chan error) {
	s.got = opt
	go func() {
		<-ctx.Done()
		s.errs <- ctx.Err()
	}()
	return s.msgs, s.errs
}

// TestFollow: every event reaches each before stop returns, stop ending
// the stream is no error, and a stream that ends by itself, or by the
// caller's context, is.
func TestFollow(t *testing.T) {
	t.Parallel()
	src := &streamSource{msgs: make(chan events.Message), errs: make(chan error, 2)}
	args := filters.NewArgs(filters.Arg("type", "container"))
	var seen []string
	stop := Follow(context.Background(), src, args, func(m events.Message) { seen = append(seen, m.Actor.ID) })
	src.msgs <- events.Message{Actor: events.Actor{ID: "a"}}
	src.msgs <- events.Message{Actor: events.Actor{ID: "b"}}
	if err := stop(); err != nil || len(seen) != 2 || seen[0] != "a" || seen[1] != "b" {
		t.Errorf("stop: %v, seen %v; want no error and a, b", err, seen)
	}
	if err := stop(); err != nil {
		t.Errorf("a second stop: %v", err)
	}
	if src.got.Filters.Get("type")[0] != "container" {
		t.Errorf("the subscription's filters %v are not the ones given", src.got.Filters)
	}
	if src.got.Since == "" {
		t.Errorf("the subscription asks for no since: an event logged before the engine subscribed would be lost")
	}

	gone := errors.New("unexpected EOF")
	ended := &streamSource{msgs: make(chan events.Message), errs: make(chan error, 2)}
	ended.errs <- gone
	stop = Follow(context.Background(), ended, args, func(events.Message) {})
	if err := stop(); !errors.Is(err, gone) {
		t.Errorf("a stream that ended by itself: stop returned %v, want %v", err, gone)
	}

	parent, cancel := context.WithCancel(context.Background())
	cut := &streamSource{msgs: make(chan events.Message), errs: make(chan error, 2)}
	stop = Follow(parent, cut, args, func(events.Message) {})
	cancel()
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Errorf("a stream cut by the caller's context: stop returned %v, want it said", err)
	}
}
