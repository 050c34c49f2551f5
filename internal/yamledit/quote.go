package yamledit

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// ErrNotUTF8 refuses a value that is not UTF-8 text: a YAML file holds
// characters, and its \x escapes stand for code points, not bytes.
var ErrNotUTF8 = errors.New("it is not valid UTF-8, and YAML holds only text")

// DoubleQuoted returns s as a YAML double-quoted scalar on one line: line
// breaks, tabs, control characters and every character that is not
// printable (bidi controls, separators, non-characters) are escapes, so
// the file holds no byte that could move a terminal's cursor or reorder
// what a reviewer reads. It parses the result back with yaml.v3 and
// refuses s (an error saying why) unless it reads as s exactly.
func DoubleQuoted(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrNotUTF8
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		default:
			switch {
			case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
				fmt.Fprintf(&b, `\x%02x`, r)
			case MustEscape(r) && r > 0xffff:
				fmt.Fprintf(&b, `\U%08x`, r)
			case MustEscape(r):
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	out := b.String()
	var back string
	if err := yaml.Unmarshal([]byte(out), &back); err != nil {
		return "", fmt.Errorf("yaml.v3 cannot read it back as written (%v)", err)
	}
	if back != s {
		return "", errors.New("yaml.v3 reads it back otherwise than it is")
	}
	return out, nil
}

// MustEscape says whether DoubleQuoted writes a character above ASCII's
// controls as an escape (a writer of JSON can follow it): anything not
// printable (unicode.IsPrint: the C1 controls, the bidi and other format
// controls, the line and paragraph separators, non-characters, unassigned
// code points, spaces other than ' ') and the byte order mark.
func MustEscape(r rune) bool {
	return !unicode.IsPrint(r) || r == '\ufeff'
}
