package runner

// The sweep's vocabulary: what a run leaves on a sandbox backend, what a
// sweep decides for it, and what removing it did. A backend (runner/docker)
// finds the leftovers by the owner labels below, decides each run with
// ParseOwner and Decide (owner.go, asking this host through process.go) and
// implements Sweeper; the command line reads only these types.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Label keys put on every container and volume (or whatever a backend
// makes) a run creates, so that a sweep can tell a dead run's leftovers from
// a live run's. Their values are what runs of every version have written:
// changing one would leave older runs' leftovers unswept.
const (
	LabelRunID = "behaves.run-id"
	LabelHost  = "behaves.host"
	LabelPID   = "behaves.pid"
	// LabelPIDNamespace names the PID namespace behaves.pid is a PID of.
	// Two containers on one machine share its hostname (host networking,
	// or an action's container under act) but not their processes: a PID
	// is only looked up from the namespace it belongs to.
	LabelPIDNamespace = "behaves.pid-namespace"
	LabelStartedAt    = "behaves.started-at"
	LabelRole         = "behaves.role"
)

// Kinds of a LeftoverObject.
const (
	KindContainer = "container"
	KindVolume    = "volume"
	// On Kubernetes: a pod runs a program, config maps hold its files.
	KindPod       = "pod"
	KindConfigMap = "config map"
)

// Owner is the run that made a leftover, read from its labels.
type Owner struct {
	RunID string
	Host  string
	PID   int
	// PIDNamespace is the behaves.pid-namespace label: "" when behaves
	// could not read it, or the run predates the label.
	PIDNamespace string
	StartedAt    time.Time
}

// OrThisProcess is o with each empty field taken from this process: the
// host's name, the PID, its PID namespace, and now.
func (o Owner) OrThisProcess() Owner {
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	if o.PID == 0 {
		o.PID = os.Getpid()
	}
	if o.PIDNamespace == "" {
		o.PIDNamespace = PIDNamespace()
	}
	if o.StartedAt.IsZero() {
		o.StartedAt = time.Now()
	}
	return o
}

// Labels are the owner labels of what o's run makes, with its role: what
// ParseOwner reads back (a backend whose label values cannot hold them
// all keeps them as annotations).
func (o Owner) Labels(role string) map[string]string {
	return map[string]string{
		LabelRunID:        o.RunID,
		LabelHost:         o.Host,
		LabelPID:          strconv.Itoa(o.PID),
		LabelPIDNamespace: o.PIDNamespace,
		LabelStartedAt:    o.StartedAt.UTC().Format(time.RFC3339),
		LabelRole:         role,
	}
}

// LeftoverObject is one container or volume a run made.
type LeftoverObject struct {
	Kind string // KindContainer or KindVolume
	ID   string // the container ID, or the volume's name
	Name string // the container's name (without the leading /), or the volume's name
	Role string // its behaves.role label
}

// LeftoverRun is what one run (one behaves.run-id) left on the backend.
type LeftoverRun struct {
	ID string
	// Owner is valid when Err is nil.
	Owner Owner
	// Err says why the labels do not name one owner (missing, malformed, or
	// different between the run's objects).
	Err error
	// Containers are what ran programs (containers, pods); Volumes what
	// held their files (volumes, config maps), removed after them.
	Containers []LeftoverObject
	Volumes    []LeftoverObject
}

// Found is one object a backend found carrying behaves.run-id, with the
// labels its owner is read from (ParseOwner).
type Found struct {
	Labels map[string]string
	Object LeftoverObject
}

