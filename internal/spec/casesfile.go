package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// A program entry's cases_file holds its cases in a file of their own: a
// YAML list of case objects (.yaml, .yml) or JSON Lines (.jsonl, one case
// object a line). The path follows every rule of a spec path (see
// resolve), and the file is capped like every file the spec names. Its
// cases are parsed exactly as cases written in the spec, with positions
// in the cases file; a stdin_file in it is relative to the cases file's
// folder. A file named by many entries (or by one files glob) is parsed
// once.

// maxJSONDepth bounds how deeply a JSON line may nest: a case is four
// levels deep at most (case, expect, stdout, value), and a line of
// sixteen million brackets must not recurse that far.
const maxJSONDepth = 32

// maxCasesFileProblems bounds the problems reported for one cases file: a
// file of a million bad lines must not make a million messages (nor a
// report that holds them). The first ones are enough to see what is wrong.
const maxCasesFileProblems = 100

// casesFile reads and parses the cases file that n (a cases_file value)
// names. It returns nil when the file has problems (each reported once, at
// its place in the cases file).
func (l *loader) casesFile(n *yaml.Node) []Case {
	const key = "cases_file"
	written, ref, memoized, fresh := l.sharedFile(n, key, l.casesFiles)
	if !fresh {
		return memoized
	}
	ext := strings.ToLower(path.Ext(ref.rel))
	if ext != ".yaml" && ext != ".yml" && ext != ".jsonl" {
		l.errorf(n, "%s %q must end in .yaml or .yml (a YAML list of cases) or .jsonl (JSON Lines: one case object a line)", key, short(written))
		return nil
	}
	data, ok := l.read(n, key, ref)
	if !ok {
		return nil
	}
	// Positions name the cases file the way the spec's are named (as
	// given to behaves); paths in it are relative to its own folder.
	shown := filepath.Join(filepath.Dir(l.file), filepath.FromSlash(written))
	dir := filepath.Dir(filepath.Join(l.root, filepath.FromSlash(ref.rel)))
	var cases []Case
	before := len(l.errs)
	l.within(shown, dir, "the cases file's folder", func() {
		if ext == ".jsonl" {
			items := l.jsonLines(data, casesLines)
			if len(items) == 0 {
				if len(l.errs) == before {
					l.errorAt(Pos{File: l.file, Line: 1}, `the cases file holds no case: write one case object a line, like {"name": "one", "args": ["1"], "expect": {"stdout": {"equals": "1"}}} (no case would pass vacuously)`)
				}
				return
			}
			cases = l.caseItems(func(_ int, n *yaml.Node) string { return fmt.Sprintf("line %d", n.Line) }, items, "")
		} else {
			root := l.parse(data, "a cases file", `the cases file is empty: write a YAML list of cases ("- name: ...") (no case would pass vacuously)`)
			if root == nil {
				return
			}
			cases = l.cases("cases", root, "")
		}
	})
	if n := len(l.errs) - before; n > 0 {
		cases = nil
		if n > maxCasesFileProblems {
			l.errs[before:].sort()
			l.errs = l.errs[:before+maxCasesFileProblems]
			l.errorAt(l.errs[len(l.errs)-1].Pos, "the cases file has more problems than the %d shown: fix these first", maxCasesFileProblems)
		}
	}
	for i := range cases {
		cases[i].File = ref.rel
	}
	l.casesFiles[ref.rel] = cases
	return cases
}

// within runs fn with positions in file and paths relative to dir (called
// folder in messages), then restores the spec's.
func (l *loader) within(file, dir, folder string, fn func()) {
	savedFile, savedDir, savedFolder := l.file, l.dir, l.folder
	l.file, l.dir, l.folder = file, dir, folder
	defer func() { l.file, l.dir, l.folder = savedFile, savedDir, savedFolder }()
	fn()
}

// jsonLines parses a JSON Lines cases file: each line that is not blank
// must be one JSON value (a case object), returned as a yaml.Node with its
// line and column so that the cases parse and report as YAML ones do. A
// line that is not valid JSON is reported and left out.
// jsonlKind words jsonLines' messages for the file it reads.
type jsonlKind struct {
	file, items, example string
}

var (
	casesLines  = jsonlKind{"cases file", "cases", `write one case object a line, like {"name": "one", "args": ["1"]}`}
	inputsLines = jsonlKind{"inputs file", "inputs", `write one input object a line, like {"args": ["1"], "stdin": "2 3\n"}`}
)

