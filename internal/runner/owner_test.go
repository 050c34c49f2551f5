package runner

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

var sweepNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// sweepNS is the PID namespace of the fake runs and sweeps.
const sweepNS = "pid:[4026531836]"

// roleProgram is the behaves.role of a program container (runner/docker's
// RoleProgram); ParseOwner does not read it.
const roleProgram = "program"

// ownerLabels are the labels a backend puts on what a run makes.
func ownerLabels(runID, host string, pid int, startedAt time.Time, role string) map[string]string {
	return map[string]string{
		LabelRunID:        runID,
		LabelHost:         host,
		LabelPID:          strconv.Itoa(pid),
		LabelPIDNamespace: sweepNS,
		LabelStartedAt:    startedAt.UTC().Format(time.RFC3339),
		LabelRole:         role,
	}
}

func TestParseOwner(t *testing.T) {
	t.Parallel()
	good := ownerLabels("r1", "h", 42, sweepNow, roleProgram)
	o, err := ParseOwner(good)
	if err != nil || o != (Owner{RunID: "r1", Host: "h", PID: 42, PIDNamespace: sweepNS, StartedAt: sweepNow}) {
		t.Fatalf("ParseOwner(good) = %+v, %v", o, err)
	}
	for _, tc := range []struct {
		name, key, value, want string
	}{
		{"no run id", LabelRunID, "", LabelRunID},
		{"no host", LabelHost, "", LabelHost},
		{"no pid", LabelPID, "", LabelPID},
		{"pid not a number", LabelPID, "12a", LabelPID},
		{"pid zero", LabelPID, "0", LabelPID},
		{"pid negative", LabelPID, "-1", LabelPID}, // kill(-1, 0) would ask about every process
		{"no started-at", LabelStartedAt, "", LabelStartedAt},
		{"started-at not RFC 3339", LabelStartedAt, "2025-06-01 12:00", LabelStartedAt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := ownerLabels("r1", "h", 42, sweepNow, roleProgram)
			l[tc.key] = tc.value
			if _, err := ParseOwner(l); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseOwner = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	const host, otherHost = "this-host", "other-host"
	const ns, otherNS = "pid:[4026531836]", "pid:[4026532301]"
	started := sweepNow.Add(-time.Hour)
	run := func(h string, pid int, at time.Time) LeftoverRun {
		return LeftoverRun{ID: "r", Owner: Owner{RunID: "r", Host: h, PID: pid, PIDNamespace: ns, StartedAt: at}}
	}
	inNS := func(pidNS string, pid int) LeftoverRun {
		r := run(host, pid, started)
		r.Owner.PIDNamespace = pidNS
		return r
	}
	// processes on this host, by PID
	procs := map[int]Process{
		100: {Alive: true, Started: started.Add(-2 * time.Second)}, // the owner itself
		101: {Alive: true, Started: started.Add(time.Hour / 2)},    // a later process reusing the PID
		102: {Alive: true},                                         // start time unknown
		103: {Alive: true, Started: started.Add(StartSlack)},       // at the edge of the slack: still the owner
	}
	lookup := func(pid int) Process { return procs[pid] } // others: gone
	for _, tc := range []struct {
		name        string
		run         LeftoverRun
		olderThan   time.Duration
		remove      bool
		dead        bool
		reasonParts []string
	}{
		{"this host, pid gone → dead", run(host, 999, started), 0, true, true, []string{"pid 999", "gone"}},
		{"this host, pid alive → kept", run(host, 100, started), 0, false, false, []string{"pid 100", "still running"}},
		{"this host, pid reused by a later process → dead", run(host, 101, started), 0, true, true, []string{"pid 101", "now belongs to a process started at 2025-06-01T11:30:00Z"}},
		{"this host, pid alive, start time unknown → kept", run(host, 102, started), 0, false, false, []string{"still running"}},
		{"this host, pid alive, started within the slack → kept", run(host, 103, started), 0, false, false, []string{"still running"}},
		{"this host, pid gone, older-than not reached → still dead", run(host, 999, sweepNow.Add(-time.Minute)), 24 * time.Hour, true, true, []string{"gone"}},
		{"this host, pid alive, older than --older-than → removed", run(host, 100, started), 30 * time.Minute, true, false, []string{"still running", "started 1h0m0s ago", "--older-than 30m0s"}},
		{"this host, pid alive, younger than --older-than → kept", run(host, 100, started), 2 * time.Hour, false, false, []string{"still running"}},
		{"this host's name, another PID namespace, pid free here → kept", inNS(otherNS, 999), 0, false, false, []string{"another PID namespace", otherNS, "only --older-than"}},
		{"this host's name, another PID namespace, pid reused here → kept", inNS(otherNS, 101), 0, false, false, []string{"another PID namespace"}},
		{"this host's name, no namespace label (an earlier behaves) → kept", inNS("", 999), 0, false, false, []string{"another PID namespace"}},
		{"another PID namespace, older than --older-than → removed", inNS(otherNS, 999), 30 * time.Minute, true, false, []string{"another PID namespace", "--older-than 30m0s"}},
		{"other host → kept", run(otherHost, 999, started), 0, false, false, []string{`host "other-host"`, "only --older-than"}},
		{"other host, older than --older-than → removed", run(otherHost, 999, started), 30 * time.Minute, true, false, []string{`host "other-host"`, "--older-than 30m0s"}},
		{"other host, younger than --older-than → kept", run(otherHost, 999, started), 2 * time.Hour, false, false, []string{"only --older-than"}},
		{"other host, started in the future (clock skew) → kept", run(otherHost, 999, sweepNow.Add(time.Hour)), time.Minute, false, false, []string{"only --older-than"}},
		{"malformed labels → kept and reported", LeftoverRun{ID: "r", Err: errors.New("behaves.pid \"x\" is not a process ID")}, 0, false, false, []string{"do not name its owner", `behaves.pid "x"`}},
		{"malformed labels, even with --older-than → kept", LeftoverRun{ID: "r", Err: errors.New("bad")}, time.Nanosecond, false, false, []string{"do not name its owner"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Decide(tc.run, Policy{Host: host, PIDNamespace: ns, Now: sweepNow, OlderThan: tc.olderThan, Process: lookup})
			if d.Remove != tc.remove || d.Dead != tc.dead {
				t.Errorf("Decide = %+v, want remove %v, dead %v", d, tc.remove, tc.dead)
			}
			for _, part := range tc.reasonParts {
				if !strings.Contains(d.Reason, part) {
					t.Errorf("reason %q lacks %q", d.Reason, part)
				}
			}
		})
	}
}

func TestDecideAsksAboutProcessesOfThisHostOnly(t *testing.T) {
	t.Parallel()
	asked := false
	p := Policy{Host: "here", Now: sweepNow, Process: func(int) Process { asked = true; return Process{} }}
	d := Decide(LeftoverRun{ID: "r", Owner: Owner{RunID: "r", Host: "there", PID: 1, StartedAt: sweepNow}}, p)
	if asked || d.Remove {
		t.Errorf("a run of another host: asked %v, decision %+v", asked, d)
	}
	// Without a way to look processes up, a run of this host is alive.
	p.Process = nil
	if d := Decide(LeftoverRun{ID: "r", Owner: Owner{RunID: "r", Host: "here", PID: 1, StartedAt: sweepNow}}, p); d.Remove {
		t.Errorf("no Process func: %+v, want kept", d)
	}
}