// GroupRuns groups what a backend found by its behaves.run-id label,
// skipping what has none and the runs only rejects (nil: all). A run whose
// objects do not all name one owner has Err set. Runs come oldest first
// (malformed ones first), then by ID.
func GroupRuns(found []Found, only func(runID string) bool) []LeftoverRun {
	byID := map[string]*LeftoverRun{}
	var order []*LeftoverRun
	for _, f := range found {
		labels, l := f.Labels, f.Object
		id := labels[LabelRunID]
		if id == "" || only != nil && !only(id) {
			continue
		}
		l.Role = labels[LabelRole]
		o, err := ParseOwner(labels)
		r := byID[id]
		if r == nil {
			r = &LeftoverRun{ID: id, Owner: o, Err: err}
			if err != nil {
				r.Err = fmt.Errorf("%s %s: %w", l.Kind, l.Name, err)
			}
			byID[id] = r
			order = append(order, r)
		} else if r.Err == nil {
			switch {
			case err != nil:
				r.Err = fmt.Errorf("%s %s: %w", l.Kind, l.Name, err)
			case !SameOwner(r.Owner, o):
				r.Err = fmt.Errorf("%s %s names another owner (host %q, pid %d, started %s) than the run's other objects (host %q, pid %d, started %s)",
					l.Kind, l.Name, o.Host, o.PID, o.StartedAt.Format(time.RFC3339), r.Owner.Host, r.Owner.PID, r.Owner.StartedAt.Format(time.RFC3339))
			}
		}
		if r.Err != nil {
			r.Owner = Owner{RunID: id}
		}
		if l.Kind == KindContainer || l.Kind == KindPod {
			r.Containers = append(r.Containers, l)
		} else {
			r.Volumes = append(r.Volumes, l)
		}
	}
	runs := make([]LeftoverRun, len(order))
	for i, r := range order {
		runs[i] = *r
	}
	slices.SortStableFunc(runs, func(a, b LeftoverRun) int {
		if c := a.Owner.StartedAt.Compare(b.Owner.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return runs
}

// Plan groups what a backend found by run (GroupRuns, restricted to
// opt.Only) and decides each run (Decide) as this host sees it (opt's
// host, PID namespace, process lookup and clock), with olderThan (0: off).
func Plan(found []Found, opt SweepOptions, olderThan time.Duration) []Planned {
	p := Policy{Host: opt.Host, PIDNamespace: opt.PIDNamespace, Now: opt.Now(), OlderThan: olderThan, Process: opt.Process}
	runs := GroupRuns(found, opt.Only)
	plan := make([]Planned, len(runs))
	for i, r := range runs {
		plan[i] = Planned{LeftoverRun: r, Decision: Decide(r, p)}
	}
	return plan
}

// Decision is what a sweep does with one run, and why.
type Decision struct {
	Remove bool
	// Dead says the run's owner is gone (its host is this one, and its PID
	// is free or now belongs to a process that started after the run).
	Dead   bool
	Reason string
}

// Planned is a run and what the sweep decided for it.
type Planned struct {
	LeftoverRun
	Decision
}

// Removal is the outcome of removing one leftover: Err is nil when it was
// removed or already gone.
type Removal struct {
	LeftoverObject
	Err error
}

// Process is what a sweep knows of a process on this host.
type Process struct {
	Alive bool
	// Started is when the process started; zero when unknown.
	Started time.Time
}

// SweepOptions configure a backend's sweeper. Every field has a default,
// which the backend's constructor documents.
type SweepOptions struct {
	// Host is this host's name, as behaves.host would say it.
	Host string
	// PIDNamespace is this process's PID namespace, as
	// behaves.pid-namespace would say it.
	PIDNamespace string
	// Process looks a process up on this host.
	Process func(pid int) Process
	// Now is the clock.
	Now func() time.Time
	// Only, when set, restricts the sweep to the runs whose ID it accepts:
	// the others are neither decided nor removed. Tests use it so that they
	// can only ever touch their own runs.
	Only func(runID string) bool
	// ListTimeout bounds each list call.
	ListTimeout time.Duration
	// RemoveTimeout bounds each removal.
	RemoveTimeout time.Duration
}

// Sweeper finds the leftovers that runs left on a backend, decides which
// runs are dead, and removes their leftovers (*docker.Sweeper for Docker).
type Sweeper interface {
	// Plan lists the leftovers grouped by run and decides each run;
	// olderThan (0: off) also removes runs that started longer ago.
	Plan(ctx context.Context, olderThan time.Duration) ([]Planned, error)
	// Remove removes a run's containers, then its volumes, and reports each.
	Remove(ctx context.Context, run LeftoverRun) []Removal
	Close() error
}
