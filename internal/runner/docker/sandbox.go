package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Values of runner.LabelRole.
const (
	RoleProgram = "program" // a container that runs an invocation
	RoleHelper  = "helper"  // a never-started container that fills a volume
	RoleVolume  = "volume"  // a program volume
	// RoleBuild labels a build stage's container and its /build volume.
	RoleBuild = "build"
	// RoleChecker labels a container that runs a checker program (a
	// spec's checkers:) on what a program wrote.
	RoleChecker = "checker"
)

// Defaults of the Options durations.
const (
	DefaultEngineTimeout  = 60 * time.Second
	DefaultGrace          = 10 * time.Second
	DefaultCleanupTimeout = 8 * time.Second
)

// Options configure a Sandbox.
type Options struct {
	// RunID labels every container and volume (behaves.run-id) and names
	// the containers (see shortRunID). Required.
	RunID string
	// Host, PID, PIDNamespace and StartedAt label everything too; they
	// default to os.Hostname(), os.Getpid(), runner.PIDNamespace() and the
	// time New is called.
	Host         string
	PID          int
	PIDNamespace string
	StartedAt    time.Time
	// EngineTimeout bounds each engine call (ping, image inspect, volume
	// and container create, attach, the acknowledgement of wait, start,
	// kill, inspect). Default 60s.
	EngineTimeout time.Duration
	// Grace bounds the wait for end-of-stream and the exit after the
	// program exited or was killed; its expiry is a sandbox error. Default
	// 10s.
	Grace time.Duration
	// CleanupTimeout bounds each removal (container, helper, volume), run
	// on a fresh context that outlives cancellation. Default 8s.
	CleanupTimeout time.Duration
	// Cleanup, when set, is the parent of the removals made on behalf of a
	// run context (a container after its run, a helper, the volume of a
	// failed Prepare): they outlive the run context's cancellation, and
	// cancelling Cleanup abandons them (a second signal). When nil, they
	// derive from the run context without its cancellation.
	Cleanup context.Context
}

// dockerAPI is the part of the Docker Engine API client the sandbox uses;
// *client.Client implements it.
type dockerAPI interface {
	Ping(ctx context.Context) (types.Ping, error)
	Info(ctx context.Context) (system.Info, error)
	ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ImagePull(ctx context.Context, ref string, options image.PullOptions) (io.ReadCloser, error)
	VolumeCreate(ctx context.Context, options volume.CreateOptions) (volume.Volume, error)
	VolumeRemove(ctx context.Context, volumeID string, force bool) error
	VolumeInspect(ctx context.Context, volumeID string) (volume.Volume, error)
	ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, containerName string) (container.CreateResponse, error)
	CopyToContainer(ctx context.Context, containerID, dstPath string, content io.Reader, options container.CopyToContainerOptions) error
	CopyFromContainer(ctx context.Context, containerID, srcPath string) (io.ReadCloser, container.PathStat, error)
	ContainerAttach(ctx context.Context, containerID string, options container.AttachOptions) (types.HijackedResponse, error)
	ContainerWait(ctx context.Context, containerID string, condition container.WaitCondition) (<-chan container.WaitResponse, <-chan error)
	ContainerStart(ctx context.Context, containerID string, options container.StartOptions) error
	ContainerKill(ctx context.Context, containerID, signal string) error
	ContainerInspect(ctx context.Context, containerID string) (container.InspectResponse, error)
	ContainerRemove(ctx context.Context, containerID string, options container.RemoveOptions) error
	Events(ctx context.Context, options events.ListOptions) (<-chan events.Message, <-chan error)
	Close() error
}

