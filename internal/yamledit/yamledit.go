package yamledit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Doc is one YAML document's bytes and its parse.
type Doc struct {
	// Data is the file's bytes as read.
	Data []byte
	// Document is the document node (its comments are the file's head
	// and foot comments), Root its top node (nil for a document with
	// none).
	Document, Root *yaml.Node
	// starts holds the byte offset of each line's first character.
	starts []int
}

// Parse parses data, which must hold at most one YAML document.
func Parse(data []byte) (d *Doc, err error) {
	defer func() {
		// yaml.v3 recovers its own errors; anything else is a bug in it.
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, err
	default:
		var next yaml.Node
		if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
			if err == nil {
				return nil, fmt.Errorf("a second YAML document at line %d", next.Line)
			}
			return nil, err
		}
	}
	d = &Doc{Data: data, Document: &doc, starts: lineStarts(data)}
	if len(doc.Content) > 0 {
		d.Root = doc.Content[0]
	}
	return d, nil
}

// lineStarts returns the byte offset of each line's first character
// (index 0 is line 1), with line breaks as yaml.v3 counts them (LF, CRLF,
// CR, NEL, LS, PS) and line 1 after a UTF-8 byte order mark.
func lineStarts(data []byte) []int {
	starts := []int{0}
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		starts[0] = 3
	}
	for i := starts[0]; i < len(data); {
		r, w := utf8.DecodeRune(data[i:])
		switch {
		case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
			w = 2
			fallthrough
		case r == '\n', r == '\r', r == '\u0085', r == '\u2028', r == '\u2029':
			starts = append(starts, i+w)
		}
		i += w
	}
	return starts
}

// Newline is the line break the file uses: its first one, "\n" when it has
// none.
func (d *Doc) Newline() string {
	if len(d.starts) < 2 {
		return "\n"
	}
	end := d.starts[1]
	i := end - 1
	if i > 0 && d.Data[i] == '\n' && d.Data[i-1] == '\r' {
		return "\r\n"
	}
	_, w := utf8.DecodeLastRune(d.Data[:end])
	return string(d.Data[end-w : end])
}

// Offset is the byte offset of a yaml.v3 position: line and column are
// 1-based, the column counted in characters.
func (d *Doc) Offset(line, col int) (int, error) {
	if line < 1 || line > len(d.starts) || col < 1 {
		return 0, fmt.Errorf("line %d, column %d is outside the file", line, col)
	}
	i := d.starts[line-1]
	for c := 1; c < col; c++ {
		if i >= len(d.Data) {
			return 0, fmt.Errorf("column %d of line %d is past the end of the file", col, line)
		}
		_, w := utf8.DecodeRune(d.Data[i:])
		i += w
	}
	return i, nil
}

// LineEnd is the offset of the line break that ends the line holding off
// (len(Data) on a last line without one).
func (d *Doc) LineEnd(off int) int {
	for i := off; i < len(d.Data); {
		r, w := utf8.DecodeRune(d.Data[i:])
		switch r {
		case '\n', '\r', '\u0085', '\u2028', '\u2029':
			return i
		}
		i += w
	}
	return len(d.Data)
}

// line returns the number (0-based) of the line that holds off.
func (d *Doc) line(off int) int {
	i, found := slices.BinarySearch(d.starts, off)
	if found {
		return i
	}
	return i - 1
}

// Start is the offset where n's text begins: its position, past any tag
// and anchor written before it.
func (d *Doc) Start(n *yaml.Node) (int, error) {
	i, err := d.Offset(n.Line, n.Column)
	if err != nil {
		return 0, err
	}
	for i < len(d.Data) && (d.Data[i] == '!' || d.Data[i] == '&') && n.Kind != yaml.AliasNode {
		for i < len(d.Data) && !isSpace(d.Data[i]) {
			i++
		}
		for i < len(d.Data) && isSpace(d.Data[i]) {
			i++
		}
	}
	if i >= len(d.Data) && !(n.Kind == yaml.ScalarNode && n.Value == "") {
		return 0, fmt.Errorf("no value at line %d, column %d", n.Line, n.Column)
	}
	return i, nil
}

