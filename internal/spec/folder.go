package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/filekind"
	"github.com/behaves-dev/behaves/internal/gitindex"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// folderRef is a folder a dir: entry names, checked to be a directory
// inside the root.
type folderRef struct {
	// rel is the folder's path relative to the root, slash-separated, as
	// the user named it; realRel the same after symlinks.
	rel, realRel string
	// shown is the path as the user wrote it, for messages.
	shown string
	// real is the resolved path, the one that is walked.
	real string
}

// folderProgram is one folder of a dir: or dirs: entry and the program
// read from it.
type folderProgram struct {
	ref    folderRef
	folder folder
}

// folder is a folder program as the loader read it: its files, and the
// untracked files inside its folder that are not part of it.
type folder struct {
	prog runner.Program
	// untracked are the paths, relative to the root, of the files in the
	// folder that git does not track and --allow-untracked does not admit.
	untracked []string
}

// dirPath checks a dir: value: a folder inside the root, also after
// symlinks, with no .git component.
func (l *loader) dirPath(n *yaml.Node) (folderRef, bool) {
	const key = "dir"
	p, ok := l.str(n, key)
	if !ok {
		return folderRef{}, false
	}
	joined, rel, ok := l.lexical(n, key, p)
	if !ok {
		return folderRef{}, false
	}
	real, err := filepath.EvalSymlinks(joined)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.errorf(n, "dir %q does not exist (paths are relative to %s)", short(p), l.folderName())
		} else {
			l.errorf(n, "dir %q cannot be resolved: %v", short(p), unwrapPathError(err))
		}
		return folderRef{}, false
	}
	r, err := filepath.Rel(l.root, real)
	if err != nil || !inside(r) {
		l.errorf(n, "dir %q resolves to %q, outside the repository root %s: every path must stay inside it after symlinks", short(p), real, l.root)
		return folderRef{}, false
	}
	realRel := filepath.ToSlash(r)
	if hasDotGit(realRel) {
		l.errorf(n, "dir %q resolves to %q, which has a path component named .git: a spec may never name git's own files", short(p), short(realRel))
		return folderRef{}, false
	}
	fi, err := os.Lstat(real)
	if err != nil {
		l.errorf(n, "dir %q cannot be read: %v", short(p), unwrapPathError(err))
		return folderRef{}, false
	}
	if !fi.IsDir() {
		kind := "a file"
		if !fi.Mode().IsRegular() {
			kind = filekind.Of(fi.Mode())
		}
		l.errorf(n, "dir %q is %s, not a folder: name a file with file:, a folder with dir:", short(p), kind)
		return folderRef{}, false
	}
	return folderRef{rel: rel, realRel: realRel, shown: p, real: real}, true
}

// dirGlob expands a dirs pattern into the matching folders, in lexical
// order; files it matches are not programs and are passed over. No folder
// matching is an error.
func (l *loader) dirGlob(n *yaml.Node) []folderRef {
	p, matches, ok := l.globMatches(n, "dirs")
	if !ok {
		return nil
	}
	var refs []folderRef
	for _, m := range matches {
		if fi, err := os.Lstat(m); err != nil || !fi.IsDir() {
			continue // a file (or a link) the pattern also matches
		}
		shown := m
		if s, err := filepath.Rel(l.dir, m); err == nil {
			shown = filepath.ToSlash(s)
		}
		if strings.IndexFunc(filepath.Base(m), unicode.IsControl) >= 0 {
			l.errorf(n, "dirs match %q has control characters in its name: rename the folder", short(shown))
			continue
		}
		if hasDotGit(filepath.ToSlash(shown)) {
			continue // git's own folder is never a program
		}
		mn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: shown, Line: n.Line, Column: n.Column}
		if ref, ok := l.dirPath(mn); ok {
			refs = append(refs, ref)
		}
	}
	if len(refs) == 0 {
		l.errorf(n, "dirs %q matches no folder (patterns are relative to the spec's folder)", short(p))
	}
	return refs
}

