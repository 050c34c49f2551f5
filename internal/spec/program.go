package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
	"gopkg.in/yaml.v3"
)

var (
	topKeys     = []string{"version", "profiles", "checkers", "programs"}
	programKeys = []string{"name", "file", "files", "dir", "dirs", "entry", "with", "profile", "cases", "cases_file", "reference", "inputs_file", "gate"}
	caseKeys    = []string{"name", "args", "stdin", "stdin_file", "expect", "repeat"}
	expectKeys  = []string{"exit_code", "stdout", "stderr", "same_as", "streams", "normalize", "ignore_case"}
	matcherKeys = []string{"equals", "contains", "regex", "json", "numbers", "checker", "ignore_case", "normalize", "unordered", "lines", "subset", "abs", "rel", "answer", "answer_file"}
)

// Version is the only spec format version this package reads.
const Version = 1

// MaxRepeat bounds repeat: a case runs at most this many times.
const MaxRepeat = 100

// entry is one parsed item of programs.
type entry struct {
	pos      Pos
	name     string
	nameNode *yaml.Node
	profile  string
	// fileNode is the file, files, dir or dirs value; glob is set for
	// files and dirs.
	fileNode *yaml.Node
	glob     bool
	files    []fileRef
	// folders are a dir: entry's folder, or a dirs: entry's matches, each
	// with the program read from it (nil for a file or files entry).
	folders []folderProgram
	// with are the files delivered beside every program of the entry, and
	// withNode the with value.
	with     []withFile
	withNode *yaml.Node
	cases    []Case
	// reference is the entry's reference (another entry's name), "" for
	// none; refNode its value.
	reference string
	refNode   *yaml.Node
	// notGating: gate: false, which the workflow admitted
	// (Options.AllowNonGating).
	notGating bool
}

// spec validates the top-level mapping and builds the Spec.
func (l *loader) spec(root *yaml.Node) *Spec {
	fs, ok := l.mapping(root, "the spec", "a mapping with keys version, profiles and programs", topKeys)
	if !ok {
		return nil
	}
	if f, ok := fs.get("version"); ok {
		if v, ok := l.integer(f.val, "version"); ok && v != Version {
			l.errorf(f.val, "unsupported version %d: this behaves reads version %d", v, Version)
		}
	} else if !fs.misspelt("version") {
		l.errorf(root, "the spec is missing required key version: add \"version: %d\" at the top", Version)
	}

	var profiles map[string]*profileState
	profilesNode := root
	if f, ok := fs.get("profiles"); ok {
		profilesNode = f.key
		profiles = l.profiles(f.val)
	} else if !fs.misspelt("profiles") {
		l.errorf(root, "the spec is missing required key profiles: define at least one profile with image and command")
	}
	for _, name := range sortedKeys(l.opt.Images) {
		if profiles == nil {
			break // the profiles problem is reported already
		}
		if _, ok := profiles[name]; !ok {
			l.errorf(profilesNode, "--image %s=%s: no profile is named %q%s; profiles: %s", name, short(l.opt.Images[name]), name, suggest(name, sortedKeys(profiles)), strings.Join(sortedKeys(profiles), ", "))
		}
	}

	var checkers []Checker
	var checkersNode *yaml.Node
	var checkerNames []string
	if f, ok := fs.get("checkers"); ok {
		checkersNode = f.val
		checkers, checkerNames = l.checkers(f.val, profiles)
	}

	f, ok := fs.get("programs")
	if !ok {
		if !fs.misspelt("programs") {
			l.errorf(root, "the spec is missing required key programs: list at least one program with its cases")
		}
		return nil
	}
	if f.val.Kind != yaml.SequenceNode {
		if f.val.Kind != yaml.AliasNode {
			l.errorf(f.val, "programs must be a list of programs (\"- name: ...\"), got %s", describe(f.val))
		}
		return nil
	}
	if len(f.val.Content) == 0 {
		l.errorf(f.val, "programs is empty: list at least one program (an empty list would pass vacuously)")
		return nil
	}
	var entries []*entry
	for i, item := range f.val.Content {
		if e := l.entry(fmt.Sprintf("programs[%d]", i), item, profiles); e != nil {
			entries = append(entries, e)
		}
	}
	l.references(entries)
	l.checkCheckers(checkersNode, checkerNames, checkers, entries)
	s := l.expand(f.key, profiles, entries)
	if s != nil {
		s.Checkers = checkers
	}
	return s
}