// End is the offset just past n's text (before a comment on its last
// line). indent is the indentation of the block n is a value or item of
// (the column of its keys or dashes, minus one; -1 for the document's top
// node): a plain or block scalar in block context runs on over the lines
// indented deeper than that.
func (d *Doc) End(n *yaml.Node, indent int) (int, error) {
	start, err := d.Start(n)
	if err != nil {
		return 0, err
	}
	switch {
	case n.Kind == yaml.AliasNode:
		i := start + 1
		for i < len(d.Data) && !isSpace(d.Data[i]) && !isBreak(d.Data[i]) {
			i++
		}
		return i, nil
	case (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle != 0:
		closeAt, _, err := d.flowScan(start)
		return closeAt + 1, err
	case n.Kind == yaml.MappingNode:
		if len(n.Content) < 2 {
			return 0, fmt.Errorf("an empty block mapping at line %d", n.Line)
		}
		k, v := n.Content[len(n.Content)-2], n.Content[len(n.Content)-1]
		end, err := d.End(v, k.Column-1)
		if err != nil {
			return 0, err
		}
		if v.Kind == yaml.ScalarNode && end == start && v.Value == "" {
			// key: with no value: the mapping ends with its key's line.
			return d.End(k, k.Column-1)
		}
		return end, nil
	case n.Kind == yaml.SequenceNode:
		if len(n.Content) == 0 {
			return 0, fmt.Errorf("an empty block sequence at line %d", n.Line)
		}
		return d.End(n.Content[len(n.Content)-1], n.Column-1)
	case n.Kind == yaml.ScalarNode:
		return d.scalarEnd(start, n, indent)
	}
	return 0, fmt.Errorf("a node of kind %d at line %d", n.Kind, n.Line)
}

// Scalar is the byte range of a scalar written on one line (plain), or
// quoted: from its first character (past a tag) to its last, which read
// back as n's value. A block scalar (| or >), or a plain one that goes on
// over more lines, is an error.
func (d *Doc) Scalar(n *yaml.Node) (start, end int, err error) {
	if n.Kind != yaml.ScalarNode {
		return 0, 0, fmt.Errorf("the node at line %d is not a scalar", n.Line)
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return 0, 0, fmt.Errorf("the value at line %d is a block scalar (| or >)", n.Line)
	}
	if start, err = d.Start(n); err != nil {
		return 0, 0, err
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
		// Plain on one line: its text is its value, with no escape.
		end = start + len(n.Value)
		if end > len(d.Data) || string(d.Data[start:end]) != n.Value {
			return 0, 0, fmt.Errorf("the text at line %d, column %d does not read as the value %q", n.Line, n.Column, n.Value)
		}
		return start, end, nil
	}
	if end, err = d.scalarEnd(start, n, -1); err != nil {
		return 0, 0, err
	}
	var back string
	if err := yaml.Unmarshal(d.Data[start:end], &back); err != nil || back != n.Value {
		return 0, 0, fmt.Errorf("the text at line %d, column %d does not read as the value %q", n.Line, n.Column, n.Value)
	}
	return start, end, nil
}

// scalarEnd is the offset just past the scalar n that begins at start.
func (d *Doc) scalarEnd(start int, n *yaml.Node, indent int) (int, error) {
	data := d.Data
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if start >= len(data) || data[start] != '"' {
			return 0, fmt.Errorf("no opening quote at line %d, column %d", n.Line, n.Column)
		}
		for i := start + 1; i < len(data); i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return i + 1, nil
			}
		}
		return 0, fmt.Errorf("the quoted value at line %d does not end", n.Line)
	case n.Style&yaml.SingleQuotedStyle != 0:
		if start >= len(data) || data[start] != '\'' {
			return 0, fmt.Errorf("no opening quote at line %d, column %d", n.Line, n.Column)
		}
		for i := start + 1; i < len(data); i++ {
			if data[i] == '\'' {
				if i+1 < len(data) && data[i+1] == '\'' {
					i++
					continue
				}
				return i + 1, nil
			}
		}
		return 0, fmt.Errorf("the quoted value at line %d does not end", n.Line)
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return d.blockScalarEnd(start, indent), nil
	}
	return d.plainEnd(start, indent), nil
}

// plainEnd is the offset just past a plain scalar in block context that
// begins at start: the rest of its line (up to a comment), and each
// following line indented deeper than indent that is not a comment.
func (d *Doc) plainEnd(start, indent int) int {
	end := start + plainLine(d.Data[start:d.LineEnd(start)])
	if end == start {
		return start // an empty value (key: with nothing after it)
	}
	for l := d.line(start) + 1; l < len(d.starts); l++ {
		text := d.Data[d.starts[l]:d.LineEnd(d.starts[l])]
		content := bytes.TrimLeft(text, " \t")
		if len(content) == 0 {
			continue // a blank line folds into the scalar, or ends it
		}
		lead := len(text) - len(bytes.TrimLeft(text, " "))
		if lead <= indent || content[0] == '#' || lead == 0 && (bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("..."))) {
			break
		}
		end = d.starts[l] + (len(text) - len(content)) + plainLine(content)
	}
	return end
}

// plainLine is the length of a plain scalar's text on one line: up to a
// comment (a '#' after a blank), without the blanks before it.
func plainLine(text []byte) int {
	n := len(text)
	for i := 1; i < len(text); i++ {
		if text[i] == '#' && (text[i-1] == ' ' || text[i-1] == '\t') {
			n = i
			break
		}
	}
	return len(bytes.TrimRight(text[:n], " \t"))
}

