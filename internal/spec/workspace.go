package spec

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// The workspace rule: a CI workspace holds secrets a spec must not reach.
// git's own folder holds the job's token (actions/checkout's extraheader),
// and earlier steps leave credential files that git does not track. So no
// path a spec names may pass through a component named .git, and inside a
// git work tree only files git tracks may be named, unless the workflow
// (never the spec) admits untracked ones with --allow-untracked.

// hfsIgnorable are the code points HFS+ ignores in file names, so that
// ".g\u200cit" opens .git there (git's is_hfs_dotgit refuses them too).
var hfsIgnorable = []rune{
	0x200c, 0x200d, 0x200e, 0x200f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
	0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f,
	0xfeff,
}

// isDotGit reports whether one path component names git's folder on some
// file system: ".git" in any case, also with the trailing dots and spaces
// Windows drops, the code points HFS+ ignores, or as NTFS's short name
// "git~1". behaves runs on Linux, where only the exact name opens it; the
// rest costs nothing and holds wherever the workspace is mounted from.
func isDotGit(c string) bool {
	c = strings.Map(func(r rune) rune {
		for _, x := range hfsIgnorable {
			if r == x {
				return -1
			}
		}
		return r
	}, c)
	c = strings.TrimRight(c, ". ")
	return strings.EqualFold(c, ".git") || strings.EqualFold(c, "git~1")
}

// hasDotGit reports whether any component of p, split at both slashes,
// names git's folder.
func hasDotGit(p string) bool {
	for _, c := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if isDotGit(c) {
			return true
		}
	}
	return false
}

// AllowGlob is one --allow-untracked pattern: a slash-separated path
// relative to the repository root whose components are path.Match
// patterns ("*" and "?" within one component, "[a-z]" classes, "\" to
// escape), or "**" for any number of components (zero included).
type AllowGlob struct {
	pattern string
	parts   []string
}

// ParseAllowGlob checks an --allow-untracked pattern. It refuses what could
// only be a mistake: an absolute path, an empty, "." or ".." component, a
// "**" inside a component, bad path.Match syntax, and any component naming
// .git (which no flag admits).
func ParseAllowGlob(s string) (AllowGlob, error) {
	if s == "" {
		return AllowGlob{}, errors.New("empty pattern: give a path relative to the repository root, such as gen/**")
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return AllowGlob{}, fmt.Errorf("pattern %q has control characters", s)
	}
	if strings.HasPrefix(s, "/") {
		return AllowGlob{}, fmt.Errorf("pattern %q is absolute: patterns are relative to the repository root", s)
	}
	parts := strings.Split(s, "/")
	for _, p := range parts {
		switch {
		case p == "":
			return AllowGlob{}, fmt.Errorf("pattern %q has an empty component (use gen/** for everything under gen)", s)
		case p == "." || p == "..":
			return AllowGlob{}, fmt.Errorf("pattern %q has a %q component: patterns are clean paths inside the repository root", s, p)
		case p == "**":
		case strings.Contains(p, "**"):
			return AllowGlob{}, fmt.Errorf("pattern %q has ** inside a component: ** stands alone for any depth (gen/**/*.py)", s)
		case isDotGit(p):
			return AllowGlob{}, fmt.Errorf("pattern %q names .git: nothing under .git is ever admitted", s)
		default:
			if _, err := path.Match(p, ""); err != nil {
				return AllowGlob{}, fmt.Errorf("pattern %q: %q is not a valid glob (use *, ?, [a-z] and \\ to escape)", s, p)
			}
		}
	}
	return AllowGlob{pattern: s, parts: parts}, nil
}

// String is the pattern as given.
func (g AllowGlob) String() string { return g.pattern }

// Match reports whether a clean slash-separated path relative to the
// repository root matches the pattern.
func (g AllowGlob) Match(rel string) bool {
	if len(g.parts) == 0 {
		return false
	}
	names := strings.Split(rel, "/")
	// ok[j] says whether the pattern's parts so far match names[:j]; one
	// pass per part keeps "**" linear however many there are.
	ok := make([]bool, len(names)+1)
	ok[0] = true
	for _, p := range g.parts {
		next := make([]bool, len(names)+1)
		if p == "**" {
			seen := false
			for j := range ok {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(names); j++ {
				if ok[j-1] {
					m, _ := path.Match(p, names[j-1])
					next[j] = m
				}
			}
		}
		ok = next
	}
	return ok[len(names)]
}

// admitted checks a path relative to the root (clean, slash-separated)
// against the workspace rule: no .git component, and tracked by git (or
// admitted by --allow-untracked) inside a git work tree. shown is the path
// as the user wrote it; resolved, when not empty, is the path rel was
// resolved to (symlinks followed), for messages.
func (l *loader) admitted(n *yaml.Node, key, shown, rel string, resolved bool) bool {
	what := fmt.Sprintf("%s %q", key, short(shown))
	if resolved {
		what = fmt.Sprintf("%s %q resolves to %q, which", key, short(shown), short(rel))
	}
	if hasDotGit(rel) {
		l.errorf(n, "%s has a path component named .git: a spec may never name git's own files, which can hold the job's credentials", what)
		return false
	}
	if l.repo == nil {
		return true
	}
	tracked, err := l.repo.Tracked(rel)
	if err != nil {
		l.errorf(n, "%s cannot be checked against the git index: %v", what, err)
		return false
	}
	if tracked {
		return true
	}
	for _, g := range l.opt.AllowUntracked {
		if g.Match(rel) {
			return true
		}
	}
	// A folder git tracks files in is named as the folder it is, from the
	// index alone: the file system is not asked what sits there, and
	// whatever it is, it is not a tracked file.
	if dir, err := l.repo.TrackedDir(rel); err == nil && dir {
		l.errorf(n, "%s is a directory, not a regular file", what)
		return false
	}
	hint := ""
	if !resolved && key != "files match" {
		hint = l.suggestTracked(rel)
	}
	l.errorf(n, "%s is not a file git tracks%s: inside a git work tree a spec may name only files git tracks, since untracked ones can be credentials an earlier step wrote (git add it, or have the workflow admit it with --allow-untracked GLOB)", what, hint)
	return false
}

// maxSuggestDistance is how far (Damerau–Levenshtein, on the path relative
// to the root) a tracked path may be from a mistyped one to be suggested.
const maxSuggestDistance = 2

// suggestTracked returns ` (did you mean "…"?)` naming the tracked paths
// nearest to rel (at most three), as paths relative to the folder the
// mistyped one was written in, or "". Only the index is asked (see
// gitindex.Repo.Near): an untracked file is never suggested, so the
// message reveals nothing about the work tree.
func (l *loader) suggestTracked(rel string) string {
	near := l.repo.Near(rel, maxSuggestDistance)
	if len(near) == 0 {
		return ""
	}
	near = near[:min(len(near), 3)]
	dir, err := filepath.Rel(l.root, l.dir)
	if err != nil {
		return ""
	}
	quoted := make([]string, len(near))
	for i, p := range near {
		shown, err := filepath.Rel(dir, filepath.FromSlash(p))
		if err != nil {
			return ""
		}
		quoted[i] = fmt.Sprintf("%q", short(filepath.ToSlash(shown)))
	}
	return " (did you mean " + strings.Join(quoted, " or ") + "?)"
}
