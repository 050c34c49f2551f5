package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker/floor"
)

// Floor is behaves' own sandbox as the benchmark's floor runs it: the same
// image check, delivery, container configuration and lifecycle (Prepare,
// Attempt.Run, Close), with the engine calls timed on the contexts that
// carry a floor.Timeline, and each invocation run under a floor.Variant.
// The zero variant is the floor of the targets: the bare lifecycle
// (create, attach, wait, start, inspect, remove; no OOM-event
// subscription) with the engine's network sandbox skipped, whatever the
// profile says.
//
// Only a floor.Key opens one, and only the benchmark may import package
// floor: no flag, action input or spec field reaches a Floor.
type Floor struct {
	sb *Sandbox
}

// NewFloor connects to the Docker daemon as New does, for a floor.
func NewFloor(ctx context.Context, opt Options, key floor.Key) (*Floor, error) {
	if !key.Valid() {
		return nil, errors.New("docker floor: the key is not floor.NewKey's")
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("creating the Docker client: %w", err)
	}
	s, err := newSandbox(ctx, timedAPI{cli}, opt)
	if err != nil {
		return nil, errors.Join(err, cli.Close())
	}
	return &Floor{sb: s}, nil
}

// Close ends the event stream and closes the client.
func (f *Floor) Close() error { return f.sb.Close() }

// Info is the engine's docker info; the sandbox keeps its runtimes, as
// CPUs does.
func (f *Floor) Info(ctx context.Context) (system.Info, error) {
	return f.sb.info(ctx)
}

// InspectImage checks an image as Prepare does, once per reference: a
// later Prepare of a profile with ref finds it checked.
func (f *Floor) InspectImage(ctx context.Context, ref string) error {
	_, err := f.sb.image(ctx, ref)
	return err
}

// Prepare is the sandbox's Prepare: each program delivered into a volume
// of its own.
func (f *Floor) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	return f.sb.Prepare(ctx, batch)
}

// Run runs one invocation of a (prepared by this floor) through the
// sandbox's lifecycle under v. source is the program's entry file, which
// v.NoVolume passes inline.
func (f *Floor) Run(ctx context.Context, a runner.Attempt, v floor.Variant, source []byte, inv runner.Invocation) (runner.Event, error) {
	fa, err := f.attempt(a, v, source)
	if err != nil {
		return runner.Event{}, err
	}
	return fa.Run(ctx, inv)
}

// Config is the configuration of the container that runs inv of a under
// v, for a client of the engine other than the sandbox (the docker run
// loop).
func (f *Floor) Config(a runner.Attempt, v floor.Variant, source []byte, inv runner.Invocation) (*container.Config, *container.HostConfig, error) {
	fa, err := f.attempt(a, v, source)
	if err != nil {
		return nil, nil, err
	}
	cfg, hc := fa.config(inv)
	return cfg, hc, nil
}

// Archive writes prog's delivery archive under prof to w, as Prepare
// streams it into the helper (the program's part alone: its files read
// again and checked against their digests as they are written): the bench
// times behaves' side of a delivery apart from the engine's.
func (f *Floor) Archive(w io.Writer, prog runner.Program, prof runner.Profile) error {
	prof, err := runner.CheckProfile(prof, prog)
	if err != nil {
		return err
	}
	tree, err := runner.ProgramFiles(prog, prof.ProgramName)
	if err != nil {
		return err
	}
	layout, err := programLayout(tree)
	if err != nil {
		return err
	}
	return writeDelivery(w, [][]archiveEntry{layout})
}

// EndEvents ends the OOM-event subscription, if there is one: the next
// invocation under Variant.OOMWatch subscribes again.
func (f *Floor) EndEvents() {
	s := f.sb
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if s.events != nil {
		s.events.Close()
		s.events = nil
	}
}

// Follow is Follow on the floor's client.
func (f *Floor) Follow(ctx context.Context, args filters.Args, each func(events.Message)) (stop func() error) {
	return Follow(ctx, f.sb.cli, args, each)
}

// attempt is a's view under v: the same image, volume and settings, its
// containers configured as v says; closing a closes the view's volume.
func (f *Floor) attempt(a runner.Attempt, v floor.Variant, source []byte) (*Attempt, error) {
	at, ok := a.(*Attempt)
	if !ok || at.sb != f.sb || at.build != nil {
		return nil, errors.New("docker floor: not a program attempt of this floor")
	}
	return &Attempt{
		sb: at.sb, applied: at.applied, img: at.img, rt: at.rt, volume: at.volume,
		programSHA256: at.programSHA256, settings: at.settings, limits: at.limits,
		role: at.role, suffix: at.suffix,
		floor: &floorView{Variant: v, source: source},
	}, nil
}

