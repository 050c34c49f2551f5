package publish

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// locateMaxBytes bounds how much of one output locate reads: a traceback or
// a compiler's first error comes early, and a program may write megabytes.
const locateMaxBytes = 256 << 10

// nameMaxBytes bounds the file name a one-file program is looked for by
// (no file system allows a longer one): the name is the report's word.
const nameMaxBytes = 255

// pathMaxBytes bounds a path taken from output (Linux's PATH_MAX): no
// file of a program has a longer one, and a longer one is not looked up.
const pathMaxBytes = 4096

// lookupsMax bounds the paths one program's output gets looked up for
// (each a clean and a search of the list): its output is bounded, but a
// line like "a:1" is four bytes, and a program can write nothing else
// into every case. The first compiler messages and the innermost frames
// are looked at first, where a real position is.
const lookupsMax = 1000

// linkHopsMax bounds the links followed to find the file a path names
// (Linux's MAXSYMLINKS): a report's links could otherwise loop.
const linkHopsMax = 40

var (
	// compilerMessage is a line that starts with a path and a line number,
	// and maybe a column, then a colon or the end of the line: gcc and
	// clang ("src/x.c:8:25: error: …"), go ("./calc.go:7:2: …"), javac
	// ("Main.java:3: error: …"), rustc ("  --> src/main.rs:2:5"). The path
	// is checked and mapped by fileMap.source, never used as it is.
	compilerMessage = regexp.MustCompile(`(?m)^[ \t]*(?:--> )?([^\s:"]+):(\d+)(?::(\d+))?(?::|[ \t]*$)`)
	// tracebackFrame is a Python traceback's frame ('File
	// "/program/tool/parsing.py", line 12, in parse'; a SyntaxError's
	// 'File "/program/main.py", line 3').
	tracebackFrame = regexp.MustCompile(`File "([^"\n]+)", line (\d+)`)
)

// located is where a program's output places its failure: the case it
// describes, the repository file and the position in it (line at least 1,
// col 0 when none was named), and whether it was the build's output.
type located struct {
	c         *report.Case
	file      string
	line, col int
	build     bool
}

// locate finds where a false program's output places its failure: in the
// output of its failed build (stderr, then stdout), else in the stderr of
// its first false case that names a position. In one output the first
// compiler message that names a file of the program wins, else the
// innermost traceback frame that does (the last one printed, closest to
// the error). Only the line, the column and a file the program delivered
// are taken from the output (fileMap): everything a program prints is its
// author's word.
func locate(p *report.Program) (located, bool) {
	m, ok := newFileMap(p)
	if !ok {
		return located{}, false
	}
	var first *report.Case
	for j := range p.Cases {
		if p.Cases[j].Verdict == verdict.False {
			first = &p.Cases[j]
			break
		}
	}
	if first == nil {
		return located{}, false
	}
	// A failed build's cases never ran: their own output is empty, the
	// compiler's is the build's.
	if p.Build != nil && first.Event.BuildFailure != "" {
		for _, out := range [][]byte{p.Build.StderrData(), p.Build.StdoutData()} {
			if file, line, col, ok := m.find(out); ok {
				return located{c: first, file: file, line: line, col: col, build: true}, true
			}
		}
	}
	for j := range p.Cases {
		kase := &p.Cases[j]
		if kase.Verdict != verdict.False {
			continue
		}
		if file, line, col, ok := m.find(kase.Event.StderrData()); ok {
			return located{c: kase, file: file, line: line, col: col}, true
		}
	}
	return located{}, false
}

// fileMap maps a path a program's output names to the repository file it
// stands for.
//
// The program's report lists what it delivered (files: each path under
// /program with its source in the repository), and only a path that
// names one of those files (following the program's own links) maps: to
// its source, so a with: file maps to its own repository path. A path is
// absolute under the program's folder, or relative to the working
// directory, which is that folder ("./calc.go", "src/x.c"). Anything else
// a program prints (/program/../etc/passwd, a file it never had) maps to
// nothing.
//
// A report without the list (an earlier behaves, or one whose size budget
// left it out: files_omitted) maps as behaves did before there was one: a
// folder program's path to the same path under its folder (a clean
// repository path, which may not exist: a with: file is placed there too),
// a one-file program's own file name to its file.
//
// For a one-file program, a compiler message naming its file's name in
// another folder maps to its file too (a build that copied it elsewhere).
type fileMap struct {
	p *report.Program
	// lookups is what is left of lookupsMax.
	lookups int
	// prefix is the program's folder in the sandbox with a slash
	// ("/program/").
	prefix string
	// entry is a one-file program's file name in the sandbox ("" for a
	// folder program, or when the report gives no usable one).
	entry string
}

func newFileMap(p *report.Program) (*fileMap, bool) {
	m := &fileMap{p: p, prefix: mount(p) + "/", lookups: lookupsMax}
	if p.Dir == "" {
		if name := entryName(p); len(name) <= nameMaxBytes {
			m.entry = name
		}
	}
	// Without a list, a one-file program with no name to look for has no
	// path to map.
	return m, len(p.Files) > 0 || p.Dir != "" || m.entry != ""
}