// Sandbox runs programs in Docker containers. It implements runner.Sandbox.
// It is safe for concurrent use.
type Sandbox struct {
	cli    dockerAPI
	opt    Options
	prefix string // name prefix: "behaves-" + shortRunID + "-"
	seq    atomic.Uint64

	mu     sync.Mutex
	images map[string]*imageEntry
	// pullFailures holds why PullImage could not fetch an image, by
	// reference: the reason a later Prepare gives when it finds the image
	// missing.
	pullFailures map[string]string

	// rtMu guards runtimes, the engine's registered runtimes, asked once
	// (see runtime).
	rtMu     sync.Mutex
	runtimes *system.Info

	// lost is the first failure to reach the engine (see lost.go): once
	// set, every Prepare and Run reports it, and the run stops.
	lost atomic.Pointer[runner.LostError]

	// evMu guards the run's event stream (see oom.go), subscribed before
	// the first container starts, and whether Close has ended it (a
	// subscription after Close would outlive the sandbox).
	evMu     sync.Mutex
	events   *eventStream
	evClosed bool
}

var _ runner.Sandbox = (*Sandbox)(nil)

// New connects to the Docker daemon named by the environment (DOCKER_HOST
// and friends) with API version negotiation, and pings it: an unreachable
// daemon is an error.
func New(ctx context.Context, opt Options) (*Sandbox, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("creating the Docker client: %w", err)
	}
	s, err := newSandbox(ctx, cli, opt)
	if err != nil {
		return nil, errors.Join(err, cli.Close())
	}
	return s, nil
}

func newSandbox(ctx context.Context, cli dockerAPI, opt Options) (*Sandbox, error) {
	if opt.RunID == "" {
		return nil, errors.New("docker sandbox: a run ID is required")
	}
	own := opt.owner().OrThisProcess()
	opt.Host, opt.PID, opt.PIDNamespace, opt.StartedAt = own.Host, own.PID, own.PIDNamespace, own.StartedAt
	if opt.EngineTimeout <= 0 {
		opt.EngineTimeout = DefaultEngineTimeout
	}
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	if opt.CleanupTimeout <= 0 {
		opt.CleanupTimeout = DefaultCleanupTimeout
	}
	s := &Sandbox{
		opt:    opt,
		prefix: NamePrefix(opt.RunID),
		images: map[string]*imageEntry{},

		pullFailures: map[string]string{},
	}
	s.cli = watchedEngine{dockerAPI: cli, sb: s}
	pctx, cancel := context.WithTimeout(ctx, opt.EngineTimeout)
	defer cancel()
	if _, err := cli.Ping(pctx); err != nil {
		return nil, fmt.Errorf("connecting to the Docker daemon: %w", err)
	}
	return s, nil
}

// CPUs returns the number of CPUs the engine has (its NCPU): the most a
// container's CPU quota may ask for. One request, bounded by the engine
// deadline; run asks once, before any container. The same answer's
// registered runtimes are kept for Prepare (see runtime), which then need
// not ask again.
func (s *Sandbox) CPUs(ctx context.Context) (int, error) {
	info, err := s.info(ctx)
	if err != nil {
		return 0, fmt.Errorf("asking the Docker engine for its CPU count: %w", err)
	}
	return info.NCPU, nil
}

// info asks the engine for its docker info, bounded by the engine
// deadline, and keeps its registered runtimes (see CPUs).
func (s *Sandbox) info(ctx context.Context) (system.Info, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opt.EngineTimeout)
	defer cancel()
	info, err := s.cli.Info(ctx)
	if err != nil {
		return info, err
	}
	s.rtMu.Lock()
	if s.runtimes == nil {
		s.runtimes = &system.Info{Runtimes: info.Runtimes, DefaultRuntime: info.DefaultRuntime}
	}
	s.rtMu.Unlock()
	return info, nil
}

// Close ends the run's event stream and closes the client. It removes
// nothing: each Attempt removes what it made.
func (s *Sandbox) Close() error {
	s.closeEvents()
	return s.cli.Close()
}

// NamePrefix is how the names of every container and volume a sandbox of
// the run runID makes begin ("behaves-", shortRunID, "-"): what finds its
// volumes in the engine's events, which carry a volume's name but not its
// labels.
func NamePrefix(runID string) string { return "behaves-" + shortRunID(runID) + "-" }