// floorView is what a floor's attempt changes (Attempt.floor).
type floorView struct {
	floor.Variant
	source []byte
}

// apply changes behaves' configuration of an invocation's container as
// the variant says. The network fields are set either way, so that a
// floor measures what it says whatever behaves' configuration sets.
func (v *floorView) apply(cfg *container.Config, hc *container.HostConfig) {
	hc.NetworkMode = "none"
	if v.NetworkSandbox {
		cfg.NetworkDisabled = false
		hc.DNS = slices.Clone(dnsServers)
	} else {
		cfg.NetworkDisabled = true
		hc.DNS = nil
	}
	if v.NoInit {
		hc.Init = boolPtr(false)
	}
	if v.NoTmpfs {
		hc.Tmpfs = nil
	}
	if v.IPC != "" {
		hc.IpcMode = container.IpcMode(v.IPC)
		if v.IPC != string(container.IPCModePrivate) && v.IPC != "shareable" {
			hc.ShmSize = 0 // these modes make no /dev/shm of the container's own to size
		}
	}
	if v.NoVolume {
		hc.Mounts = nil
		cfg.WorkingDir = "/"
		// The entrypoint's last word is the program's path under
		// /program; the command is its arguments.
		cfg.Entrypoint = cfg.Entrypoint[:len(cfg.Entrypoint)-1]
		cfg.Cmd = append([]string{"-c", string(v.source)}, cfg.Cmd...)
	}
}

// watchesOOM says whether the attempt's containers are watched for OOM
// events: always, but on a floor that does not ask for it.
func (a *Attempt) watchesOOM() bool {
	return a.floor == nil || a.floor.OOMWatch
}

// timedAPI records the calls a floor times in the floor.Timeline of their
// context.
type timedAPI struct{ dockerAPI }

func record[T any](ctx context.Context, c floor.Call, call func() (T, error)) (T, error) {
	t0 := time.Now()
	v, err := call()
	floor.TimelineFrom(ctx).Record(c, t0, time.Now())
	return v, err
}

func (d timedAPI) ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error) {
	return record(ctx, floor.ImageInspect, func() (image.InspectResponse, error) { return d.dockerAPI.ImageInspect(ctx, ref, opts...) })
}

func (d timedAPI) VolumeCreate(ctx context.Context, options volume.CreateOptions) (volume.Volume, error) {
	return record(ctx, floor.VolumeCreate, func() (volume.Volume, error) { return d.dockerAPI.VolumeCreate(ctx, options) })
}

func (d timedAPI) VolumeRemove(ctx context.Context, volumeID string, force bool) error {
	_, err := record(ctx, floor.VolumeRemove, func() (struct{}, error) { return struct{}{}, d.dockerAPI.VolumeRemove(ctx, volumeID, force) })
	return err
}

func (d timedAPI) ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, containerName string) (container.CreateResponse, error) {
	return record(ctx, floor.ContainerCreate, func() (container.CreateResponse, error) {
		return d.dockerAPI.ContainerCreate(ctx, config, hostConfig, networkingConfig, platform, containerName)
	})
}

func (d timedAPI) CopyToContainer(ctx context.Context, containerID, dstPath string, content io.Reader, options container.CopyToContainerOptions) error {
	_, err := record(ctx, floor.CopyToContainer, func() (struct{}, error) {
		return struct{}{}, d.dockerAPI.CopyToContainer(ctx, containerID, dstPath, content, options)
	})
	return err
}

func (d timedAPI) ContainerAttach(ctx context.Context, containerID string, options container.AttachOptions) (types.HijackedResponse, error) {
	return record(ctx, floor.ContainerAttach, func() (types.HijackedResponse, error) { return d.dockerAPI.ContainerAttach(ctx, containerID, options) })
}

func (d timedAPI) ContainerStart(ctx context.Context, containerID string, options container.StartOptions) error {
	_, err := record(ctx, floor.ContainerStart, func() (struct{}, error) { return struct{}{}, d.dockerAPI.ContainerStart(ctx, containerID, options) })
	return err
}

func (d timedAPI) ContainerInspect(ctx context.Context, containerID string) (container.InspectResponse, error) {
	return record(ctx, floor.ContainerInspect, func() (container.InspectResponse, error) { return d.dockerAPI.ContainerInspect(ctx, containerID) })
}

func (d timedAPI) ContainerRemove(ctx context.Context, containerID string, options container.RemoveOptions) error {
	_, err := record(ctx, floor.ContainerRemove, func() (struct{}, error) { return struct{}{}, d.dockerAPI.ContainerRemove(ctx, containerID, options) })
	return err
}