// readFolder reads a folder program: every file git tracks under the
// folder, recursively (outside a git work tree, every regular file), plus
// the untracked ones --allow-untracked admits, each at its path relative
// to the folder; files git records as executable (outside git: with an
// execute bit) executable; symbolic links as links, when they resolve
// inside the folder. Anything named .git is never read. A folder with no
// file, over --max-program-files or --max-program-size, or holding a
// link out of it or a file that is neither a regular file nor a link, is
// an error at n naming it.
func (l *loader) readFolder(n *yaml.Node, ref folderRef) (folder, bool) {
	f := folder{prog: runner.Program{Folder: true, Files: map[string]runner.File{}, Executable: map[string]bool{}, Links: map[string]string{}}}
	var total int64
	count := 0
	maxFiles, maxSize := l.opt.Ceilings.MaxProgramFiles, l.opt.Ceilings.MaxProgramSize
	fail := func(format string, args ...any) error {
		l.errorf(n, "dir %q: "+format, append([]any{short(ref.shown)}, args...)...)
		return fs.SkipAll
	}
	err := filepath.WalkDir(ref.real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fail("cannot be read: %v", unwrapPathError(err))
		}
		if isDotGit(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		r, rerr := filepath.Rel(ref.real, p)
		if rerr != nil {
			return fail("cannot be walked: %v", rerr)
		}
		rel := filepath.ToSlash(r)
		if d.IsDir() || rel == "." {
			return nil
		}
		if strings.IndexFunc(rel, unicode.IsControl) >= 0 {
			return fail("holds %q, whose name has control characters: rename it", short(rel))
		}
		rootRel := path.Join(ref.realRel, rel)
		mode, tracked := uint32(0), true
		if l.repo != nil {
			m, ok, err := l.repo.Mode(rootRel)
			if err != nil {
				return fail("%q cannot be checked against the git index: %v", short(rel), err)
			}
			mode, tracked = m, ok
		}
		if !tracked && !slices.ContainsFunc(l.opt.AllowUntracked, func(g AllowGlob) bool { return g.Match(rootRel) }) {
			f.untracked = append(f.untracked, rootRel)
			return nil
		}
		if count++; count > maxFiles {
			return fail("holds more than %d files, above --max-program-files %d: name a smaller folder, or raise the ceiling", maxFiles, maxFiles)
		}
		fi, err := d.Info()
		if err != nil {
			return fail("%q cannot be read: %v", short(rel), unwrapPathError(err))
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return fail("link %q cannot be read: %v", short(rel), unwrapPathError(err))
			}
			f.prog.Links[rel] = target
		case fi.Mode().IsRegular():
			if fi.Size() > l.opt.MaxFileSize {
				return fail("%q is %s, above the %s cap for the files a spec names", short(rel), sizeOf(fi.Size()), verdict.FormatSize(l.opt.MaxFileSize))
			}
			// Hashed, not kept: the sandbox reads it again to deliver it.
			file, err := programFile(p, path.Join(ref.rel, rel), fi, l.opt.MaxFileSize)
			if err != nil {
				return fail("%q cannot be read: %v", short(rel), err)
			}
			if total += file.Bytes; total > maxSize {
				return fail("holds more than %s, above --max-program-size %s: name a smaller folder, or raise the ceiling", verdict.FormatSize(maxSize), verdict.FormatSize(maxSize))
			}
			f.prog.Files[rel] = file
			// A file git tracks is executable as git records it (what a
			// checkout elsewhere gives); any other by its execute bit.
			exec := fi.Mode()&0o111 != 0
			if l.repo != nil && tracked {
				exec = mode == gitindex.ModeExecutable
			}
			if exec {
				f.prog.Executable[rel] = true
			}
		default:
			return fail("holds %q, which is %s, not a regular file or a symbolic link", short(rel), filekind.Of(fi.Mode()))
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		l.errorf(n, "dir %q cannot be walked: %v", short(ref.shown), err)
		return folder{}, false
	}
	if errors.Is(err, fs.SkipAll) {
		return folder{}, false
	}
	for _, p := range slices.Sorted(maps.Keys(f.prog.Links)) {
		if err := runner.CheckLink(p, f.prog.Links[p], f.prog.Links); err != nil {
			l.errorf(n, "dir %q: %v: a link in a program's folder is delivered as a link, and must resolve inside the folder", short(ref.shown), err)
			return folder{}, false
		}
	}
	if len(f.prog.Files)+len(f.prog.Links) == 0 {
		what := "no file"
		if l.repo != nil {
			what = "no file git tracks"
		}
		l.errorf(n, "dir %q holds %s: a program's folder needs at least one (git add its files)", short(ref.shown), what)
		return folder{}, false
	}
	return f, true
}

