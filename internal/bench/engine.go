package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
)

// imageInfo is what an image inspect tells the container settings.
type imageInfo struct {
	ID      string
	Volumes []string // cleaned, sorted VOLUME paths
}

// runtimeProfile is the product's profile for a bench profile.
func (p profile) runtimeProfile(programName string) runner.Profile {
	return runner.Profile{
		Name: p.name, Image: p.image, Command: p.command, ProgramName: programName,
		Timeout: p.timeout, Memory: p.memory, CPUs: p.cpus, Pids: p.pids,
		OutputLimit: p.outputLimit, OutputCeiling: p.outputCeiling, User: p.user, Tmpfs: p.tmpfs,
	}
}

// containerConfig is behaves' own configuration of one invocation's
// container (docker.ProgramContainerConfig), so the floor makes the engine do
// the same work.
func containerConfig(p profile, img imageInfo, vol, programName string, inv invocation, labels map[string]string) (*container.Config, *container.HostConfig) {
	return docker.ProgramContainerConfig(p.runtimeProfile(programName), img.ID, img.Volumes, vol, runner.Invocation{Args: inv.args, Stdin: []byte(inv.stdin)}, labels)
}

// oldFloorDNS is the DNS setting behaves applied while the engine still
// set up a network sandbox for program containers: a resolver nobody
// answers on, so that no name resolves.
var oldFloorDNS = []string{"127.0.0.1"}

// withNetworkSandbox sets the two fields that decide whether the engine
// sets up its network sandbox (libnetwork) for a container, explicitly
// either way, so that a floor measures what it says whatever behaves'
// own configuration sets: on, as behaves did before it learned to skip
// it (NetworkDisabled false, DNS 127.0.0.1), or skipped (NetworkDisabled
// true, no DNS: it would not apply). NetworkMode stays "none" in both.
func withNetworkSandbox(cfg *container.Config, hc *container.HostConfig, on bool) {
	hc.NetworkMode = "none"
	if on {
		cfg.NetworkDisabled = false
		hc.DNS = slices.Clone(oldFloorDNS)
		return
	}
	cfg.NetworkDisabled = true
	hc.DNS = nil
}

// variant is what a floor changes in behaves' container configuration.
// The zero variant is the floor the targets use: behaves' settings with
// the network sandbox skipped. The other fields switch one thing off (or,
// for OOMWatch, add behaves' event subscription), in the bench's floor
// only, to show what it costs.
type variant struct {
	// Name is the variant's key in the JSON ("" for the floor).
	Name string
	// NetworkSandbox sets the engine's network sandbox up (the old floor).
	NetworkSandbox bool
	NoInit         bool   // Init false: no docker-init as PID 1
	NoTmpfs        bool   // no tmpfs mounts (the profile's and the image VOLUMEs')
	IPC            string // the IPC mode instead of behaves' "private" ("" keeps it)
	// NoVolume mounts no program volume: the program's source is passed
	// inline (sh -c / python3 -c) and the working directory is /.
	NoVolume bool
	// OOMWatch follows each container's oom and destroy events from
	// before its start to its removal, on one subscription for the pass,
	// as behaves does on one for the run.
	OOMWatch bool
}

// ablationOldFloor is the name of the variant that sets the network
// sandbox up (the old floor).
const ablationOldFloor = "network_sandbox"

// ablations are the variants of "what each setting costs", each against
// the floor at parallelism 1.
var ablations = []variant{
	{Name: ablationOldFloor, NetworkSandbox: true},
	{Name: "no_init", NoInit: true},
	{Name: "no_tmpfs", NoTmpfs: true},
	{Name: "ipc_none", IPC: "none"},
	{Name: "ipc_host", IPC: "host"},
	{Name: "no_program_volume", NoVolume: true},
	{Name: "oom_watch", OOMWatch: true},
}

// AblationNames are the names of the settings whose cost the bench
// measures, in the order of the results' ablation figures.
func AblationNames() []string {
	names := make([]string, len(ablations))
	for i, v := range ablations {
		names[i] = v.Name
	}
	return names
}

// what says in words what the variant changes.
func (v variant) what() string {
	switch {
	case v.NetworkSandbox:
		return "+ the network sandbox (the old floor)"
	case v.NoInit:
		return "− Init (docker-init as PID 1)"
	case v.NoTmpfs:
		return "− the tmpfs mounts (the python half's /tmp)"
	case v.IPC == "none":
		return "IPC none: own namespace, no /dev/shm"
	case v.IPC == "host":
		return "IPC host: no IPC namespace, no /dev/shm"
	case v.IPC != "":
		return "IPC " + v.IPC
	case v.NoVolume:
		return "− the program volume (source passed with -c)"
	case v.OOMWatch:
		return "+ behaves' oom/destroy events (one subscription per pass)"
	}
	return "the floor"
}

