package publish

import (
	"bytes"
	"html"
	"strings"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/escape"
)

// oneLine returns s escaped to one line of inert text (escape.Text) and
// cut to at most n runes, the cut marked with "…". Escaping comes first so
// that a cut can only shorten an escape, never let a control character
// through. Every rune of s becomes at least one rune of the escaped text,
// so only the first n+1 runes of s are escaped: program output can be
// megabytes.
func oneLine(s string, n int) string {
	if len(s) > utf8.UTFMax*(n+1) {
		s = s[:utf8.UTFMax*(n+1)]
	}
	return escape.Shorten(escape.Text(s), n)
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// code returns untrusted s as a markdown code span of inert text, cut to n
// runes. The delimiter is one backtick longer than any backtick run in the
// text, so no run inside can close it; a space pads the text when it starts
// or ends with a backtick or a space (CommonMark strips one space on each
// side). Empty text is shown as an empty pair of quotes in code.
func code(s string, n int) string {
	t := oneLine(s, n)
	if t == "" {
		return "`\"\"`"
	}
	return codeSpan(t)
}

// cell is code for a GFM table cell: every '|' becomes '\|'. GFM splits a
// row on unescaped pipes before it parses code spans, and turns '\|' back
// into '|' inside them.
func cell(s string, n int) string {
	return strings.ReplaceAll(code(s, n), "|", `\|`)
}

// codeSpan wraps already inert one-line text t (not empty) in a code span.
func codeSpan(t string) string {
	delim := strings.Repeat("`", longestRun(t, '`')+1)
	pad := ""
	if first, last := t[0], t[len(t)-1]; first == '`' || last == '`' || first == ' ' || last == ' ' {
		pad = " "
	}
	return delim + pad + t + pad + delim
}

// htmlCode returns untrusted s for raw HTML (a <summary> line, where
// markdown is not parsed): escaped to one line, cut to n runes, HTML-escaped
// and inside <code>, where GitHub links no mention or reference.
func htmlCode(s string, n int) string {
	return "<code>" + html.EscapeString(oneLine(s, n)) + "</code>"
}

// excerpt is the start of a block of untrusted text, escaped line by line,
// ready to go into a fence.
type excerpt struct {
	lines []string
	// rest counts the bytes of the input not shown.
	rest int
	// noEOL is set when the whole input was shown and it does not end in
	// a newline.
	noEOL bool
}

// newExcerpt takes at most maxBytes bytes (cut on a rune boundary) and
// maxLines lines of data, each line escaped by escape.Text: a lone CR or
// a NUL shows as \r or \x00 and can neither end a line of the fence nor
// reach the renderer.
func newExcerpt(data []byte, maxBytes, maxLines int) excerpt {
	var ex excerpt
	if len(data) == 0 {
		return ex
	}
	shown := data
	if len(shown) > maxBytes {
		n := maxBytes
		for k := 0; k < utf8.UTFMax && n > 0 && !utf8.RuneStart(shown[n]); k++ {
			n--
		}
		shown = shown[:n]
	}
	consumed := 0
	for len(shown) > 0 && len(ex.lines) < maxLines {
		line := shown
		nl := false
		if i := bytes.IndexByte(shown, '\n'); i >= 0 {
			line, nl = shown[:i], true
		}
		ex.lines = append(ex.lines, escape.Text(string(line)))
		consumed += len(line)
		shown = shown[len(line):]
		if nl {
			consumed++
			shown = shown[1:]
		}
	}
	ex.rest = len(data) - consumed
	ex.noEOL = ex.rest == 0 && data[len(data)-1] != '\n'
	return ex
}

// fence writes ex as a fenced code block. The fence is one backtick longer
// than any backtick run in the block (and at least three), so no line of it
// can close the fence.
func (ex excerpt) fence(sb *strings.Builder) { ex.fenceAs(sb, "") }

// fenceAs is fence with an info string (behaves' own: "diff"), which
// tells the renderer how to colour the block.
func (ex excerpt) fenceAs(sb *strings.Builder, info string) {
	n := 2
	for _, l := range ex.lines {
		n = max(n, longestRun(l, '`'))
	}
	f := strings.Repeat("`", n+1)
	sb.WriteString(f)
	sb.WriteString(info)
	sb.WriteByte('\n')
	for _, l := range ex.lines {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	sb.WriteString(f)
	sb.WriteByte('\n')
}
