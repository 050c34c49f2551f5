package verdict

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// All functions here work on bytes that may be invalid UTF-8. A byte that
// does not start a valid encoding is kept as it is: nothing is replaced by
// U+FFFD and nothing is dropped except what a normalisation defines.

// normalize applies n to b. The result never aliases b except for
// NormalizeExact, which returns b itself (callers only read it).
func normalize(n Normalize, b []byte) []byte {
	switch n {
	case NormalizeExact:
		return b
	case NormalizeWhitespace:
		return normWhitespace(b)
	default:
		return trimNewlines(normLines(b))
	}
}

// normLines is the per-line part of NormalizeTrailing: CRLF→LF, then spaces
// and tabs stripped at each line's end (the last line included). It does not
// strip the trailing newlines.
func normLines(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			// The last line, with no newline after it: a CR here is
			// not part of a CRLF and stays.
			return append(out, trimSpTab(b)...)
		}
		line := b[:i]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1] // CRLF→LF
		}
		out = append(out, trimSpTab(line)...)
		out = append(out, '\n')
		b = b[i+1:]
	}
	return out
}

func trimSpTab(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func trimNewlines(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return b
}

// unit decodes the unit at the start of b: a valid rune with its size, or an
// invalid byte as (utf8.RuneError, 1, false).
func unit(b []byte) (r rune, size int, valid bool) {
	if c := b[0]; c < utf8.RuneSelf {
		return rune(c), 1, true
	}
	r, size = utf8.DecodeRune(b)
	return r, size, !(r == utf8.RuneError && size == 1)
}

// isSpaceAt reports whether b starts with a whitespace rune as defined by
// unicode.IsSpace (the definition strings.Fields uses), and its size.
func isSpaceAt(b []byte) (bool, int) {
	c := b[0]
	if c < utf8.RuneSelf {
		return asciiSpace[c], 1
	}
	r, size, valid := unit(b)
	return valid && unicode.IsSpace(r), size
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// normWhitespace collapses every whitespace run to one space and trims both
// ends.
func normWhitespace(b []byte) []byte {
	out := make([]byte, 0, len(b))
	pending := false
	for i := 0; i < len(b); {
		sp, size := false, 1
		if c := b[i]; c < utf8.RuneSelf {
			sp = asciiSpace[c]
		} else {
			sp, size = isSpaceAt(b[i:])
		}
		if sp {
			pending = true
		} else {
			if pending && len(out) > 0 {
				out = append(out, ' ')
			}
			pending = false
			if size == 1 {
				out = append(out, b[i])
			} else {
				out = append(out, b[i:i+size]...)
			}
		}
		i += size
	}
	return out
}

// fold maps every valid rune to the smallest rune of its simple case-folding
// orbit (unicode.SimpleFold), so that two valid UTF-8 texts fold to the same
// bytes exactly when strings.EqualFold reports them equal. Invalid bytes are
// kept as they are (strings.EqualFold would treat every invalid byte as
// U+FFFD; here they must be equal byte for byte).
func fold(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			b = b[1:]
			continue
		}
		r, size, valid := unit(b)
		if !valid {
			out = append(out, c)
		} else {
			out = utf8.AppendRune(out, foldRune(r))
		}
		b = b[size:]
	}
	return out
}

// foldRune returns the smallest rune of r's simple case-folding orbit.
func foldRune(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	return m
}

// completeEnd returns the length of b without a trailing incomplete UTF-8
// sequence: bytes that start a valid encoding whose remaining bytes were cut
// off. Such bytes may decode differently once the rest of the stream follows,
// so a cut stream's analysis never relies on them.
func completeEnd(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if c := b[i]; c&0xC0 != 0x80 { // not a continuation byte
			if c >= utf8.RuneSelf && !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// cutView describes what is certain about norm(D+R), the normalised output of
// a stream of which only D is known and R is unknown (R non-empty when the
// stream was cut).
//
//   - short is always a prefix of norm(D+R);
//   - norm(D+R) either equals short, or has long as a prefix; when
//     longSure, it always has long as a prefix;
//   - longer (NormalizeExact only): norm(D+R) is strictly longer than long.
//
// Both are folded when the matcher ignores case.
type cutView struct {
	short, long []byte
	longSure    bool
	longer      bool
}

// certain returns the longest text norm(D+R) is known to start with: what a
// contains or regex search may use as proof.
func (v cutView) certain() []byte {
	if v.longSure {
		return v.long
	}
	return v.short
}

// consistent reports whether want (normalised and folded like the view)
// could be norm(D+R) for some non-empty R.
func (v cutView) consistent(want []byte) bool {
	if !v.longSure && bytes.Equal(want, v.short) {
		return true
	}
	if !bytes.HasPrefix(want, v.long) {
		return false
	}
	return !v.longer || len(want) > len(v.long)
}

// newCutView analyses the kept bytes d of a stream that may continue.
//
// What normalisation may still change near the cut is treated as unknown:
//
//   - a trailing incomplete UTF-8 sequence (the cut may split a rune);
//   - trailing: the complete lines are normalised; of the last, cut line only
//     the part before its trailing spaces, tabs and CRs is kept (those may be
//     stripped at the line's end, or be a CRLF's CR). Trailing newlines of
//     the complete lines are stripped only if nothing else follows, hence
//     the short/long alternative;
//   - whitespace: everything up to the last whitespace rune is normalised;
//     the word after it is kept as it is, since it contains no whitespace;
//   - exact: all the complete bytes are certain, and more bytes follow.
func newCutView(m Matcher, d []byte) cutView {
	var v cutView
	switch m.normalize() {
	case NormalizeExact:
		v = cutView{short: d[:completeEnd(d)], longSure: true, longer: true}
		v.long = v.short
	case NormalizeWhitespace:
		end := 0 // just past the last whitespace rune
		for i := 0; i < len(d); {
			sp, size := isSpaceAt(d[i:])
			i += size
			if sp {
				end = i
			}
		}
		a := normWhitespace(d[:end])
		word := d[end:]
		word = word[:completeEnd(word)]
		long := a
		if len(a) > 0 {
			long = append(a[:len(a):len(a)], ' ')
		}
		long = append(long[:len(long):len(long)], word...)
		v = cutView{short: a, long: long, longSure: len(word) > 0}
	default:
		nl := bytes.LastIndexByte(d, '\n') + 1
		lines := normLines(d[:nl])
		a := trimNewlines(lines)
		last := d[nl:]
		last = last[:completeEnd(last)]
		for len(last) > 0 && (last[len(last)-1] == ' ' || last[len(last)-1] == '\t' || last[len(last)-1] == '\r') {
			last = last[:len(last)-1]
		}
		long := append(lines[:len(lines):len(lines)], last...)
		v = cutView{short: a, long: long, longSure: len(last) > 0}
	}
	if m.IgnoreCase {
		v.short, v.long = fold(v.short), fold(v.long)
	}
	return v
}

// firstDiff walks a and b in step, unit by unit (folding case when asked),
// and returns the byte offsets in each of the first unit that differs. When
// one is a prefix of the other, the shorter one's offset is its length.
func firstDiff(a, b []byte, foldCase bool) (int, int) {
	i, j := 0, 0
	if !foldCase {
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		return i, i
	}
	for i < len(a) && j < len(b) {
		ra, sa, va := unit(a[i:])
		rb, sb, vb := unit(b[j:])
		switch {
		case va && vb:
			if foldRune(ra) != foldRune(rb) {
				return i, j
			}
		case va || vb || a[i] != b[j]:
			return i, j
		}
		i, j = i+sa, j+sb
	}
	return i, j
}
