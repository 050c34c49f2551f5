package verdict

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/runner"
)

// A checker matcher (Kind Checker) hands the judgement of a stream to a
// checker program, testlib's way: it reads the case's input, the stream
// and the answer, and its exit code says what it found. 0: the output is
// right (true); 1 (wrong answer) or 2 (presentation error): it is wrong
// (false, with the first line the checker wrote on stderr, else on
// stdout, as the reason); 3 (the checker itself failed), any other code,
// a timeout, a limit, no exit code, a sandbox error or a failed build of
// the checker: undetermined, the checker could not decide. A broken
// checker never makes a program false or true.
//
// The checker needs the whole output of a run that ended by itself: a
// stream cut at the retention limit, or of a run that did not finish, is
// undetermined without it (CheckersWanted says which streams a checker
// runs on).

// Checked is the evidence of the checkers that judged one run of a case:
// the event of the checker on the run's stdout, and on its stderr (nil
// where the stream has no checker matcher, or its checker did not run).
type Checked struct {
	Stdout, Stderr *runner.Event
	// notRun says, for stdout and for stderr, why its checker was not
	// run when its answer is its reference's output and that output is
	// not to be had (judgeRun fills it in from the reference's runs).
	notRun [2]string
}

// of is the checker event of the stream named stream.
func (c Checked) of(stream string) *runner.Event {
	if stream == "stderr" {
		return c.Stderr
	}
	return c.Stdout
}

// The exit codes of a checker, testlib's.
const (
	checkerAccepted     = 0
	checkerWrongAnswer  = 1
	checkerPresentation = 2
	checkerFailed       = 3
)

// checkerLineWidth bounds the checker's line a reason quotes.
const checkerLineWidth = 200

// CheckerOf is m's checker matcher: m itself, or the one in a list of
// matchers (a stream has at most one); nil when it has none.
func CheckerOf(m *Matcher) *Matcher {
	if m == nil {
		return nil
	}
	if m.Kind == Checker {
		return m
	}
	for i := range m.All {
		if m.All[i].Kind == Checker {
			return &m.All[i]
		}
	}
	return nil
}

// CheckerName is the name of a checker that judges a stream of e (stdout's
// first), "" when none does.
func (e Expectation) CheckerName() string {
	for _, m := range []*Matcher{e.Stdout, e.Stderr} {
		if c := CheckerOf(m); c != nil {
			return c.Checker
		}
	}
	return ""
}

// AnswerReference is the reference whose output a checker matcher of e
// takes as its answer (Matcher.AnswerReference), "" when none does.
func (e Expectation) AnswerReference() string {
	for _, m := range []*Matcher{e.Stdout, e.Stderr} {
		if c := CheckerOf(m); c != nil && c.AnswerReference != "" {
			return c.AnswerReference
		}
	}
	return ""
}

// CheckersWanted says which streams of run ev a checker must judge: the
// checker matcher of stdout and of stderr (nil where the stream has none,
// or where its checker would not be run: the run could not be observed,
// its program's build failed, the run did not end by itself or left no
// exit code, or the stream was cut at the retention limit; the checker
// matcher is then undetermined without it, or the case false on its own).
//
// refs are the case's reference's runs of the same invocation: a checker
// matcher whose answer is the reference's output (AnswerReference) is not
// run when that output is not to be had (ReferenceAnswer).
func CheckersWanted(exp Expectation, refs []runner.Event, ev runner.Event) (stdout, stderr *Matcher) {
	if exp.SameAs != nil || ev.SandboxError != "" || ev.BuildFailure != "" || stopReason(ev) != "" || ev.ExitCode == nil {
		return nil, nil
	}
	whole := func(m *Matcher, name string, s runner.Stream) *Matcher {
		if s.Truncated || s.Bytes > int64(len(s.Data)) {
			return nil
		}
		c := CheckerOf(m)
		if _, why := ReferenceAnswer(c, name, refs); why != "" {
			return nil
		}
		return c
	}
	return whole(exp.Stdout, "stdout", ev.Stdout), whole(exp.Stderr, "stderr", ev.Stderr)
}