// find returns the file and position the start of out names (see locate).
func (m *fileMap) find(out []byte) (file string, line, col int, ok bool) {
	if len(out) > locateMaxBytes {
		out = out[:locateMaxBytes]
	}
	if m.lookups <= 0 {
		return "", 0, 0, false
	}
	for _, sm := range compilerMessage.FindAllSubmatchIndex(out, m.lookups) {
		m.lookups--
		if f := m.source(string(out[sm[2]:sm[3]]), true); f != "" {
			col := 0
			if sm[6] >= 0 {
				col = number(string(out[sm[6]:sm[7]]))
			}
			return f, atLeast1(string(out[sm[4]:sm[5]])), col, true
		}
	}
	frames := tracebackFrame.FindAllSubmatchIndex(out, -1)
	for k := len(frames) - 1; k >= 0 && m.lookups > 0; k-- {
		m.lookups--
		sm := frames[k]
		if f := m.source(string(out[sm[2]:sm[3]]), false); f != "" {
			return f, atLeast1(string(out[sm[4]:sm[5]])), 0, true
		}
	}
	return "", 0, 0, false
}

// source is the repository file that named stands for, or "" (see
// fileMap). lenient admits, for a one-file program, its file's name in
// another folder.
func (m *fileMap) source(named string, lenient bool) string {
	if named == "" || len(named) > pathMaxBytes {
		return ""
	}
	abs := named
	if !path.IsAbs(abs) {
		abs = m.prefix + abs // relative to the working directory
	}
	if rel, ok := strings.CutPrefix(path.Clean(abs), m.prefix); ok && rel != "" {
		if f := m.delivered(rel); f != "" {
			return f
		}
	}
	if lenient && m.entry != "" && path.Base(named) == m.entry {
		return programFile(m.p)
	}
	return ""
}

// delivered is the repository file of rel, a clean path under the
// program's folder, or "".
func (m *fileMap) delivered(rel string) string {
	p := m.p
	if len(p.Files) > 0 {
		if f, ok := m.resolve(rel); ok {
			return repoPath(f.Source)
		}
		return ""
	}
	// No list: the mapping of reports without one.
	if p.Dir != "" {
		if repoPath(p.Dir) == "" {
			return ""
		}
		return repoPath(path.Join(p.Dir, rel))
	}
	if rel == m.entry {
		return programFile(p)
	}
	return ""
}

// resolve finds the file of the program's list that rel names, following
// the program's links in any of its components as the kernel would, at
// most linkHopsMax of them; false for a path that names no file (nothing
// listed, a folder, a file used as a folder, a link out of the program).
func (m *fileMap) resolve(rel string) (report.ProgramFile, bool) {
	hops := 0
	for i := 0; ; {
		end := len(rel)
		if j := strings.IndexByte(rel[i:], '/'); j >= 0 {
			end = i + j
		}
		f, ok := m.lookup(rel[:end])
		switch {
		case !ok && end == len(rel):
			return report.ProgramFile{}, false
		case !ok: // a folder: only files and links are listed
			i = end + 1
			continue
		case f.Target == "" && end == len(rel):
			return f, true
		case f.Target == "": // a file is no folder
			return report.ProgramFile{}, false
		}
		// A link (reportread admits a target only on a link): its target,
		// relative to the link's folder, takes its place.
		if hops++; hops > linkHopsMax {
			return report.ProgramFile{}, false
		}
		next := path.Join(path.Dir(rel[:end]), f.Target, rel[end:])
		if next == "." || next == ".." || strings.HasPrefix(next, "../") || path.IsAbs(next) {
			return report.ProgramFile{}, false
		}
		rel, i = next, 0
	}
}

// lookup finds the entry of the list at exactly name. The list is sorted
// by path (the report's form, which reportread checks); in a list that is
// not, a path may go unfound, never found wrong.
func (m *fileMap) lookup(name string) (report.ProgramFile, bool) {
	files := m.p.Files
	i, ok := slices.BinarySearchFunc(files, name, func(f report.ProgramFile, name string) int {
		return strings.Compare(f.Path, name)
	})
	if !ok {
		return report.ProgramFile{}, false
	}
	return files[i], true
}

// entryName is the program's file name inside the sandbox: the command's
// argument under the program mount (the profile's program_name, e.g.
// main.py; a folder program's entry), else the base name of the program
// file (a folder program's entry, or nothing without one).
func entryName(p *report.Program) string {
	if p.Dir != "" {
		return p.Entry
	}
	prefix := mount(p) + "/"
	for j := range p.Cases {
		for _, a := range p.Cases[j].Event.Command {
			if rest, ok := strings.CutPrefix(a, prefix); ok && rest != "" {
				return rest
			}
		}
	}
	if p.File == "" {
		return ""
	}
	return path.Base(p.File)
}

// mount is the folder where the program's files were inside the sandbox
// ("/program"), without a trailing slash.
func mount(p *report.Program) string {
	return strings.TrimRight(p.Settings.ProgramDirOf(), "/")
}

// number parses a decimal position; 0 when absent or too large.
func number(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func atLeast1(s string) int { return max(number(s), 1) }

// position is file:line, or file:line:col with a column.
func position(file string, line, col int) string {
	s := file + ":" + strconv.Itoa(line)
	if col > 0 {
		s += ":" + strconv.Itoa(col)
	}
	return s
}
