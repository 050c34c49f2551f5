// Package floor is what the benchmark's floor changes in behaves' Docker
// sandbox (docker.Floor): the variants it compares (Variant), the key
// without which there is no floor (Key), and the timeline of the engine
// calls it times (Timeline).
//
// A variant weakens the sandbox: no network sandbox, no init, no tmpfs,
// another IPC mode, no program volume, no OOM-event subscription. So no
// package but the benchmark's scenarios (internal/bench) and
// runner/docker, which reads them, imports this one (imports_test.go
// proves it): no flag, action input or spec field can reach a floor.
package floor

import (
	"context"
	"sync"
	"time"
)

// Key opens a docker.Floor. Its zero value opens none: only NewKey makes
// one that does, so a floor needs this package's import.
type Key struct{ ok bool }

// NewKey is the key of a floor.
func NewKey() Key { return Key{ok: true} }

// Valid says whether k came from NewKey.
func (k Key) Valid() bool { return k.ok }

// Variant is what a floor pass changes in behaves' configuration of an
// invocation's container. The zero Variant is the floor the targets use:
// behaves' settings with the engine's network sandbox skipped and no
// OOM-event subscription, whatever behaves' own configuration says.
type Variant struct {
	// NetworkSandbox sets the engine's network sandbox up
	// (NetworkDisabled false, DNS 127.0.0.1), as behaves did before it
	// learned to skip it: the old floor. NetworkMode stays "none" either
	// way.
	NetworkSandbox bool
	NoInit         bool   // Init false: no docker-init as PID 1
	NoTmpfs        bool   // no tmpfs mounts (the profile's and the image VOLUMEs')
	IPC            string // the IPC mode instead of behaves' "private" ("" keeps it)
	// NoVolume mounts no program volume: the program's source is passed
	// inline (the command's last word, the program's path, becomes -c and
	// the source) and the working directory is /.
	NoVolume bool
	// OOMWatch follows each container's oom and destroy events from
	// before its start to its removal, as behaves does, on one
	// subscription that ends with the pass (docker.Floor.EndEvents).
	OOMWatch bool
}

// Call names an engine call a Timeline records.
type Call int

// The calls a Timeline records.
const (
	ImageInspect Call = iota
	VolumeCreate
	VolumeRemove
	ContainerCreate
	CopyToContainer
	ContainerAttach
	ContainerStart
	ContainerInspect
	ContainerRemove
	numCalls
)

// Span is what a Timeline recorded of one kind of call.
type Span struct {
	N          int
	Total      time.Duration
	FirstBegin time.Time
	LastBegin  time.Time
	LastEnd    time.Time
}

// Timeline records the engine calls made on a context that carries it
// (WithTimeline): one invocation's, or one delivery's. It is safe for
// concurrent use.
type Timeline struct {
	mu    sync.Mutex
	spans [numCalls]Span
}

// Record records one call of c from begin to end; on a nil Timeline it
// does nothing.
func (t *Timeline) Record(c Call, begin, end time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &t.spans[c]
	if s.N == 0 {
		s.FirstBegin = begin
	}
	s.N++
	s.Total += end.Sub(begin)
	s.LastBegin, s.LastEnd = begin, end
}

// Span is what t recorded of c.
func (t *Timeline) Span(c Call) Span {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.spans[c]
}

type timelineKey struct{}

// WithTimeline is ctx carrying t: a floor's engine calls made on it (or
// on a context derived from it) are recorded in t.
func WithTimeline(ctx context.Context, t *Timeline) context.Context {
	return context.WithValue(ctx, timelineKey{}, t)
}

// TimelineFrom is the Timeline ctx carries, or nil.
func TimelineFrom(ctx context.Context) *Timeline {
	t, _ := ctx.Value(timelineKey{}).(*Timeline)
	return t
}