// admitNonGating says whether the workflow admits gate: false (at n) on
// the entry named name; an error at n otherwise.
func (l *loader) admitNonGating(n *yaml.Node, name string) bool {
	for _, g := range l.opt.AllowNonGating {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	l.errorf(n, "gate: false on program %q needs the workflow's --allow-non-gating %q (the action's allow-non-gating input): the spec comes from the pull request, which must not take its own program out of the gate", short(name), name)
	return false
}

// ParseNonGating checks an --allow-non-gating pattern: a path.Match
// pattern over program entry names.
func ParseNonGating(s string) error {
	if s == "" || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Errorf("pattern %q: give a program entry name, or a glob over names (compare-*)", s)
	}
	if _, err := path.Match(s, ""); err != nil {
		return fmt.Errorf("pattern %q is not a valid glob (use *, ?, [a-z] and \\ to escape)", s)
	}
	return nil
}

// references checks each entry's reference and the same_as cases: a
// reference names another file: entry of the spec, and only an entry with
// a reference may have same_as cases.
func (l *loader) references(entries []*entry) {
	byName := map[string]*entry{}
	var names []string
	for _, e := range entries {
		if e.name == "" {
			continue
		}
		if _, dup := byName[e.name]; !dup {
			byName[e.name] = e
			names = append(names, e.name)
		}
	}
	for _, e := range entries {
		if e.reference != "" {
			r, ok := byName[e.reference]
			switch {
			case !ok:
				l.errorf(e.refNode, "unknown reference %q%s: a reference is another program entry of this spec; programs: %s", short(e.reference), suggest(e.reference, names), strings.Join(names, ", "))
			case r == e:
				l.errorf(e.refNode, "program %q names itself as its reference: name another program entry, the one whose output is right", short(e.name))
			case r.glob:
				l.errorf(e.refNode, "reference %q is a files: entry (one program per match): a reference must be one program, a file: entry", short(e.reference))
			}
			continue
		}
		for _, c := range e.cases {
			if c.Expect.SameAs != nil && !strings.HasPrefix(c.Name, "#") { // an inputs_file's: reported at inputs_file
				l.errorAt(c.SameAsPos, "case %q says same_as: reference, but program %q names no reference: add reference: <program entry> to the program entry, or write the expectation", short(c.Name), short(e.name))
			}
		}
	}
}

