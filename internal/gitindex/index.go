package gitindex

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
)

// MaxIndexSize caps the index file read into memory: 256 MiB, well above
// the index of a repository of a million files.
const MaxIndexSize int64 = 256 << 20

// MaxPathLen caps one path in the index: 4096 bytes, Linux's PATH_MAX; git
// could not check out a longer path here anyway.
const MaxPathLen = 4096

// pathBudgetFactor bounds the bytes all paths expand to, as a multiple of
// the file's size. A version 4 index stores each path as a suffix of the one
// before it, so a small file could otherwise expand quadratically.
const pathBudgetFactor = 8

// Modes git stores in an index entry (the object type bits and permissions).
const (
	ModeRegular    uint32 = 0o100644
	ModeExecutable uint32 = 0o100755
	ModeSymlink    uint32 = 0o120000
	ModeGitlink    uint32 = 0o160000
	// ModeDir marks a sparse directory entry (only in a sparse index).
	ModeDir uint32 = 0o040000
)

// Flag bits of an entry, as the index format defines them.
const (
	flagExtended     = 0x4000 // in flags: an extended flags field follows
	flagStageMask    = 0x3000
	flagNameMask     = 0x0fff
	extSkipWorktree  = 0x4000 // in the extended flags
	extIntentToAdd   = 0x2000
	extKnown         = extSkipWorktree | extIntentToAdd
	entryFixed       = 40 // ctime, mtime, dev, ino, mode, uid, gid, size
	headerSize       = 12
	extensionHeader  = 8
	varintMaxBytes   = 10
	signature        = "DIRC"
	minVersion       = 2
	maxVersion       = 4
	sha1Size         = sha1.Size
	sha256Size       = sha256.Size
	entryModeOffset  = 24
	stageShift       = 12
	extendedFlagSize = 2
)

// Entry is what the index says about one path.
type Entry struct {
	// Mode is the entry's mode: ModeRegular, ModeExecutable, ModeSymlink or
	// ModeGitlink (a submodule).
	Mode uint32
	// Stage is 0 for a merged entry, 1–3 for the sides of a conflict.
	Stage int
	// SkipWorktree is set for a path sparse checkout leaves out of the
	// work tree.
	SkipWorktree bool
	// IntentToAdd is set for a path added with git add -N (no content yet).
	IntentToAdd bool
}

// Tracked reports whether the entry stands for file content git tracks:
// a regular file or a symlink, neither intent-to-add nor skip-worktree.
func (e Entry) Tracked() bool {
	if e.IntentToAdd || e.SkipWorktree {
		return false
	}
	switch e.Mode {
	case ModeRegular, ModeExecutable, ModeSymlink:
		return true
	}
	return false
}

// Index is one parsed index file: its entries by path.
type Index struct {
	// Version is the index format version (2, 3 or 4).
	Version int
	entries map[string]Entry
	// dirs holds every folder above a tracked entry, built on first use.
	dirs map[string]bool
}

// hasDir reports whether dir is a folder above some tracked entry.
func (ix *Index) hasDir(dir string) bool {
	if ix.dirs == nil {
		ix.dirs = map[string]bool{}
		for p, e := range ix.entries {
			if !e.Tracked() && e.Mode != ModeGitlink {
				continue
			}
			for i := len(p) - 1; i > 0; i-- {
				if p[i] == '/' {
					if ix.dirs[p[:i]] {
						break
					}
					ix.dirs[p[:i]] = true
				}
			}
		}
	}
	return ix.dirs[dir]
}

// Len is the number of distinct paths in the index.
func (ix *Index) Len() int { return len(ix.entries) }

// Lookup returns the entry for a path (slash-separated, relative to the
// work tree, compared byte for byte). With conflict stages, an entry that
// is tracked wins.
func (ix *Index) Lookup(path string) (Entry, bool) {
	e, ok := ix.entries[path]
	return e, ok
}

