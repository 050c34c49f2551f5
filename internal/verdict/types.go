package verdict

import "fmt"

// Verdict is the three-valued answer. Its zero value is Undetermined, so an
// unset result can never pass.
type Verdict int

// The three verdicts.
const (
	Undetermined Verdict = iota
	False
	True
)

// String returns "true", "false" or "undetermined".
func (v Verdict) String() string {
	switch v {
	case True:
		return "true"
	case False:
		return "false"
	default:
		return "undetermined"
	}
}

// MarshalText encodes the verdict as its string.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText decodes "true", "false" or "undetermined".
func (v *Verdict) UnmarshalText(b []byte) error {
	switch string(b) {
	case "true":
		*v = True
	case "false":
		*v = False
	case "undetermined":
		*v = Undetermined
	default:
		return fmt.Errorf("unknown verdict %q", b)
	}
	return nil
}

// Kind is how a matcher compares.
type Kind string

// The matcher kinds.
const (
	Equals   Kind = "equals"
	Contains Kind = "contains"
	Regex    Kind = "regex" // RE2, searched (not anchored)
	// JSON compares the output as one JSON document by value (with
	// Matcher.Lines, one document a line); Value is the expected
	// document's JSON text (one a line with Lines).
	JSON Kind = "json"
	// Numbers compares the output's whitespace-separated tokens with
	// Value's: numbers by value (within Abs or Rel when given), the other
	// tokens exactly, testlib's way.
	Numbers Kind = "numbers"
	// All holds when every matcher of Matcher.All holds: several checks
	// on one stream, written in the spec as a list.
	All Kind = "all"
	// Checker hands the judgement to a checker program (Matcher.Checker
	// names it), which reads the case's input, the stream and the answer
	// (Matcher.Answer) and says by its exit code whether the output is
	// right: JudgeChecked judges it from the checker's event.
	Checker Kind = "checker"
)

// Normalize is how output (and a literal expected value) is normalised before
// comparing. A regex pattern is never normalised.
type Normalize string

// The normalisations.
const (
	// NormalizeTrailing (the default): CRLF→LF, spaces and tabs stripped at
	// each line end, then all trailing newlines stripped.
	NormalizeTrailing Normalize = "trailing"
	// NormalizeExact compares bytes as they are.
	NormalizeExact Normalize = "exact"
	// NormalizeWhitespace collapses every whitespace run to one space and
	// trims both ends.
	NormalizeWhitespace Normalize = "whitespace"
)

// Matcher is one expectation on a stream.
type Matcher struct {
	Kind       Kind
	Value      string
	IgnoreCase bool
	Normalize  Normalize
	// Unordered compares an equals matcher's lines as a multiset (after
	// normalisation), a json matcher's arrays as multisets.
	Unordered bool
	// Lines: a json matcher compares one document a line.
	Lines bool
	// Subset: a json matcher's objects may hold members the expected
	// value does not name.
	Subset bool
	// Abs and Rel are the tolerances of a numbers or json matcher's
	// numbers (nil: none; with neither, numbers compare exactly, as
	// decimals). A number passes when either holds.
	Abs, Rel *float64
	// All are an All matcher's matchers, in the spec's order.
	All []Matcher
	// Checker is a checker matcher's checker: its name under the spec's
	// checkers. Answer is what the checker gets as its answer file ("" for
	// none), and AnswerFile, when the answer came from a file, that file's
	// path relative to the repository root (for display).
	Checker    string
	Answer     string
	AnswerFile string
	// AnswerGiven is set by the loader on a checker matcher that gives
	// answer or answer_file. AnswerReference, on a checker matcher that
	// gives neither in a case of a program entry with a reference:, names
	// that reference: the answer is its kept output of the same stream for
	// the same invocation (ReferenceAnswer).
	AnswerGiven     bool
	AnswerReference string
}

// Expectation is what one case expects. A nil matcher checks nothing on that
// stream.
type Expectation struct {
	ExitCode int
	Stdout   *Matcher
	Stderr   *Matcher
	// SameAs, when set, replaces ExitCode, Stdout and Stderr: the case is
	// judged against a reference program's events (JudgeSameAs).
	SameAs *SameAs
}

// SameAs is a differential expectation: the case passes when the
// candidate's exit code and the listed streams equal the reference
// program's for the same invocation, under Normalize and IgnoreCase.
type SameAs struct {
	// Reference is the reference program's name (the spec entry's).
	Reference string
	// Streams lists the compared streams, "stdout" and/or "stderr"
	// (the spec's default is stdout alone).
	Streams    []string
	Normalize  Normalize
	IgnoreCase bool
}