// entryPath checks a dir: entry's entry: value against the program's
// files: the file, relative to the folder, that the profile's command is
// given (/program/<entry>).
func (l *loader) entryPath(n *yaml.Node, ref folderRef, f folder) (string, bool) {
	s, ok := l.str(n, "entry")
	if !ok {
		return "", false
	}
	if s == "" || path.IsAbs(s) || path.Clean(s) != s || s == ".." || strings.HasPrefix(s, "../") || strings.ContainsRune(s, 0) {
		l.errorf(n, "entry %q is not a clean path relative to dir %q (like tool/main.py)", short(s), short(ref.shown))
		return "", false
	}
	_, file := f.prog.Files[s]
	_, link := f.prog.Links[s]
	if !file && !link {
		l.errorf(n, "entry %q is not a file of dir %q%s", short(s), short(ref.shown), suggestFile(s, f.prog))
		return "", false
	}
	return s, true
}

// suggestFile is ` (did you mean "…"?)` naming the program's file nearest
// to s, or "".
func suggestFile(s string, prog runner.Program) string {
	best, bestDist := "", maxSuggestDistance+1
	for _, p := range slices.Sorted(maps.Keys(prog.Files)) {
		if d := gitindex.Distance(s, p, bestDist); d < bestDist {
			best, bestDist = p, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", short(best))
}

// withFile is a file a with: list delivers beside every program of its
// entry, at /program/<path>: its path as written, relative to the spec's
// folder.
type withFile struct {
	path string
	rel  string // the file's path relative to the root
	file runner.File
	exec bool
	node *yaml.Node
}

// withFiles checks and reads (hashes: see handle) a with: list: files git tracks (or that
// --allow-untracked admits), each a clean path inside the spec's folder
// (it is also where the file is delivered), named once.
func (l *loader) withFiles(n *yaml.Node) []withFile {
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "with must be a list of files like [harness/check.py], got %s", describe(n))
		return nil
	}
	var out []withFile
	seen := map[string]bool{}
	for _, item := range n.Content {
		p, ok := l.str(item, "with")
		if !ok {
			continue
		}
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
			l.errorf(item, "with %q is not a clean path inside the spec's folder (like harness/check.py): it is also where the file is delivered, /program/<path>", short(p))
			continue
		}
		if seen[p] {
			l.errorf(item, "with lists %q twice", short(p))
			continue
		}
		seen[p] = true
		ref, ok := l.path(item, "with")
		if !ok {
			continue
		}
		file, ok := l.handle(item, "with", ref)
		if !ok {
			continue
		}
		exec := ref.info.Mode()&0o111 != 0
		if l.repo != nil {
			if mode, tracked, err := l.repo.Mode(ref.rel); err == nil && tracked {
				exec = mode == gitindex.ModeExecutable
			}
		}
		out = append(out, withFile{path: p, rel: ref.rel, file: file, exec: exec, node: item})
	}
	return out
}

// addWith delivers e's with files beside p's program (named in messages
// as shown) and records where each comes from (p.With): a with file whose
// path is also a file or link of the program is an error naming both.
func (l *loader) addWith(e *entry, p *Program, shown string) {
	if len(e.with) == 0 {
		return
	}
	prog := p.Program
	files := maps.Clone(prog.Files)
	exec := maps.Clone(prog.Executable)
	if exec == nil {
		exec = map[string]bool{}
	}
	with := make(map[string]string, len(e.with))
	for _, w := range e.with {
		_, file := files[w.path]
		_, link := prog.Links[w.path]
		if file || link || overlaps(w.path, files) || overlaps(w.path, prog.Links) {
			l.errorf(w.node, "with %q collides with the file %q delivers at /program/%s: rename one of them", short(w.path), short(shown), short(w.path))
			continue
		}
		files[w.path] = w.file
		with[w.path] = w.rel
		if w.exec {
			exec[w.path] = true
		}
	}
	prog.Files, prog.Executable = files, exec
	p.Program, p.With = prog, with
}

// overlaps says whether p is a folder above a path of m, or one of m's
// paths is a folder above p: one of them could not be delivered.
func overlaps[V any](p string, m map[string]V) bool {
	for q := range m {
		if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}
