package pin

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// TodoComment begins the comment `behaves init` writes after an image it
// could not pin ("# TODO: pin this image: behaves pin --allow-registry
// …"). When pin writes that image's pin, it removes such a comment from
// the end of the image's line, since the comment is then no longer true;
// every other comment stays byte for byte.
const TodoComment = "# TODO: pin this image"

// refChars is what a pinned reference written back may hold: the
// characters of Docker's reference grammar, none of which needs quoting or
// escaping in a plain, single- or double-quoted YAML scalar.
var refChars = regexp.MustCompile(`^[A-Za-z0-9._:/@-]+$`)

// todoRE is an init TODO comment at the end of a line, with the blanks
// before it.
var todoRE = regexp.MustCompile(`^[ \t]+` + regexp.QuoteMeta(TodoComment) + `\b[^\r\n]*`)

// change is one image value to write: the image and its new reference.
type change struct {
	im  Image
	ref string
}

// rewrite returns data with each change's scalar replaced by its new
// reference, in the scalar's own quoting style, and every other byte as it
// was (an init TODO comment after a changed image excepted). The result
// is parsed again and compared node by node with data: anything but the
// changed values (and the removed TODO comments) differing is an error,
// and nothing is returned.
func rewrite(data []byte, changes []change) ([]byte, error) {
	starts := lineStarts(data)
	type edit struct {
		start, end int
		text       string
	}
	edits := make([]edit, 0, len(changes))
	want := map[[2]int]string{}
	for _, c := range changes {
		if !refChars.MatchString(c.ref) {
			return nil, fmt.Errorf("%s: the new reference %q has characters an image reference cannot", c.im.Where(), c.ref)
		}
		start, end, err := span(data, starts, c.im.node)
		if err != nil {
			return nil, fmt.Errorf("%s at line %d: %w", c.im.Where(), c.im.Line, err)
		}
		text := c.ref
		switch data[start] {
		case '"', '\'':
			text = string(data[start]) + c.ref + string(data[start])
		}
		if m := todoRE.Find(data[end:]); m != nil {
			end += len(m)
		}
		edits = append(edits, edit{start, end, text})
		want[[2]int{c.im.node.Line, c.im.node.Column}] = c.ref
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	out.Grow(len(data) + 80*len(edits))
	prev := 0
	for _, e := range edits {
		if e.start < prev {
			return nil, fmt.Errorf("two images overlap at byte %d", e.start)
		}
		out.Write(data[prev:e.start])
		out.WriteString(e.text)
		prev = e.end
	}
	out.Write(data[prev:])
	if err := same(data, out.Bytes(), want); err != nil {
		return nil, fmt.Errorf("the rewritten spec does not read back as the original with only the images changed (%v): nothing was written", err)
	}
	return out.Bytes(), nil
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

// span returns the byte range of n's scalar in data: from its opening
// quote (after any tag) to its closing one, or a plain scalar's
// characters. It checks that the range reads back as n's value.
func span(data []byte, starts []int, n *yaml.Node) (int, int, error) {
	if n.Line < 1 || n.Line > len(starts) || n.Column < 1 {
		return 0, 0, fmt.Errorf("yaml.v3 placed the value at line %d, column %d, outside the file", n.Line, n.Column)
	}
	i := starts[n.Line-1]
	for col := 1; col < n.Column; col++ {
		if i >= len(data) {
			return 0, 0, fmt.Errorf("column %d is past the end of the file", n.Column)
		}
		_, w := utf8.DecodeRune(data[i:])
		i += w
	}
	// A tag (!!str) comes before the value, on its line or above it.
	for i < len(data) && data[i] == '!' {
		for i < len(data) && !isBlank(data[i]) {
			i++
		}
		for i < len(data) && isBlank(data[i]) {
			i++
		}
	}
	if i >= len(data) {
		return 0, 0, fmt.Errorf("no value at column %d", n.Column)
	}
	start, end := i, i
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if data[i] != '"' {
			return 0, 0, fmt.Errorf("no opening quote at column %d", n.Column)
		}
		for end = i + 1; end < len(data) && data[end] != '"'; end++ {
			if data[end] == '\\' {
				end++
			}
		}
		end++
	case n.Style&yaml.SingleQuotedStyle != 0:
		if data[i] != '\'' {
			return 0, 0, fmt.Errorf("no opening quote at column %d", n.Column)
		}
		for end = i + 1; end < len(data); end++ {
			if data[end] == '\'' {
				if end+1 < len(data) && data[end+1] == '\'' {
					end++
					continue
				}
				break
			}
		}
		end++
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return 0, 0, fmt.Errorf("the image is a block scalar (| or >): write it on one line, as name:tag")
	default:
		for end < len(data) && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/@-", data[end]) >= 0 {
			end++
		}
	}
	if end > len(data) {
		return 0, 0, fmt.Errorf("the quoted value at column %d does not end", n.Column)
	}
	var got string
	if err := yaml.Unmarshal(data[start:end], &got); err != nil || got != n.Value {
		return 0, 0, fmt.Errorf("the text at column %d does not read as the image's value %q: write it on one line, as name:tag", n.Column, n.Value)
	}
	return start, end, nil
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// same checks that after parses as before except for the values in want
// (the new value by the line and column of the old one) and an init TODO
// comment after them.
func same(before, after []byte, want map[[2]int]string) error {
	var a, b yaml.Node
	if err := yaml.Unmarshal(before, &a); err != nil {
		return err
	}
	if err := yaml.Unmarshal(after, &b); err != nil {
		return err
	}
	return sameNode(&a, &b, want)
}

func sameNode(a, b *yaml.Node, want map[[2]int]string) error {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Style != b.Style || a.Anchor != b.Anchor || len(a.Content) != len(b.Content) {
		return fmt.Errorf("the node at line %d changed its kind, tag, style or length", a.Line)
	}
	if a.HeadComment != b.HeadComment || a.FootComment != b.FootComment {
		return fmt.Errorf("a comment near line %d changed", a.Line)
	}
	value, changed := want[[2]int{a.Line, a.Column}]
	changed = changed && a.Kind == yaml.ScalarNode
	if !changed {
		value = a.Value
	}
	if b.Value != value {
		return fmt.Errorf("the value at line %d reads %q, want %q", a.Line, b.Value, value)
	}
	if a.LineComment != b.LineComment && !(changed && b.LineComment == "" && strings.HasPrefix(a.LineComment, TodoComment)) {
		return fmt.Errorf("the comment on line %d changed", a.Line)
	}
	for i := range a.Content {
		if err := sameNode(a.Content[i], b.Content[i], want); err != nil {
			return err
		}
	}
	return nil
}
