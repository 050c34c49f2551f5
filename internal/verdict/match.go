package verdict

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Validate reports whether the matcher can be judged: a known kind, a known
// normalisation ("" is the default, trailing) and, for a regex, a pattern
// that compiles as RE2 (with "(?i)" in front when IgnoreCase is set). The
// spec loader calls it so that a bad pattern is a spec error with a
// position; Judge treats an invalid matcher as undetermined.
func (m Matcher) Validate() error {
	switch m.Kind {
	case Equals, Contains:
	case Regex:
		if _, err := m.compile(); err != nil {
			return err
		}
	case JSON:
		docs := []string{m.Value}
		if m.Lines {
			docs = strings.Split(strings.TrimRight(m.Value, "\n"), "\n")
		}
		for i, d := range docs {
			if _, err := parseJSON([]byte(d)); err != nil {
				if m.Lines {
					return fmt.Errorf("the expected line %d is not JSON: %v", i+1, err)
				}
				return fmt.Errorf("the expected value is not JSON: %v", err)
			}
		}
	case Numbers:
		if len(strings.Fields(m.Value)) == 0 {
			return errors.New("numbers expects at least one token")
		}
	case Checker:
		if m.Checker == "" {
			return errors.New("a checker matcher names no checker")
		}
	case All:
		if len(m.All) == 0 {
			return errors.New("an empty list of matchers")
		}
		checkers := 0
		for i, sub := range m.All {
			if sub.Kind == All {
				return fmt.Errorf("matcher %d is a list itself", i+1)
			}
			if sub.Kind == Checker {
				if checkers++; checkers > 1 {
					return fmt.Errorf("matcher %d is a second checker: a stream has at most one", i+1)
				}
			}
			if err := sub.Validate(); err != nil {
				return fmt.Errorf("matcher %d: %w", i+1, err)
			}
		}
	default:
		return fmt.Errorf("unknown matcher kind %q (want equals, contains, regex, json, numbers or checker)", string(m.Kind))
	}
	for _, t := range []*float64{m.Abs, m.Rel} {
		if t != nil && (*t < 0 || math.IsNaN(*t) || math.IsInf(*t, 0)) {
			return fmt.Errorf("a tolerance of %v: abs and rel are finite numbers, 0 or more", *t)
		}
	}
	if m.Unordered && m.Kind != Equals && m.Kind != JSON {
		return fmt.Errorf("unordered applies to equals and json, not %s", m.Kind)
	}
	switch m.Normalize {
	case "", NormalizeTrailing, NormalizeExact, NormalizeWhitespace:
	default:
		return fmt.Errorf("unknown normalize %q (want trailing, exact or whitespace)", string(m.Normalize))
	}
	return nil
}

func (m Matcher) normalize() Normalize {
	if m.Normalize == "" {
		return NormalizeTrailing
	}
	return m.Normalize
}

func (m Matcher) pattern() string {
	if m.IgnoreCase {
		return "(?i)" + m.Value
	}
	return m.Value
}

func (m Matcher) compile() (*regexp.Regexp, error) {
	re, err := regexp.Compile(m.pattern())
	if err != nil {
		return nil, fmt.Errorf("invalid regex %s: %w", regexForm(m.Value, reasonWidth), err)
	}
	return re, nil
}

// looksAhead reports whether a regex has an assertion whose truth at a
// position depends on the text after it: $ and \z (end of text), (?m)$ (end
// of line), \b and \B (word boundary). A regex without one that matches a
// prefix of a text also matches the text, since every other assertion (^,
// \A, (?m)^) looks only at what comes before.
func looksAhead(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true
	}
	return hasLookahead(re)
}

func hasLookahead(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEndLine, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range re.Sub {
		if hasLookahead(sub) {
			return true
		}
	}
	return false
}

