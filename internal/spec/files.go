package spec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/filekind"
	"github.com/behaves-dev/behaves/internal/gitindex"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// locate finds the repository root and the spec's folder, checks that the
// spec file stays inside the root, opens the git index when the root is a
// git work tree, and returns the spec file's real path (the one to read).
//
// The root is the nearest folder at or above the spec's folder, as the
// path was given, that holds a .git entry (a directory, or a file for
// worktrees and submodules), else the spec's folder. It is searched on the
// given path, not the resolved one, so that a symlink in the spec's path
// cannot move the root out of the repository; root, folder and spec file
// then have their symlinks resolved, and both must stay inside the root.
// git is never run.
func (l *loader) locate(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("locating the spec: %w", err)
	}
	if err := missingSpec(path, abs); err != nil {
		return "", err
	}
	lexDir := filepath.Dir(abs)
	lexRoot, git := lexDir, false
	for d := lexDir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			lexRoot, git = d, true
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if r, err := filepath.Rel(lexRoot, abs); err == nil && hasDotGit(filepath.ToSlash(r)) {
		return "", fmt.Errorf("the spec %q is inside .git: behaves reads no spec from git's own files", path)
	}
	root, err := filepath.EvalSymlinks(lexRoot)
	if err != nil {
		return "", fmt.Errorf("locating the repository root: %w", err)
	}
	dir, err := filepath.EvalSymlinks(lexDir)
	if err != nil {
		return "", fmt.Errorf("locating the spec's folder: %w", err)
	}
	if r, err := filepath.Rel(root, dir); err != nil || !inside(r) {
		return "", fmt.Errorf("the spec's folder resolves to %q, outside the repository root %q: the spec must stay inside it", dir, root)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("reading spec: %w", err)
	}
	r, err := filepath.Rel(root, real)
	if err != nil || !inside(r) {
		return "", fmt.Errorf("the spec %q resolves to %q, outside the repository root %q: the spec must stay inside it", path, real, root)
	}
	if hasDotGit(filepath.ToSlash(r)) {
		return "", fmt.Errorf("the spec %q resolves to %q, inside .git: behaves reads no spec from git's own files", path, real)
	}
	l.dir, l.root = dir, root
	if git {
		repo, err := gitindex.Open(root)
		if err != nil {
			return "", fmt.Errorf("finding the files git tracks (a spec inside a git work tree may name only those): %w", err)
		}
		l.repo = repo
	}
	return real, nil
}

// NotFoundError is Load's error for a spec path that names nothing: it
// says which spec was looked for and how to name another. errors.Is finds
// fs.ErrNotExist in it.
type NotFoundError struct {
	// Path is the spec path as given, Abs where it was looked for.
	Path, Abs string
	// Why is what is missing: the file, its folder, a link's target.
	Why string
	// Other is the same path with the other YAML extension (.yml for
	// .yaml, and the reverse), as given, when a file is there; else "".
	Other string
}

func (e *NotFoundError) Error() string {
	where := e.Path
	if e.Abs != e.Path {
		where += " (looked for " + e.Abs + ")"
	}
	why := e.Why
	if e.Other != "" {
		why += fmt.Sprintf(" (did you mean %s?)", e.Other)
	}
	return fmt.Sprintf("no spec at %s: %s; write it, or name another with --spec FILE (the action: its spec input)", where, why)
}

func (e *NotFoundError) Unwrap() error { return fs.ErrNotExist }

// missingSpec returns a *NotFoundError when there is nothing at the spec
// path abs (path as given): no file, no folder, or a symbolic link to
// nothing. Anything else is left to locate and readSpecFile.
func missingSpec(path, abs string) error {
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why := "the file does not exist"
		if _, derr := os.Stat(filepath.Dir(abs)); errors.Is(derr, fs.ErrNotExist) {
			why = fmt.Sprintf("the folder %s does not exist", filepath.Dir(abs))
		}
		return &NotFoundError{Path: path, Abs: abs, Why: why, Other: otherExtension(path, abs)}
	case err != nil:
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		if _, serr := os.Stat(abs); errors.Is(serr, fs.ErrNotExist) {
			target, _ := os.Readlink(abs)
			return &NotFoundError{Path: path, Abs: abs, Why: fmt.Sprintf("it is a symbolic link to %s, which does not exist", target)}
		}
	}
	return nil
}