// Parse decodes an index file. It verifies the trailer checksum (SHA-1, or
// SHA-256 for a repository of that object format; an all-zero trailer is
// accepted as git accepts it, written under index.skipHash) and fails on
// anything it cannot read with certainty.
func Parse(data []byte) (*Index, error) {
	if int64(len(data)) > MaxIndexSize {
		return nil, fmt.Errorf("the index is %d bytes, above the %d-byte cap", len(data), MaxIndexSize)
	}
	if len(data) < headerSize || string(data[:4]) != signature {
		return nil, errors.New("not a git index (no DIRC signature)")
	}
	var firstErr error
	matched := false
	for _, h := range []struct {
		size int
		new  func() hash.Hash
	}{{sha1Size, sha1.New}, {sha256Size, sha256.New}} {
		if len(data) < headerSize+h.size {
			continue
		}
		body, trailer := data[:len(data)-h.size], data[len(data)-h.size:]
		if !allZero(trailer) {
			sum := h.new()
			sum.Write(body)
			if !bytes.Equal(sum.Sum(nil), trailer) {
				continue
			}
		}
		matched = true
		ix, err := parseBody(body, h.size)
		if err == nil {
			return ix, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if !matched {
		return nil, errors.New("the index's checksum does not match its content (corrupt or truncated)")
	}
	return nil, firstErr
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// parseBody decodes the header, the entries and the extensions of an index
// whose trailer (hashSize bytes) is already cut off.
func parseBody(body []byte, hashSize int) (*Index, error) {
	version := binary.BigEndian.Uint32(body[4:8])
	if version < minVersion || version > maxVersion {
		return nil, fmt.Errorf("index version %d is not supported (only 2, 3 and 4)", version)
	}
	count := binary.BigEndian.Uint32(body[8:12])
	// Every entry takes at least its fixed part, the object ID, the flags
	// and one byte of path: a count above what fits is corrupt, and checking
	// it first keeps the map's size hint honest.
	minEntry := entryFixed + hashSize + 2 + 1
	if uint64(count) > uint64(len(body)-headerSize)/uint64(minEntry) {
		return nil, fmt.Errorf("the index claims %d entries, more than its %d bytes can hold", count, len(body))
	}
	ix := &Index{Version: int(version), entries: make(map[string]Entry, count)}
	budget := pathBudgetFactor*len(body) + MaxPathLen
	off := headerSize
	var prev []byte
	// emptyErr is the first entry git writes only with an extension
	// this reader refuses (split or sparse index).
	var emptyErr error
	for i := uint32(0); i < count; i++ {
		e, path, next, err := parseEntry(body, off, hashSize, int(version), prev)
		if err != nil {
			return nil, fmt.Errorf("index entry %d (at byte %d): %w", i, off, err)
		}
		if len(path) == 0 && emptyErr == nil {
			// A split index names the shared entries it replaces with
			// empty paths: read on, so that its "link" extension is what
			// the error names.
			emptyErr = fmt.Errorf("index entry %d (at byte %d): an empty path", i, off)
		}
		budget -= len(path)
		if budget < 0 {
			return nil, errors.New("the index's paths expand beyond the size its file allows")
		}
		if e.Mode == ModeDir && emptyErr == nil {
			// Read on: the "sdir" extension, if there, names the problem
			// better.
			emptyErr = fmt.Errorf("index entry %d is a sparse directory entry: a sparse index is not supported (git sparse-checkout init --no-sparse-index)", i)
		}
		if old, ok := ix.entries[string(path)]; ok && old.Tracked() {
			// Conflict stages share a path: keep the tracked one.
			e = old
		}
		ix.entries[string(path)] = e
		prev = path
		off = next
	}
	if err := checkExtensions(body[off:]); err != nil {
		return nil, err
	}
	if emptyErr != nil {
		return nil, emptyErr
	}
	return ix, nil
}

// parseEntry decodes the entry at off and returns it, its full path, and
// the offset of what follows.
func parseEntry(body []byte, off, hashSize, version int, prev []byte) (Entry, []byte, int, error) {
	flagsAt := off + entryFixed + hashSize
	if flagsAt+2 > len(body) || flagsAt+2 < off {
		return Entry{}, nil, 0, errors.New("truncated entry")
	}
	mode := binary.BigEndian.Uint32(body[off+entryModeOffset:])
	flags := binary.BigEndian.Uint16(body[flagsAt:])
	e := Entry{Mode: mode, Stage: int(flags&flagStageMask) >> stageShift}
	switch mode {
	case ModeRegular, ModeExecutable, ModeSymlink, ModeGitlink, ModeDir:
	default:
		return Entry{}, nil, 0, fmt.Errorf("unknown mode %o", mode)
	}
	p := flagsAt + 2
	if flags&flagExtended != 0 {
		if version < 3 {
			return Entry{}, nil, 0, errors.New("extended flags in a version 2 index")
		}
		if p+extendedFlagSize > len(body) {
			return Entry{}, nil, 0, errors.New("truncated extended flags")
		}
		ext := binary.BigEndian.Uint16(body[p:])
		if ext&^extKnown != 0 {
			return Entry{}, nil, 0, fmt.Errorf("unknown extended flags %#04x", ext)
		}
		e.SkipWorktree = ext&extSkipWorktree != 0
		e.IntentToAdd = ext&extIntentToAdd != 0
		p += extendedFlagSize
	}
	nameLen := int(flags & flagNameMask)
	var path []byte
	next := 0
	if version == 4 {
		strip, n, err := varint(body[p:])
		if err != nil {
			return Entry{}, nil, 0, err
		}
		p += n
		if strip > uint64(len(prev)) {
			return Entry{}, nil, 0, fmt.Errorf("strips %d bytes from a %d-byte previous path", strip, len(prev))
		}
		suffix, end, err := cString(body, p)
		if err != nil {
			return Entry{}, nil, 0, err
		}
		keep := len(prev) - int(strip)
		if keep+len(suffix) > MaxPathLen {
			return Entry{}, nil, 0, fmt.Errorf("a path longer than %d bytes", MaxPathLen)
		}
		path = make([]byte, 0, keep+len(suffix))
		path = append(append(path, prev[:keep]...), suffix...)
		next = end + 1
	} else {
		name, end, err := cString(body, p)
		if err != nil {
			return Entry{}, nil, 0, err
		}
		if len(name) > MaxPathLen {
			return Entry{}, nil, 0, fmt.Errorf("a path longer than %d bytes", MaxPathLen)
		}
		path = name
		// The entry is padded with 1 to 8 NUL bytes to a multiple of 8.
		next = off + (end-off+8)&^7
		if next > len(body) {
			return Entry{}, nil, 0, errors.New("truncated padding")
		}
	}
	if nameLen != flagNameMask && nameLen != len(path) {
		return Entry{}, nil, 0, fmt.Errorf("path length %d, but the flags say %d", len(path), nameLen)
	}
	return e, path, next, nil
}

// cString returns the bytes from p up to the next NUL, and the NUL's offset.
func cString(body []byte, p int) ([]byte, int, error) {
	if p > len(body) {
		return nil, 0, errors.New("truncated path")
	}
	n := bytes.IndexByte(body[p:], 0)
	if n < 0 {
		return nil, 0, errors.New("unterminated path")
	}
	return body[p : p+n], p + n, nil
}

// varint decodes git's offset varint (each continuation adds one before
// shifting, so that every value has one encoding).
func varint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < varintMaxBytes; i++ {
		c := b[i]
		if i > 0 {
			v++
		}
		if v > (1<<57)-1 {
			return 0, 0, errors.New("varint overflows")
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("truncated or overlong varint")
}

// checkExtensions walks the extensions after the entries. Optional ones
// (signature starting with A–Z: TREE, REUC, UNTR, FSMN, EOIE, IEOT) are
// skipped; any other is required to read the index right and fails it:
// "link" (a split index keeps entries in another file) and "sdir" (a sparse
// index folds directories into single entries).
func checkExtensions(b []byte) error {
	for len(b) > 0 {
		if len(b) < extensionHeader {
			return fmt.Errorf("%d stray bytes after the entries", len(b))
		}
		sig := b[:4]
		size := binary.BigEndian.Uint32(b[4:8])
		if uint64(size) > uint64(len(b)-extensionHeader) {
			return fmt.Errorf("extension %q claims %d bytes, more than the index holds", sig, size)
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			switch string(sig) {
			case "link":
				return errors.New(`the index is split (extension "link"), which is not supported: run git update-index --no-split-index`)
			case "sdir":
				return errors.New(`the index is sparse (extension "sdir"), which is not supported: run git sparse-checkout init --no-sparse-index, or git sparse-checkout disable`)
			}
			return fmt.Errorf("the index has a required extension %q that behaves does not know", sig)
		}
		b = b[extensionHeader+int(size):]
	}
	return nil
}
