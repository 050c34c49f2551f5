package spec

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var checkerKeys = []string{"file", "dir", "entry", "profile"}

// checkerNameRE is what a checker's name may hold: it is written in
// reasons ("checker split: …") and labels, so letters, digits, '.', '_'
// and '-', as a profile's.
var checkerNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// CheckDir is the folder, under the checker's /program, where a checker's
// job delivers what it checks (CheckerJob): a checker's own files may not
// use the name.
const CheckDir = ".behaves-check"

// Checker is a checker program (the spec's checkers:): a program like any
// other, with a profile (which may have a build stage), that judges the
// streams whose matcher names it (verdict.Kind Checker) and is never
// judged itself.
type Checker struct {
	Name string
	// File is the checker's file (for a dir: checker, its folder) relative
	// to the repository root.
	File    string
	Profile string
	Pos     Pos
	// Program holds the checker's files, as a program's: one file under
	// the profile's program_name (or its base name), or a folder's files
	// and its entry.
	Program runner.Program
}

// checkerUse is a checker matcher's checker as written, checked once every
// checker and program entry is known.
type checkerUse struct {
	name string
	pos  Pos
}

// checkers parses the checkers mapping: name → {file | dir (+ entry),
// profile}. It returns the valid ones sorted by name, and the names of
// all it declares (a checker with a mistake is still one a matcher may
// name: the mistake is reported once, where it is).
func (l *loader) checkers(n *yaml.Node, profiles map[string]*profileState) (checkers []Checker, declared []string) {
	pairs, ok := l.entries(n, "checkers", "a mapping from checker names to checkers, like {split: {file: checkers/split.py, profile: python}}")
	if !ok {
		return nil, nil
	}
	for _, p := range pairs {
		name := p.key.Value
		declared = append(declared, name)
		if !checkerNameRE.MatchString(name) {
			l.errorf(p.key, "checker name %q may contain only letters, digits, '.', '_' and '-'", short(name))
			continue
		}
		if c, ok := l.checker(name, p.key, p.val, profiles); ok {
			checkers = append(checkers, c)
		}
	}
	slices.SortFunc(checkers, func(a, b Checker) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(declared)
	return checkers, declared
}

// checker parses one checker.
func (l *loader) checker(name string, key, n *yaml.Node, profiles map[string]*profileState) (Checker, bool) {
	what := "checkers." + name
	fs, ok := l.mapping(n, what, "a mapping with file (or dir and entry) and profile", checkerKeys)
	if !ok {
		return Checker{}, false
	}
	before := len(l.errs)
	c := Checker{Name: name, Pos: l.pos(key)}
	c.Profile = l.profileOf(fs, n, what+" is missing required key profile: the profile the checker runs under", profiles)
	file, hasFile := fs.get("file")
	dir, hasDir := fs.get("dir")
	entryKey, hasEntry := fs.get("entry")
	switch {
	case hasFile && hasDir:
		l.errorf(later(file.key, dir.key), "%s has both file and dir: a checker is one file, or a folder with an entry", what)
	case hasFile:
		ref, ok := l.path(file.val, "file")
		if !ok {
			break
		}
		data, ok := l.handle(file.val, "file", ref)
		if !ok {
			break
		}
		entry := ref.base
		if st := profiles[c.Profile]; st != nil && st.programName {
			entry = st.prof.Runtime.ProgramName
		}
		if entry == CheckDir {
			l.errorf(file.val, "%s: the checker's file name %q is kept for what it checks: rename it (or set the profile's program_name)", what, CheckDir)
		}
		c.File, c.Program = ref.rel, runner.Program{Entry: entry, Files: map[string]runner.File{entry: data}}
	case hasDir:
		ref, ok := l.dirPath(dir.val)
		if !ok {
			break
		}
		f, ok := l.readFolder(dir.val, ref)
		if !ok {
			break
		}
		if hasEntry {
			if f.prog.Entry, ok = l.entryPath(entryKey.val, ref, f); !ok {
				break
			}
		}
		for p := range f.prog.Files {
			if p == CheckDir || strings.HasPrefix(p, CheckDir+"/") {
				l.errorf(dir.val, "%s: dir %q holds %q, under %s, which is kept for what the checker checks: rename it", what, short(ref.shown), short(p), CheckDir)
				break
			}
		}
		for p := range f.prog.Links {
			if p == CheckDir || strings.HasPrefix(p, CheckDir+"/") {
				l.errorf(dir.val, "%s: dir %q holds %q, under %s, which is kept for what the checker checks: rename it", what, short(ref.shown), short(p), CheckDir)
				break
			}
		}
		c.File, c.Program = ref.rel, f.prog
	default:
		l.errorf(n, "%s needs file (one file) or dir (a folder, with entry: the file the profile's command is given)", what)
	}
	if hasEntry && !hasDir {
		l.errorf(entryKey.key, "%s has entry without dir: entry names the file of a checker's folder that the command runs; a file: checker's entry is its file", what)
	}
	return c, len(l.errs) == before
}

// checkCheckers holds the checker matchers and the program entries
// against the checkers: a checker matcher names a checker (not a program
// entry), and no program entry names a checker's file or folder (a
// checker judges programs and is never judged itself). checkersNode is
// the checkers value (nil without one), names every checker it declares.
func (l *loader) checkCheckers(checkersNode *yaml.Node, names []string, checkers []Checker, entries []*entry) {
	programs := map[string]bool{}
	for _, e := range entries {
		programs[e.name] = true
	}
	for _, u := range l.checkerUses {
		if slices.Contains(names, u.name) {
			continue
		}
		switch {
		case checkersNode == nil && programs[u.name]:
			l.errorAt(u.pos, "checker %q is a program entry, not a checker: a checker is a program listed under checkers: (name: {file: PATH, profile: PROFILE}), never judged itself; to compare with another program, use same_as: reference", short(u.name))
		case checkersNode == nil:
			l.errorAt(u.pos, "unknown checker %q: the spec has no checkers; list it under checkers: (%s: {file: PATH, profile: PROFILE})", short(u.name), short(u.name))
		case programs[u.name]:
			l.errorAt(u.pos, "checker %q is a program entry, not a checker%s; checkers: %s", short(u.name), suggest(u.name, names), strings.Join(names, ", "))
		default:
			l.errorAt(u.pos, "unknown checker %q%s; checkers: %s", short(u.name), suggest(u.name, names), strings.Join(names, ", "))
		}
	}
	byFile := map[string]string{}
	for _, c := range checkers {
		byFile[c.File] = c.Name
	}
	for _, e := range entries {
		var rels []string
		for _, r := range e.files {
			rels = append(rels, r.rel)
		}
		for _, fp := range e.folders {
			rels = append(rels, fp.ref.rel)
		}
		for _, rel := range rels {
			if name, ok := byFile[rel]; ok && e.fileNode != nil {
				l.errorf(e.fileNode, "program %q names %q, the file of checker %q: a checker judges programs and is never judged itself; name the program's own file", short(e.name), short(rel), short(name))
			}
		}
	}
}

// checkerLoad is how many checker invocations the programs' cases make
// (one per run of each stream a checker judges) and the most output their
// runs hold in memory until their checkers ran (those runs × 2 streams ×
// the program profile's output_limit).
func checkerLoad(progs []Program, profiles map[string]*profileState) (runs int, held int64) {
	for _, p := range progs {
		limit := int64(0)
		if st := profiles[p.Profile]; st != nil {
			limit = st.prof.Runtime.OutputLimit
		}
		for _, c := range p.Cases {
			n := 0
			for _, m := range []*verdict.Matcher{c.Expect.Stdout, c.Expect.Stderr} {
				if verdict.CheckerOf(m) != nil {
					n++
				}
			}
			if n > 0 {
				runs += n * max(c.Repeat, 1)
				held += int64(max(c.Repeat, 1)) * 2 * limit
			}
		}
	}
	return runs, held
}

// CheckedStream is one stream of one run that a checker judges: what its
// checker job delivers for it.
type CheckedStream struct {
	// Input is the case's stdin, Output the run's kept stream, Answer the
	// checker matcher's answer ("" for none).
	Input, Output, Answer []byte
}

// The names of the files a checker gets for each stream it checks, in
// testlib's order: its arguments are their paths.
const (
	checkInput  = "input"
	checkOutput = "output"
	checkAnswer = "answer"
)

// CheckerJob is the job that runs checker c on every stream of streams,
// one invocation each, in order: the checker's files, with each stream's
// input, output and answer delivered beside them (read-only, under
// /program/CheckDir/<k>/), and each invocation's arguments those three
// paths, testlib's order. The profile's ProgramName is set as Job sets a
// program's.
func (s *Spec) CheckerJob(c Checker, streams []CheckedStream) runner.Job {
	prof := s.Profiles[c.Profile].Runtime
	prof.ProgramName = c.Program.Entry
	prog := c.Program
	files := make(map[string]runner.File, len(prog.Files)+3*len(streams))
	for p, f := range prog.Files {
		files[p] = f
	}
	invs := make([]runner.Invocation, len(streams))
	for k, st := range streams {
		dir := path.Join(CheckDir, fmt.Sprint(k))
		args := make([]string, 0, 3)
		for _, f := range []struct {
			name string
			data []byte
		}{{checkInput, st.Input}, {checkOutput, st.Output}, {checkAnswer, st.Answer}} {
			p := path.Join(dir, f.name)
			files[p] = runner.BytesFile(f.data)
			args = append(args, path.Join(runner.DefaultProgramDir, p))
		}
		invs[k] = runner.Invocation{Args: args}
	}
	prog.Files = files
	return runner.Job{Program: prog, Profile: prof, Invocations: invs, Checker: true}
}
