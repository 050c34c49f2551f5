package spec

// YAML syntax errors, made into positioned problems a person can act on.
// yaml.v3 says what it found but gives no column, and its line is where the
// enclosing construct began, or the line where the mistake was noticed
// rather than made; syntaxError finds the line (see firstFailingLine),
// then the column and the advice here.

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// syntaxProblem is a YAML syntax error's position and message. raw is the
// parser's message without its line, line the line syntaxError settled on.
func syntaxProblem(data []byte, line int, raw string) (int, int, string) {
	text := lineText(data, line)
	col := firstNonBlankCol(text)
	parser := fmt.Sprintf("(the YAML parser: %s)", raw)
	var advice string
	switch raw {
	case "did not find expected ',' or ']'":
		advice = `a flow list opened with "[" is not closed: close it with "]", or quote a value that holds "[", "]" or ","`
	case "did not find expected ',' or '}'":
		advice = `a flow mapping opened with "{" is not closed: close it with "}", or quote a value that holds "{", "}" or ","`
	case "did not find expected key":
		if strings.HasPrefix(strings.TrimLeft(text, " "), "- ") || strings.TrimSpace(text) == "-" {
			advice = `a list item ("- ") where the mapping above expects a key: put the list under its key, indented below it`
			break
		}
		advice = "this line is indented differently from the keys of the mapping above it: indent it exactly as its sibling keys, with spaces"
	case "did not find expected '-' indicator":
		advice = `this line is not a list item but is indented as the list above it: indent it under the item it belongs to, or start it with "- " to make it an item`
	case "mapping values are not allowed in this context":
		if prev, key := keyWithoutColon(data, line); prev > 0 {
			return prev, firstContentCol(lineText(data, prev)), fmt.Sprintf(
				`invalid YAML: %q lacks the ":" after its key, so YAML reads the next line as more of it: write %q (the YAML parser, at line %d: %s)`,
				short(key), short(withColon(key)), line, raw)
		}
		if vcol, value, ok := valueWithColon(text); ok {
			return line, vcol, fmt.Sprintf(`invalid YAML: the value %q holds ": ", which YAML reads as a key: quote the value (%q) %s`, short(value), short(value), parser)
		}
		advice = `a ": " where YAML expects no key: indent this line as the keys it belongs with, or quote a value that holds ": "`
	case "found unexpected end of stream":
		if qcol := quoteCol(text); qcol > 0 {
			col = qcol
		}
		advice = "a quoted value is not closed before the end of the file: end it with the quote it begins with"
	case "found character that cannot start any token", "found a tab character that violates indentation", "found a tab character where an indentation space is expected":
		if tcol := leadingTabCol(text); tcol > 0 {
			return line, tcol, "invalid YAML: a tab indents this line: YAML indents with spaces only " + parser
		}
		if vcol := valueCol(text); vcol > 0 {
			col = vcol
		}
		advice = "a value begins with a character YAML keeps for itself (@ or `): quote the value"
	case "control characters are not allowed":
		if ccol, r := controlCol(text); ccol > 0 {
			return line, ccol, fmt.Sprintf(`invalid YAML: the file holds the control character %U: remove it, or write it as an escape in a double-quoted value ("\u%04x") %s`, r, r, parser)
		}
		advice = "the file holds a control character: remove it, or write it as an escape in a double-quoted value"
	case "invalid leading UTF-8 octet", "invalid trailing UTF-8 octet", "incomplete UTF-8 octet sequence", "invalid Unicode character":
		if bcol := badUTF8Col(text); bcol > 0 {
			col = bcol
		}
		advice = "the file is not UTF-8 text here: save it as UTF-8"
	case "did not find expected node content":
		advice = "a value is missing, or begins with a character that cannot begin one: write the value, or quote it"
	case "did not find expected <document start>":
		advice = "more text follows a complete value at the top level: indent this line under the key it belongs to, or remove it"
	case "could not find expected ':'":
		advice = `a key lacks its ":": write key: value`
	case "found unknown escape character":
		advice = `a backslash in a double-quoted value starts an escape YAML does not know: write \\ for a backslash, or use single quotes`
	case "block sequence entries are not allowed in this context":
		advice = `a list item ("- ") where a value belongs: put the list on the lines below its key, indented`
	default:
		if strings.HasPrefix(raw, "unknown anchor ") {
			advice = "anchors and aliases are not supported: write the value out"
			break
		}
		advice = "fix the YAML at this line"
	}
	return line, col, "invalid YAML: " + advice + " " + parser
}