// adds says whether the variant adds work to the floor.
func (v variant) adds() bool { return v.NetworkSandbox || v.OOMWatch }

// apply changes behaves' configuration of program p's invocation.
func (v variant) apply(cfg *container.Config, hc *container.HostConfig, p program) {
	withNetworkSandbox(cfg, hc, v.NetworkSandbox)
	if v.NoInit {
		hc.Init = ptr(false)
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
		cfg.Cmd = append([]string{"-c", string(p.source)}, cfg.Cmd...)
	}
}

// helperConfig is behaves' own never-started helper that fills program
// volumes.
func helperConfig(p profile, img imageInfo, vols []string, labels map[string]string) (*container.Config, *container.HostConfig) {
	return docker.HelperContainerConfig(p.runtimeProfile(""), img.ID, img.Volumes, vols, labels)
}

// deliveryTar is behaves' own archive of one-file programs for one helper.
func deliveryTar(programs []program) ([]byte, error) {
	files := make([]map[string][]byte, len(programs))
	for k, p := range programs {
		files[k] = map[string][]byte{p.file: p.source}
	}
	return docker.DeliveryArchive(files)
}

func ptr[T any](v T) *T { return &v }

// engine is the bench's own Engine API client: the floor, the program
// volumes the floor and the docker CLI loop mount, and the sweep of
// everything labelled with the bench's run ID.
type engine struct {
	cli     *client.Client
	runID   string
	prefix  string // container name prefix
	seq     atomic.Uint64
	started time.Time
	host    string // labels: behaves' gc tells a live bench from a dead one by host, PID and start
	images  map[kind]imageInfo
	timeout time.Duration // per engine call
}

// newEngine connects to the daemon named by the environment.
func newEngine(ctx context.Context, runID string) (*engine, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("creating the Docker client: %w", err)
	}
	host, _ := os.Hostname()
	e := &engine{cli: cli, runID: runID, prefix: "behaves-bench-" + runID[:8] + "-", started: time.Now(), host: host, images: map[kind]imageInfo{}, timeout: 60 * time.Second}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("connecting to the Docker daemon: %w", err)
	}
	return e, nil
}

// labels is the label set behaves puts on what it makes, with the bench's
// run ID: a sweep by run ID finds the bench's leftovers as it finds
// behaves' own.
func (e *engine) labels(role string) map[string]string {
	return map[string]string{
		runner.LabelRunID:     e.runID,
		runner.LabelHost:      e.host,
		runner.LabelPID:       strconv.Itoa(pidSelf),
		runner.LabelStartedAt: e.started.UTC().Format(time.RFC3339),
		runner.LabelRole:      role,
	}
}

// inspectImages inspects each profile's image once, as behaves does, and
// returns how long each inspect took.
func (e *engine) inspectImages(ctx context.Context, ps profiles) (time.Duration, error) {
	var total time.Duration
	for _, k := range []kind{kindShell, kindPython} {
		ref := ps.of(k).image
		t0 := time.Now()
		resp, err := e.cli.ImageInspect(ctx, ref)
		total += time.Since(t0)
		if err != nil {
			return 0, fmt.Errorf("inspecting image %s (%s): %w", ref, k, err)
		}
		info := imageInfo{ID: resp.ID}
		if resp.Config != nil {
			for v := range resp.Config.Volumes {
				info.Volumes = append(info.Volumes, path.Clean(v))
			}
			sort.Strings(info.Volumes)
		}
		e.images[k] = info
	}
	e.images[kindEval] = e.images[kindPython] // the python profile
	return total / 2, nil
}

// deliveryPhases are the engine calls of delivering programs (behaves'
// Prepare and Close).
type deliveryPhases struct {
	VolumeCreate, HelperCreate, Copy, HelperRemove, VolumeRemove time.Duration
}

func (d deliveryPhases) total() time.Duration {
	return d.VolumeCreate + d.HelperCreate + d.Copy + d.HelperRemove + d.VolumeRemove
}

