package docker

// The sweep: finding, by label, the containers and volumes that runs left on
// the daemon, deciding which runs are dead, and removing what dead runs left.
// The grouping (GroupRuns) is pure and table-tested, and the decision
// (runner.ParseOwner, runner.Decide) is the backend-neutral one of package
// runner; the engine side (Sweeper) is one container list, one volume list
// and the removals.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/runner"
)

// DefaultRemoveTimeout bounds each removal of a sweep.
const DefaultRemoveTimeout = 30 * time.Second

// GroupRuns groups containers and volumes by their behaves.run-id label
// (runner.GroupRuns), skipping those without one and those whose run ID
// only rejects (nil: all).
func GroupRuns(containers []container.Summary, volumes []*volume.Volume, only func(runID string) bool) []runner.LeftoverRun {
	return runner.GroupRuns(foundOf(containers, volumes), only)
}

// foundOf is what a sweep found, as runner's sweep reads it.
func foundOf(containers []container.Summary, volumes []*volume.Volume) []runner.Found {
	found := make([]runner.Found, 0, len(containers)+len(volumes))
	for _, c := range containers {
		name := c.ID
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		found = append(found, runner.Found{Labels: c.Labels, Object: runner.LeftoverObject{Kind: runner.KindContainer, ID: c.ID, Name: name}})
	}
	for _, v := range volumes {
		if v != nil {
			found = append(found, runner.Found{Labels: v.Labels, Object: runner.LeftoverObject{Kind: runner.KindVolume, ID: v.Name, Name: v.Name}})
		}
	}
	return found
}

// sweepEngine is the part of the Engine API client a sweep uses;
// *client.Client implements it.
type sweepEngine interface {
	ContainerList(ctx context.Context, options container.ListOptions) ([]container.Summary, error)
	VolumeList(ctx context.Context, options volume.ListOptions) (volume.ListResponse, error)
	ContainerRemove(ctx context.Context, containerID string, options container.RemoveOptions) error
	VolumeRemove(ctx context.Context, volumeID string, force bool) error
	Close() error
}

// Sweeper finds, by label, what runs left on the daemon and removes it: the
// Docker runner.Sweeper.
type Sweeper struct {
	cli sweepEngine
	opt runner.SweepOptions
}

// NewSweeper makes a client of the Docker daemon named by the environment
// (DOCKER_HOST and friends, API version negotiated). The version is
// negotiated here, once, because the client's lazy negotiation races when the
// first two calls run concurrently; an unreachable daemon is then the first
// list call's error.
//
// The defaults of opt: Host os.Hostname(), PIDNamespace
// runner.PIDNamespace(), Process runner.LocalProcess, Now time.Now,
// ListTimeout DefaultEngineTimeout, RemoveTimeout DefaultRemoveTimeout; Only
// nil (every run).
func NewSweeper(opt runner.SweepOptions) (*Sweeper, error) {
	if opt.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("reading this host's name: %w", err)
		}
		opt.Host = h
	}
	if opt.PIDNamespace == "" {
		opt.PIDNamespace = runner.PIDNamespace()
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("creating the Docker client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultEngineTimeout)
	defer cancel()
	cli.NegotiateAPIVersion(ctx)
	return newSweeper(cli, opt), nil
}

var _ runner.Sweeper = (*Sweeper)(nil)

func newSweeper(cli sweepEngine, opt runner.SweepOptions) *Sweeper {
	if opt.Process == nil {
		opt.Process = runner.LocalProcess
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.ListTimeout <= 0 {
		opt.ListTimeout = DefaultEngineTimeout
	}
	if opt.RemoveTimeout <= 0 {
		opt.RemoveTimeout = DefaultRemoveTimeout
	}
	return &Sweeper{cli: cli, opt: opt}
}

// Close closes the client.
func (s *Sweeper) Close() error { return s.cli.Close() }

// Plan lists every container (in any state) and every volume carrying
// behaves.run-id — one container list and one volume list — groups them by
// run and decides each run (runner.Decide) with olderThan (0: off).
func (s *Sweeper) Plan(ctx context.Context, olderThan time.Duration) ([]runner.Planned, error) {
	f := filters.NewArgs(filters.Arg("label", runner.LabelRunID))
	lctx, cancel := context.WithTimeout(ctx, s.opt.ListTimeout)
	cs, err := s.cli.ContainerList(lctx, container.ListOptions{All: true, Filters: f})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("listing containers labelled %s: %w", runner.LabelRunID, err)
	}
	lctx, cancel = context.WithTimeout(ctx, s.opt.ListTimeout)
	vs, err := s.cli.VolumeList(lctx, volume.ListOptions{Filters: f})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("listing volumes labelled %s: %w", runner.LabelRunID, err)
	}
	return runner.Plan(foundOf(cs, vs.Volumes), s.opt, olderThan), nil
}

// Remove removes a run's containers (forced, so a running one is killed
// first, with their anonymous volumes) and then its volumes, each within
// RemoveTimeout on ctx. A leftover that is already gone counts as removed.
// It returns one Removal per leftover, in that order.
func (s *Sweeper) Remove(ctx context.Context, r runner.LeftoverRun) []runner.Removal {
	out := make([]runner.Removal, 0, len(r.Containers)+len(r.Volumes))
	for _, c := range r.Containers {
		out = append(out, runner.Removal{LeftoverObject: c, Err: s.remove(ctx, c, func(ctx context.Context) error {
			return s.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		})})
	}
	for _, v := range r.Volumes {
		out = append(out, runner.Removal{LeftoverObject: v, Err: s.remove(ctx, v, func(ctx context.Context) error {
			return s.cli.VolumeRemove(ctx, v.ID, false)
		})})
	}
	return out
}

func (s *Sweeper) remove(ctx context.Context, l runner.LeftoverObject, rm func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, s.opt.RemoveTimeout)
	defer cancel()
	err := rm(rctx)
	if err == nil || cerrdefs.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("removing %s %s: %w", l.Kind, l.Name, err)
}
