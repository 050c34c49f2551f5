package yamledit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// child follows a path of mapping keys and list indexes ("cases", "0").
func child(t *testing.T, n *yaml.Node, path ...string) (*yaml.Node, int) {
	t.Helper()
	indent := -1
	for _, p := range path {
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == p {
					indent = n.Content[i].Column - 1
					n, found = n.Content[i+1], true
					break
				}
			}
			if !found {
				t.Fatalf("no key %q", p)
			}
		case yaml.SequenceNode:
			i := int(p[0] - '0')
			indent = n.Column - 1
			n = n.Content[i]
		default:
			t.Fatalf("cannot follow %q", p)
		}
	}
	return n, indent
}

// TestSpan: Start and End cover exactly a node's text, whatever its style:
// the text between them is what the table says.
func TestSpan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		path      []string
		want      string
	}{
		{"plain", "a: b # c\n", []string{"a"}, "b"},
		{"plain multi-line", "a: b\n  c\n\n  d # e\nf: g\n", []string{"a"}, "b\n  c\n\n  d"},
		{"plain at the top", "a:\n  - b\n    c\n  - d\n", []string{"a", "0"}, "b\n    c"},
		{"double-quoted over lines", "a: \"b \\\" \n  c\" # d\n", []string{"a"}, "\"b \\\" \n  c\""},
		{"single-quoted", "a: 'it''s' # d\n", []string{"a"}, "'it''s'"},
		{"tagged", "a: !!str 5\n", []string{"a"}, "5"},
		{"literal", "a: |\n  x\n  # not a comment\n\nb: 1\n", []string{"a"}, "|\n  x\n  # not a comment"},
		{"literal keep", "a: |+\n  x\n\nb: 1\n", []string{"a"}, "|+\n  x\n"},
		{"flow with a comment", "a: {b: [1, \"]\"], # c }\n  d: 'e}'}\nf: 1\n", []string{"a"}, "{b: [1, \"]\"], # c }\n  d: 'e}'}"},
		{"block mapping", "a:\n  b: 1\n  c:\n  - x\n  - y  # z\nd: 1\n", []string{"a"}, "b: 1\n  c:\n  - x\n  - y"},
		{"block mapping ending in a null", "a:\n  b: 1\n  c:\nd: 1\n", []string{"a"}, "b: 1\n  c:"},
		{"multibyte before", "ä: {b: ö}\n", []string{"ä"}, "{b: ö}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			n, indent := child(t, d.Root, tc.path...)
			start, err := d.Start(n)
			if err != nil {
				t.Fatal(err)
			}
			end, err := d.End(n, indent)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(d.Data[start:end]); got != tc.want {
				t.Errorf("span %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFlowClose: the closing bracket of a flow collection, past brackets
// in quotes and comments, and the end of its last content.
func TestFlowClose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src       string
		wantClose int
		wantLast  string
	}{
		{`{name: c, args: [x]}`, 19, `{name: c, args: [x]`},
		{`{name: "}", it: it's }`, 21, `{name: "}", it: it's`},
		{"{name: c,\n args: [x]  # ]}\n}", 27, "{name: c,\n args: [x]"},
		{`{name: c, }`, 10, `{name: c,`},
	} {
		d, err := Parse([]byte(tc.src))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		closeAt, last, err := d.FlowClose(d.Root)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if closeAt != tc.wantClose || tc.src[:last] != tc.wantLast {
			t.Errorf("%q: close %d, last %q; want %d, %q", tc.src, closeAt, tc.src[:last], tc.wantClose, tc.wantLast)
		}
	}
	d, _ := Parse([]byte("a: [1]\n"))
	if _, _, err := d.FlowClose(d.Root); err == nil {
		t.Error("a block mapping has no flow close")
	}
}

func TestNewlineAndLineEnd(t *testing.T) {
	t.Parallel()
	d, err := Parse([]byte("a: 1\r\nb: 2 # c\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Newline() != "\r\n" {
		t.Errorf("newline %q", d.Newline())
	}
	off, err := d.Offset(2, 4)
	if err != nil || d.Data[off] != '2' {
		t.Fatalf("offset %d, %v", off, err)
	}
	if e := d.LineEnd(off); string(d.Data[off:e]) != "2 # c" {
		t.Errorf("line end: %q", d.Data[off:e])
	}
	if _, err := d.Offset(9, 1); err == nil {
		t.Error("a line past the end has no offset")
	}
	d, _ = Parse([]byte("a: 1"))
	if d.Newline() != "\n" || d.LineEnd(0) != 4 {
		t.Errorf("a file of one line: %q, %d", d.Newline(), d.LineEnd(0))
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	got, err := Apply([]byte("abcdef"), []Edit{{4, 5, "E"}, {1, 1, "1"}, {1, 1, "2"}, {2, 3, ""}})
	if err != nil || string(got) != "a12bdEf" {
		t.Errorf("%q, %v", got, err)
	}
	if _, err := Apply([]byte("abcdef"), []Edit{{1, 3, "x"}, {2, 4, "y"}}); err == nil {
		t.Error("overlapping edits were applied")
	}
	if _, err := Apply([]byte("ab"), []Edit{{1, 3, "x"}}); err == nil {
		t.Error("an edit past the end was applied")
	}
}

// TestDoubleQuoted: every string of valid UTF-8 comes back from yaml.v3
// exactly, on one line of printable characters; invalid UTF-8 is refused.
func TestDoubleQuoted(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	for _, r := range []rune{0xfeff, 0xfffe, 0xffff, 0x1f600, 0xe0001, 0x10ffff, 0x202e, 0x2066} {
		all.WriteRune(r)
	}
	for _, s := range []string{"", "1\n2\nFizz\n", `a "quoted" \ back`, "tab\there\r\n", "\x00\x1b[31mred\x7f", all.String(), strings.Repeat("x", 1<<16)} {
		q, err := DoubleQuoted(s)
		if err != nil {
			t.Errorf("%.40q: %v", s, err)
			continue
		}
		var back string
		if err := yaml.Unmarshal([]byte(q), &back); err != nil || back != s {
			t.Errorf("%.40q does not come back: %v", s, err)
		}
		for _, r := range q {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e || r == 0x2028 || r == 0xfeff {
				t.Errorf("%.40q: the quoted form holds %U", s, r)
				break
			}
		}
	}
	if _, err := DoubleQuoted("a\xffb"); err != ErrNotUTF8 {
		t.Errorf("invalid UTF-8: %v", err)
	}
	if utf8.ValidString("\xed\xa0\x80") {
		t.Fatal("a surrogate is valid UTF-8")
	}
}

// TestCompare: Compare finds a changed value, and at takes over the pairs
// it handles.
func TestCompare(t *testing.T) {
	t.Parallel()
	a, _ := Parse([]byte("a: [1, 2] # c\nb: x\n"))
	b, _ := Parse([]byte("# new\na: [1, 2]\nb: x\n"))
	if err := Compare(a.Root, b.Root, nil); err != nil {
		t.Errorf("comments and positions differ only: %v", err)
	}
	c, _ := Parse([]byte("a: [1, 3]\nb: x\n"))
	if err := Compare(a.Root, c.Root, nil); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a changed value: %v", err)
	}
	handled := 0
	err := Compare(a.Root, c.Root, func(x, y *yaml.Node) (bool, error) {
		if x.Kind == yaml.SequenceNode {
			handled++
			return true, nil
		}
		return false, nil
	})
	if err != nil || handled != 1 {
		t.Errorf("at: %v, %d", err, handled)
	}
}

// TestScalar: the range of a one-line or quoted scalar reads back as its
// value, in flow and block context; a block scalar, and a plain one over
// more lines, are refused.
func TestScalar(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want, err string }{
		{"a: {image: py:3.12, b: 1}\n", "py:3.12", ""},
		{"a: {image: \"py:3.12\"}\n", `"py:3.12"`, ""},
		{"a:\n  image: 'it''s' # c\n", `'it''s'`, ""},
		{"a:\n  image: !!str py:3 # c\n", "py:3", ""},
		{"a:\n  image: |-\n    py:3\n", "", "block scalar"},
		{"a:\n  image: py\n    :3\n", "", "does not read as the value"},
	} {
		d, err := Parse([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := child(t, d.Root, "a", "image")
		start, end, err := d.Scalar(n)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want an error with %q", tc.src, err, tc.err)
		case tc.err == "" && (err != nil || string(d.Data[start:end]) != tc.want):
			t.Errorf("%q: %q, %v; want %q", tc.src, d.Data[start:end], err, tc.want)
		}
	}
}

// TestWriteFile: the file is replaced through its symbolic link, keeping
// its mode and leaving no temporary file; over bytes other than those
// given as before, nothing is written.
func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "real.yml")
	if err := os.WriteFile(real, []byte("a: 1\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "behaves.yml")
	if err := os.Symlink("real.yml", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("a: 2\n"), []byte("a: 3\n")); !errors.Is(err, ErrChanged) {
		t.Errorf("over other bytes: %v", err)
	}
	if err := WriteFile(link, []byte("a: 1\n"), []byte("a: 3\n")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, nil, []byte("a: 4\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(real)
	fi, _ := os.Stat(real)
	li, _ := os.Lstat(link)
	if string(got) != "a: 4\n" || fi.Mode().Perm() != 0o640 || li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%q, mode %v, link %v", got, fi.Mode(), li.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the folder holds %d entries, want the file and its link", len(entries))
	}
}