// entry parses one item of programs. It returns nil when the item is not a
// mapping.
func (l *loader) entry(what string, n *yaml.Node, profiles map[string]*profileState) *entry {
	fs, ok := l.mapping(n, what, "a mapping with name, file, files or dir, profile and cases", programKeys)
	if !ok {
		return nil
	}
	e := &entry{pos: l.pos(n)}
	if f, ok := fs.get("name"); ok {
		e.nameNode = f.val
		e.name, _ = l.name(f.val, "program name")
	} else if !fs.misspelt("name") {
		l.errorf(n, "%s is missing required key name", what)
	}

	if f, ok := fs.get("gate"); ok {
		if gate, ok := l.boolean(f.val, "gate"); ok && !gate {
			e.notGating = l.admitNonGating(f.val, e.name)
		}
	}

	e.profile = l.profileOf(fs, n, what+" is missing required key profile", profiles)

	file, hasFile := fs.get("file")
	files, hasFiles := fs.get("files")
	dir, hasDir := fs.get("dir")
	dirs, hasDirs := fs.get("dirs")
	entryKey, hasEntry := fs.get("entry")
	var given []field
	for _, k := range []string{"file", "files", "dir", "dirs"} {
		if f, ok := fs.get(k); ok {
			given = append(given, f)
		}
	}
	slices.SortFunc(given, func(a, b field) int {
		if a.key.Line != b.key.Line {
			return a.key.Line - b.key.Line
		}
		return a.key.Column - b.key.Column
	})
	switch {
	case len(given) > 1:
		l.errorf(later(given[0].key, given[1].key), "%s has both %s and %s: use exactly one of file (one program), files (a glob, one program per file), dir (a program that is a folder) or dirs (a glob, one program per folder)", what, given[0].key.Value, given[1].key.Value)
	case hasDir || hasDirs:
		node := dir.val
		var refs []folderRef
		if hasDir {
			if ref, ok := l.dirPath(dir.val); ok {
				refs = []folderRef{ref}
			}
		} else {
			node, e.glob = dirs.val, true
			refs = l.dirGlob(dirs.val)
		}
		e.fileNode = node
		for _, ref := range refs {
			f, ok := l.readFolder(node, ref)
			if !ok {
				continue
			}
			if hasEntry {
				s, ok := l.entryPath(entryKey.val, ref, f)
				if !ok {
					continue
				}
				f.prog.Entry = s
			}
			e.folders = append(e.folders, folderProgram{ref: ref, folder: f})
		}
	case hasFile:
		e.fileNode = file.val
		if ref, ok := l.path(file.val, "file"); ok {
			e.files = []fileRef{ref}
		}
	case hasFiles:
		e.fileNode, e.glob = files.val, true
		e.files, _ = l.glob(files.val)
	case fs.misspelt("file", "files", "dir", "dirs"):
		// The misspelt key is reported already.
	default:
		l.errorf(n, "%s needs file (one program), files (a glob, one program per match), dir (a program that is a folder of files) or dirs (a glob, one folder program per match)", what)
	}
	if hasEntry && !hasDir && !hasDirs {
		l.errorf(entryKey.key, "%s has entry without dir or dirs: entry names the file of a program's folder that the command runs; a file: program's entry is its file", what)
	}

	if f, ok := fs.get("with"); ok {
		e.withNode = f.val
		e.with = l.withFiles(f.val)
	}

	if f, ok := fs.get("reference"); ok {
		if s, ok := l.name(f.val, "reference"); ok {
			e.reference, e.refNode = s, f.val
		}
	}

	cases, hasCases := fs.get("cases")
	casesFile, hasCasesFile := fs.get("cases_file")
	inputsFile, hasInputsFile := fs.get("inputs_file")
	switch {
	case hasCases && hasCasesFile:
		l.errorf(later(cases.key, casesFile.key), "%s has both cases and cases_file: list the cases in the spec or name the file that holds them, not both", what)
	case hasCases:
		e.cases = l.cases(what+".cases", cases.val, e.name)
	case hasCasesFile:
		e.cases = l.casesFile(casesFile.val)
	case hasInputsFile:
		// The inputs file's cases are enough.
	case fs.misspelt("cases", "cases_file", "inputs_file"):
		// The misspelt key is reported already.
	default:
		l.errorf(n, "%s is missing required key cases: list at least one case, or name a file of cases with cases_file", what)
	}
	if hasInputsFile {
		if e.reference == "" {
			l.errorf(inputsFile.key, "%s has an inputs_file but no reference: each input is compared with a reference program; add reference: <program entry>", what)
		}
		e.cases = append(e.cases, l.inputs(what, inputsFile.val)...)
	}
	return e
}