// stream is what Judge knows about one stream.
type stream struct {
	name string // "stdout" or "stderr"
	s    runner.Stream
	// cut: the program wrote more than was kept.
	cut bool
	// unfinished: the run did not end by itself (a timeout or limit
	// stopped it, or no exit code was observed), so the program may have
	// had more to write; why says which.
	unfinished bool
	why        string
	limits     runner.Limits
	// checker is the event of the checker that judged the stream (nil:
	// it did not run), for a checker matcher.
	checker *runner.Event
	// notRun says why the checker was not run, when its answer (its
	// reference's output) was not to be had.
	notRun string
}

// complete reports whether the kept bytes are the whole output of a run
// that ended by itself.
func (st stream) complete() bool { return !st.cut && !st.unfinished }

// prefix starts a reason on a stream that may be incomplete.
func (st stream) prefix() string {
	if st.cut {
		limit := st.limits.OutputLimit
		if limit <= 0 {
			limit = int64(len(st.s.Data))
		}
		return fmt.Sprintf("%s cut at %s: ", st.name, FormatSize(limit))
	}
	return st.name + ": "
}

// part names what was judged: "the kept part" or "the output so far".
func (st stream) part() string {
	if st.cut {
		return "the kept part"
	}
	return "the output so far"
}

// rest says what is missing after the kept bytes.
func (st stream) rest() string {
	if st.cut {
		return "the rest was not kept"
	}
	return "the run did not finish (" + st.why + ")"
}

// where ends a false reason that was settled on incomplete output.
func (st stream) where() string {
	if st.cut {
		return " (in the kept part; " + strings.TrimSuffix(st.prefix(), ": ") + ")"
	}
	return " (in the output so far; the run did not finish)"
}