// deliver fills a new program volume for each of programs (all of one
// kind) the way behaves delivers a batch (a volume each, then one helper
// mounting them all, one copy, the helper removed) and returns the
// volumes' names and the batch's phases.
func (e *engine) deliver(ctx context.Context, ps profiles, programs []program) ([]string, deliveryPhases, error) {
	var d deliveryPhases
	k := programs[0].kind
	prof := ps.of(k)
	img := e.images[k]
	archive, err := deliveryTar(programs)
	if err != nil {
		return nil, d, err
	}
	t := time.Now()
	lap := func() time.Duration { n := time.Now(); dt := n.Sub(t); t = n; return dt }
	cctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	var vols []string
	for range programs {
		v, err := e.cli.VolumeCreate(cctx, volume.CreateOptions{Driver: "local", Labels: e.labels(docker.RoleVolume)})
		if err != nil {
			return vols, d, fmt.Errorf("creating a program volume: %w", err)
		}
		vols = append(vols, v.Name)
	}
	d.VolumeCreate = lap()
	cfg, hc := helperConfig(prof, img, vols, e.labels(docker.RoleHelper))
	h, err := e.cli.ContainerCreate(cctx, cfg, hc, nil, nil, e.name("-helper"))
	if err != nil {
		return vols, d, fmt.Errorf("creating the helper container: %w", err)
	}
	d.HelperCreate = lap()
	copyErr := e.cli.CopyToContainer(cctx, h.ID, docker.HelperDir, bytes.NewReader(archive), container.CopyToContainerOptions{})
	d.Copy = lap()
	rmErr := e.cli.ContainerRemove(cctx, h.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	d.HelperRemove = lap()
	if err := errors.Join(copyErr, rmErr); err != nil {
		return vols, d, fmt.Errorf("filling the program volumes: %w", err)
	}
	return vols, d, nil
}

// removeVolume removes a program volume and returns how long it took.
func (e *engine) removeVolume(ctx context.Context, vol string) (time.Duration, error) {
	cctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	t0 := time.Now()
	err := e.cli.VolumeRemove(cctx, vol, false)
	if err != nil && !cerrdefs.IsNotFound(err) {
		return 0, fmt.Errorf("removing volume %s: %w", vol, err)
	}
	return time.Since(t0), nil
}

func (e *engine) name(suffix string) string {
	return e.prefix + strconv.FormatUint(e.seq.Add(1), 10) + suffix
}

// lifecyclePhases are the engine calls of one invocation in the floor.
type lifecyclePhases struct {
	Create  time.Duration // ContainerCreate
	Attach  time.Duration // ContainerAttach + the next-exit wait registered
	Start   time.Duration // ContainerStart
	Run     time.Duration // from start's return to the exit and both streams' end
	Inspect time.Duration // ContainerInspect
	Remove  time.Duration // ContainerRemove (forced, with volumes)
	// EngineRun is the engine's StartedAt to FinishedAt (what behaves
	// reports as a case's duration_ms).
	EngineRun time.Duration
}

func (l lifecyclePhases) total() time.Duration {
	return l.Create + l.Attach + l.Start + l.Run + l.Inspect + l.Remove
}

// lifecycle runs one invocation through the bare Engine API lifecycle:
// create, attach, wait (next-exit, registered before start), start, stdin
// and the streams, inspect, remove. Nothing else (but what v changes: with
// v.OOMWatch, the container is watched on the pass's event stream evs, as
// behaves watches each on its run's, from after the attach up to its
// destroy event after the removal). It checks the output, so that the
// floor did the work behaves does.
func (e *engine) lifecycle(ctx context.Context, ps profiles, p program, vol string, inv invocation, v variant, evs *docker.EventStream) (lifecyclePhases, error) {
	var l lifecyclePhases
	cfg, hc := containerConfig(ps.of(p.kind), e.images[p.kind], vol, p.file, inv, e.labels(docker.RoleProgram))
	v.apply(cfg, hc, p)
	cctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	t := time.Now()
	lap := func() time.Duration { n := time.Now(); dt := n.Sub(t); t = n; return dt }

	created, err := e.cli.ContainerCreate(cctx, cfg, hc, nil, nil, e.name(""))
	if err != nil {
		return l, fmt.Errorf("creating container: %w", err)
	}
	l.Create = lap()
	removed := false
	defer func() {
		if !removed {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.timeout)
			defer cancel()
			_ = e.cli.ContainerRemove(rctx, created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		}
	}()
	conn, err := e.cli.ContainerAttach(cctx, created.ID, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return l, fmt.Errorf("attaching: %w", err)
	}
	defer conn.Close()
	waitC, waitErrC := e.cli.ContainerWait(cctx, created.ID, container.WaitConditionNextExit)
	var watch *docker.OOMWatch
	if evs != nil {
		watch = evs.Watch(created.ID)
		defer watch.Stop()
	}
	l.Attach = lap()
	if err := e.cli.ContainerStart(cctx, created.ID, container.StartOptions{}); err != nil {
		return l, fmt.Errorf("starting: %w", err)
	}
	l.Start = lap()
	go func() {
		if inv.stdin != "" {
			_, _ = conn.Conn.Write([]byte(inv.stdin))
		}
		_ = conn.CloseWrite()
	}()
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, conn.Reader); err != nil {
		return l, fmt.Errorf("reading the output: %w", err)
	}
	select {
	case w := <-waitC:
		if w.Error != nil && w.Error.Message != "" {
			return l, fmt.Errorf("waiting: %s", w.Error.Message)
		}
	case err := <-waitErrC:
		return l, fmt.Errorf("waiting: %w", err)
	}
	l.Run = lap()
	info, err := e.cli.ContainerInspect(cctx, created.ID)
	if err != nil {
		return l, fmt.Errorf("inspecting: %w", err)
	}
	l.Inspect = lap()
	if err := e.cli.ContainerRemove(cctx, created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
		return l, fmt.Errorf("removing: %w", err)
	}
	removed = true
	if watch != nil {
		// An oom is an error: the bench's programs never come near their
		// memory limit.
		switch oom, err := watch.OOMBeforeDestroy(e.timeout); {
		case err != nil:
			return l, err
		case oom:
			return l, fmt.Errorf("container %s: an oom event", created.ID)
		}
	}
	l.Remove = lap()

	if info.State == nil || info.State.ExitCode != 0 {
		return l, fmt.Errorf("%s/%s: the container did not exit 0 (state %+v, stderr %q)", p.name, inv.name, info.State, stderr.String())
	}
	if got := strings.TrimRight(stdout.String(), "\n"); got != inv.want {
		return l, fmt.Errorf("%s/%s: stdout %q, want %q (stderr %q)", p.name, inv.name, got, inv.want, stderr.String())
	}
	start, err1 := time.Parse(time.RFC3339Nano, info.State.StartedAt)
	end, err2 := time.Parse(time.RFC3339Nano, info.State.FinishedAt)
	if err1 == nil && err2 == nil && end.After(start) {
		l.EngineRun = end.Sub(start)
	}
	return l, nil
}