// ReferenceAnswer is the answer checker matcher m gives its checker for
// stream ("stdout" or "stderr"): its answer, or, when its answer is its
// reference's output (AnswerReference), the kept stream of the
// reference's first run of the same invocation (refs). why, when not "",
// says (naming the reference) why there is none: the reference did not
// run, its run was not observed to its end, or its stream was cut. The
// checker is then not run, and the stream is undetermined.
func ReferenceAnswer(m *Matcher, stream string, refs []runner.Event) (answer []byte, why string) {
	if m == nil {
		return nil, ""
	}
	if m.AnswerReference == "" {
		return []byte(m.Answer), ""
	}
	of := "its answer is the " + stream + " of the reference " + m.AnswerReference
	if len(refs) == 0 {
		return nil, of + ", which did not run"
	}
	ev := refs[0]
	if why = unfinished(ev); ev.SandboxError != "" {
		why = "it was not observed: " + why
	}
	if why != "" {
		return nil, of + ", whose run did not finish: " + why
	}
	s := ev.Stdout
	if stream == "stderr" {
		s = ev.Stderr
	}
	if s.Truncated || s.Bytes > int64(len(s.Data)) {
		return nil, of + ", which was cut at output_limit"
	}
	return s.Data, ""
}

// matchChecker judges a checker matcher from its checker's event.
func matchChecker(m Matcher, st stream, ch Check) Check {
	name := "the checker " + m.Checker
	switch {
	case st.cut:
		ch.Verdict, ch.Reason = Undetermined, st.prefix()+name+" needs the whole output, and "+st.rest()
		return ch
	case st.unfinished:
		ch.Verdict, ch.Reason = Undetermined, st.name+": "+name+" needs the whole output, and "+st.rest()
		return ch
	case st.checker == nil && st.notRun != "":
		ch.Verdict, ch.Reason = Undetermined, st.name+": "+name+" was not run: "+st.notRun
		return ch
	case st.checker == nil:
		ch.Verdict, ch.Reason = Undetermined, st.name+": "+name+" did not run"
		return ch
	}
	ev := *st.checker
	undecided := func(why string) Check {
		ch.Verdict, ch.Reason = Undetermined, st.name+": "+name+" could not decide: "+why
		return ch
	}
	line := checkerLine(ev)
	with := func(s string) string {
		if line == "" {
			return s
		}
		return s + ": " + line
	}
	switch {
	case ev.SandboxError != "":
		return undecided(oneLine(ev.SandboxError))
	case ev.BuildFailure != "":
		return undecided(oneLine(ev.BuildFailure))
	case stopReason(ev) != "":
		return undecided(stopReason(ev))
	case ev.ExitCode == nil:
		return undecided("no exit code observed")
	}
	switch code := *ev.ExitCode; code {
	case checkerAccepted:
		ch.Verdict = True
	case checkerWrongAnswer, checkerPresentation:
		if line == "" {
			line = "wrong answer (exit 1), and it wrote nothing"
			if code == checkerPresentation {
				line = "presentation error (exit 2), and it wrote nothing"
			}
		}
		ch.Verdict, ch.Reason = False, st.name+": checker "+m.Checker+": "+line
	case checkerFailed:
		return undecided(with("it failed (exit 3)"))
	default:
		return undecided(with("exit " + strconv.Itoa(code)))
	}
	return ch
}

// CheckerLine is the first line of what a checker wrote that is not
// blank: on stderr (where testlib writes), else on stdout; one line
// (control characters as spaces), valid UTF-8, cut at 200 bytes. "" when
// it wrote nothing. It is the checker's words: untrusted text.
func CheckerLine(ev runner.Event) string { return checkerLine(ev) }

// checkerLine is CheckerLine.
func checkerLine(ev runner.Event) string {
	for _, data := range [][]byte{ev.Stderr.Data, ev.Stdout.Data} {
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			l = bytes.TrimSpace(l)
			if len(l) == 0 {
				continue
			}
			s := l
			if n := cutAt(l, checkerLineWidth); n < len(l) {
				s = l[:n]
			}
			out := strings.TrimSpace(oneLine(strings.ToValidUTF8(string(s), "\uFFFD")))
			if len(s) < len(l) {
				out += "…"
			}
			return out
		}
	}
	return ""
}
