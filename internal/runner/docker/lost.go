package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Losing the engine is not a case's fault: when the connection to the engine
// fails (refused, reset, the socket gone, a request, a wait or the live
// event subscription cut short, as a daemon restart does), no later case can
// be observed either, and the run must fail (runner.LostError) instead of
// piling up undetermined cases that a --fail-on false gate would pass. An
// engine's answer, even an error (404 image, 409, 500 on create), is a
// per-case failure; so is a call the engine did not answer in time (its
// deadline): a busy engine is not a lost one. The attach stream is judged by
// the case alone: a stream cut short makes that case undetermined, and the
// calls that follow find out whether the engine is still there.

// transportFailure says whether err is a failure to reach the engine rather
// than an answer of the engine. eof counts an end of stream too: for a
// response the engine had started (a wait), the end of the connection
// before the answer means the engine or the path to it went away.
func transportFailure(err error, eof bool) bool {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case client.IsErrConnectionFailed(err): // refused, the socket gone, EOF or reset on a request
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ENOENT):
		return true
	}
	return eof && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF))
}

// noteTransport records the first transport failure as the loss of the
// engine (what: the call that failed). Later ones add nothing: the first
// says what happened.
func (s *Sandbox) noteTransport(what string, err error, eof bool) {
	if !transportFailure(err, eof) {
		return
	}
	lost := &runner.LostError{Err: fmt.Errorf("the Docker engine became unreachable (%s): %w", what, err)}
	s.lost.CompareAndSwap(nil, lost)
}

// lostErr is the recorded loss of the engine, or nil.
func (s *Sandbox) lostErr() error {
	if l := s.lost.Load(); l != nil {
		return l
	}
	return nil
}

// watchedEngine passes every call to the engine and records, on its
// sandbox, a failure to reach it. The streams that deliver errors later
// (the wait's answer, the events) are checked where they are read.
type watchedEngine struct {
	dockerAPI
	sb *Sandbox
}

func (w watchedEngine) note(what string, err error) error {
	w.sb.noteTransport(what, err, false)
	return err
}

func (w watchedEngine) Ping(ctx context.Context) (types.Ping, error) {
	p, err := w.dockerAPI.Ping(ctx)
	return p, w.note("pinging", err)
}

func (w watchedEngine) Info(ctx context.Context) (system.Info, error) {
	i, err := w.dockerAPI.Info(ctx)
	return i, w.note("asking for the engine's information", err)
}

func (w watchedEngine) ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error) {
	r, err := w.dockerAPI.ImageInspect(ctx, ref, opts...)
	return r, w.note("inspecting an image", err)
}

func (w watchedEngine) VolumeCreate(ctx context.Context, options volume.CreateOptions) (volume.Volume, error) {
	v, err := w.dockerAPI.VolumeCreate(ctx, options)
	return v, w.note("creating a volume", err)
}

func (w watchedEngine) VolumeRemove(ctx context.Context, volumeID string, force bool) error {
	return w.note("removing a volume", w.dockerAPI.VolumeRemove(ctx, volumeID, force))
}

func (w watchedEngine) VolumeInspect(ctx context.Context, volumeID string) (volume.Volume, error) {
	v, err := w.dockerAPI.VolumeInspect(ctx, volumeID)
	return v, w.note("inspecting a volume", err)
}

func (w watchedEngine) ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, containerName string) (container.CreateResponse, error) {
	r, err := w.dockerAPI.ContainerCreate(ctx, config, hostConfig, networkingConfig, platform, containerName)
	return r, w.note("creating a container", err)
}

func (w watchedEngine) CopyToContainer(ctx context.Context, containerID, dstPath string, content io.Reader, options container.CopyToContainerOptions) error {
	err := w.dockerAPI.CopyToContainer(ctx, containerID, dstPath, content, options)
	if errors.Is(err, errAbandoned) {
		// behaves itself cut the request short (a program's file could
		// not be read as recorded: see fillVolumes); the client reports
		// any request body's failure as a failed connection, but the
		// engine did nothing wrong.
		return err
	}
	return w.note("copying into a container", err)
}

func (w watchedEngine) CopyFromContainer(ctx context.Context, containerID, srcPath string) (io.ReadCloser, container.PathStat, error) {
	r, st, err := w.dockerAPI.CopyFromContainer(ctx, containerID, srcPath)
	return r, st, w.note("copying from a container", err)
}

func (w watchedEngine) ContainerAttach(ctx context.Context, containerID string, options container.AttachOptions) (types.HijackedResponse, error) {
	r, err := w.dockerAPI.ContainerAttach(ctx, containerID, options)
	return r, w.note("attaching to a container", err)
}

func (w watchedEngine) ContainerStart(ctx context.Context, containerID string, options container.StartOptions) error {
	return w.note("starting a container", w.dockerAPI.ContainerStart(ctx, containerID, options))
}

func (w watchedEngine) ContainerKill(ctx context.Context, containerID, signal string) error {
	return w.note("killing a container", w.dockerAPI.ContainerKill(ctx, containerID, signal))
}

func (w watchedEngine) ContainerInspect(ctx context.Context, containerID string) (container.InspectResponse, error) {
	r, err := w.dockerAPI.ContainerInspect(ctx, containerID)
	return r, w.note("inspecting a container", err)
}

func (w watchedEngine) ContainerRemove(ctx context.Context, containerID string, options container.RemoveOptions) error {
	return w.note("removing a container", w.dockerAPI.ContainerRemove(ctx, containerID, options))
}
