package docker

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
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

// archiveEntry is one file, link or directory of a program, as it is
// archived: a file by its content handle, whose bytes are read only while
// the archive is written (writeDelivery).
type archiveEntry struct {
	name string // relative to the program's root; a directory ends in "/"
	file runner.File
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
			if err := runner.CheckRelPath(p); err != nil {
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
	for p, f := range prog.Files {
		entries = append(entries, archiveEntry{name: p, file: f, exec: prog.Executable[p]})
	}
	for p, target := range prog.Links {
		entries = append(entries, archiveEntry{name: p, link: target})
	}
	// "a/" sorts before "a/x".
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	return entries, nil
}

// writeDelivery writes one archive of several programs (each laid out by
// programLayout) to w, for a helper that mounts volume k at helperDir/k:
// program k's entries are under "k/", each owned by root, files with mode
// 0444, directories with mode 0555. The "k/" directories themselves have
// no entry: they are the volumes' roots. The output depends only on
// programs (fixed order and time), so the same programs give the same
// archive.
//
// It streams: each file is read through its handle (runner.File.Open)
// while it is written, so the archive is never whole in memory, whatever
// the programs' size; what it holds at once is one copy buffer and the
// tar header. A file whose bytes are not the ones recorded when the spec
// was read (changed on disk since) ends the archive with a *packError
// naming its program, after at most its recorded size: the caller
// abandons the copy, so that nothing but the recorded bytes is ever
// delivered.
func writeDelivery(w io.Writer, programs [][]archiveEntry) error {
	tw := tar.NewWriter(w)
	modTime := time.Unix(0, 0).UTC()
	buf := make([]byte, copyBuffer)
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
			file := false
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
				hdr.Size, file = e.file.Bytes, true
			default:
				hdr.Typeflag = tar.TypeReg
				hdr.Mode = programFileMode
				hdr.Size, file = e.file.Bytes, true
			}
			if err := tw.WriteHeader(hdr); err != nil {
				return fmt.Errorf("writing tar header for %s: %w", hdr.Name, err)
			}
			if !file {
				continue
			}
			if err := copyFile(tw, k, e, buf); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("closing the tar: %w", err)
	}
	return nil
}

// copyBuffer is the size of the one buffer a delivery copies files
// through.
const copyBuffer = 64 << 10

// copyFile copies e's file into the tar's current entry through buf,
// checked against its recorded digest as it is read (runner.File.Open). A
// failure to read the file is a *packError of program k; a failure to
// write (the copy ended first) is returned as it is, the archive's.
func copyFile(tw *tar.Writer, k int, e archiveEntry, buf []byte) error {
	fail := func(err error) error {
		return &packError{program: k, err: fmt.Errorf("delivering /program/%s: %w", e.name, err)}
	}
	r, err := e.file.Open()
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if _, err := tw.Write(buf[:n]); err != nil {
				return fmt.Errorf("writing /program/%s to the tar: %w", e.name, err)
			}
		}
		switch {
		case rerr == io.EOF:
			return nil
		case rerr != nil:
			return fail(rerr)
		}
	}
}

// packError is writeDelivery's failure to read a file of program k (its
// index in the archive).
type packError struct {
	program int
	err     error
}

func (e *packError) Error() string { return e.err.Error() }
func (e *packError) Unwrap() error { return e.err }

// sha256Hex is the lowercase hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