// profileOf is the profile a program entry or a checker (n, whose fields
// are fs) names: "" when it names none (missing is the message) or one
// the spec lacks (the message suggests the nearest).
func (l *loader) profileOf(fs fields, n *yaml.Node, missing string, profiles map[string]*profileState) string {
	f, ok := fs.get("profile")
	if !ok {
		if !fs.misspelt("profile") { // the misspelt key's error says it
			l.errorf(n, "%s", missing)
		}
		return ""
	}
	s, ok := l.str(f.val, "profile")
	if !ok || profiles == nil {
		return ""
	}
	if _, known := profiles[s]; !known {
		names := sortedKeys(profiles)
		l.errorf(f.val, "unknown profile %q%s; profiles: %s", short(s), suggest(s, names), strings.Join(names, ", "))
		return ""
	}
	return s
}

// cases parses an entry's cases, checking that names are unique.
func (l *loader) cases(what string, n *yaml.Node, program string) []Case {
	if n.Kind == yaml.AliasNode {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "cases must be a list of cases (\"- name: ...\"), got %s", describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		l.errorf(n, "cases is empty: list at least one case (an empty list would pass vacuously)")
		return nil
	}
	return l.caseItems(func(i int, _ *yaml.Node) string { return fmt.Sprintf("%s[%d]", what, i) }, n.Content, program)
}

// caseItems parses a list of case nodes, checking that names are unique.
// whatOf names item i in messages; program names the program, "" for the
// cases of a cases file, which can serve many programs.
func (l *loader) caseItems(whatOf func(int, *yaml.Node) string, items []*yaml.Node, program string) []Case {
	var out []Case
	first := map[string]Pos{}
	for i, item := range items {
		c, nameNode, ok := l.kase(whatOf(i, item), item)
		if nameNode != nil && c.Name != "" {
			if p, dup := first[c.Name]; dup {
				if program == "" {
					l.errorf(nameNode, "duplicate case name %q (first at line %d): case names must be unique within a cases file", short(c.Name), p.Line)
				} else {
					l.errorf(nameNode, "duplicate case name %q in program %q (first at line %d): case names must be unique within a program", short(c.Name), short(program), p.Line)
				}
				ok = false
			} else {
				first[c.Name] = c.Pos
			}
		}
		if ok {
			out = append(out, c)
		}
	}
	return out
}

// kase parses one case. It returns the name's node for duplicate checks.
func (l *loader) kase(what string, n *yaml.Node) (Case, *yaml.Node, bool) {
	before := len(l.errs)
	c := Case{Pos: l.pos(n), Invocation: runner.Invocation{Args: []string{}}}
	fs, ok := l.mapping(n, what, "a mapping with name, args, stdin or stdin_file, and expect", caseKeys)
	if !ok {
		return c, nil, false
	}
	var nameNode *yaml.Node
	if f, ok := fs.get("name"); ok {
		nameNode = f.val
		if name, ok := l.name(f.val, "case name"); ok {
			if strings.HasPrefix(name, "#") {
				l.errorf(f.val, "case name %q begins with #: names beginning with # are kept for the cases an inputs_file makes (#1, #2, …); rename the case", short(name))
			} else {
				c.Name = name
			}
		}
	} else if !fs.misspelt("name") {
		l.errorf(n, "%s is missing required key name", what)
	}
	if f, ok := fs.get("args"); ok {
		if args, ok := l.stringList(f.val, "args", `["5"]`); ok {
			c.Invocation.Args = args
		}
	}
	stdin, hasStdin := fs.get("stdin")
	stdinFile, hasStdinFile := fs.get("stdin_file")
	switch {
	case hasStdin && hasStdinFile:
		l.errorf(later(stdin.key, stdinFile.key), "%s has both stdin and stdin_file: use one", what)
	case hasStdin:
		if s, ok := l.str(stdin.val, "stdin"); ok {
			c.Invocation.Stdin = []byte(s)
		}
	case hasStdinFile:
		if ref, ok := l.path(stdinFile.val, "stdin_file"); ok {
			if data, ok := l.read(stdinFile.val, "stdin_file", ref); ok {
				c.Invocation.Stdin = data
				c.StdinFile = ref.rel
			}
		}
	}
	if f, ok := fs.get("expect"); ok {
		c.Expect, c.SameAsPos = l.expect(what+".expect", f.val)
	}
	if f, ok := fs.get("repeat"); ok {
		c.Repeat = l.repeat(f.val)
	}
	return c, nameNode, len(l.errs) == before
}

