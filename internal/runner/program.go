package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The modes of a folder program's file list (FileList): git's.
const (
	ListModeFile       = "100644"
	ListModeExecutable = "100755"
	ListModeLink       = "120000"
)

// Digest is the lowercase hex SHA-256 that stands for the program's
// content, a report's program_sha256: for one file, its bytes'; for a
// folder, or a file delivered with others (a spec's with:), its file
// list's (FileList), so that a path, a mode or a byte changed anywhere in
// it changes the digest. It is "" for a one-file program without its
// entry file. Each file's digest was recorded when it was read (File), so
// this hashes no file's bytes, only a folder's file list.
func (p Program) Digest() string {
	if p.Folder || len(p.Files) > 1 || len(p.Links) > 0 {
		return DigestOf(p.List(), true)
	}
	f, ok := p.Files[p.Entry]
	if !ok {
		return ""
	}
	return f.SHA256
}

// ListEntry is one file or link of a program, as its file list
// (FileList) and a report's files record it.
type ListEntry struct {
	// Path is relative to the program's folder (/program), slash-separated.
	Path string
	// Mode is ListModeFile, ListModeExecutable or ListModeLink.
	Mode string
	// Bytes and SHA256 are the size and lowercase hex digest of the file's
	// bytes, of a link's target text.
	Bytes  int64
	SHA256 string
	// Target is a link's target ("" for a file).
	Target string
}

// List is the program's files and links, sorted by path (bytewise).
func (p Program) List() []ListEntry {
	out := make([]ListEntry, 0, len(p.Files)+len(p.Links))
	for path, f := range p.Files {
		mode := ListModeFile
		if p.Executable[path] {
			mode = ListModeExecutable
		}
		out = append(out, ListEntry{Path: path, Mode: mode, Bytes: f.Bytes, SHA256: f.SHA256})
	}
	for path, target := range p.Links {
		out = append(out, ListEntry{Path: path, Mode: ListModeLink, Bytes: int64(len(target)), SHA256: sha256Hex([]byte(target)), Target: target})
	}
	slices.SortFunc(out, func(a, b ListEntry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// FileList is the text a folder program's digest is the SHA-256 of: one
// line per file and link, sorted by path (bytewise), each
// "<mode> <sha256> <path>\n", where mode is 100644, 100755 (executable)
// or 120000 (a link), sha256 is the lowercase hex digest of the file's
// bytes (of a link's target text) and path is relative to the program's
// folder, slash-separated. docs/verdicts.md shows how to compute it with
// sha256sum.
func (p Program) FileList() string { return FileListOf(p.List()) }

// FileListOf is FileList of the entries l, in the order given.
func FileListOf(l []ListEntry) string {
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.Mode + " " + e.SHA256 + " " + e.Path + "\n")
	}
	return b.String()
}

// DigestOf is Digest for a program whose List is l: folder says it is a
// folder program. A reader of a report recomputes program_sha256 with it.
func DigestOf(l []ListEntry, folder bool) string {
	switch {
	case folder || len(l) > 1 || len(l) == 1 && l[0].Mode == ListModeLink:
		return sha256Hex([]byte(FileListOf(l)))
	case len(l) == 1:
		return l[0].SHA256
	}
	return ""
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// CheckLink accepts the target of the link at p when it is a
// relative path that the kernel, walking it from p's folder one name at a
// time, resolves inside the program without passing through another link
// (the last name may be one, whose own target is checked alike); links
// are the program's links, by path. The spec checks it where the link is
// named, the sandbox again before delivery: the container resolves a link
// under the read-only /program, so a link out of it
// (/etc/shadow, ../../proc, or a ".." after a link to the program's root)
// would hand the program a file the spec never delivered.
func CheckLink(p, target string, links map[string]string) error {
	switch {
	case target == "" || strings.ContainsRune(target, 0):
		return fmt.Errorf("link %q has an empty target or one with NUL", p)
	case path.IsAbs(target):
		return fmt.Errorf("link %q points to the absolute path %q: a link must stay inside the program", p, target)
	}
	var at []string // the walk's folder, from the program's root
	if d := path.Dir(p); d != "." {
		at = strings.Split(d, "/")
	}
	names := strings.Split(target, "/")
	for i, name := range names {
		switch name {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return fmt.Errorf("link %q points to %q, outside the program", p, target)
			}
			at = at[:len(at)-1]
			continue
		}
		at = append(at, name)
		if _, link := links[strings.Join(at, "/")]; link && i < len(names)-1 {
			return fmt.Errorf("link %q points to %q, through the link %q: a link's target may pass through no other link", p, target, strings.Join(at, "/"))
		}
	}
	return nil
}