// shortRunID is the run ID's part of the names: its first 8 letters or
// digits, which a person can match with the report's run ID, and 4 hex
// digits of its SHA-256, so that run IDs that start alike (a caller's
// "test-…") still give distinct names on a shared engine.
func shortRunID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return runIDLetters(id) + hex.EncodeToString(sum[:2])
}

// runIDLetters is the first 8 letters or digits of a run ID ("run" when it
// has none).
func runIDLetters(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() == 8 {
			break
		}
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "run"
	}
	return b.String()
}

// labels is the label set of a container or volume with the given role.
func labels(opt Options, role string) map[string]string { return opt.owner().Labels(role) }

// owner is the run's owner as opt names it.
func (opt Options) owner() runner.Owner {
	return runner.Owner{RunID: opt.RunID, Host: opt.Host, PID: opt.PID, PIDNamespace: opt.PIDNamespace, StartedAt: opt.StartedAt}
}

// nextName is a container name unique within this sandbox.
func (s *Sandbox) nextName(suffix string) string {
	return s.prefix + strconv.FormatUint(s.seq.Add(1), 10) + suffix
}

// engineCtx bounds one engine call.
func (s *Sandbox) engineCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opt.EngineTimeout)
}

// createCtx bounds a call that creates something (a volume, a container):
// a signal must not cancel it mid-flight, since the engine may finish it
// after the client gave up, and then nobody would remove it. It ends at
// EngineTimeout or when cleanup is abandoned (a second signal).
func (s *Sandbox) createCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.cleanupParent(ctx), s.opt.EngineTimeout)
}

// cleanupParent is the parent context of a removal made on behalf of the
// run context ctx: Options.Cleanup when set, else ctx without its
// cancellation. Either way a cancelled run still cleans up.
func (s *Sandbox) cleanupParent(ctx context.Context) context.Context {
	if s.opt.Cleanup != nil {
		return s.opt.Cleanup
	}
	return context.WithoutCancel(ctx)
}

// maxHelperVolumes is the most program volumes one helper container fills.
const maxHelperVolumes = 32

// maxHelperBytes is the most bytes of program files one helper's copy
// carries (a program larger than that is a copy of its own). The copy
// streams, so it is not what behaves holds (one buffer); it bounds how
// long one copy takes against the engine deadline, and what a copy
// abandoned for one program's changed file costs the others: 256 MiB is
// a few seconds of the engine's extraction here, against a fixed cost of
// about 0.1 s a copy.
const maxHelperBytes = 256 << 20

// Prepare checks each program's image (inspect, never pull; cached per
// reference) and delivers the programs, each into a new volume, through
// helper containers that are created, filled by one copy and removed, never
// started: one helper for all the batch's programs of an image (up to
// maxHelperVolumes), so that a batch costs the engine about one delivery.
// Each Attempt runs every invocation in a fresh container with its volume
// mounted read-only at /program; its Close removes the volume. A program
// that failed while the engine was lost has the loss in its error
// (runner.LostError).
func (s *Sandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	var todo []*delivery
	for i, r := range batch {
		d, err := s.plan(ctx, r.Program, r.Profile)
		if err != nil {
			out[i].Err = err
			continue
		}
		d.index = i
		if r.Checker {
			d.role = RoleChecker
		}
		todo = append(todo, d)
	}
	for _, group := range helperGroups(todo) {
		s.deliver(ctx, group)
	}
	for _, d := range todo {
		if d.err != nil {
			out[d.index].Err = d.err
			continue
		}
		applied := runner.Apply(d.prof)
		a := &Attempt{
			sb:            s,
			applied:       applied,
			img:           d.img,
			rt:            d.rt,
			volume:        d.volume,
			programSHA256: d.programSHA256,
			role:          d.role,
		}
		if d.build != nil {
			a.build = d.build
			a.adjust = runWithBuild(d.build.volume)
		}
		cfg, hc := a.config(runner.Invocation{})
		a.settings = settingsFrom(applied, d.img, cfg, hc)
		a.limits = limitsFrom(applied, hc)
		out[d.index].Attempt = a
	}
	if lost := s.lostErr(); lost != nil {
		for i := range out {
			if out[i].Err != nil {
				out[i].Err = errors.Join(out[i].Err, lost)
			}
		}
	}
	return out
}

