package docker

// The sweep: finding, by label, the containers and volumes that runs left on
// the daemon, deciding which runs are dead, and removing what dead runs left.
// The decision (ParseOwner, GroupRuns, Decide) is pure and table-tested; the
// engine side (Sweeper) is one container list, one volume list and the
// removals.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/runner"
)

// StartSlack is how much later than a run's behaves.started-at the process
// now holding its PID may have started and still count as the run's owner.
// The label has whole seconds and a process start time read from /proc is
// only as good as the boot time and the clock (a clock stepped forward while
// the owner runs makes it look younger): a wrong "dead" would remove a live
// run's containers, a wrong "alive" only keeps leftovers until --older-than,
// so the slack is generous.
const StartSlack = 5 * time.Minute

// DefaultRemoveTimeout bounds each removal of a sweep.
const DefaultRemoveTimeout = 30 * time.Second

// ParseOwner reads the owner labels (behaves.run-id, behaves.host,
// behaves.pid, behaves.started-at). It fails, naming the label, when one is
// missing or malformed: such a run is never judged dead.
func ParseOwner(labels map[string]string) (runner.Owner, error) {
	var o runner.Owner
	var errs []error
	o.RunID = labels[runner.LabelRunID]
	if o.RunID == "" {
		errs = append(errs, fmt.Errorf("%s is missing or empty", runner.LabelRunID))
	}
	o.Host = labels[runner.LabelHost]
	if o.Host == "" {
		errs = append(errs, fmt.Errorf("%s is missing or empty", runner.LabelHost))
	}
	pid, err := strconv.Atoi(labels[runner.LabelPID])
	if err != nil || pid <= 0 {
		errs = append(errs, fmt.Errorf("%s %q is not a process ID", runner.LabelPID, labels[runner.LabelPID]))
	}
	o.PID = pid
	o.PIDNamespace = labels[runner.LabelPIDNamespace]
	at, err := time.Parse(time.RFC3339, labels[runner.LabelStartedAt])
	if err != nil {
		errs = append(errs, fmt.Errorf("%s %q is not an RFC 3339 time", runner.LabelStartedAt, labels[runner.LabelStartedAt]))
	}
	o.StartedAt = at
	if err := errors.Join(errs...); err != nil {
		return runner.Owner{}, err
	}
	return o, nil
}

// sameOwner reports whether two owners are the same run.
func sameOwner(o, p runner.Owner) bool {
	return o.RunID == p.RunID && o.Host == p.Host && o.PID == p.PID && o.PIDNamespace == p.PIDNamespace && o.StartedAt.Equal(p.StartedAt)
}