func (l *loader) jsonLines(data []byte, kind jsonlKind) []*yaml.Node {
	var items []*yaml.Node
	bad := 0
	for line := 1; len(data) > 0; line++ {
		if bad > maxCasesFileProblems {
			// Not a JSON Lines file at all: the rest would say the same.
			return nil
		}
		if len(items) > l.opt.Ceilings.MaxCases {
			// It can never run; parsing on would only cost memory.
			l.errorAt(Pos{File: l.file, Line: items[len(items)-1].Line}, "the %s holds more than %d %s, above --max-cases %d: split it or raise the ceiling", kind.file, l.opt.Ceilings.MaxCases, kind.items, l.opt.Ceilings.MaxCases)
			return nil
		}
		text := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			text, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if !utf8.Valid(text) {
			at := 0
			for at < len(text) {
				r, size := utf8.DecodeRune(text[at:])
				if r == utf8.RuneError && size <= 1 {
					break
				}
				at += size
			}
			l.errorAt(Pos{File: l.file, Line: line, Col: utf8.RuneCount(text[:at]) + 1}, "this line is not valid UTF-8: JSON Lines are UTF-8 text (escape other bytes as \\u00XX in a JSON string)")
			bad++
			continue
		}
		n, err := jsonLine(text, line)
		if err != nil {
			var je *jsonError
			errors.As(err, &je)
			l.errorAt(Pos{File: l.file, Line: line, Col: je.col}, "invalid JSON: %s: %s", je.msg, kind.example)
			bad++
			continue
		}
		items = append(items, n)
	}
	return items
}

// jsonError is a problem in one JSON line, at a column of it.
type jsonError struct {
	col int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

// jsonReader turns one JSON line into yaml.Nodes, keeping every value's
// column (1-based, in characters, as yaml.v3 counts them).
type jsonReader struct {
	dec  *json.Decoder
	text []byte
	line int
}

// jsonLine parses text (line number line) as exactly one JSON value.
func jsonLine(text []byte, line int) (*yaml.Node, error) {
	r := &jsonReader{dec: json.NewDecoder(bytes.NewReader(text)), text: text, line: line}
	r.dec.UseNumber()
	n, err := r.value(0)
	if err != nil {
		return nil, err
	}
	off := r.next()
	if _, err := r.dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &jsonError{col: r.col(off), msg: "more than one JSON value on the line"}
	}
	return n, nil
}

// next is the offset of the next token: past the last one read, its
// whitespace and the ',' or ':' the decoder takes in passing.
func (r *jsonReader) next() int {
	off := int(r.dec.InputOffset())
	for off < len(r.text) && strings.IndexByte(" \t\r\n,:", r.text[off]) >= 0 {
		off++
	}
	return off
}

// col turns a byte offset into a 1-based column in characters.
func (r *jsonReader) col(off int) int {
	return utf8.RuneCount(r.text[:min(off, len(r.text))]) + 1
}

// fail turns a decoder error into a jsonError at the right column.
func (r *jsonReader) fail(err error, off int) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		return &jsonError{col: r.col(max(int(se.Offset)-1, off)), msg: se.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &jsonError{col: r.col(len(r.text)), msg: "the line ends inside a JSON value (a case object is one line: write \\n for a newline in a string)"}
	}
	return &jsonError{col: r.col(off), msg: err.Error()}
}

func (r *jsonReader) value(depth int) (*yaml.Node, error) {
	off := r.next()
	if depth > maxJSONDepth {
		return nil, &jsonError{col: r.col(off), msg: fmt.Sprintf("nested more than %d levels deep", maxJSONDepth)}
	}
	tok, err := r.dec.Token()
	if err != nil {
		return nil, r.fail(err, off)
	}
	n := &yaml.Node{Line: r.line, Column: r.col(off)}
	switch t := tok.(type) {
	case json.Delim:
		end := json.Delim('}')
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
		if t == '[' {
			end = ']'
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		}
		for r.dec.More() {
			if n.Kind == yaml.MappingNode {
				koff := r.next()
				k, err := r.dec.Token()
				if err != nil {
					return nil, r.fail(err, koff)
				}
				key, _ := k.(string)
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Style: yaml.DoubleQuotedStyle, Line: r.line, Column: r.col(koff)})
			}
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		eoff := r.next()
		if tok, err := r.dec.Token(); err != nil {
			return nil, r.fail(err, eoff)
		} else if tok != end {
			return nil, &jsonError{col: r.col(eoff), msg: fmt.Sprintf("expected %q", end)}
		}
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", t, yaml.DoubleQuotedStyle
	case json.Number:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", t.String()
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(t)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}

// sharedFile resolves a file that many entries may name (a cases_file or
// an inputs_file value in n) under the spec's path rules. fresh says the
// caller is to parse it and store the result in memo; otherwise cases is
// what memo holds (nil after problems, which are reported once) or nil
// when the path itself was refused.
func (l *loader) sharedFile(n *yaml.Node, key string, memo map[string][]Case) (written string, ref fileRef, cases []Case, fresh bool) {
	written, ok := l.str(n, key)
	if !ok {
		return "", fileRef{}, nil, false
	}
	if ref, ok = l.path(n, key); !ok {
		return "", fileRef{}, nil, false
	}
	if cases, seen := memo[ref.rel]; seen {
		return "", fileRef{}, cases, false
	}
	memo[ref.rel] = nil // problems are reported once
	return written, ref, nil, true
}