// delivery is one program on its way into a volume.
type delivery struct {
	index         int // in the batch
	prof          runner.Profile
	img           imageInfo
	rt            ociRuntime
	layout        []archiveEntry // the files as under /program
	bytes         int64          // the sum of its files' sizes
	programSHA256 string
	volume        string
	// build is the build stage's plan (nil without one); its volume is
	// made and made writable in the same delivery.
	build *buildPlan
	// role labels the attempt's containers: RoleProgram, or RoleChecker
	// for a checker's.
	role string
	err  error
}

// plan checks what a program needs before anything is made for it: its
// profile, its image, the layout of its files.
func (s *Sandbox) plan(ctx context.Context, prog runner.Program, prof runner.Profile) (*delivery, error) {
	prof, err := runner.CheckProfile(prof, prog)
	if err != nil {
		return nil, err
	}
	img, err := s.image(ctx, prof.Image)
	if err != nil {
		return nil, err
	}
	rt, err := s.runtime(ctx, prof.Runtime)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", prof.Name, err)
	}
	var build *buildPlan
	if prof.Build != nil {
		if build, err = s.planBuild(ctx, prof, prog); err != nil {
			return nil, err
		}
	}
	tree, err := runner.ProgramFiles(prog, prof.ProgramName)
	if err == nil {
		var layout []archiveEntry
		if layout, err = programLayout(tree); err == nil {
			var size int64
			for _, f := range tree.Files {
				size += f.Bytes
			}
			return &delivery{prof: prof, img: img, rt: rt, layout: layout, bytes: size, programSHA256: prog.Digest(), build: build, role: RoleProgram}, nil
		}
	}
	return nil, fmt.Errorf("laying out the program: %w", err)
}

// helperGroups splits deliveries into the groups one helper fills: same
// image (the helper is created from it), at most maxHelperVolumes and
// maxHelperBytes (a program above it alone), in order.
func helperGroups(ds []*delivery) [][]*delivery {
	var groups [][]*delivery
	var sizes []int64
	open := map[string]int{} // image ID → index of its group being filled
	for _, d := range ds {
		g, ok := open[d.img.ID]
		if !ok || len(groups[g]) == maxHelperVolumes || sizes[g]+d.bytes > maxHelperBytes {
			groups, sizes = append(groups, nil), append(sizes, 0)
			g = len(groups) - 1
			open[d.img.ID] = g
		}
		groups[g], sizes[g] = append(groups[g], d), sizes[g]+d.bytes
	}
	return groups
}

// deliver creates a volume for each delivery of group and fills them all
// through one helper. A failure is recorded on the deliveries it concerns,
// whose volumes are then removed (what cannot be is a leftover). A file
// that cannot be read, or changed on disk since the spec was read, fails
// its own program alone: the copy, which may have filled part of every
// volume, is abandoned, and the others are delivered again, into new
// volumes through a new helper.
func (s *Sandbox) deliver(ctx context.Context, group []*delivery) {
	for len(group) > 0 {
		made := s.createVolumes(ctx, group)
		if len(made) == 0 {
			return
		}
		var volumes []string
		var programs [][]archiveEntry
		var owner []int // the index in made of each part of the archive
		for i, d := range made {
			volumes, programs, owner = append(volumes, d.volume), append(programs, d.layout), append(owner, i)
			if d.build != nil {
				// The build volume's root, owned by the build's user: the
				// only entry of its part of the archive.
				volumes, programs, owner = append(volumes, d.build.volume), append(programs, buildVolumeLayout(d.prof.User)), append(owner, i)
			}
		}
		err := s.fillVolumes(ctx, runner.Apply(made[0].prof), made[0].img, volumes, programs)
		if err == nil {
			return
		}
		bad := -1
		var pe *packError
		if errors.As(err, &pe) {
			bad = owner[pe.program]
		}
		group = nil
		for i, d := range made {
			left := runner.Leftover(s.removeVolume(s.cleanupParent(ctx), d.volume))
			if d.build != nil {
				left = errors.Join(left, runner.Leftover(s.removeVolume(s.cleanupParent(ctx), d.build.volume)))
			}
			switch {
			case bad < 0 || i == bad:
				d.err = errors.Join(err, left)
			case left != nil:
				// A volume of the abandoned copy is left: not delivered
				// again, so that this run makes no more of them.
				d.err = errors.Join(fmt.Errorf("not delivered: the delivery it shared failed: %w", err), left)
			default:
				d.volume = ""
				if d.build != nil {
					d.build.volume = ""
				}
				group = append(group, d)
			}
		}
	}
}

