package gitindex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxGitFileSize caps a .git file ("gitdir: <path>"): a path, never more.
const maxGitFileSize = 64 << 10

// Repo is the tracked paths of one work tree, its submodules' included.
type Repo struct {
	// root is the work tree's folder.
	root string
	// gitDir is where its index lives.
	gitDir string
	index  *Index
	// subs caches submodules' repos by their path in this work tree (nil:
	// the submodule is not checked out).
	subs map[string]*Repo
}

// Open reads the index of the work tree at root, which must hold a .git
// entry: a directory, or a file "gitdir: <path>" (relative to root, or
// absolute). A repository without an index yet (a fresh git init) tracks
// nothing. Anything else that keeps the index from being read is an error.
func Open(root string) (*Repo, error) {
	gitDir, err := findGitDir(root)
	if err != nil {
		return nil, err
	}
	ix, err := readIndex(filepath.Join(gitDir, "index"))
	if err != nil {
		return nil, fmt.Errorf("reading the git index of %s: %w", root, err)
	}
	return &Repo{root: root, gitDir: gitDir, index: ix, subs: map[string]*Repo{}}, nil
}

// GitDir is the folder that holds the work tree's index.
func (r *Repo) GitDir() string { return r.gitDir }

// findGitDir returns the git directory of the work tree at root.
func findGitDir(root string) (string, error) {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return "", fmt.Errorf("finding the git directory of %s: %w", root, err)
	}
	if fi.IsDir() {
		return dotGit, nil
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("finding the git directory of %s: .git is neither a folder nor a file", root)
	}
	data, err := readCapped(dotGit, maxGitFileSize)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", dotGit, err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("gitdir:"))
	if !ok {
		return "", fmt.Errorf("reading %s: it does not start with \"gitdir:\"", dotGit)
	}
	target := strings.TrimSpace(string(rest))
	if target == "" || strings.IndexByte(target, 0) >= 0 {
		return "", fmt.Errorf("reading %s: it names no git directory", dotGit)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(root, target)
	}
	ti, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s points at the git directory %q, which does not exist here (a path of another machine or container?): the index cannot be read", dotGit, target)
	case err != nil:
		return "", fmt.Errorf("finding the git directory %q named by %s: %w", target, dotGit, err)
	case !ti.IsDir():
		return "", fmt.Errorf("%s points at %q, which is not a folder", dotGit, target)
	}
	return target, nil
}

// readIndex reads and parses an index file; a missing one is empty.
func readIndex(path string) (*Index, error) {
	data, err := readCapped(path, MaxIndexSize)
	if errors.Is(err, fs.ErrNotExist) {
		return &Index{Version: 2, entries: map[string]Entry{}}, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// readCapped reads a regular file of at most max bytes. Its type is
// checked before it is opened: opening a FIFO for reading would block.
func readCapped(path string, max int64) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, above the %d-byte cap", path, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew above the %d-byte cap while being read", path, max)
	}
	return data, nil
}

// Tracked reports whether git tracks the file at rel: a clean,
// slash-separated path relative to the work tree. Under a submodule's
// gitlink the submodule's own index decides; a submodule that is not
// checked out tracks nothing. An error means an index could not be read.
func (r *Repo) Tracked(rel string) (bool, error) {
	_, ok, err := r.Mode(rel)
	return ok, err
}

// Mode is the mode git records for the file it tracks at rel
// (ModeRegular, ModeExecutable or ModeSymlink), and whether it tracks one
// there (see Tracked).
func (r *Repo) Mode(rel string) (uint32, bool, error) {
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		prefix := rel[:i]
		if e, ok := r.index.Lookup(prefix); ok && e.Mode == ModeGitlink && !e.IntentToAdd {
			sub, err := r.submodule(prefix)
			if err != nil || sub == nil {
				return 0, false, err
			}
			return sub.Mode(rel[i+1:])
		}
	}
	e, ok := r.index.Lookup(rel)
	if !ok || !e.Tracked() {
		return 0, false, nil
	}
	return e.Mode, true, nil
}

// submodule opens (once) the repo of the submodule at prefix, or returns
// nil when it is not checked out (no .git entry in its folder).
func (r *Repo) submodule(prefix string) (*Repo, error) {
	if sub, ok := r.subs[prefix]; ok {
		return sub, nil
	}
	dir := filepath.Join(r.root, filepath.FromSlash(prefix))
	if _, err := os.Lstat(filepath.Join(dir, ".git")); errors.Is(err, fs.ErrNotExist) {
		r.subs[prefix] = nil
		return nil, nil
	}
	sub, err := Open(dir)
	if err != nil {
		return nil, fmt.Errorf("reading submodule %q: %w", prefix, err)
	}
	r.subs[prefix] = sub
	return sub, nil
}

// TrackedDir reports whether rel (clean, slash-separated) is a folder git
// tracks files in, "." being the work tree itself: a submodule's folder,
// or a folder above a tracked file.
func (r *Repo) TrackedDir(rel string) (bool, error) {
	if rel == "." || rel == "" {
		return true, nil
	}
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != '/' {
			continue
		}
		prefix := rel[:i]
		if e, ok := r.index.Lookup(prefix); ok && e.Mode == ModeGitlink && !e.IntentToAdd {
			if i == len(rel) {
				return true, nil
			}
			sub, err := r.submodule(prefix)
			if err != nil || sub == nil {
				return false, err
			}
			return sub.TrackedDir(rel[i+1:])
		}
	}
	return r.index.hasDir(rel), nil
}