// repeat parses a repeat count (of a case or a profile), 1..MaxRepeat; 0
// when it is not valid (the error is recorded).
func (l *loader) repeat(n *yaml.Node) int {
	v, ok := l.integer(n, "repeat")
	if !ok {
		return 0
	}
	if v < 1 || v > MaxRepeat {
		l.errorf(n, "repeat %d is out of range: a case runs 1 to %d times, each in a fresh container (repeat: 3 runs it three times and judges every run)", v, MaxRepeat)
		return 0
	}
	if max := l.opt.Ceilings.MaxRepeat; v > int64(max) {
		l.errorf(n, "repeat %d exceeds --max-repeat %d: lower it or raise the ceiling (behaves holds a case's runs in memory until the last is in)", v, max)
		return 0
	}
	return int(v)
}

// expect parses a case's expectation; a missing part keeps its default
// (exit code 0, no stream check). For a same_as expectation it also
// returns same_as's position.
func (l *loader) expect(what string, n *yaml.Node) (verdict.Expectation, Pos) {
	var exp verdict.Expectation
	fs, ok := l.mapping(n, what, "a mapping with exit_code, stdout and stderr (or same_as: reference)", expectKeys)
	if !ok {
		return exp, Pos{}
	}
	if f, ok := fs.get("same_as"); ok {
		exp.SameAs = l.sameAs(what, fs, f)
		return exp, l.pos(f.key)
	}
	for _, k := range []string{"streams", "normalize", "ignore_case"} {
		if f, ok := fs.get(k); ok {
			l.errorf(f.key, "%s is an option of same_as (expect: {same_as: reference, %s: ...}); for a stream's own matcher put it inside the matcher, like stdout: {equals: \"5\", %s: ...}", k, k, k)
		}
	}
	if f, ok := fs.get("exit_code"); ok {
		if v, ok := l.integer(f.val, "exit_code"); ok {
			if v < 0 || v > 255 {
				l.errorf(f.val, "exit_code %d is out of range: an exit code is 0..255", v)
			} else {
				exp.ExitCode = int(v)
			}
		}
	}
	if f, ok := fs.get("stdout"); ok {
		exp.Stdout = l.matcher(what+".stdout", "stdout", f.val)
	}
	if f, ok := fs.get("stderr"); ok {
		exp.Stderr = l.matcher(what+".stderr", "stderr", f.val)
	}
	return exp, Pos{}
}

// sameAs parses a differential expectation: same_as: reference, with the
// options streams (default [stdout]), normalize (default trailing) and
// ignore_case (default false). The reference's name is set once the
// program entry's reference is known.
func (l *loader) sameAs(what string, fs fields, f field) *verdict.SameAs {
	sa := &verdict.SameAs{Streams: []string{"stdout"}, Normalize: verdict.NormalizeTrailing}
	for _, k := range []string{"exit_code", "stdout", "stderr"} {
		if g, ok := fs.get(k); ok {
			l.errorf(g.key, "%s has both same_as and %s: a same_as case takes its exit code and output from the reference; drop %s, or drop same_as and write the expectation", what, k, k)
		}
	}
	if s, ok := l.str(f.val, "same_as"); ok && s != "reference" {
		l.errorf(f.val, "same_as %q is not a known value: write same_as: reference (the program entry's reference)", short(s))
	}
	l.comparison(fs, sa, "[stdout]")
	return sa
}