// createVolumes creates the volumes of each delivery of group (the
// program's, and its build's when it has one) and returns the deliveries
// that have them; a failure is recorded on its delivery.
func (s *Sandbox) createVolumes(ctx context.Context, group []*delivery) []*delivery {
	var made []*delivery
	for _, d := range group {
		if ctx.Err() != nil {
			d.err = ctx.Err()
			continue
		}
		d.volume, d.err = s.createVolume(ctx, "-program", RoleVolume)
		if d.err == nil && d.build != nil {
			d.build.volume, d.err = s.createVolume(ctx, "-build", RoleBuild)
			if d.err != nil {
				d.err = errors.Join(d.err, runner.Leftover(s.removeVolume(s.cleanupParent(ctx), d.volume)))
			}
		}
		if d.err == nil {
			made = append(made, d)
		}
	}
	return made
}

// createVolume creates a program volume named like this run's containers,
// so that a volume made by a create the engine finished too late can still
// be found and removed (removeFailedVolumeCreate), and every warning names
// it. The engine answers a create of an existing name with that volume: one
// that does not carry this run's label is refused, never reused.
//
// suffix ("-program", "-build") ends its name and role is its
// behaves.role label.
func (s *Sandbox) createVolume(ctx context.Context, suffix, role string) (string, error) {
	name := s.nextName(suffix)
	cctx, cancel := s.createCtx(ctx)
	defer cancel()
	v, err := s.cli.VolumeCreate(cctx, volume.CreateOptions{Name: name, Driver: "local", Labels: labels(s.opt, role)})
	if err != nil {
		return "", errors.Join(fmt.Errorf("%s: %w", creating("the program volume", name, err), err), runner.Leftover(s.removeFailedVolumeCreate(s.cleanupParent(ctx), name, err)))
	}
	if v.Name != name || v.Labels[runner.LabelRunID] != s.opt.RunID {
		return "", fmt.Errorf("creating the program volume %s: the engine returned another volume (%q, run %q)", name, v.Name, v.Labels[runner.LabelRunID])
	}
	return name, nil
}