// floorResult is one pass of the floor over a set of invocations.
type floorResult struct {
	Wall   time.Duration
	N      int
	Phases lifecyclePhases // sums over the invocations
}

// floor runs every invocation of s through lifecycle with the variant v,
// parallel at a time, against the filled volumes vols (one per program).
func (e *engine) floor(ctx context.Context, ps profiles, s suite, vols []string, parallel int, v variant) (floorResult, error) {
	type item struct {
		p   program
		vol string
		inv invocation
	}
	var items []item
	for i, p := range s.programs {
		for _, inv := range p.cases {
			items = append(items, item{p, vols[i], inv})
		}
	}
	ch := make(chan item)
	var mu sync.Mutex
	var res floorResult
	var firstErr error
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t0 := time.Now()
	var evs *docker.EventStream
	if v.OOMWatch {
		// One subscription for the pass, made before its first start, as
		// behaves makes one per run.
		var err error
		if evs, err = docker.SubscribeRunEvents(fctx, fctx, e.cli, e.runID, e.timeout); err != nil {
			return floorResult{}, fmt.Errorf("subscribing to the pass's events: %w", err)
		}
		defer evs.Close()
	}
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range ch {
				l, err := e.lifecycle(fctx, ps, it.p, it.vol, it.inv, v, evs)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("floor %s/%s: %w", it.p.name, it.inv.name, err)
					cancel()
				}
				res.N++
				res.Phases = addPhases(res.Phases, l)
				mu.Unlock()
			}
		}()
	}
feed:
	for _, it := range items {
		select {
		case ch <- it:
		case <-fctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	res.Wall = time.Since(t0)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, firstErr
}

func addPhases(a, b lifecyclePhases) lifecyclePhases {
	return lifecyclePhases{
		Create: a.Create + b.Create, Attach: a.Attach + b.Attach, Start: a.Start + b.Start,
		Run: a.Run + b.Run, Inspect: a.Inspect + b.Inspect, Remove: a.Remove + b.Remove,
		EngineRun: a.EngineRun + b.EngineRun,
	}
}

// sweep removes every container and volume labelled with the bench's run
// ID (also those of the docker CLI loop) and returns what it removed.
func (e *engine) sweep(ctx context.Context) (int, error) {
	f := filters.NewArgs(filters.Arg("label", runner.LabelRunID+"="+e.runID))
	n := 0
	var errs []error
	cs, err := e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		return 0, fmt.Errorf("listing the bench's containers: %w", err)
	}
	for _, c := range cs {
		if err := e.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, err)
		} else {
			n++
		}
	}
	vs, err := e.cli.VolumeList(ctx, volume.ListOptions{Filters: f})
	if err != nil {
		return n, errors.Join(append(errs, fmt.Errorf("listing the bench's volumes: %w", err))...)
	}
	for _, v := range vs.Volumes {
		if err := e.cli.VolumeRemove(ctx, v.Name, true); err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, err)
		} else {
			n++
		}
	}
	return n, errors.Join(errs...)
}
