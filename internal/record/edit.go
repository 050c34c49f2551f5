package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/yamledit"
)

// edit is the byte edit that writes exp as t's expectation: a new expect
// after the case's last entry, or in place of the expect it has.
func (t *text) edit(exp Expectation) (yamledit.Edit, error) {
	if t.file.Format == JSONLines {
		return t.jsonEdit(exp)
	}
	return t.yamlEdit(exp)
}

// yamlEntries are exp's entries as YAML, each "key: value" on one line.
func yamlEntries(exp Expectation) ([]string, error) {
	entries := []string{"exit_code: " + strconv.Itoa(exp.ExitCode)}
	for _, s := range []struct{ name, v string }{{"stdout", exp.Stdout}, {"stderr", exp.Stderr}} {
		if s.name == "stderr" && s.v == "" {
			continue
		}
		q, err := yamledit.DoubleQuoted(s.v)
		if err != nil {
			return nil, fmt.Errorf("its %s cannot be written as YAML exactly: %w", s.name, err)
		}
		entries = append(entries, s.name+": {equals: "+q+"}")
	}
	return entries, nil
}

// yamlEdit: a flow case gets ", expect: {…}" before its closing brace; a
// block case a new expect: line at its keys' indentation after its last
// line; an expect that is there is replaced in its own style (a block
// mapping stays one).
func (t *text) yamlEdit(exp Expectation) (yamledit.Edit, error) {
	d := t.file.doc
	entries, err := yamlEntries(exp)
	if err != nil {
		return yamledit.Edit{}, err
	}
	nl := d.Newline()
	flow := "{" + strings.Join(entries, ", ") + "}"
	placeErr := func(err error) (yamledit.Edit, error) {
		return yamledit.Edit{}, fmt.Errorf("behaves could not find where to write it in the file (%v): write it by hand", err)
	}
	if t.expect != nil {
		start, err := d.Start(t.expect)
		if err != nil {
			return placeErr(err)
		}
		end, err := d.End(t.expect, t.node.Content[0].Column-1)
		if err != nil {
			return placeErr(err)
		}
		if t.expect.Kind == yaml.MappingNode && t.expect.Style&yaml.FlowStyle == 0 {
			indent := strings.Repeat(" ", t.expect.Column-1)
			return yamledit.Edit{Start: start, End: end, Text: strings.Join(entries, nl+indent)}, nil
		}
		return yamledit.Edit{Start: start, End: end, Text: flow}, nil
	}
	if t.node.Style&yaml.FlowStyle != 0 {
		_, last, err := d.FlowClose(t.node)
		if err != nil {
			return placeErr(err)
		}
		sep := ", "
		switch d.Data[last-1] {
		case ',':
			sep = " "
		case '{':
			sep = ""
		}
		return yamledit.Edit{Start: last, End: last, Text: sep + "expect: " + flow}, nil
	}
	end, err := d.End(t.node, -1)
	if err != nil {
		return placeErr(err)
	}
	at := d.LineEnd(end)
	indent := strings.Repeat(" ", t.node.Content[0].Column-1)
	text := nl + indent + "expect:" + nl + indent + "  " + strings.Join(entries, nl+indent+"  ")
	return yamledit.Edit{Start: at, End: at, Text: text}, nil
}

// jsonEdit: the line's object gets "expect": {…} as its last member, or
// its "expect" member's value is replaced; the rest of the line stays.
func (t *text) jsonEdit(exp Expectation) (yamledit.Edit, error) {
	obj := `{"exit_code": ` + strconv.Itoa(exp.ExitCode)
	for _, s := range []struct{ name, v string }{{"stdout", exp.Stdout}, {"stderr", exp.Stderr}} {
		if s.name == "stderr" && s.v == "" {
			continue
		}
		q, err := jsonString(s.v)
		if err != nil {
			return yamledit.Edit{}, fmt.Errorf("its %s cannot be written as JSON exactly: %w", s.name, err)
		}
		obj += `, "` + s.name + `": {"equals": ` + q + `}`
	}
	obj += "}"
	lineStart := t.file.lines[t.line-1][0]
	if t.expectAt != nil {
		return yamledit.Edit{Start: lineStart + t.expectAt[0], End: lineStart + t.expectAt[1], Text: obj}, nil
	}
	line := t.file.lineBytes(t.line)
	closing := len(bytes.TrimRight(line, " \t\r")) - 1
	if closing < 0 || line[closing] != '}' {
		return yamledit.Edit{}, errors.New("its line does not end with its object's closing brace")
	}
	last := len(bytes.TrimRight(line[:closing], " \t\r"))
	sep := ", "
	if last > 0 && line[last-1] == '{' {
		sep = ""
	}
	return yamledit.Edit{Start: lineStart + last, End: lineStart + last, Text: sep + `"expect": ` + obj}, nil
}

// jsonString is s as a JSON string in which every character that is not
// printable is an escape (as DoubleQuoted writes YAML), read back to check
// it is s.
func jsonString(s string) (string, error) {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || yamledit.MustEscape(r):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	var back string
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back != s {
		return "", errors.New("it does not read back as it is")
	}
	return b.String(), nil
}