// otherExtension is path with the other of YAML's two extensions when a
// file is there (behaves.yml for behaves.yaml, and the reverse), else "":
// the spelling a person most often gets wrong in --spec.
func otherExtension(path, abs string) string {
	ext := filepath.Ext(path)
	other := map[string]string{".yml": ".yaml", ".yaml": ".yml"}[ext]
	if other == "" {
		return ""
	}
	if _, err := os.Stat(strings.TrimSuffix(abs, ext) + other); err != nil {
		return ""
	}
	return strings.TrimSuffix(path, ext) + other
}

// fileRef is a file the spec names, checked to be a regular file inside the
// root.
type fileRef struct {
	// rel is the path relative to the root, with forward slashes, as the
	// user named it (symlinks not resolved).
	rel string
	// shown is the path as the user wrote it (or the glob match relative to
	// the spec's folder), for messages.
	shown string
	// base is the file name as the user named it.
	base string
	// real is the resolved path, the one that is read.
	real string
	info fs.FileInfo
}

// cachedFile is a file read once for every reference to it.
type cachedFile struct {
	data []byte
	err  string
}

// lexical joins a spec-relative path onto the spec's folder (a cases
// file's folder while one is parsed: see within) and checks it
// stays inside the root before any symlink is looked at. It returns the
// joined path and its root-relative form.
func (l *loader) lexical(n *yaml.Node, key, p string) (joined, rel string, ok bool) {
	if p == "" {
		l.errorf(n, "%s must not be empty: give a path relative to %s", key, l.folderName())
		return "", "", false
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		l.errorf(n, "%s %q must not contain control characters", key, short(p))
		return "", "", false
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || filepath.VolumeName(p) != "" {
		l.errorf(n, "%s %q is an absolute path: paths are relative to %s and must stay inside the repository root", key, short(p), l.folderName())
		return "", "", false
	}
	if hasDotGit(p) {
		l.errorf(n, "%s %q has a path component named .git: a spec may never name git's own files, which can hold the job's credentials", key, short(p))
		return "", "", false
	}
	joined = filepath.Join(l.dir, filepath.FromSlash(p))
	r, err := filepath.Rel(l.root, joined)
	if err != nil || !inside(r) {
		l.errorf(n, "%s %q is outside the repository root %s: every path must stay inside it", key, short(p), l.root)
		return "", "", false
	}
	return joined, filepath.ToSlash(r), true
}

// inside reports whether a path relative to the root stays inside it.
func inside(rel string) bool {
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve checks a joined path: as written and after resolving symlinks it
// must pass the workspace rule (admitted) and stay inside the root, and it
// must be a regular file of at most MaxFileSize bytes. n and key place and
// name the problem, shown is the path for messages.
//
// The workspace rule is checked on the path as written before the file
// system is touched, and on the resolved path before its type or size is
// looked at: no message tells whether an untracked file exists or how big
// it is.
func (l *loader) resolve(n *yaml.Node, key, shown, joined, rel string) (fileRef, bool) {
	if !l.admitted(n, key, shown, rel, false) {
		return fileRef{}, false
	}
	real, err := filepath.EvalSymlinks(joined)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			l.errorf(n, "%s %q does not exist (paths are relative to %s)", key, short(shown), l.folderName())
		default:
			l.errorf(n, "%s %q cannot be resolved: %v", key, short(shown), unwrapPathError(err))
		}
		return fileRef{}, false
	}
	r, err := filepath.Rel(l.root, real)
	if err != nil || !inside(r) {
		l.errorf(n, "%s %q resolves to %q, outside the repository root %s: every path must stay inside it after symlinks", key, short(shown), real, l.root)
		return fileRef{}, false
	}
	if realRel := filepath.ToSlash(r); realRel != rel && !l.admitted(n, key, shown, realRel, true) {
		return fileRef{}, false
	}
	// Lstat, not Stat: real has no symlink left, and nothing here may open
	// a FIFO or a device before its type is known.
	fi, err := os.Lstat(real)
	if err != nil {
		l.errorf(n, "%s %q cannot be read: %v", key, short(shown), unwrapPathError(err))
		return fileRef{}, false
	}
	if !fi.Mode().IsRegular() {
		l.errorf(n, "%s %q is %s, not a regular file", key, short(shown), filekind.Of(fi.Mode()))
		return fileRef{}, false
	}
	if fi.Size() > l.opt.MaxFileSize {
		l.errorf(n, "%s %q is %s, above the %s cap for the files a spec names", key, short(shown), sizeOf(fi.Size()), verdict.FormatSize(l.opt.MaxFileSize))
		return fileRef{}, false
	}
	return fileRef{rel: rel, shown: shown, base: filepath.Base(joined), real: real, info: fi}, true
}