// lineText is line n (1-based) of data without its line break, or "".
func lineText(data []byte, n int) string {
	for i := 1; i < n; i++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return ""
		}
		data = data[nl+1:]
	}
	if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
		data = data[:nl]
	}
	return strings.TrimSuffix(string(data), "\r")
}

// firstNonBlankCol is the column (1-based, in characters, as yaml.v3
// counts) of the first character of text that is not a space or a tab, or
// 1 for a blank line.
func firstNonBlankCol(text string) int {
	col := 1
	for _, r := range text {
		if r != ' ' && r != '\t' {
			return col
		}
		col++
	}
	return 1
}

// firstContentCol is firstNonBlankCol past any list markers ("- ").
func firstContentCol(text string) int {
	col := firstNonBlankCol(text)
	rest := []rune(text)[col-1:]
	for len(rest) >= 2 && rest[0] == '-' && rest[1] == ' ' {
		rest = rest[2:]
		col += 2
		for len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
			col++
		}
	}
	return col
}

// content is text from firstContentCol on, without a trailing comment.
func content(text string) string {
	s := string([]rune(text)[firstContentCol(text)-1:])
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRightFunc(s, unicode.IsSpace)
}

// keyWithoutColon looks at the line before line (the last one that is not
// blank or a comment): when it is a plain value with no ":" and line is
// indented at least as far as its content, YAML read line as more of that
// value, and the mistake is the missing ":" there. It returns that line and
// its content, or 0.
func keyWithoutColon(data []byte, line int) (int, string) {
	prev := line - 1
	for ; prev > 0; prev-- {
		t := strings.TrimSpace(lineText(data, prev))
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
	}
	if prev <= 0 {
		return 0, ""
	}
	pt := lineText(data, prev)
	key := content(pt)
	if key == "" || strings.ContainsAny(key[:1], `"'[{|>&*!%@`+"`") || strings.HasSuffix(key, ":") || strings.Contains(key, ": ") {
		return 0, ""
	}
	if firstNonBlankCol(lineText(data, line)) < firstContentCol(pt) {
		return 0, ""
	}
	return prev, key
}

// withColon is key with a ":" after its first word: "name hello" becomes
// "name: hello", "name" "name:".
func withColon(key string) string {
	if k, v, ok := strings.Cut(key, " "); ok {
		return k + ": " + strings.TrimSpace(v)
	}
	return key + ":"
}

// valueWithColon finds, on a "key: value" line, a plain value that holds
// ": " itself, and returns its column and text.
func valueWithColon(text string) (int, string, bool) {
	c := content(text)
	k, v, ok := strings.Cut(c, ": ")
	if !ok || strings.ContainsAny(k, `"'`) {
		return 0, "", false
	}
	v = strings.TrimLeft(v, " ")
	if v == "" || strings.ContainsAny(v[:1], `"'[{|>`) || !strings.Contains(v, ": ") {
		return 0, "", false
	}
	col := firstContentCol(text) + utf8.RuneCountInString(c[:len(c)-len(v)])
	return col, v, true
}

// leadingTabCol is the column of the first tab in text's indentation, or 0.
func leadingTabCol(text string) int {
	for i, r := range []rune(text) {
		switch r {
		case '\t':
			return i + 1
		case ' ':
		default:
			return 0
		}
	}
	return 0
}

// controlCol is the column of the first character of text YAML refuses as
// a control character, and the character, or 0.
func controlCol(text string) (int, rune) {
	col := 1
	for _, r := range text {
		if r != '\t' && (r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0 && r != 0x85)) {
			return col, r
		}
		col++
	}
	return 0, 0
}

// valueCol is the column where the value of text's "key: value" begins
// (or its content, for a line without a key), or 0 for an empty one.
func valueCol(text string) int {
	c := content(text)
	v := c
	if k, rest, ok := strings.Cut(c, ": "); ok && !strings.ContainsAny(k, `"'`) {
		v = strings.TrimLeft(rest, " ")
	}
	if v == "" {
		return 0
	}
	return firstContentCol(text) + utf8.RuneCountInString(c[:len(c)-len(v)])
}

// badUTF8Col is the column of the first byte of text that is not UTF-8,
// or 0.
func badUTF8Col(text string) int {
	col := 1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size <= 1 {
			return col
		}
		i += size
		col++
	}
	return 0
}

// quoteCol is the column of the quote that begins the value on text (the
// content, or what follows its "key: "), or 0 when the value is not quoted.
func quoteCol(text string) int {
	col := valueCol(text)
	if col == 0 {
		return 0
	}
	if r := []rune(text)[col-1]; r != '"' && r != '\'' {
		return 0
	}
	return col
}
