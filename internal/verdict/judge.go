package verdict

import (
	"bytes"
	"strconv"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Check is the outcome of one part of a case: the exit code, or the matcher
// on one stream.
type Check struct {
	// What is "exit_code", "stdout" or "stderr".
	What string `json:"what"`
	// Matcher is the stream's matcher (nil for the exit code).
	Matcher *Matcher `json:"-"`
	Verdict Verdict  `json:"verdict"`
	// Expected and Actual are short, human-readable forms for reports (the
	// actual side is the retained output, possibly cut for display).
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// Reason is one line a person can read when Verdict is not True.
	Reason string `json:"reason"`
	// Parts are, for a list of matchers (Kind All), each matcher's check,
	// in the list's order.
	Parts []Check `json:"parts,omitempty"`
}

// CaseResult is the verdict on one case with its reason and every check.
type CaseResult struct {
	Verdict Verdict
	// Reason is one line a person can read ("expected \"5\", got \"6\"",
	// "timed out after 5s", "killed: memory limit 128MiB", ...); empty
	// when the case is true.
	Reason string
	Checks []Check
	// Derived is, for a same_as case, the expectation the reference's
	// first run stands for (its exit code, and an equals matcher holding
	// its kept output for each compared stream); nil otherwise.
	Derived *Expectation
}

// Judge compares one case's expectation with the evidence of its
// invocation. It is a pure function.
//
// Checks come in the order exit_code, stdout, stderr (a stream only when it
// has a matcher). The case is:
//
//   - false when the program's build failed (ev.BuildFailure: the case did
//     not run, and the reason is the build's);
//   - undetermined when the sandbox reported an error (the reason is that
//     error): the evidence is incomplete, whatever it holds;
//   - false when any check is a settled mismatch: a timeout, a memory or
//     output limit, a wrong exit code, or output that cannot match. A
//     stream cut at the retention limit, or from a run that did not end by
//     itself (stopped, or no exit code), may be incomplete and is judged on
//     what no continuation can change (see matchStream). False dominates
//     undetermined;
//   - true when the exit code and every matcher agree on complete evidence;
//   - undetermined otherwise (no exit code observed, a cut stream that
//     cannot settle its matcher, an invalid matcher).
//
// The reason is the first false check's reason, else the first undetermined
// check's, else "".
//
// A checker matcher is judged from its checker's event, which Judge does
// not have: it is undetermined ("the checker … did not run"); JudgeChecked
// judges it.
func Judge(exp Expectation, ev runner.Event) CaseResult {
	return JudgeChecked(exp, ev, Checked{})
}

// JudgeChecked is Judge with the events of the checkers that judged the
// run's streams (see Checked and Kind Checker).
func JudgeChecked(exp Expectation, ev runner.Event, ck Checked) CaseResult {
	if exp.SameAs != nil {
		// A differential case without its reference's events cannot be
		// settled (JudgeSameAs judges it with them).
		return JudgeSameAs(*exp.SameAs, nil, ev)
	}
	if ev.BuildFailure != "" && ev.SandboxError == "" {
		// The program's build failed: observed evidence, and no invocation
		// can behave as intended without a program to run.
		why := oneLine(ev.BuildFailure)
		checks := []Check{{What: "exit_code", Expected: strconv.Itoa(exp.ExitCode), Actual: "none", Verdict: False, Reason: why}}
		for _, st := range streams(exp, ev) {
			checks = append(checks, Check{What: st.name, Matcher: st.m, Expected: matcherForm(*st.m), Reason: why})
		}
		return CaseResult{Verdict: False, Reason: why, Checks: checks}
	}
	if ev.SandboxError != "" {
		why := oneLine(ev.SandboxError)
		checks := []Check{{What: "exit_code", Expected: strconv.Itoa(exp.ExitCode), Reason: why}}
		for _, st := range streams(exp, ev) {
			checks = append(checks, Check{What: st.name, Matcher: st.m, Expected: matcherForm(*st.m), Reason: why})
		}
		return CaseResult{Verdict: Undetermined, Reason: why, Checks: checks}
	}

	stopWhy := stopReason(ev)
	checks := []Check{exitCheck(exp.ExitCode, ev, stopWhy)}
	for _, st := range streams(exp, ev) {
		s := stream{
			name:    st.name,
			s:       st.s,
			cut:     st.s.Truncated || st.s.Bytes > int64(len(st.s.Data)),
			limits:  ev.Limits,
			checker: ck.of(st.name),
			notRun:  ck.notRun[streamIndex(st.name)],
		}
		switch {
		case stopWhy != "":
			s.unfinished, s.why = true, stopWhy
		case ev.ExitCode == nil:
			s.unfinished, s.why = true, "no exit code observed"
		}
		ch := matchStream(*st.m, s)
		ch.Matcher = st.m
		checks = append(checks, ch)
	}

	res := CaseResult{Verdict: True, Checks: checks}
	for _, ch := range checks {
		switch {
		case ch.Verdict == False && res.Verdict != False:
			res.Verdict, res.Reason = False, ch.Reason
		case ch.Verdict == Undetermined && res.Verdict == True:
			res.Verdict, res.Reason = Undetermined, ch.Reason
		}
	}
	return res
}

type namedStream struct {
	name string
	m    *Matcher
	s    runner.Stream
}

// streams lists the streams that have a matcher, stdout first.
func streams(exp Expectation, ev runner.Event) []namedStream {
	var out []namedStream
	if exp.Stdout != nil {
		out = append(out, namedStream{"stdout", exp.Stdout, ev.Stdout})
	}
	if exp.Stderr != nil {
		out = append(out, namedStream{"stderr", exp.Stderr, ev.Stderr})
	}
	return out
}

// Stopped says why the sandbox stopped the run before the program ended
// by itself ("timed out after 5s", "killed: memory limit 64MiB"), or ""
// when the program ended by itself: then its exit code, if any, is its
// own. A stopped run's exit code (137, the status the sandbox's SIGKILL
// leaves) is never the program's, and readers must not present it so.
func Stopped(ev runner.Event) string {
	why := stopReason(ev)
	if why != "" && !ev.TimedOut && ev.ExitCode != nil && *ev.ExitCode != killedStatus {
		return "" // wrote past a limit, then exited by itself
	}
	return why
}

// killedStatus is the exit status SIGKILL leaves: behaves' kill at a
// limit, or the kernel's OOM killer.
const killedStatus = 137

// stopReason says why the run was stopped before the program ended by
// itself, or "" when it was not.
func stopReason(ev runner.Event) string {
	switch {
	case ev.TimedOut:
		if ev.Limits.TimeoutMS > 0 {
			return "timed out after " + formatTimeout(ev.Limits.TimeoutMS)
		}
		return "timed out"
	case ev.ResourceLimit == runner.LimitNone:
		return ""
	case ev.ResourceLimit == runner.LimitMemory:
		if ev.Limits.MemoryBytes > 0 {
			return "killed: memory limit " + FormatSize(ev.Limits.MemoryBytes)
		}
		return "killed: memory limit"
	case ev.ResourceLimit == runner.LimitOutput:
		ceiling := ev.Limits.OutputCeiling
		which := "output"
		switch {
		case ceiling <= 0:
		case ev.Stdout.Bytes > ceiling:
			which = "stdout"
		case ev.Stderr.Bytes > ceiling:
			which = "stderr"
		}
		over := which + " over the ceiling"
		if ceiling > 0 {
			over += " of " + FormatSize(ceiling)
		}
		// behaves kills a container whose stream passes the ceiling, but a
		// program can exit by itself before the kill lands: then nothing was
		// killed, and the reason says what did happen. 137 is the status
		// behaves' SIGKILL leaves; any other exit code is the program's own.
		if ev.ExitCode != nil && *ev.ExitCode != killedStatus {
			return "wrote " + over + ", then exited by itself with code " + strconv.Itoa(*ev.ExitCode)
		}
		return "killed: " + over
	default:
		return "killed: " + oneLine(string(ev.ResourceLimit)) + " limit"
	}
}

func exitCheck(want int, ev runner.Event, stopWhy string) Check {
	ch := Check{What: "exit_code", Expected: strconv.Itoa(want), Actual: "none"}
	if ev.ExitCode != nil {
		ch.Actual = strconv.Itoa(*ev.ExitCode)
	}
	switch {
	case stopWhy != "":
		ch.Verdict, ch.Reason = False, stopWhy
		ch.Actual += " (" + stopWhy + ")"
	case ev.ExitCode == nil:
		ch.Verdict, ch.Reason = Undetermined, "no exit code observed"
	case *ev.ExitCode != want:
		ch.Verdict = False
		ch.Reason = "exit code " + ch.Actual + ", expected " + ch.Expected + stderrHint(ev.Stderr)
	default:
		ch.Verdict = True
	}
	return ch
}

// stderrHint returns "; stderr: <last non-blank kept line>" (quoted, cut)
// for an exit-code reason, or "" when stderr holds no complete line.
func stderrHint(s runner.Stream) string {
	data := s.Data
	if s.Truncated || s.Bytes > int64(len(data)) {
		data = data[:bytes.LastIndexByte(data, '\n')+1] // the cut line is partial
	}
	for len(data) > 0 {
		i := bytes.LastIndexByte(data, '\n')
		line := bytes.TrimSpace(data[i+1:])
		if len(line) > 0 {
			return "; stderr: " + quoteCut(line, reasonWidth)
		}
		if i < 0 {
			break
		}
		data = data[:i]
	}
	return ""
}

// Program folds case results into the program's verdict: true when every
// case ran and passed; false when any case is false, even if others did not
// run; otherwise undetermined. The reason names the first deciding case
// result's reason.
//
// No cases at all is undetermined ("no cases"): nothing was shown to pass.
// The reason is the case's own reason; callers add the case's name.
func Program(cases []CaseResult) (Verdict, string) {
	if len(cases) == 0 {
		return Undetermined, "no cases"
	}
	v, reason := True, ""
	for _, c := range cases {
		switch {
		case c.Verdict == False:
			return False, c.Reason
		case c.Verdict != True && v == True:
			v, reason = Undetermined, c.Reason
		}
	}
	return v, reason
}
