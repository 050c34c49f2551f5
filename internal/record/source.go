package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/yamledit"
)

// maxFileSize bounds a file read: the spec loader caps the spec and every
// cases file at 16 MiB, so anything larger changed since it was loaded.
const maxFileSize = max(spec.MaxSpecSize, spec.DefaultMaxFileSize)

// Format is how a file holds its cases.
type Format int

const (
	// YAML: the spec, or a .yaml/.yml cases file (a list of cases).
	YAML Format = iota
	// JSONLines: a .jsonl cases file, one case object a line.
	JSONLines
)

// File is one file record may edit: the spec, or a cases file.
type File struct {
	// Name is the file as behaves names it in messages: the spec's path
	// as given, a cases file's beside it.
	Name string
	// Path is the file on disk, symlinks resolved: what Change.Write
	// writes.
	Path   string
	Format Format
	// Data is what the file held when it was read.
	Data []byte

	doc   *yamledit.Doc // YAML
	lines [][2]int      // JSON Lines: line N's bytes are Data[lines[N-1][0]:lines[N-1][1]]
}

// key is a case's text: its file ("" for the spec: the case's File) and
// position there.
type key struct {
	file      string
	line, col int
}

// text is one case as written: the entry every program that has the case
// shares (the samples of a files: or dirs: entry; the entries naming one
// cases file).
type text struct {
	file *File
	pos  spec.Pos
	name string
	// node is a YAML case's mapping, expect its expect value (nil without
	// one).
	node, expect *yaml.Node
	// line is a JSON Lines case's line, and expectAt the byte range of its
	// "expect" member's value in it (nil without one).
	line     int
	expectAt *[2]int
}

func (t *text) hasExpect() bool { return t.expect != nil || t.expectAt != nil }

// Source is a spec and the files its cases are written in, as they were
// when read: what Make plans edits of.
type Source struct {
	spec  *spec.Spec
	files map[string]*File
	texts map[key]*text
}

// Read reads the files sp's cases are written in (the spec and each cases
// file, not inputs files) and finds each case's text at its position. The
// spec must be the file sp was loaded from: a spec whose bytes differ, or
// a case not found where sp places it, is an error (the file changed since
// it was loaded).
func Read(sp *spec.Spec) (*Source, error) {
	s := &Source{spec: sp, files: map[string]*File{}, texts: map[key]*text{}}
	f, err := readFile(sp.Path, sp.Path)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(f.Data); hex.EncodeToString(sum[:]) != sp.SHA256 {
		return nil, fmt.Errorf("%s changed since it was loaded: run behaves record again", sp.Path)
	}
	s.files[""] = f
	for _, p := range sp.Programs {
		for _, c := range p.Cases {
			if fromInputs(c) {
				continue
			}
			k := key{c.File, c.Pos.Line, c.Pos.Col}
			if s.texts[k] != nil {
				continue
			}
			f := s.files[c.File]
			if f == nil {
				if f, err = readFile(c.Pos.File, filepath.Join(sp.Root, filepath.FromSlash(c.File))); err != nil {
					return nil, err
				}
				s.files[c.File] = f
			}
			t, err := f.find(c)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: case %q: %w: run behaves record again", f.Name, c.Pos.Line, c.Name, err)
			}
			s.texts[k] = t
		}
	}
	return s, nil
}

// fromInputs says whether c is one of the cases an inputs_file makes
// (named #N: a written case's name never begins with #).
func fromInputs(c spec.Case) bool { return strings.HasPrefix(c.Name, "#") }

// readFile reads and parses the file at path (name in messages).
func readFile(name, path string) (*File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	fh, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > maxFileSize {
		return nil, fmt.Errorf("reading %s: larger than it was when loaded", name)
	}
	f := &File{Name: name, Path: real, Data: data}
	if strings.EqualFold(filepath.Ext(real), ".jsonl") {
		f.Format = JSONLines
		for start := 0; start < len(data); {
			end := len(data)
			if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
				end = start + i
			}
			f.lines = append(f.lines, [2]int{start, end})
			start = end + 1
		}
		return f, nil
	}
	if f.doc, err = yamledit.Parse(data); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return f, nil
}

// find finds c's text in f, at its position, and checks its name.
func (f *File) find(c spec.Case) (*text, error) {
	t := &text{file: f, pos: c.Pos, name: c.Name}
	if f.Format == JSONLines {
		if c.Pos.Line < 1 || c.Pos.Line > len(f.lines) {
			return nil, errors.New("its line is past the end of the file")
		}
		t.line = c.Pos.Line
		members, err := objectMembers(f.lineBytes(t.line))
		if err != nil {
			return nil, err
		}
		var name string
		if m, ok := members["name"]; !ok || json.Unmarshal(f.lineBytes(t.line)[m[0]:m[1]], &name) != nil || name != c.Name {
			return nil, errors.New("the line holds another case now")
		}
		if m, ok := members["expect"]; ok {
			t.expectAt = &m
		}
		return t, nil
	}
	t.node = findMapping(f.doc.Root, c.Pos.Line, c.Pos.Col)
	if t.node == nil {
		return nil, errors.New("no case at its position")
	}
	if v := value(t.node, "name"); v == nil || v.Value != c.Name {
		return nil, errors.New("another case is at its position now")
	}
	t.expect = value(t.node, "expect")
	return t, nil
}

func (f *File) lineBytes(line int) []byte {
	l := f.lines[line-1]
	return f.Data[l[0]:l[1]]
}

// findMapping is the mapping at line and col under n (nil for none).
func findMapping(n *yaml.Node, line, col int) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode && n.Line == line && n.Column == col {
		return n
	}
	for _, c := range n.Content {
		if c.Line > line {
			break // children are in document order
		}
		if m := findMapping(c, line, col); m != nil {
			return m
		}
	}
	return nil
}

// value is the value of key in the mapping m (nil without one).
func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// objectMembers returns, for a line that holds one JSON object, the byte
// range of each of its members' values, by name.
func objectMembers(line []byte) (map[string][2]int, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the line holds no JSON object now")
	}
	members := map[string][2]int{}
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return nil, errors.New("the line's JSON does not read")
		}
		start := int(dec.InputOffset())
		for start < len(line) && strings.IndexByte(" \t\r\n:", line[start]) >= 0 {
			start++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, errors.New("the line's JSON does not read")
		}
		members[name] = [2]int{start, int(dec.InputOffset())}
	}
	return members, nil
}
