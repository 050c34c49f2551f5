package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
	"github.com/behaves-dev/behaves/internal/runner/docker/floor"
)

// runtimeProfile is the product's profile for a bench profile.
func (p profile) runtimeProfile(programName string) runner.Profile {
	return runner.Profile{
		Name: p.name, Image: p.image, Command: p.command, ProgramName: programName,
		Timeout: p.timeout, Memory: p.memory, CPUs: p.cpus, Pids: p.pids,
		OutputLimit: p.outputLimit, OutputCeiling: p.outputCeiling, User: p.user, Tmpfs: p.tmpfs,
	}
}

// variant is a floor.Variant with its key in the JSON ("" for the floor).
// The zero variant is the floor the targets use: behaves' settings with
// the network sandbox skipped. The other fields switch one thing off (or,
// for OOMWatch, add behaves' event subscription), in the bench's floor
// only, to show what it costs.
type variant struct {
	Name string
	floor.Variant
}

// ablationOldFloor is the name of the variant that sets the network
// sandbox up (the old floor).
const ablationOldFloor = "network_sandbox"

// ablations are the variants of "what each setting costs", each against
// the floor at parallelism 1.
var ablations = []variant{
	{ablationOldFloor, floor.Variant{NetworkSandbox: true}},
	{"no_init", floor.Variant{NoInit: true}},
	{"no_tmpfs", floor.Variant{NoTmpfs: true}},
	{"ipc_none", floor.Variant{IPC: "none"}},
	{"ipc_host", floor.Variant{IPC: "host"}},
	{"no_program_volume", floor.Variant{NoVolume: true}},
	{"oom_watch", floor.Variant{OOMWatch: true}},
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

// sandbox is the bench's handle on behaves' own Docker sandbox, as its
// floor (docker.Floor): the program volumes the floors and the docker CLI
// loop mount, the floors' lifecycles, and behaves' own sweep of
// everything labelled with the bench's run ID.
type sandbox struct {
	f      *docker.Floor
	sweep  *docker.Sweeper
	runID  string
	prefix string // the docker CLI loop's container name prefix
	seq    atomic.Uint64
}

// newSandbox connects to the daemon named by the environment.
func newSandbox(ctx context.Context, runID string) (*sandbox, error) {
	f, err := docker.NewFloor(ctx, docker.Options{RunID: runID}, floor.NewKey())
	if err != nil {
		return nil, err
	}
	sw, err := docker.NewSweeper(runner.SweepOptions{})
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return &sandbox{f: f, sweep: sw, runID: runID, prefix: "behaves-bench-" + runID[:8] + "-"}, nil
}

// Close closes the sandbox's and the sweep's clients.
func (e *sandbox) Close() error {
	return errors.Join(e.f.Close(), e.sweep.Close())
}

// inspectImages checks each profile's image once, as behaves does, and
// returns how long each check took.
func (e *sandbox) inspectImages(ctx context.Context, ps profiles) (time.Duration, error) {
	var total time.Duration
	for _, k := range []kind{kindShell, kindPython} {
		ref := ps.of(k).image
		t0 := time.Now()
		err := e.f.InspectImage(ctx, ref)
		total += time.Since(t0)
		if err != nil {
			return 0, fmt.Errorf("inspecting image %s (%s): %w", ref, k, err)
		}
	}
	return total / 2, nil
}

// deliveryPhases are the engine calls of delivering programs (behaves'
// Prepare; the volume's removal, Close, is timed by removeVolume).
type deliveryPhases struct {
	VolumeCreate, HelperCreate, Copy, HelperRemove time.Duration
}

// deliver prepares programs (all of one kind) as behaves prepares a batch
// (a volume each, then one helper mounting them all, one copy, the helper
// removed) and returns the prepared programs and the batch's phases.
func (e *sandbox) deliver(ctx context.Context, ps profiles, programs []program) ([]runner.Attempt, deliveryPhases, error) {
	reqs := make([]runner.Request, len(programs))
	for i, p := range programs {
		reqs[i] = runner.Request{
			Program: runner.Program{Files: map[string]runner.File{p.file: runner.BytesFile(p.source)}, Entry: p.file},
			Profile: ps.of(p.kind).runtimeProfile(p.file),
		}
	}
	return e.prepare(ctx, reqs)
}

// deliverJobs prepares jobs' programs (a spec's, loaded) as behaves
// prepares a batch and returns the prepared programs and the batch's
// phases.
func (e *sandbox) deliverJobs(ctx context.Context, jobs []runner.Job) ([]runner.Attempt, deliveryPhases, error) {
	reqs := make([]runner.Request, len(jobs))
	for i, j := range jobs {
		reqs[i] = runner.Request{Program: j.Program, Profile: j.Profile}
	}
	return e.prepare(ctx, reqs)
}

// prepare is the sandbox's Prepare of reqs, its engine calls timed.
func (e *sandbox) prepare(ctx context.Context, reqs []runner.Request) ([]runner.Attempt, deliveryPhases, error) {
	var tl floor.Timeline
	prepared := e.f.Prepare(floor.WithTimeline(ctx, &tl), reqs)
	d := deliveryPhases{
		VolumeCreate: tl.Span(floor.VolumeCreate).Total,
		HelperCreate: tl.Span(floor.ContainerCreate).Total,
		Copy:         tl.Span(floor.CopyToContainer).Total,
		HelperRemove: tl.Span(floor.ContainerRemove).Total,
	}
	var made []runner.Attempt
	var errs []error
	for _, pr := range prepared {
		if pr.Err != nil {
			errs = append(errs, pr.Err)
		} else {
			made = append(made, pr.Attempt)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return made, d, fmt.Errorf("delivering the programs: %w", err)
	}
	return made, d, nil
}

// removeVolume removes a prepared program's volume (its Close) and
// returns how long it took.
func (e *sandbox) removeVolume(ctx context.Context, a runner.Attempt) (time.Duration, error) {
	t0 := time.Now()
	if err := a.Close(ctx); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// name is a container name of the docker CLI loop.
func (e *sandbox) name(suffix string) string {
	return e.prefix + strconv.FormatUint(e.seq.Add(1), 10) + suffix
}

// lifecyclePhases are the engine calls of one invocation in the floor.
type lifecyclePhases struct {
	Create time.Duration // ContainerCreate
	Attach time.Duration // ContainerAttach + the next-exit wait registered
	Start  time.Duration // ContainerStart
	// Run is from start's return to the inspect: the exit and both
	// streams' end (behaves inspects when the streams end, and waits for
	// the exit's report alongside).
	Run     time.Duration
	Inspect time.Duration // ContainerInspect (the last)
	// Remove is from the inspect's return to the run's: the rest of the
	// wait, ContainerRemove (forced, with volumes) and, with OOMWatch, the
	// destroy event.
	Remove time.Duration
	// EngineRun is the engine's StartedAt to FinishedAt (what behaves
	// reports as a case's duration_ms).
	EngineRun time.Duration
}

func (l lifecyclePhases) total() time.Duration {
	return l.Create + l.Attach + l.Start + l.Run + l.Inspect + l.Remove
}

// lifecycle runs one invocation of a (program p's) through behaves' own
// lifecycle under the variant v (docker.Floor.Run): create, attach, wait
// (next-exit, registered before start), start, stdin and the streams,
// inspect, remove; with v.OOMWatch, the container is also watched on the
// sandbox's event stream, as behaves watches each, up to its destroy
// event after the removal. The phases are read from the engine calls'
// times. It checks the output, so that the floor did the work behaves
// does.
func (e *sandbox) lifecycle(ctx context.Context, p program, a runner.Attempt, inv invocation, v variant) (lifecyclePhases, error) {
	var l lifecyclePhases
	var tl floor.Timeline
	t0 := time.Now()
	ev, err := e.f.Run(floor.WithTimeline(ctx, &tl), a, v.Variant, p.source, runner.Invocation{Args: inv.args, Stdin: []byte(inv.stdin)})
	t1 := time.Now()
	if err != nil {
		return l, err
	}
	if ev.SandboxError != "" {
		return l, errors.New(ev.SandboxError)
	}
	create, start, inspect := tl.Span(floor.ContainerCreate), tl.Span(floor.ContainerStart), tl.Span(floor.ContainerInspect)
	l.Create = create.LastEnd.Sub(t0)
	l.Attach = start.FirstBegin.Sub(create.LastEnd)
	l.Start = start.LastEnd.Sub(start.FirstBegin)
	l.Run = inspect.LastBegin.Sub(start.LastEnd)
	l.Inspect = inspect.LastEnd.Sub(inspect.LastBegin)
	l.Remove = t1.Sub(inspect.LastEnd)
	l.EngineRun = ev.Duration

	stdout, stderr := string(ev.Stdout.Data), string(ev.Stderr.Data)
	switch {
	case ev.ResourceLimit != "":
		// The bench's programs never come near their limits.
		return l, fmt.Errorf("%s/%s: the %s limit was hit", p.name, inv.name, ev.ResourceLimit)
	case ev.ExitCode == nil || *ev.ExitCode != 0:
		return l, fmt.Errorf("%s/%s: the container did not exit 0 (exit code %v, stderr %q)", p.name, inv.name, ev.ExitCode, stderr)
	}
	if got := strings.TrimRight(stdout, "\n"); got != inv.want {
		return l, fmt.Errorf("%s/%s: stdout %q, want %q (stderr %q)", p.name, inv.name, got, inv.want, stderr)
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
// parallel at a time, on the prepared programs atts (one per program).
func (e *sandbox) floor(ctx context.Context, s suite, atts []runner.Attempt, parallel int, v variant) (floorResult, error) {
	type item struct {
		p   program
		a   runner.Attempt
		inv invocation
	}
	var items []item
	for i, p := range s.programs {
		for _, inv := range p.cases {
			items = append(items, item{p, atts[i], inv})
		}
	}
	ch := make(chan item)
	var mu sync.Mutex
	var res floorResult
	var firstErr error
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t0 := time.Now()
	if v.OOMWatch {
		// The pass's first container subscribes, as a run's first does;
		// the subscription ends with the pass.
		defer e.f.EndEvents()
	}
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range ch {
				l, err := e.lifecycle(fctx, it.p, it.a, it.inv, v)
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

// removeRun removes, with behaves' own sweep (docker.Sweeper), every
// container and volume labelled with runID, and returns how many of each
// it found.
func (e *sandbox) removeRun(ctx context.Context, runID string) (containers, volumes int, err error) {
	plan, err := e.sweep.Plan(ctx, 0)
	if err != nil {
		return 0, 0, err
	}
	var errs []error
	for _, r := range plan {
		if r.ID != runID {
			continue
		}
		containers, volumes = len(r.Containers), len(r.Volumes)
		for _, rm := range e.sweep.Remove(ctx, r.LeftoverRun) {
			if rm.Err != nil {
				errs = append(errs, rm.Err)
			}
		}
	}
	return containers, volumes, errors.Join(errs...)
}

// sweepAll removes every container and volume labelled with the bench's
// run ID (also those of the docker CLI loop) and returns how many it
// found.
func (e *sandbox) sweepAll(ctx context.Context) (int, error) {
	c, v, err := e.removeRun(ctx, e.runID)
	return c + v, err
}
