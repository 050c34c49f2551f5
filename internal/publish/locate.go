package publish

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// locateMaxBytes bounds how much of one stderr locate reads: a traceback or
// a compiler's first error comes early, and a program may write megabytes.
const locateMaxBytes = 256 << 10

// nameMaxBytes bounds the file name locate looks for (no file system
// allows a longer one): the name is the report's word and becomes part of
// a pattern, and matching costs the text's length times the pattern's.
const nameMaxBytes = 255

// locate returns the first false case of p whose stderr names a position
// in the program's own file, the file (a repository path: programFile, or
// for a folder program the file of its folder the position is in) and that
// position: the first compiler message ("main.c:12:5: error: …",
// "./main.go:3:2: …", "--> main.rs:2:5"), else the innermost frame of a
// Python traceback ('File "/program/main.py", line 7'; the last such line
// is the one closest to the error; in a folder program, the last under
// /program, whichever of its files it names). Only the position and a
// clean path under the program's folder are taken from the output; line
// is at least 1, col 0 when none was named.
func locate(p *report.Program) (c *report.Case, file string, line, col int, ok bool) {
	name := entryName(p)
	if len(name) > nameMaxBytes || name == "" && p.Dir == "" {
		return nil, "", 0, 0, false
	}
	// A folder program without an entry has no file of its own a
	// compiler message could name: only traceback frames locate it.
	var compiler, traceback *regexp.Regexp
	if name != "" {
		q := regexp.QuoteMeta(name)
		compiler = regexp.MustCompile(`(?m)^[ \t]*(?:--> )?(?:[^\s:"]*/)?` + q + `:(\d+)(?::(\d+))?(?::|[ \t]*$)`)
		traceback = regexp.MustCompile(`File "(?:` + regexp.QuoteMeta(mount(p)) + `/)?(` + q + `)", line (\d+)`)
	}
	if p.Dir != "" {
		traceback = regexp.MustCompile(`File "` + regexp.QuoteMeta(mount(p)) + `/([^"\n]{1,255})", line (\d+)`)
	}
	fileOf := func(rel string) string {
		if p.Dir == "" {
			return programFile(p)
		}
		if repoPath(rel) == "" || repoPath(p.Dir) == "" {
			return ""
		}
		return repoPath(path.Join(p.Dir, rel))
	}
	for j := range p.Cases {
		kase := &p.Cases[j]
		if kase.Verdict != verdict.False {
			continue
		}
		stderr := kase.Event.StderrData()
		if len(stderr) > locateMaxBytes {
			stderr = stderr[:locateMaxBytes]
		}
		if compiler != nil {
			if m := compiler.FindSubmatch(stderr); m != nil {
				if f := programFile(p); f != "" {
					return kase, f, atLeast1(string(m[1])), number(string(m[2])), true
				}
			}
		}
		all := traceback.FindAllSubmatch(stderr, -1)
		for k := len(all) - 1; k >= 0; k-- {
			if f := fileOf(string(all[k][1])); f != "" {
				return kase, f, atLeast1(string(all[k][2])), 0, true
			}
		}
	}
	return nil, "", 0, 0, false
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