// fillVolumes copies programs[k] into volumes[k] through a helper
// container (created from img, never started) that mounts volume k at
// helperDir/k, with one copy of one archive; then removes the helper.
//
// The archive is streamed (writeDelivery, through a pipe): it is written
// while the engine reads it, one file at a time, so that a delivery holds
// a copy buffer's worth of the programs' bytes, however many and large
// they are. A file that could not be read, or was not the bytes recorded,
// is the error (a *packError naming its program); the engine is then told
// only that the archive was abandoned, so that the reason can never be
// taken for the engine's loss.
func (s *Sandbox) fillVolumes(ctx context.Context, ap runner.Applied, img imageInfo, volumes []string, programs [][]archiveEntry) (err error) {
	name := s.nextName("-helper")
	cfg, hc := helperConfig(ap, img, volumes, labels(s.opt, RoleHelper))
	cctx, cancel := s.createCtx(ctx)
	created, err := s.cli.ContainerCreate(cctx, cfg, hc, nil, nil, name)
	cancel()
	if err != nil {
		return errors.Join(fmt.Errorf("%s: %w", creating("the helper container", name, err), err), runner.Leftover(s.removeFailedCreate(s.cleanupParent(ctx), name, err)))
	}
	defer func() {
		err = errors.Join(err, runner.Leftover(s.removeContainer(s.cleanupParent(ctx), name, created.ID)))
	}()

	pr, pw := io.Pipe()
	packed := make(chan error, 1)
	go func() {
		err := writeDelivery(pw, programs)
		if err != nil {
			pw.CloseWithError(errAbandoned)
		} else {
			pw.Close()
		}
		packed <- err
	}()
	cctx, cancel = s.engineCtx(ctx)
	defer cancel()
	copyErr := s.cli.CopyToContainer(cctx, created.ID, helperDir, pr, container.CopyToContainerOptions{})
	// The copy may end before the archive does (the engine refused it):
	// the writer's next write then fails, and it returns.
	pr.CloseWithError(errCopyEnded)
	packErr := <-packed
	var pe *packError
	switch {
	case errors.As(packErr, &pe):
		return pe
	case copyErr != nil:
		return fmt.Errorf("copying the program into its volume: %w", copyErr)
	case packErr != nil:
		return fmt.Errorf("packing the programs: %w", packErr)
	}
	return nil
}

// errAbandoned is what the engine's copy reads when the archive could not
// be written to its end; errCopyEnded what the archive's writer gets when
// the copy ended first.
var (
	errAbandoned = errors.New("the delivery archive was abandoned")
	errCopyEnded = errors.New("the copy into the helper ended")
)

// removeContainer removes a container (forced: a running one is killed
// first; with its anonymous volumes) within CleanupTimeout on parent, a
// cleanup context; a container that is already gone is not an error.
func (s *Sandbox) removeContainer(parent context.Context, name, id string) error {
	rctx, cancel := context.WithTimeout(parent, s.opt.CleanupTimeout)
	defer cancel()
	err := s.cli.ContainerRemove(rctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err == nil || cerrdefs.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("removing container %s: %w", name, err)
}

// removeFailedCreate removes the container a failed create may still have
// made, found by name (see lookAfterFailedCreate) and only if it carries
// this run's label, so that a name clash never removes someone else's
// container.
func (s *Sandbox) removeFailedCreate(parent context.Context, name string, createErr error) error {
	if cerrdefs.IsConflict(createErr) {
		return nil // the name belongs to another container
	}
	var id string
	err := s.lookAfterFailedCreate(parent, "container", name, createErr, func(ctx context.Context) error {
		info, err := s.cli.ContainerInspect(ctx, name)
		if err == nil && info.ContainerJSONBase != nil && info.Config != nil && info.Config.Labels[runner.LabelRunID] == s.opt.RunID {
			id = info.ID
		}
		return err
	})
	if err != nil || id == "" {
		return err
	}
	return s.removeContainer(parent, name, id)
}

// removeFailedVolumeCreate is removeFailedCreate for a program volume.
func (s *Sandbox) removeFailedVolumeCreate(parent context.Context, name string, createErr error) error {
	ours := false
	err := s.lookAfterFailedCreate(parent, "volume", name, createErr, func(ctx context.Context) error {
		v, err := s.cli.VolumeInspect(ctx, name)
		ours = err == nil && v.Labels[runner.LabelRunID] == s.opt.RunID
		return err
	})
	if err != nil || !ours {
		return err
	}
	return s.removeVolume(parent, name)
}

// lookAfterFailedCreate looks, with inspect (nil: found), for what a failed
// create of kind may still have made under name. After an engine's answer
// one look is enough. After a create the engine did not answer in time, the
// engine may still finish it: the look is repeated until it is found or
// CleanupTimeout passes. What has not appeared by then is not reported as
// left behind (an engine that hangs would never make it); the create's
// error names it, and behaves gc finds it by label if it appears later.
func (s *Sandbox) lookAfterFailedCreate(parent context.Context, kind, name string, createErr error, inspect func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(parent, s.opt.CleanupTimeout)
	defer cancel()
	unanswered := errors.Is(createErr, context.DeadlineExceeded)
	for {
		err := inspect(ctx)
		switch {
		case err == nil:
			return nil
		case unanswered && ctx.Err() != nil:
			return nil // the look ran out of time: it has not appeared
		case !cerrdefs.IsNotFound(err):
			return fmt.Errorf("looking for %s %s after a failed create: %w", kind, name, err)
		case !unanswered:
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(failedCreatePoll):
		}
	}
}

// creating says what a failed create was creating: "creating " + what, and
// the name when the engine did not answer in time, since the engine may
// still make it (behaves gc will find it by that name and its label).
func creating(what, name string, err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "creating " + what + " " + name
	}
	return "creating " + what
}