// comparison parses what a comparison with the reference takes from fs
// into sa: streams (defaultStreams, as written, when it is left out),
// normalize and ignore_case, as a same_as expectation and an inputs_file
// mapping write them.
func (l *loader) comparison(fs fields, sa *verdict.SameAs, defaultStreams string) {
	if g, ok := fs.get("streams"); ok {
		if list, ok := l.stringList(g.val, "streams", `[stdout, stderr]`); ok {
			seen := map[string]bool{}
			for i, s := range list {
				switch {
				case s != "stdout" && s != "stderr":
					l.errorf(g.val.Content[i], "streams[%d] %q is not a stream: list stdout, stderr or both (the exit code is always compared)", i, short(s))
				case seen[s]:
					l.errorf(g.val.Content[i], "streams lists %s twice", s)
				}
				seen[s] = true
			}
			if len(list) == 0 {
				l.errorf(g.val, "streams is empty: list stdout, stderr or both (leave it out for %s)", defaultStreams)
			}
			sa.Streams = list
		}
	}
	if g, ok := fs.get("ignore_case"); ok {
		sa.IgnoreCase, _ = l.boolean(g.val, "ignore_case")
	}
	if g, ok := fs.get("normalize"); ok {
		if s, ok := l.str(g.val, "normalize"); ok {
			switch verdict.Normalize(s) {
			case verdict.NormalizeTrailing, verdict.NormalizeExact, verdict.NormalizeWhitespace:
				sa.Normalize = verdict.Normalize(s)
			default:
				l.errorf(g.val, "normalize %q is not one of trailing (the default), exact or whitespace", short(s))
			}
		}
	}
}

