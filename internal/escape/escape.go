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
	escapeTo(&sb, s, false)
	return sb.String()
}

// quote returns s escaped and in double quotes.
func quote(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 2)
	sb.WriteByte('"')
	escapeTo(&sb, s, true)
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
//   - when inQuotes, a backslash and a double quote: \\ and \". Outside
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
func escapeTo(sb *strings.Builder, s string, inQuotes bool) {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case (c == '\\' || c == '"') && inQuotes:
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
