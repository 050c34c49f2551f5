package docker

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
)

const (
	// programFileMode and programDirMode are the modes of the program's files
	// and directories in its volume: readable by any uid, writable by none
	// (the volume is also mounted read-only); programExecMode is a file's
	// that the program marks executable, and programLinkMode a link's.
	programFileMode = 0o444
	programDirMode  = 0o555
	programExecMode = 0o555
	programLinkMode = 0o777
)

// checkRelPath accepts a clean, relative, slash-separated path that stays
// inside its root.
func checkRelPath(p string) error {
	switch {
	case p == "" || p == ".":
		return fmt.Errorf("empty path")
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("path %q contains NUL", p)
	case path.IsAbs(p):
		return fmt.Errorf("path %q is absolute", p)
	case path.Clean(p) != p:
		return fmt.Errorf("path %q is not clean", p)
	case p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("path %q leaves the program directory", p)
	}
	return nil
}

// programFiles lays the program's files out as they appear under /program:
// a one-file program's entry file under the profile's program name, every
// other file (and every file of a folder program) at its own path.
func programFiles(prog runner.Program, programName string) (runner.Program, error) {
	if prog.Folder {
		if _, ok := prog.Files[prog.Entry]; prog.Entry != "" && !ok {
			return runner.Program{}, fmt.Errorf("the program has no entry file %q", prog.Entry)
		}
		return prog, nil
	}
	if _, ok := prog.Files[prog.Entry]; !ok {
		return runner.Program{}, fmt.Errorf("the program has no entry file %q", prog.Entry)
	}
	out := runner.Program{Files: make(map[string][]byte, len(prog.Files)), Entry: programName}
	for p, data := range prog.Files {
		if p == prog.Entry {
			continue
		}
		if err := checkRelPath(p); err != nil {
			return runner.Program{}, err
		}
		out.Files[p] = data
	}
	if _, ok := out.Files[programName]; ok {
		return runner.Program{}, fmt.Errorf("the program name %q is also the path of another program file", programName)
	}
	out.Files[programName] = prog.Files[prog.Entry]
	return out, nil
}

// archiveEntry is one file, link or directory of a program, as it is
// archived.
type archiveEntry struct {
	name string // relative to the program's root; a directory ends in "/"
	data []byte
	dir  bool
	exec bool   // a file delivered executable
	link string // a symbolic link's target ("" for anything else)
	// owned entries have their own owner and mode (a build volume's root,
	// name "": the volume's own directory); the others are root's, with
	// programFileMode or programDirMode.
	owned    bool
	uid, gid int
	mode     int64
}

// programLayout checks a program's files and links as they appear under
// /program (paths relative to it) and lists them as archive entries, with
// their directories, sorted: every directory precedes its contents. A
// link's target must be relative and resolve inside the program, through
// no other link.
func programLayout(prog runner.Program) ([]archiveEntry, error) {
	dirs := map[string]bool{}
	for _, paths := range [][]string{slices.Collect(maps.Keys(prog.Files)), slices.Collect(maps.Keys(prog.Links))} {
		for _, p := range paths {
			if err := checkRelPath(p); err != nil {
				return nil, err
			}
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
	}
	for p := range prog.Links {
		if _, ok := prog.Files[p]; ok {
			return nil, fmt.Errorf("path %q is both a file and a link", p)
		}
	}
	for d := range dirs {
		_, file := prog.Files[d]
		_, link := prog.Links[d]
		if file || link {
			return nil, fmt.Errorf("path %q is both a file and a directory", d)
		}
	}
	for p, target := range prog.Links {
		if err := runner.CheckLink(p, target, prog.Links); err != nil {
			return nil, err
		}
	}
	entries := make([]archiveEntry, 0, len(prog.Files)+len(prog.Links)+len(dirs))
	for d := range dirs {
		entries = append(entries, archiveEntry{name: d + "/", dir: true})
	}
	for p, data := range prog.Files {
		entries = append(entries, archiveEntry{name: p, data: data, exec: prog.Executable[p]})
	}
	for p, target := range prog.Links {
		entries = append(entries, archiveEntry{name: p, link: target})
	}
	// "a/" sorts before "a/x".
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	return entries, nil
}

// deliveryTar is one archive of several programs (each laid out by
// programLayout) for a helper that mounts volume k at helperDir/k: program
// k's entries are under "k/", each owned by root, files with mode 0444,
// directories with mode 0555. The "k/" directories themselves have no
// entry: they are the volumes' roots. The output depends only on programs
// (fixed order and time), so the same programs give the same archive.
func deliveryTar(programs [][]archiveEntry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	modTime := time.Unix(0, 0).UTC()
	for k, entries := range programs {
		prefix := strconv.Itoa(k) + "/"
		for _, e := range entries {
			hdr := &tar.Header{
				Name:    prefix + e.name,
				Uid:     0,
				Gid:     0,
				Uname:   "root",
				Gname:   "root",
				ModTime: modTime,
			}
			switch {
			case e.owned && e.dir:
				hdr.Typeflag = tar.TypeDir
				hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = e.uid, e.gid, "", ""
				hdr.Mode = e.mode
			case e.dir:
				hdr.Typeflag = tar.TypeDir
				hdr.Mode = programDirMode
			case e.link != "":
				hdr.Typeflag = tar.TypeSymlink
				hdr.Linkname = e.link
				hdr.Mode = programLinkMode
			case e.exec:
				hdr.Typeflag = tar.TypeReg
				hdr.Mode = programExecMode
				hdr.Size = int64(len(e.data))
			default:
				hdr.Typeflag = tar.TypeReg
				hdr.Mode = programFileMode
				hdr.Size = int64(len(e.data))
			}
			if err := tw.WriteHeader(hdr); err != nil {
				return nil, fmt.Errorf("writing tar header for %s: %w", hdr.Name, err)
			}
			if _, err := tw.Write(e.data); err != nil {
				return nil, fmt.Errorf("writing %s to the tar: %w", hdr.Name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing the tar: %w", err)
	}
	return buf.Bytes(), nil
}

// sha256Hex is the lowercase hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