// expand turns entries into programs: one per file, named
// "<name>/<base name>" for a files glob. It checks program names are unique
// and the number of invocations is within --max-cases, then reads the
// program files.
func (l *loader) expand(programsKey *yaml.Node, profiles map[string]*profileState, entries []*entry) *Spec {
	type first struct {
		line int
		file string
	}
	seen := map[string]first{}
	total := 0
	type pending struct {
		prog  Program
		node  *yaml.Node
		key   string
		ref   fileRef
		entry *entry
	}
	var progs []pending
	for _, e := range entries {
		def := 1
		if st := profiles[e.profile]; st != nil && st.prof.Repeat > 0 {
			def = st.prof.Repeat
		}
		runs := 0
		for k := range e.cases {
			if e.cases[k].Repeat == 0 {
				e.cases[k].Repeat = def
			}
			runs += e.cases[k].Repeat
		}
		total += (len(e.files) + len(e.folders)) * runs
		if e.name == "" {
			continue
		}
		for _, fp := range e.folders {
			name, group, from := e.name, "", ""
			if e.glob {
				name, group = e.name+"/"+path.Base(fp.ref.rel), e.name
				from = fmt.Sprintf(" from dirs match %q", short(fp.ref.shown))
			}
			if f, dup := seen[name]; dup {
				l.errorf(e.fileNode, "duplicate program name %q%s (first at line %d): program names must be unique", short(name), from, f.line)
				continue
			}
			seen[name] = first{line: e.pos.Line, file: fp.ref.shown}
			prog := Program{
				ID:        programID(e.name, fp.ref.rel),
				Name:      name,
				Group:     group,
				File:      fp.ref.rel,
				Profile:   e.profile,
				Pos:       e.pos,
				Cases:     withReference(cloneCases(e.cases), e.reference),
				Program:   fp.folder.prog,
				Untracked: fp.folder.untracked,
				Reference: e.reference,
				NotGating: e.notGating,
			}
			l.addWith(e, &prog, fp.ref.shown)
			progs = append(progs, pending{prog: prog})
		}
		if len(e.folders) > 0 {
			continue
		}
		if len(e.files) == 0 && !e.glob {
			// A file entry whose file failed still claims its name.
			if f, dup := seen[e.name]; dup {
				l.errorf(e.nameNode, "duplicate program name %q (first at line %d): program names must be unique", short(e.name), f.line)
			} else {
				seen[e.name] = first{line: e.pos.Line}
			}
			continue
		}
		entryName := ""
		if st := profiles[e.profile]; st != nil && st.programName {
			entryName = st.prof.Runtime.ProgramName
		}
		for _, ref := range e.files {
			name, at, key, from, shown := e.name, e.nameNode, "file", "", ""
			if e.glob {
				name, at, key = e.name+"/"+ref.base, e.fileNode, "files match"
				shown = ref.shown
				from = fmt.Sprintf(" from files match %q", short(ref.shown))
			}
			if f, dup := seen[name]; dup {
				also := ""
				if f.file != "" {
					also = fmt.Sprintf(", from %q", short(f.file))
				}
				l.errorf(at, "duplicate program name %q%s (first at line %d%s): program names must be unique", short(name), from, f.line, also)
				continue
			}
			seen[name] = first{line: e.pos.Line, file: shown}
			entry := ref.base
			if entryName != "" {
				entry = entryName
			}
			group := ""
			if e.glob {
				group = e.name
			}
			progs = append(progs, pending{
				prog: Program{
					ID:        programID(e.name, ref.rel),
					Name:      name,
					Group:     group,
					File:      ref.rel,
					Profile:   e.profile,
					Pos:       e.pos,
					Cases:     withReference(cloneCases(e.cases), e.reference),
					Program:   runner.Program{Entry: entry, Files: map[string]runner.File{}},
					Reference: e.reference,
					NotGating: e.notGating,
				},
				node:  e.fileNode,
				key:   key,
				ref:   ref,
				entry: e,
			})
		}
	}
	if len(l.errs) == 0 {
		all := programsOf(progs, func(p pending) Program { return p.prog })
		refRuns, held := referenceLoad(all, profiles)
		checks, checkHeld := checkerLoad(all, profiles)
		total += refRuns + checks
		switch max := l.opt.Ceilings.MaxReferenceOutput; {
		case held+checkHeld <= max:
		case checkHeld == 0:
			l.errorf(programsKey, "the reference programs' runs would hold up to %s of output in memory until their candidates are judged (%d runs × 2 streams × output_limit), above --max-reference-output %s: fewer distinct same_as inputs, a lower output_limit in the reference's profile, or a higher ceiling",
				verdict.FormatSize(held), refRuns, verdict.FormatSize(max))
		default:
			l.errorf(programsKey, "the runs that wait for a checker (%s) and the reference programs' runs (%s) would hold up to %s of output in memory until they are judged (runs × 2 streams × output_limit), above --max-reference-output %s, which bounds both: fewer checked or same_as cases, a lower output_limit, or a higher ceiling",
				verdict.Count(checks, "checked stream", "checked streams"), verdict.Count(refRuns, "run", "runs"), verdict.FormatSize(held+checkHeld), verdict.FormatSize(max))
		}
	}
	if max := l.opt.Ceilings.MaxCases; total > max {
		l.errorf(programsKey, "the spec asks for %d invocations (programs × cases × repeat), above --max-cases %d: split the spec, lower repeat or raise the ceiling", total, max)
		return nil
	}
	if len(l.errs) > 0 {
		return nil
	}

	// Everything is valid: read (hash) the program files.
	out := make([]Program, 0, len(progs))
	for _, p := range progs {
		if p.node == nil { // a folder program, read already
			out = append(out, p.prog)
			continue
		}
		if file, ok := l.handle(p.node, p.key, p.ref); ok {
			p.prog.Program.Files[p.prog.Program.Entry] = file
			l.addWith(p.entry, &p.prog, p.ref.shown)
		}
		out = append(out, p.prog)
	}
	if len(l.errs) > 0 {
		return nil
	}
	s := &Spec{Path: l.file, Root: l.root, Profiles: map[string]Profile{}, Programs: out}
	for name, st := range profiles {
		s.Profiles[name] = st.prof
	}
	return s
}

