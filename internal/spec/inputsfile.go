package spec

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
	"gopkg.in/yaml.v3"
)

// A program entry's inputs_file lists invocations to compare with its
// reference, without expectations: JSON Lines, one {"args": [...],
// "stdin": "..."} object a line. Line N becomes the case "#N", positioned
// at that line, expecting the same exit code and output as the reference
// (same_as): by default stdout and stderr under normalize trailing; the
// mapping form {path: ..., streams: [...], normalize: ..., ignore_case:
// ...} says otherwise for the entry's cases of the file. The path follows
// every rule of a spec path, as a cases_file does, and a file named by
// many entries is parsed once.

// inputKeys are the keys of one line of an inputs file.
var inputKeys = []string{"args", "stdin"}

// inputsFileKeys are the keys of inputs_file's mapping form: the file,
// and the comparison its cases make (a same_as expectation's options).
var inputsFileKeys = []string{"path", "streams", "normalize", "ignore_case"}

// inputs parses an entry's inputs_file, a path or a mapping with path,
// streams, normalize and ignore_case, and returns the entry's cases of the
// file, each expecting what the reference does under that comparison.
func (l *loader) inputs(what string, n *yaml.Node) []Case {
	sa := verdict.SameAs{Streams: []string{"stdout", "stderr"}, Normalize: verdict.NormalizeTrailing}
	pathNode := n
	switch n.Kind {
	case yaml.MappingNode:
		fs, _ := l.mapping(n, what+".inputs_file", "", inputsFileKeys)
		l.comparison(fs, &sa, "[stdout, stderr]")
		f, ok := fs.get("path")
		if !ok {
			if !fs.misspelt("path") {
				l.errorf(n, "%s.inputs_file is missing required key path: the JSON Lines file of inputs, like {path: tests/inputs.jsonl, streams: [stdout]}", what)
			}
			return nil
		}
		pathNode = f.val
	case yaml.SequenceNode:
		l.errorf(n, "inputs_file must be a path (tests/inputs.jsonl) or a mapping like {path: tests/inputs.jsonl, streams: [stdout]}, got %s", describe(n))
		return nil
	}
	shared := l.inputsFile(pathNode)
	// The parsed file is shared by every entry naming it: each case gets
	// an expectation of its own, this entry's comparison.
	cases := make([]Case, len(shared))
	for i, c := range shared {
		cmp := sa
		cmp.Streams = slices.Clone(sa.Streams)
		c.Expect.SameAs = &cmp
		cases[i] = c
	}
	return cases
}

// inputsFile reads and parses the inputs file that n (an inputs_file
// value) names. It returns nil when the file has problems (each reported
// once, at its place in the inputs file).
func (l *loader) inputsFile(n *yaml.Node) []Case {
	const key = "inputs_file"
	written, ref, memoized, fresh := l.sharedFile(n, key, l.inputsFiles)
	if !fresh {
		return memoized
	}
	if strings.ToLower(path.Ext(ref.rel)) != ".jsonl" {
		l.errorf(n, `%s %q must end in .jsonl (JSON Lines: one {"args": [...], "stdin": "..."} object a line)`, key, short(written))
		return nil
	}
	data, ok := l.read(n, key, ref)
	if !ok {
		return nil
	}
	shown := filepath.Join(filepath.Dir(l.file), filepath.FromSlash(written))
	dir := filepath.Dir(filepath.Join(l.root, filepath.FromSlash(ref.rel)))
	var cases []Case
	before := len(l.errs)
	l.within(shown, dir, "the inputs file's folder", func() {
		items := l.jsonLines(data, inputsLines)
		if len(items) == 0 {
			if len(l.errs) == before {
				l.errorAt(Pos{File: l.file, Line: 1}, `the inputs file holds no input: write one object a line, like {"args": ["1"], "stdin": "2 3\n"} (no input would pass vacuously)`)
			}
			return
		}
		for _, item := range items {
			if c, ok := l.input(item); ok {
				cases = append(cases, c)
			}
			if len(l.errs)-before > maxCasesFileProblems {
				break
			}
		}
	})
	if n := len(l.errs) - before; n > 0 {
		cases = nil
		if n > maxCasesFileProblems {
			l.errs[before:].sort()
			l.errs = l.errs[:before+maxCasesFileProblems]
			l.errorAt(l.errs[len(l.errs)-1].Pos, "the inputs file has more problems than the %d shown: fix these first", maxCasesFileProblems)
		}
	}
	for i := range cases {
		cases[i].File = ref.rel
	}
	l.inputsFiles[ref.rel] = cases
	return cases
}

// input parses one line of an inputs file into its case "#N".
func (l *loader) input(n *yaml.Node) (Case, bool) {
	before := len(l.errs)
	what := fmt.Sprintf("line %d", n.Line)
	c := Case{
		Name:       "#" + strconv.Itoa(n.Line),
		Pos:        l.pos(n),
		Invocation: runner.Invocation{Args: []string{}},
		// inputs gives each entry's cases of the file their comparison.
		Expect: verdict.Expectation{SameAs: &verdict.SameAs{}},
	}
	c.SameAsPos = c.Pos
	fs, ok := l.mapping(n, what, `an object with args and stdin, like {"args": ["1"], "stdin": "2 3\n"}`, inputKeys)
	if !ok {
		return c, false
	}
	if f, ok := fs.get("args"); ok {
		if args, ok := l.stringList(f.val, "args", `["5"]`); ok {
			c.Invocation.Args = args
		}
	}
	if f, ok := fs.get("stdin"); ok {
		if s, ok := l.str(f.val, "stdin"); ok {
			c.Invocation.Stdin = []byte(s)
		}
	}
	return c, len(l.errs) == before
}