// failedCreatePoll is how often lookAfterFailedCreate looks again.
const failedCreatePoll = 100 * time.Millisecond

// removeVolume removes a program volume within CleanupTimeout on parent, a
// cleanup context; a volume that is already gone is not an error.
func (s *Sandbox) removeVolume(parent context.Context, vol string) error {
	rctx, cancel := context.WithTimeout(parent, s.opt.CleanupTimeout)
	defer cancel()
	err := s.cli.VolumeRemove(rctx, vol, false)
	if err == nil || cerrdefs.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("removing volume %s: %w", vol, err)
}

// Attempt is one prepared program: its image, its volume and the settings
// every invocation's container gets. It implements runner.Attempt and is safe
// for concurrent use.
type Attempt struct {
	sb *Sandbox
	// applied is what its containers are built from (runner.Apply of the
	// profile, or its build's part).
	applied       runner.Applied
	img           imageInfo
	rt            ociRuntime
	volume        string
	programSHA256 string
	settings      runner.Settings
	limits        runner.Limits
	// role labels the attempt's containers (RoleProgram, RoleChecker for a
	// checker's, or RoleBuild for a build stage's), and suffix ends their
	// names.
	role   string
	suffix string
	// adjust, when set, changes a container's configuration after
	// containerConfig built it (the build stage's mounts and command).
	adjust func(cfg *container.Config, hc *container.HostConfig)
	// afterExit, when set, runs on a container that exited, observed to its
	// end, before its removal (the build stage counts /build).
	afterExit func(ctx context.Context, id string, ev *runner.Event)
	// build is the profile's build stage (nil without one).
	build *buildPlan
	// floor, when set, is what a floor's view of a program attempt changes
	// (see Floor).
	floor *floorView

	closeOnce sync.Once
	closeErr  error
}

var _ runner.Attempt = (*Attempt)(nil)

// Settings reports the container settings this attempt applies.
func (a *Attempt) Settings() runner.Settings {
	st := a.settings
	st.ImageEnv = slices.Clone(st.ImageEnv)
	st.Entrypoint = slices.Clone(st.Entrypoint)
	st.DNS = slices.Clone(st.DNS)
	st.CapDrop = slices.Clone(st.CapDrop)
	st.SecurityOpt = slices.Clone(st.SecurityOpt)
	st.Env = slices.Clone(st.Env)
	st.Tmpfs = cloneMap(st.Tmpfs)
	st.TmpfsBytes = maps.Clone(st.TmpfsBytes)
	st.Applied = st.Applied.Clone()
	ul := make(map[string]int64, len(st.Ulimits))
	for k, v := range st.Ulimits {
		ul[k] = v
	}
	st.Ulimits = ul
	return st
}

// Close removes the program volume (and the build volume) within CleanupTimeout on ctx, which is
// the caller's cleanup context (not a cancelled run context). Calling it
// again returns the first result.
func (a *Attempt) Close(ctx context.Context) error {
	a.closeOnce.Do(func() {
		a.closeErr = a.sb.removeVolume(ctx, a.volume)
		if a.build != nil {
			a.closeErr = errors.Join(a.closeErr, a.sb.removeVolume(ctx, a.build.volume))
		}
	})
	return a.closeErr
}