// later returns whichever node comes second in the file.
func later(a, b *yaml.Node) *yaml.Node {
	if a.Line > b.Line || (a.Line == b.Line && a.Column > b.Column) {
		return a
	}
	return b
}

// programID is stable across machines: the first 16 hex digits of
// sha256(entry name, NUL, file path relative to the root).
func programID(name, rel string) string {
	sum := sha256.Sum256([]byte(name + "\x00" + rel))
	return hex.EncodeToString(sum[:])[:16]
}

// withReference gives each same_as case of a program its own copy of the
// expectation naming the reference (cases from one cases file are shared by
// entries that may name different references), and each checker matcher
// that gives neither answer nor answer_file, in a program entry with a
// reference, its own copy naming the reference: its answer is the
// reference's output.
func withReference(cases []Case, reference string) []Case {
	for i := range cases {
		if sa := cases[i].Expect.SameAs; sa != nil {
			cp := *sa
			cp.Reference = reference
			cp.Streams = append([]string{}, sa.Streams...)
			cases[i].Expect.SameAs = &cp
		}
		if reference == "" {
			continue
		}
		for _, m := range []**verdict.Matcher{&cases[i].Expect.Stdout, &cases[i].Expect.Stderr} {
			if c := verdict.CheckerOf(*m); c == nil || c.AnswerGiven {
				continue
			}
			cp := **m
			cp.All = slices.Clone(cp.All)
			if c := verdict.CheckerOf(&cp); c != nil {
				c.AnswerReference = reference
			}
			*m = &cp
		}
	}
	return cases
}

func programsOf[T any](in []T, f func(T) Program) []Program {
	out := make([]Program, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

// cloneCases copies cases so that programs from one glob share no slice.
func cloneCases(cases []Case) []Case {
	out := make([]Case, len(cases))
	for i, c := range cases {
		c.Invocation.Args = append([]string{}, c.Invocation.Args...)
		out[i] = c
	}
	return out
}

// Job returns what the runner needs for program p: its files, its profile
// with ProgramName set to the file name the program gets under /program
// (the profile's program_name, or the program file's base name), and its
// invocations in case order, each case's Repeat runs one after the other
// (Runs maps them back). Expectations stay behind.
func (s *Spec) Job(p Program) runner.Job {
	prof := s.Profiles[p.Profile].Runtime
	prof.ProgramName = p.Program.Entry
	runs := p.Runs()
	invs := make([]runner.Invocation, 0, runs.Len())
	for _, c := range p.Cases {
		for range max(c.Repeat, 1) {
			invs = append(invs, c.Invocation)
		}
	}
	return runner.Job{Program: p.Program, Profile: prof, Invocations: invs}
}

// Runs maps a program's invocations (Job's, in order) to its cases' runs.
type Runs struct {
	// first[c] is case c's first invocation; first[len(cases)] the total.
	first []int
}

// Runs is the map of p's invocations to (case, run): case c's runs are the
// invocations First(c) … First(c)+Repeat-1.
func (p Program) Runs() Runs {
	first := make([]int, len(p.Cases)+1)
	for i, c := range p.Cases {
		first[i+1] = first[i] + max(c.Repeat, 1)
	}
	return Runs{first: first}
}

// Len is the number of invocations.
func (r Runs) Len() int { return r.first[len(r.first)-1] }

// First is case c's first invocation.
func (r Runs) First(c int) int { return r.first[c] }

// Count is how many runs case c has.
func (r Runs) Count(c int) int { return r.first[c+1] - r.first[c] }

// Case returns the case and the run (0-based) of invocation inv.
func (r Runs) Case(inv int) (c, run int) {
	c = sort.SearchInts(r.first[1:], inv+1)
	return c, inv - r.first[c]
}