// blockScalarEnd is the offset just past a literal or folded scalar whose
// indicator is at start: its header line, then every line indented deeper
// than indent (and the blank lines between them). Blank lines after the
// last such line are the scalar's only when it keeps them (|+, >+).
func (d *Doc) blockScalarEnd(start, indent int) int {
	headerEnd := d.LineEnd(start)
	header := d.Data[start:headerEnd]
	if i := bytes.IndexByte(header, '#'); i >= 0 {
		header = header[:i]
	}
	keep := bytes.IndexByte(header, '+') >= 0
	end := headerEnd
	for l := d.line(start) + 1; l < len(d.starts); l++ {
		lineEnd := d.LineEnd(d.starts[l])
		text := d.Data[d.starts[l]:lineEnd]
		if len(bytes.TrimLeft(text, " ")) == 0 {
			if keep {
				end = lineEnd
			}
			continue
		}
		if lead := len(text) - len(bytes.TrimLeft(text, " ")); lead <= indent {
			break
		}
		end = lineEnd
	}
	return end
}

// FlowClose returns, for n a flow mapping or sequence, the offset of its
// closing bracket and the offset just past the last character of its
// content before that bracket (a value, a quote, a comma; never inside a
// comment): where an entry is added at its end.
func (d *Doc) FlowClose(n *yaml.Node) (closeAt, last int, err error) {
	if n.Style&yaml.FlowStyle == 0 || n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return 0, 0, fmt.Errorf("the node at line %d is not a flow mapping or sequence", n.Line)
	}
	start, err := d.Start(n)
	if err != nil {
		return 0, 0, err
	}
	return d.flowScan(start)
}

// flowScan finds the bracket that closes the flow collection opening at
// start, skipping quoted scalars and comments, and the end of the last
// content before it.
func (d *Doc) flowScan(start int) (closeAt, last int, err error) {
	data := d.Data
	if start >= len(data) || data[start] != '{' && data[start] != '[' {
		return 0, 0, fmt.Errorf("no flow collection at byte %d", start)
	}
	depth := 0
	// prev is the last character of content read: a quote starts a quoted
	// scalar only where a scalar may start (after an indicator or at the
	// start), never inside a plain one (it's).
	prev := byte(0)
	for i := start; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i, last, nil
			}
		case (c == '"' || c == '\'') && strings.IndexByte("{[,:?", prev) >= 0:
			j, err := quotedEnd(data, i)
			if err != nil {
				return 0, 0, err
			}
			i = j - 1
			prev, last = c, j
			continue
		case c == '#' && (i == start || isSpace(data[i-1]) || isBreak(data[i-1])):
			for i+1 < len(data) && !isBreak(data[i+1]) {
				i++
			}
			continue
		case isSpace(c) || isBreak(c):
			continue
		}
		prev, last = c, i+1
	}
	return 0, 0, errors.New("a flow collection does not close")
}

// quotedEnd is the offset just past the quoted scalar opening at i.
func quotedEnd(data []byte, i int) (int, error) {
	q := data[i]
	for j := i + 1; j < len(data); j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++
		case data[j] == q && q == '\'' && j+1 < len(data) && data[j+1] == '\'':
			j++
		case data[j] == q:
			return j + 1, nil
		}
	}
	return 0, errors.New("a quoted value does not end")
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }
func isBreak(b byte) bool { return b == '\n' || b == '\r' }

// Edit replaces Data[Start:End] with Text (Start == End: an insertion).
type Edit struct {
	Start, End int
	Text       string
}

// Apply returns data with every edit made. Edits must not overlap; two
// insertions at one offset are made in the order given.
func Apply(data []byte, edits []Edit) ([]byte, error) {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b Edit) int { return a.Start - b.Start })
	var out bytes.Buffer
	prev := 0
	for _, e := range sorted {
		if e.Start < prev || e.End < e.Start || e.End > len(data) {
			return nil, fmt.Errorf("edits overlap or leave the file at byte %d", e.Start)
		}
		out.Write(data[prev:e.Start])
		out.WriteString(e.Text)
		prev = e.End
	}
	out.Write(data[prev:])
	return out.Bytes(), nil
}

// Compare walks a and b, one document before and after an edit, and
// returns the first difference in kind, tag, style, value or number of
// children (comments and positions aside: an edit moves them). at is
// asked first about each pair; when it says handled, the pair is its to
// check (an edited node) and Compare goes no deeper there.
func Compare(a, b *yaml.Node, at func(a, b *yaml.Node) (handled bool, err error)) error {
	if at != nil {
		handled, err := at(a, b)
		if err != nil || handled {
			return err
		}
	}
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Style != b.Style || a.Value != b.Value || a.Anchor != b.Anchor || len(a.Content) != len(b.Content) {
		return fmt.Errorf("the node at line %d (%s) reads otherwise after the edit", a.Line, describe(a))
	}
	for i := range a.Content {
		if err := Compare(a.Content[i], b.Content[i], at); err != nil {
			return err
		}
	}
	return nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a value"
	}
	return "a node"
}
