package htmlreport

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// seg is a piece of a line as shown: text, or (Esc) the visible escape of
// a byte or rune that must not be shown as it is.
type seg struct {
	Text string
	Esc  bool
}

// line is one line of an excerpt: its segments, and the key the diff
// compares (the line as the matcher compares it).
type line struct {
	Segs []seg
	key  string
	cost int
}

// excerpt is the start of a stream or an expected value, cut to a number
// of lines and a cost (an estimate of the HTML it takes), and what was
// left out.
type excerpt struct {
	lines []line
	// cutBytes and cutLines are what was left out: its bytes, and the
	// lines not shown whole.
	cutBytes, cutLines int
	// noEOL is set when the text does not end with a newline.
	noEOL bool
}

// comparison is how the matcher compares lines, for the diff's keys.
type comparison struct {
	norm       verdict.Normalize
	ignoreCase bool
}

// rowCost is the markup of one row of a side-by-side table, beyond its
// text; escCost the markup of one escape (a span around \xNN).
const (
	rowCost = 96
	escCost = 32
)

// cut splits data into lines (a final newline ends the last line; it
// starts none) and keeps at most maxLines of them and about maxCost bytes
// of HTML. A line longer than what is left is cut within the line.
func cut(data []byte, maxLines, maxCost int, cmp comparison) excerpt {
	ex := excerpt{}
	if len(data) == 0 {
		return ex
	}
	ex.noEOL = data[len(data)-1] != '\n'
	rest := data
	used := 0
	for len(rest) > 0 && len(ex.lines) < maxLines && used+rowCost < maxCost {
		raw, next := rest, []byte(nil)
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, next = rest[:i], rest[i+1:]
		}
		l, n := render(raw, maxCost-used-rowCost)
		l.key = key(raw, cmp)
		used += l.cost + rowCost
		ex.lines = append(ex.lines, l)
		if n < len(raw) {
			rest = rest[n:] // the line was cut: its rest is left out
			break
		}
		rest = next
	}
	if len(rest) > 0 {
		ex.cutBytes = len(rest)
		ex.cutLines = bytes.Count(rest, []byte{'\n'})
		if rest[len(rest)-1] != '\n' {
			ex.cutLines++
		}
	}
	return ex
}

// cost returns the HTML an excerpt takes, as cut estimated it.
func (ex excerpt) cost() int {
	c := 0
	for _, l := range ex.lines {
		c += l.cost + rowCost
	}
	return c
}

// note says what an excerpt left out of a text of total bytes ("" when
// nothing).
func (ex excerpt) note() string {
	if ex.cutBytes == 0 {
		return ""
	}
	return fmt.Sprintf("%d more %s (%s) not shown", ex.cutBytes, verdict.Plural(ex.cutBytes, "byte", "bytes"), verdict.Count(ex.cutLines, "line", "lines"))
}

// render turns one line of untrusted bytes into segments, within maxCost,
// and returns how many bytes of raw it used. Tabs stay; every other
// control byte, every byte that is not valid UTF-8, and every rune that is
// not printable (bidi controls, U+2028, U+2029 and other formats among
// them) becomes a visible escape.
func render(raw []byte, maxCost int) (line, int) {
	const hex = "0123456789abcdef"
	var l line
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			l.Segs = append(l.Segs, seg{Text: text.String()})
			text.Reset()
		}
	}
	escape := func(s string) {
		flush()
		l.Segs = append(l.Segs, seg{Text: s, Esc: true})
	}
	i := 0
	for i < len(raw) && l.cost < maxCost {
		c := raw[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\t' || c >= 0x20 && c < 0x7f:
				text.WriteByte(c)
				l.cost++
				if c == '<' || c == '>' || c == '&' || c == '"' || c == '\'' {
					l.cost += 4
				}
			default:
				escape(`\x` + string(hex[c>>4]) + string(hex[c&0xf]))
				l.cost += escCost
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			escape(`\x` + string(hex[c>>4]) + string(hex[c&0xf]))
			l.cost += escCost
		case unsafeRune(r):
			if r > 0xffff {
				escape(fmt.Sprintf(`\U%08x`, r))
			} else {
				escape(fmt.Sprintf(`\u%04x`, r))
			}
			l.cost += escCost
		default:
			text.Write(raw[i : i+size])
			l.cost += size
		}
		i += size
	}
	flush()
	return l, i
}

// unsafeRune reports whether a non-ASCII rune is shown as an escape: the
// C1 controls, the bidi controls, and whatever is not printable.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return !unicode.IsPrint(r)
}

// key is a line as the matcher compares it, near enough to mark lines:
// under trailing (the default) a final CR and trailing spaces and tabs do
// not count, under whitespace every run of whitespace is one space and the
// ends are trimmed, and under ignore_case letters are folded.
func key(raw []byte, cmp comparison) string {
	s := string(raw)
	switch cmp.norm {
	case verdict.NormalizeExact:
	case verdict.NormalizeWhitespace:
		s = strings.Join(strings.Fields(s), " ")
	default:
		s = strings.TrimRight(strings.TrimSuffix(s, "\r"), " \t")
	}
	if cmp.ignoreCase {
		s = strings.ToLower(s)
	}
	return s
}