// path checks one spec path (file or stdin_file).
func (l *loader) path(n *yaml.Node, key string) (fileRef, bool) {
	p, ok := l.str(n, key)
	if !ok {
		return fileRef{}, false
	}
	joined, rel, ok := l.lexical(n, key, p)
	if !ok {
		return fileRef{}, false
	}
	return l.resolve(n, key, p, joined, rel)
}

// globMatches expands the glob of key (files or dirs) at n: the pattern
// as written and every path it matches, in lexical order, the spec's
// folder matched literally. ok is false when the value is not a pattern
// (the error is recorded).
func (l *loader) globMatches(n *yaml.Node, key string) (p string, matches []string, ok bool) {
	p, ok = l.str(n, key)
	if !ok {
		return "", nil, false
	}
	joined, _, ok := l.lexical(n, key, p)
	if !ok {
		return "", nil, false
	}
	// The spec's folder is matched literally: escape any glob syntax in it.
	pattern := joined
	if fromDir, err := filepath.Rel(l.dir, joined); err == nil {
		pattern = filepath.Join(escapeGlob(l.dir), fromDir)
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		l.errorf(n, "%s %q is not a valid glob pattern: %v (use *, ?, [a-z], and \\ to escape)", key, short(p), err)
		return "", nil, false
	}
	sort.Strings(matches)
	return p, matches, true
}

// glob expands a files pattern into the matching files, in lexical order.
func (l *loader) glob(n *yaml.Node) ([]fileRef, bool) {
	p, matches, ok := l.globMatches(n, "files")
	if !ok {
		return nil, false
	}
	if len(matches) == 0 {
		l.errorf(n, "files %q matches no file (patterns are relative to the spec's folder)", short(p))
		return nil, false
	}
	var refs []fileRef
	good := true
	for _, m := range matches {
		rel, err := filepath.Rel(l.root, m)
		if err != nil || !inside(rel) {
			l.errorf(n, "files %q matches %q, outside the repository root %s", short(p), m, l.root)
			good = false
			continue
		}
		shown := m
		if s, err := filepath.Rel(l.dir, m); err == nil {
			shown = filepath.ToSlash(s)
		}
		if strings.IndexFunc(filepath.Base(m), unicode.IsControl) >= 0 {
			l.errorf(n, "files match %q has control characters in its name: rename the file", short(shown))
			good = false
			continue
		}
		ref, ok := l.resolve(n, "files match", shown, m, filepath.ToSlash(rel))
		if !ok {
			good = false
			continue
		}
		refs = append(refs, ref)
	}
	return refs, good
}

// escapeGlob escapes glob syntax so that Glob matches s literally.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// read returns a checked file's bytes, reading each real file once.
func (l *loader) read(n *yaml.Node, key string, ref fileRef) ([]byte, bool) {
	c, ok := l.cache[ref.real]
	if !ok {
		data, err := readChecked(ref, l.opt.MaxFileSize)
		c = cachedFile{data: data}
		if err != nil {
			c.err = err.Error()
		}
		l.cache[ref.real] = c
	}
	if c.err != "" {
		l.errorf(n, "%s %q cannot be read: %s", key, short(ref.shown), c.err)
		return nil, false
	}
	return c.data, true
}

// readChecked opens a file checked by resolve without following a symlink
// and without blocking on a FIFO, makes sure it is still the regular file
// that was checked, and reads at most max bytes.
func readChecked(ref fileRef, max int64) ([]byte, error) {
	f, err := openRegular(ref.real)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, ref.info) {
		return nil, errors.New("the file changed while it was being checked")
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("it grew above the %s cap while being read", verdict.FormatSize(max))
	}
	return data, nil
}

// unwrapPathError drops the path from an *fs.PathError (messages name the
// path as the user wrote it).
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
