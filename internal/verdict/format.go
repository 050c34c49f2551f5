package verdict

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Display widths, in bytes of the raw text before quoting.
const (
	reasonWidth = 80  // a value inside a one-line reason
	actualWidth = 200 // Check.Expected and Check.Actual
	shortValue  = 60  // values this short are shown whole in a mismatch
	excerptLead = 20  // context kept before a difference deep in a line
)

// FormatSize formats a byte count in binary units, exactly: the largest unit
// among B, KiB, MiB, GiB, TiB, PiB and EiB that divides n, with an integer
// count ("128MiB", "64KiB", "1536MiB", "1000B", "0B"). It never rounds, so
// a size read back by the spec loader is the same number of bytes, and a
// message never claims a limit that was not applied.
func FormatSize(n int64) string {
	if n <= 0 {
		return strconv.FormatInt(n, 10) + "B"
	}
	units := [...]string{"EiB", "PiB", "TiB", "GiB", "MiB", "KiB"}
	for k, u := range units {
		shift := uint(10 * (len(units) - k))
		if n&(1<<shift-1) == 0 {
			return strconv.FormatInt(n>>shift, 10) + u
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// Plural is the noun for n things: one when n is 1, else many ("case",
// "cases"). Every count behaves prints takes its noun from here (or from
// Count), so that no message says "1 bytes" or "case(s)".
func Plural[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by the noun for n things: "1 byte", "2 bytes",
// "0 bytes".
func Count[N ~int | ~int64](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Plural(n, one, many)
}

// formatTimeout renders a timeout in milliseconds the way time.Duration
// does ("5s", "1m30s", "250ms").
func formatTimeout(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}

// cutAt returns a length at most max, moved back (by at most three bytes)
// so that it does not split a valid rune.
func cutAt(b []byte, max int) int {
	if len(b) <= max {
		return len(b)
	}
	n := max
	for k := 0; k < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(b[n]); k++ {
		n--
	}
	if !utf8.RuneStart(b[n]) {
		n = max // not a valid rune anyway: cut the bytes where they are
	}
	return n
}

// quoteCut quotes b in Go syntax (strconv.Quote: control characters and
// invalid bytes escaped, so the result is one line and loses no byte of what
// it shows), cut to about max bytes of b with "…" after the quote when cut.
func quoteCut(b []byte, max int) string {
	n := cutAt(b, max)
	q := strconv.Quote(string(b[:n]))
	if n < len(b) {
		q += "…"
	}
	return q
}

// regexForm shows a pattern as /pattern/ when it is printable on one line,
// else quoted; cut to about max bytes.
func regexForm(p string, max int) string {
	printable := utf8.ValidString(p) && strings.IndexFunc(p, func(r rune) bool { return !strconv.IsPrint(r) }) < 0
	if !printable {
		return quoteCut([]byte(p), max)
	}
	n := cutAt([]byte(p), max)
	if n < len(p) {
		return "/" + p[:n] + "…/"
	}
	return "/" + p + "/"
}

// matcherForm is a matcher's short display form: `equals "5"`, `contains
// "Fizz" (ignore_case)`, `regex /^\d+$/ (normalize: whitespace)`.
func matcherForm(m Matcher) string {
	var s string
	switch m.Kind {
	case Regex:
		s = "regex " + regexForm(m.Value, actualWidth)
	case All:
		forms := make([]string, len(m.All))
		for i, sub := range m.All {
			forms[i] = matcherForm(sub)
		}
		s = "all of: " + strings.Join(forms, "; ")
		if len(s) > actualWidth {
			s = s[:cutAt([]byte(s), actualWidth)] + "…"
		}
		return s
	case Checker:
		s = "checker " + m.Checker
		switch {
		case m.AnswerFile != "":
			s += " (answer_file: " + m.AnswerFile + ")"
		case m.Answer != "":
			s += " (answer: " + quoteCut([]byte(m.Answer), reasonWidth) + ")"
		}
		return s
	default:
		s = string(m.Kind) + " " + quoteCut([]byte(m.Value), actualWidth)
	}
	var opts []string
	if m.IgnoreCase {
		opts = append(opts, "ignore_case")
	}
	if m.Normalize != "" && m.Normalize != NormalizeTrailing && m.Kind != JSON && m.Kind != Numbers {
		opts = append(opts, "normalize: "+string(m.Normalize))
	}
	opts = append(opts, m.StructuredOptions(": ")...)
	if len(opts) > 0 {
		s += " (" + strings.Join(opts, ", ") + ")"
	}
	return s
}

// StructuredOptions names the options of the matchers with more than one
// right answer that m sets, as every renderer shows them: "unordered",
// "lines", "subset", then the tolerances with sep between name and value
// ("abs: 1e-09").
func (m Matcher) StructuredOptions(sep string) []string {
	var opts []string
	for _, o := range []struct {
		on   bool
		name string
	}{{m.Unordered, "unordered"}, {m.Lines, "lines"}, {m.Subset, "subset"}} {
		if o.on {
			opts = append(opts, o.name)
		}
	}
	if m.Abs != nil {
		opts = append(opts, "abs"+sep+strconv.FormatFloat(*m.Abs, 'g', -1, 64))
	}
	if m.Rel != nil {
		opts = append(opts, "rel"+sep+strconv.FormatFloat(*m.Rel, 'g', -1, 64))
	}
	return opts
}

// excerpt shows b from the start of the line holding offset off (or from a
// little before off when the line is long), quoted and cut, with "…" before
// the quote when it starts mid-line. A difference at the very end reads
// "end of output".
func excerpt(b []byte, off int) string {
	lineStart := 0
	for i := off - 1; i >= 0; i-- {
		if b[i] == '\n' {
			lineStart = i + 1
			break
		}
	}
	start := lineStart
	if off-lineStart > 2*excerptLead {
		start = off - excerptLead
		for k := 0; k < utf8.UTFMax-1 && start > lineStart && !utf8.RuneStart(b[start]); k++ {
			start--
		}
	}
	if start >= len(b) {
		return "end of output"
	}
	q := quoteCut(b[start:], shortValue)
	if start > lineStart {
		q = "…" + q
	}
	return q
}

// oneLine turns control characters (line breaks included) into spaces, so
// that a message stays on one line.
func oneLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