// matchStream judges one stream against its matcher.
//
// Complete evidence settles every kind. For a cut stream (or one whose run
// did not finish) only what normalisation cannot change any more is used (see
// newCutView):
//
//   - contains: found in the certain part → true; not found → undetermined
//     (the rest may hold it).
//   - equals: the expected value is not a possible continuation of the
//     certain part → false; otherwise undetermined ("the kept part agrees").
//     Under normalize exact (case kept), a total byte count other than the
//     expected value's length is false too.
//   - regex: a match in the certain part proves a match in the whole output
//     only when the pattern has no assertion that looks past the match ($,
//     \z, (?m)$, \b, \B): then → true. A match that needs such an assertion
//     might not survive what follows, and no match might be followed by one,
//     so both are undetermined. A regex is never false on a cut stream:
//     proving that no continuation can match would need an analysis of the
//     automaton that a person reading the reason could not follow.
func matchStream(m Matcher, st stream) Check {
	ch := Check{What: st.name, Matcher: &m, Expected: matcherForm(m), Actual: quoteCut(st.s.Data, actualWidth)}
	settle := func(v Verdict, format string, args ...any) Check {
		ch.Verdict = v
		if v != True {
			ch.Reason = st.name + format
			if len(args) > 0 {
				ch.Reason = fmt.Sprintf(ch.Reason, args...)
			}
		}
		return ch
	}
	if err := m.Validate(); err != nil {
		return settle(Undetermined, ": invalid matcher: %s", oneLine(err.Error()))
	}
	switch {
	case m.Kind == All:
		return matchAll(m, st, ch)
	case m.Kind == JSON:
		return matchJSON(m, st, ch)
	case m.Kind == Numbers:
		return matchNumbers(m, st, ch)
	case m.Kind == Checker:
		return matchChecker(m, st, ch)
	case m.Kind == Equals && m.Unordered:
		return matchUnordered(m, st, ch)
	}
	norm := m.normalize()
	got := normalize(norm, st.s.Data)

	if m.Kind == Regex {
		re, _ := m.compile() // Validate compiled it
		if st.complete() {
			if re.Match(got) {
				return settle(True, "")
			}
			return settle(False, ": no match for %s, got %s", regexForm(m.Value, reasonWidth), quoteCut(got, reasonWidth))
		}
		v := newCutView(Matcher{Normalize: norm}, st.s.Data) // regex: never folded
		found := re.Match(v.certain())
		switch {
		case found && !looksAhead(m.pattern()):
			return settle(True, "")
		case found:
			ch.Verdict, ch.Reason = Undetermined, fmt.Sprintf("%s%s matches %s, but it looks past the match and %s",
				st.prefix(), regexForm(m.Value, reasonWidth), st.part(), st.rest())
			return ch
		default:
			ch.Verdict, ch.Reason = Undetermined, fmt.Sprintf("%sno match for %s in %s, %s",
				st.prefix(), regexForm(m.Value, reasonWidth), st.part(), st.rest())
			return ch
		}
	}

	want := normalize(norm, []byte(m.Value))
	gotF, wantF := got, want
	if m.IgnoreCase {
		gotF, wantF = fold(got), fold(want)
	}

	if m.Kind == Contains {
		if st.complete() {
			if bytes.Contains(gotF, wantF) {
				return settle(True, "")
			}
			return settle(False, ": expected to contain %s, got %s", quoteCut(want, reasonWidth), quoteCut(got, reasonWidth))
		}
		if bytes.Contains(newCutView(m, st.s.Data).certain(), wantF) {
			return settle(True, "")
		}
		ch.Verdict, ch.Reason = Undetermined, fmt.Sprintf("%s%s not found in %s, %s",
			st.prefix(), quoteCut(want, reasonWidth), st.part(), st.rest())
		return ch
	}

	// Equals.
	if st.complete() {
		if bytes.Equal(gotF, wantF) {
			return settle(True, "")
		}
		return settle(False, "%s", diffReason(want, got, m.IgnoreCase))
	}
	if st.cut && !st.unfinished && norm == NormalizeExact && !m.IgnoreCase &&
		st.s.Bytes >= int64(len(st.s.Data)) && st.s.Bytes != int64(len(want)) {
		return settle(False, ": %s written, expected %d (%s)", Count(st.s.Bytes, "byte", "bytes"), len(want), quoteCut(want, reasonWidth))
	}
	// An unfinished run whose stream was not cut may have had nothing more
	// to write: the kept bytes as they are are a possible whole output too.
	v := newCutView(m, st.s.Data)
	if (!st.cut && bytes.Equal(gotF, wantF)) || v.consistent(wantF) {
		ch.Verdict, ch.Reason = Undetermined, fmt.Sprintf("%s%s agrees, %s", st.prefix(), st.part(), st.rest())
		if !st.cut && len(st.s.Data) == 0 {
			// "The output so far agrees" would read as a finding.
			ch.Reason = fmt.Sprintf("%snothing was written, and %s", st.prefix(), st.rest())
		}
		return ch
	}
	// The difference is with long when the expected value agrees with short
	// (or long is certain), else with short; it is chosen on folded text
	// and shown unfolded.
	vu := newCutView(Matcher{Normalize: norm}, st.s.Data)
	against, againstF := vu.short, v.short
	if v.longSure || bytes.HasPrefix(wantF, v.short) {
		against, againstF = vu.long, v.long
	}
	if bytes.Equal(wantF, againstF) { // exact: all of it, and more was written
		return settle(False, ": expected %s, but the output goes on%s", quoteCut(want, reasonWidth), st.where())
	}
	return settle(False, "%s%s", diffReason(want, against, m.IgnoreCase), st.where())
}

// diffReason describes the first difference between the expected and the
// actual (normalised) text, without the stream name: `: expected "5", got
// "6"` for short values, `line 3: expected "Fizz", got "fizz"` (or `byte
// 1234: …` for single-line text) for long ones.
func diffReason(want, got []byte, foldCase bool) string {
	if len(want) <= shortValue && len(got) <= shortValue {
		return fmt.Sprintf(": expected %s, got %s", quoteCut(want, reasonWidth), quoteCut(got, reasonWidth))
	}
	i, j := firstDiff(want, got, foldCase)
	var where string
	if bytes.IndexByte(want, '\n') >= 0 || bytes.IndexByte(got, '\n') >= 0 {
		where = fmt.Sprintf(" line %d", 1+bytes.Count(got[:j], []byte{'\n'}))
	} else {
		where = fmt.Sprintf(" byte %d", j)
	}
	return fmt.Sprintf("%s: expected %s, got %s", where, excerpt(want, i), excerpt(got, j))
}
