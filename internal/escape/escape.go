// Package escape makes untrusted text inert for the renderers: everything
// a program printed and everything the spec says (the spec comes from a
// pull request) reaches a terminal, a log, Markdown or HTML only through
// Text, Quote or Shorten, as one line in which no control byte, line break
// or bidi control survives. The renderers (terminal, publish, junit,
// htmlreport) build on it, and so do reportread's messages, which quote
// what a report holds.
package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// esc returns s as one line of inert text: every byte that could move the
// cursor, change the terminal's state, start a new log line or reorder the
// text is written as an escape (see escapeTo).
func esc(s string) string {
	if isPlain(s) {
		return s
	}
	var sb strings.Builder
	escapeTo(&sb, s, 0)
	return sb.String()
}

// quote returns s escaped and in double quotes.
func quote(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 2)
	sb.WriteByte('"')
	escapeTo(&sb, s, '"')
	sb.WriteByte('"')
	return sb.String()
}

// isPlain reports whether s is printable ASCII, the common case that needs
// no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// escapeTo writes s to sb with these escapes, so that the result is a
// single line of printable text in which every control byte is visible:
//   - a byte that is not part of valid UTF-8: \xNN;
//   - when quote is not 0, a backslash and quote: \\ and \" in Quote's
//     double quotes, \\ and \' in Argv's $'…'. Outside
//     quotes a backslash stays as it is: a reason is often already quoted
//     by the judge, and a regex or a path stays readable. Safety does not
//     depend on it (no terminal or log parser acts on a backslash); the
//     JSON report holds the exact bytes.
//   - newline, carriage return and tab: \n, \r, \t; every other C0
//     control and DEL: \xNN (ESC is \x1b);
//   - every rune that is neither printable (unicode.IsPrint) nor a plain
//     space: \uNNNN or \UNNNNNNNN. That covers the C1 controls, the bidi
//     controls U+202A–U+202E and U+2066–U+2069 (and U+200E, U+200F,
//     U+061C), line and paragraph separators and other invisible formats.
func escapeTo(sb *strings.Builder, s string, quote byte) {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case (c == '\\' || c == quote) && quote != 0:
				sb.WriteByte('\\')
				sb.WriteByte(c)
			case c == '\n':
				sb.WriteString(`\n`)
			case c == '\r':
				sb.WriteString(`\r`)
			case c == '\t':
				sb.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				sb.WriteString(`\x`)
				sb.WriteByte(hex[c>>4])
				sb.WriteByte(hex[c&0xf])
			default:
				sb.WriteByte(c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			sb.WriteString(`\x`)
			sb.WriteByte(hex[c>>4])
			sb.WriteByte(hex[c&0xf])
			i++
			continue
		}
		i += size
		if unsafeRune(r) {
			if r > 0xffff {
				fmt.Fprintf(sb, `\U%08x`, r)
			} else {
				fmt.Fprintf(sb, `\u%04x`, r)
			}
			continue
		}
		sb.WriteRune(r)
	}
}

// unsafeRune reports whether a non-ASCII rune must be escaped.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c: // bidi controls
		return true
	}
	return !unicode.IsPrint(r)
}

// Text returns s as one line of inert text (see escapeTo): no control
// byte, line break or bidi control survives. The renderers (terminal,
// publish, htmlreport) build on it.
func Text(s string) string { return esc(s) }

// Quote returns s escaped as Text does, except that backslashes and
// double quotes are escaped too, in double quotes: an argument or a name
// shown as one value.
func Quote(s string) string { return quote(s) }

// Shorten cuts s to at most n runes, marking the cut with "…".
func Shorten(s string, n int) string { return shorten(s, n) }

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n-1 {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// Argv returns a command's arguments as one line that a shell reads back
// as the same words, so that a reader sees where each argument begins and
// ends. An argument of only characters no shell treats specially stays
// bare; any other goes in single quotes; one holding a byte Text would
// escape (a control, a line break, a bidi control, invalid UTF-8) goes in
// bash's $'…' with Text's escapes, so the line stays as inert as Text's:
//
//	python3 -I /program/main.py --n=5 'two words' 'it'\''s' '' $'a\nb'
//
// Every renderer prints a command through it.
func Argv(argv []string) string {
	var sb strings.Builder
	for i, a := range argv {
		if i > 0 {
			sb.WriteByte(' ')
		}
		switch {
		case a == "":
			sb.WriteString("''")
		case bareWord(a, i == 0):
			sb.WriteString(a)
		case esc(a) == a: // printable: single quotes keep it as it is
			sb.WriteByte('\'')
			sb.WriteString(strings.ReplaceAll(a, "'", `'\''`))
			sb.WriteByte('\'')
		default:
			ansiQuote(&sb, a)
		}
	}
	return sb.String()
}

// bareWord reports whether a needs no quotes: letters, digits and
// _@%+=:,./- only, and no = in the first word (which a shell would take
// for an assignment).
func bareWord(a string, first bool) bool {
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("_@%+:,./-", c) >= 0:
		case c == '=' && !first:
		default:
			return false
		}
	}
	return true
}

// ansiQuote writes s as bash's $'…', whose escapes are escapeTo's with
// the single quote as the quote.
func ansiQuote(sb *strings.Builder, s string) {
	sb.WriteString("$'")
	escapeTo(sb, s, '\'')
	sb.WriteByte('\'')
}
