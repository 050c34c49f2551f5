package runner

// The sweep's decision: reading a leftover's owner from its labels and
// deciding whether its run is dead. It is pure and table-tested, and knows
// nothing of the backend the leftovers are on: a backend lists and groups
// them (for Docker, runner/docker's GroupRuns) and calls ParseOwner and
// Decide.

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// StartSlack is how much later than a run's behaves.started-at the process
// now holding its PID may have started and still count as the run's owner.
// The label has whole seconds and a process start time read from /proc is
// only as good as the boot time and the clock (a clock stepped forward while
// the owner runs makes it look younger): a wrong "dead" would remove a live
// run's containers, a wrong "alive" only keeps leftovers until --older-than,
// so the slack is generous.
const StartSlack = 5 * time.Minute

// ParseOwner reads the owner labels (behaves.run-id, behaves.host,
// behaves.pid, behaves.started-at). It fails, naming the label, when one is
// missing or malformed: such a run is never judged dead.
func ParseOwner(labels map[string]string) (Owner, error) {
	var o Owner
	var errs []error
	o.RunID = labels[LabelRunID]
	if o.RunID == "" {
		errs = append(errs, fmt.Errorf("%s is missing or empty", LabelRunID))
	}
	o.Host = labels[LabelHost]
	if o.Host == "" {
		errs = append(errs, fmt.Errorf("%s is missing or empty", LabelHost))
	}
	pid, err := strconv.Atoi(labels[LabelPID])
	if err != nil || pid <= 0 {
		errs = append(errs, fmt.Errorf("%s %q is not a process ID", LabelPID, labels[LabelPID]))
	}
	o.PID = pid
	o.PIDNamespace = labels[LabelPIDNamespace]
	at, err := time.Parse(time.RFC3339, labels[LabelStartedAt])
	if err != nil {
		errs = append(errs, fmt.Errorf("%s %q is not an RFC 3339 time", LabelStartedAt, labels[LabelStartedAt]))
	}
	o.StartedAt = at
	if err := errors.Join(errs...); err != nil {
		return Owner{}, err
	}
	return o, nil
}

// SameOwner reports whether two owners are the same run.
func SameOwner(o, p Owner) bool {
	return o.RunID == p.RunID && o.Host == p.Host && o.PID == p.PID && o.PIDNamespace == p.PIDNamespace && o.StartedAt.Equal(p.StartedAt)
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
	Process func(pid int) Process
}

// Decide decides whether a run's leftovers go. A run is dead when its host
// and PID namespace are this process's and its owner process is gone: no process holds its PID, the
// process is a zombie, or the process holding the PID started more than
// StartSlack after the run (the PID was reused). A dead run is removed.
// Another host's or PID namespace's run and a live run are kept unless p.OlderThan is set and
// the run started longer ago than that. A run whose labels do not name one
// owner is always kept.
func Decide(r LeftoverRun, p Policy) Decision {
	if r.Err != nil {
		return Decision{Reason: fmt.Sprintf("its labels do not name its owner: %v", r.Err)}
	}
	o := r.Owner
	age := p.Now.Sub(o.StartedAt)
	older := p.OlderThan > 0 && age > p.OlderThan
	olderReason := func(why string) Decision {
		return Decision{Remove: true, Reason: fmt.Sprintf("%s, but it started %s ago, more than --older-than %s", why, roundAge(age), p.OlderThan)}
	}
	if o.Host != p.Host {
		why := fmt.Sprintf("its owner runs on host %q, not this one", o.Host)
		if older {
			return olderReason(why)
		}
		return Decision{Reason: why + " (only --older-than removes it)"}
	}
	if o.PIDNamespace != p.PIDNamespace {
		// Same host name, other processes: a container with the host's
		// network (an action's container under act, --network host) or
		// a run from before this label. Its PID means nothing here.
		why := fmt.Sprintf("its owner runs on this host but in another PID namespace (%q, not %q), where its process cannot be looked up", o.PIDNamespace, p.PIDNamespace)
		if older {
			return olderReason(why)
		}
		return Decision{Reason: why + " (only --older-than removes it)"}
	}
	proc := Process{Alive: true} // without a way to look it up, assume alive
	if p.Process != nil {
		proc = p.Process(o.PID)
	}
	if !proc.Alive {
		return Decision{Remove: true, Dead: true, Reason: fmt.Sprintf("its owner, pid %d on this host, is gone", o.PID)}
	}
	if !proc.Started.IsZero() && proc.Started.After(o.StartedAt.Add(StartSlack)) {
		return Decision{Remove: true, Dead: true, Reason: fmt.Sprintf("its owner is gone: pid %d on this host now belongs to a process started at %s, after the run started at %s",
			o.PID, proc.Started.UTC().Format(time.RFC3339), o.StartedAt.UTC().Format(time.RFC3339))}
	}
	why := fmt.Sprintf("its owner, pid %d on this host, is still running", o.PID)
	if older {
		return olderReason(why)
	}
	return Decision{Reason: why}
}

// roundAge is an age rounded for people.
func roundAge(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}