// GroupRuns groups containers and volumes by their behaves.run-id label,
// skipping those without one and those whose run ID only rejects (nil: all).
// Runs come oldest first (malformed ones first), then by ID.
func GroupRuns(containers []container.Summary, volumes []*volume.Volume, only func(runID string) bool) []runner.LeftoverRun {
	byID := map[string]*runner.LeftoverRun{}
	var order []*runner.LeftoverRun
	add := func(labels map[string]string, l runner.LeftoverObject) {
		id := labels[runner.LabelRunID]
		if id == "" || only != nil && !only(id) {
			return
		}
		l.Role = labels[runner.LabelRole]
		o, err := ParseOwner(labels)
		r := byID[id]
		if r == nil {
			r = &runner.LeftoverRun{ID: id, Owner: o, Err: err}
			if err != nil {
				r.Err = fmt.Errorf("%s %s: %w", l.Kind, l.Name, err)
			}
			byID[id] = r
			order = append(order, r)
		} else if r.Err == nil {
			switch {
			case err != nil:
				r.Err = fmt.Errorf("%s %s: %w", l.Kind, l.Name, err)
			case !sameOwner(r.Owner, o):
				r.Err = fmt.Errorf("%s %s names another owner (host %q, pid %d, started %s) than the run's other objects (host %q, pid %d, started %s)",
					l.Kind, l.Name, o.Host, o.PID, o.StartedAt.Format(time.RFC3339), r.Owner.Host, r.Owner.PID, r.Owner.StartedAt.Format(time.RFC3339))
			}
		}
		if r.Err != nil {
			r.Owner = runner.Owner{RunID: id}
		}
		if l.Kind == runner.KindContainer {
			r.Containers = append(r.Containers, l)
		} else {
			r.Volumes = append(r.Volumes, l)
		}
	}
	for _, c := range containers {
		name := c.ID
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		add(c.Labels, runner.LeftoverObject{Kind: runner.KindContainer, ID: c.ID, Name: name})
	}
	for _, v := range volumes {
		if v != nil {
			add(v.Labels, runner.LeftoverObject{Kind: runner.KindVolume, ID: v.Name, Name: v.Name})
		}
	}
	runs := make([]runner.LeftoverRun, len(order))
	for i, r := range order {
		runs[i] = *r
	}
	slices.SortStableFunc(runs, func(a, b runner.LeftoverRun) int {
		if c := a.Owner.StartedAt.Compare(b.Owner.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return runs
}

// Policy says which runs a sweep removes.
type Policy struct {
	// Host is this host's name, as behaves.host would say it.
	Host string
	// PIDNamespace is this process's PID namespace, as
	// behaves.pid-namespace would say it (PIDNamespace()).
	PIDNamespace string
	// Now is the time the ages are measured at.
	Now time.Time
	// OlderThan, when positive, also removes every run that started more
	// than OlderThan before Now, whatever its owner's state or host.
	OlderThan time.Duration
	// Process looks a process up on this host; it is asked only about runs
	// of this host.
	Process func(pid int) runner.Process
}

// Decide decides whether a run's leftovers go. A run is dead when its host
// and PID namespace are this process's and its owner process is gone: no process holds its PID, the
// process is a zombie, or the process holding the PID started more than
// StartSlack after the run (the PID was reused). A dead run is removed.
// Another host's or PID namespace's run and a live run are kept unless p.OlderThan is set and
// the run started longer ago than that. A run whose labels do not name one
// owner is always kept.
func Decide(r runner.LeftoverRun, p Policy) runner.Decision {
	if r.Err != nil {
		return runner.Decision{Reason: fmt.Sprintf("its labels do not name its owner: %v", r.Err)}
	}
	o := r.Owner
	age := p.Now.Sub(o.StartedAt)
	older := p.OlderThan > 0 && age > p.OlderThan
	olderReason := func(why string) runner.Decision {
		return runner.Decision{Remove: true, Reason: fmt.Sprintf("%s, but it started %s ago, more than --older-than %s", why, roundAge(age), p.OlderThan)}
	}
	if o.Host != p.Host {
		why := fmt.Sprintf("its owner runs on host %q, not this one", o.Host)
		if older {
			return olderReason(why)
		}
		return runner.Decision{Reason: why + " (only --older-than removes it)"}
	}
	if o.PIDNamespace != p.PIDNamespace {
		// Same host name, other processes: a container with the host's
		// network (an action's container under act, --network host) or
		// a run from before this label. Its PID means nothing here.
		why := fmt.Sprintf("its owner runs on this host but in another PID namespace (%q, not %q), where its process cannot be looked up", o.PIDNamespace, p.PIDNamespace)
		if older {
			return olderReason(why)
		}
		return runner.Decision{Reason: why + " (only --older-than removes it)"}
	}
	proc := runner.Process{Alive: true} // without a way to look it up, assume alive
	if p.Process != nil {
		proc = p.Process(o.PID)
	}
	if !proc.Alive {
		return runner.Decision{Remove: true, Dead: true, Reason: fmt.Sprintf("its owner, pid %d on this host, is gone", o.PID)}
	}
	if !proc.Started.IsZero() && proc.Started.After(o.StartedAt.Add(StartSlack)) {
		return runner.Decision{Remove: true, Dead: true, Reason: fmt.Sprintf("its owner is gone: pid %d on this host now belongs to a process started at %s, after the run started at %s",
			o.PID, proc.Started.UTC().Format(time.RFC3339), o.StartedAt.UTC().Format(time.RFC3339))}
	}
	why := fmt.Sprintf("its owner, pid %d on this host, is still running", o.PID)
	if older {
		return olderReason(why)
	}
	return runner.Decision{Reason: why}
}

// roundAge is an age rounded for people.
func roundAge(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// PIDNamespace names this process's PID namespace: the target of
// /proc/self/ns/pid ("pid:[4026531836]"), "" where there is none to read
// (not Linux). An inode number is reused only after its namespace is gone,
// and with it every process of a run that lived there, so a reused name
// with a live PID still meets the start-time check.
func PIDNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's starttime: 100 on
// every architecture Docker supports (cgo would be needed to ask sysconf).
const clockTicks = 100

// LocalProcess looks pid up on this host (in behaves' PID namespace). On
// Linux it reads /proc/<pid>/stat: a missing entry or a zombie is gone, and
// the start time comes from starttime and the boot time in /proc/stat.
// Elsewhere, or when /proc cannot say, it sends signal 0. Whatever it cannot
// tell counts as alive, so that doubt keeps leftovers rather than removing a
// live run's.
func LocalProcess(pid int) runner.Process {
	if pid <= 0 {
		return runner.Process{Alive: true}
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		state, ticks, err := parseProcStat(b)
		if err != nil {
			return runner.Process{Alive: true}
		}
		if state == 'Z' || state == 'X' {
			return runner.Process{}
		}
		p := runner.Process{Alive: true}
		if boot, err := bootTime(); err == nil {
			p.Started = boot.Add(time.Duration(ticks) * (time.Second / clockTicks))
		}
		return p
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat("/proc/self/stat"); err == nil {
			return runner.Process{} // /proc works and has no such process
		}
	}
	return signalZero(pid)
}

// signalZero asks the kernel whether pid exists: ESRCH means gone; success
// or any other answer (EPERM: it exists, but is not ours) means alive.
func signalZero(pid int) runner.Process {
	p, err := os.FindProcess(pid)
	if err != nil {
		return runner.Process{Alive: true}
	}
	defer p.Release()
	if err := p.Signal(syscall.Signal(0)); errors.Is(err, os.ErrProcessDone) {
		return runner.Process{}
	}
	return runner.Process{Alive: true}
}

// parseProcStat returns the state (field 3) and starttime (field 22) of a
// /proc/<pid>/stat line. The command name (field 2) is in parentheses and
// may itself hold spaces and parentheses, so fields are counted after the
// last ')'.
func parseProcStat(b []byte) (state byte, starttime int64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("no command name in /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, errors.New("too few fields in /proc stat")
	}
	starttime, err = strconv.ParseInt(f[19], 10, 64)
	if err != nil || starttime < 0 {
		return 0, 0, fmt.Errorf("bad starttime %q in /proc stat", f[19])
	}
	return f[0][0], starttime, nil
}

// bootTime reads btime, the boot time in seconds since the epoch, from /proc/stat.
func bootTime() (time.Time, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("bad btime in /proc/stat: %w", err)
			}
			return time.Unix(n, 0), nil
		}
	}
	return time.Time{}, errors.New("no btime in /proc/stat")
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
// The defaults of opt: Host os.Hostname(), PIDNamespace PIDNamespace(),
// Process LocalProcess, Now time.Now, ListTimeout DefaultEngineTimeout,
// RemoveTimeout DefaultRemoveTimeout; Only nil (every run).
func NewSweeper(opt runner.SweepOptions) (*Sweeper, error) {
	if opt.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("reading this host's name: %w", err)
		}
		opt.Host = h
	}
	if opt.PIDNamespace == "" {
		opt.PIDNamespace = PIDNamespace()
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
		opt.Process = LocalProcess
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
// run and decides each run (Decide) with olderThan (0: off).
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
	p := Policy{Host: s.opt.Host, PIDNamespace: s.opt.PIDNamespace, Now: s.opt.Now(), OlderThan: olderThan, Process: s.opt.Process}
	runs := GroupRuns(cs, vs.Volumes, s.opt.Only)
	plan := make([]runner.Planned, len(runs))
	for i, r := range runs {
		plan[i] = runner.Planned{LeftoverRun: r, Decision: Decide(r, p)}
	}
	return plan, nil
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