// apply makes f's pending edits and checks the result reads as f did with
// only those expectations changed. An edit that fails the check is left
// out, as a Problem; the others are made. The change is nil when no edit
// remains.
func (f *File) apply(ps []pending) (*Change, []pending, []Problem) {
	ch, err := f.change(ps)
	if err == nil {
		return ch, ps, nil
	}
	// Find the edits at fault: each one alone.
	var good []pending
	var failed []Problem
	for _, p := range ps {
		if _, err := f.change([]pending{p}); err != nil {
			failed = append(failed, Problem{Pos: p.t.pos, Case: p.t.name, Why: fmt.Sprintf("behaves could not write it in place (%v): write it by hand", err)})
			continue
		}
		good = append(good, p)
	}
	if len(good) == 0 {
		return nil, nil, failed
	}
	if ch, err = f.change(good); err != nil {
		for _, p := range good {
			failed = append(failed, Problem{Pos: p.t.pos, Case: p.t.name, Why: fmt.Sprintf("behaves could not write it in place (%v): write it by hand", err)})
		}
		return nil, nil, failed
	}
	return ch, good, failed
}

// change applies ps to f's bytes and checks the result.
func (f *File) change(ps []pending) (*Change, error) {
	edits := make([]yamledit.Edit, len(ps))
	for i, p := range ps {
		edits[i] = p.edit
	}
	data, err := yamledit.Apply(f.Data, edits)
	if err != nil {
		return nil, err
	}
	if f.Format == JSONLines {
		err = f.checkJSON(data, ps)
	} else {
		err = f.checkYAML(data, ps)
	}
	if err != nil {
		return nil, err
	}
	return &Change{File: f, Edits: edits, Data: data}, nil
}

// expectValue is exp as a decoder reads it back (ints as num makes them).
func expectValue(exp Expectation, num func(int) any) map[string]any {
	m := map[string]any{"exit_code": num(exp.ExitCode), "stdout": map[string]any{"equals": exp.Stdout}}
	if exp.Stderr != "" {
		m["stderr"] = map[string]any{"equals": exp.Stderr}
	}
	return m
}

// checkYAML: data parses, and reads as f.Data with each pending case's
// expect (added or replaced) reading as its expectation, and nothing else
// changed.
func (f *File) checkYAML(data []byte, ps []pending) error {
	after, err := yamledit.Parse(data)
	if err != nil {
		return fmt.Errorf("the edited file does not parse: %w", err)
	}
	if after.Root == nil {
		return errors.New("the edited file is empty")
	}
	byNode := map[*yaml.Node]pending{}
	for _, p := range ps {
		byNode[p.t.node] = p
	}
	reads := func(n *yaml.Node, exp Expectation) error {
		var got map[string]any
		if err := n.Decode(&got); err != nil || !reflect.DeepEqual(got, expectValue(exp, func(n int) any { return n })) {
			return fmt.Errorf("the expect written at line %d does not read back as the run's", n.Line)
		}
		return nil
	}
	var at func(a, b *yaml.Node) (bool, error)
	at = func(a, b *yaml.Node) (bool, error) {
		p, ok := byNode[a]
		if !ok {
			return false, nil
		}
		want := len(a.Content)
		if !p.replace {
			want += 2
		}
		if b.Kind != yaml.MappingNode || b.Style != a.Style || len(b.Content) != want {
			return true, fmt.Errorf("the case at line %d reads otherwise after the edit", a.Line)
		}
		for i := 0; i+1 < len(a.Content); i += 2 {
			if err := yamledit.Compare(a.Content[i], b.Content[i], at); err != nil {
				return true, err
			}
			if p.replace && a.Content[i].Value == "expect" {
				if err := reads(b.Content[i+1], p.exp); err != nil {
					return true, err
				}
				continue
			}
			if err := yamledit.Compare(a.Content[i+1], b.Content[i+1], at); err != nil {
				return true, err
			}
		}
		if !p.replace {
			k := b.Content[len(b.Content)-2]
			if k.Kind != yaml.ScalarNode || k.Value != "expect" {
				return true, fmt.Errorf("the case at line %d has no expect after the edit", a.Line)
			}
			return true, reads(b.Content[len(b.Content)-1], p.exp)
		}
		return true, nil
	}
	return yamledit.Compare(f.doc.Root, after.Root, at)
}

// checkJSON: every line but the pending cases' is as it was, and each of
// those reads as its object did with expect set to the expectation.
func (f *File) checkJSON(data []byte, ps []pending) error {
	before := bytes.Split(f.Data, []byte("\n"))
	after := bytes.Split(data, []byte("\n"))
	if len(before) != len(after) {
		return errors.New("the edit changed the number of lines")
	}
	edited := map[int]pending{}
	for _, p := range ps {
		edited[p.t.line] = p
	}
	decode := func(line []byte) (map[string]any, error) {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		return m, nil
	}
	for i := range before {
		p, ok := edited[i+1]
		if !ok {
			if !bytes.Equal(before[i], after[i]) {
				return fmt.Errorf("line %d changed", i+1)
			}
			continue
		}
		want, err := decode(before[i])
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		want["expect"] = expectValue(p.exp, func(n int) any { return json.Number(strconv.Itoa(n)) })
		got, err := decode(after[i])
		if err != nil || !reflect.DeepEqual(got, want) {
			return fmt.Errorf("line %d does not read back as the case with the run's expectation", i+1)
		}
	}
	return nil
}
