package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
)

// fixtureRepo makes a repository holding a regular file, an executable, a
// symlink and nested paths that share prefixes (what version 4 compresses),
// staged but not committed, and returns its path.
func fixtureRepo(t testing.TB) string {
	t.Helper()
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "a.txt", "a\n")
	gittest.WriteFile(t, repo, "dir/sub/one.py", "1\n")
	gittest.WriteFile(t, repo, "dir/sub/two.py", "2\n")
	gittest.WriteFile(t, repo, "dir/subway/three.py", "3\n")
	gittest.WriteFile(t, repo, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(repo, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(repo, "link")); err != nil {
		t.Fatal(err)
	}
	gittest.AddAll(t, repo)
	gittest.WriteFile(t, repo, "untracked.txt", "not added\n")
	return repo
}

func readFixtureIndex(t testing.TB, repo string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t *testing.T, data []byte) *Index {
	t.Helper()
	ix, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return ix
}

// wantTracked checks Tracked for each path against want.
func wantTracked(t *testing.T, r *Repo, want map[string]bool) {
	t.Helper()
	for path, w := range want {
		got, err := r.Tracked(path)
		if err != nil {
			t.Errorf("Tracked(%q): %v", path, err)
			continue
		}
		if got != w {
			t.Errorf("Tracked(%q) = %v, want %v", path, got, w)
		}
	}
}

// deep is a long path of many folders.
var deep = strings.Repeat("long/", 100) + "leaf"

// Versions 2 and 4 as git writes them (git writes version 3 only when an
// entry has extended flags: TestIndexExtendedFlags).
func TestIndexVersions(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			t.Parallel()
			repo := fixtureRepo(t)
			gittest.WriteFile(t, repo, deep, "deep\n")
			gittest.Git(t, repo, "add", deep)
			gittest.Git(t, repo, "update-index", "--index-version", version)
			data := readFixtureIndex(t, repo)
			if got := binary.BigEndian.Uint32(data[4:8]); fmt.Sprint(got) != version {
				t.Fatalf("git wrote version %d, want %s", got, version)
			}
			ix := mustParse(t, data)
			if ix.Version != int(version[0]-'0') {
				t.Errorf("Version = %d, want %s", ix.Version, version)
			}
			if ix.Len() != 7 {
				t.Errorf("Len = %d, want 7", ix.Len())
			}
			for path, mode := range map[string]uint32{
				"a.txt":               ModeRegular,
				"run.sh":              ModeExecutable,
				"link":                ModeSymlink,
				"dir/sub/one.py":      ModeRegular,
				"dir/subway/three.py": ModeRegular,
				deep:                  ModeRegular,
			} {
				e, ok := ix.Lookup(path)
				if !ok || e.Mode != mode || !e.Tracked() {
					t.Errorf("Lookup(%q) = %+v, %v; want mode %o, tracked", path, e, ok, mode)
				}
			}
			for _, path := range []string{"untracked.txt", "dir", "dir/sub", "A.TXT", "a.txt/", "./a.txt"} {
				if e, ok := ix.Lookup(path); ok {
					t.Errorf("Lookup(%q) = %+v, want no entry", path, e)
				}
			}
		})
	}
}

// Version 3 exists for the extended flags: intent-to-add and skip-worktree
// entries are in the index but are not tracked content.
func TestIndexExtendedFlags(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			t.Parallel()
			repo := fixtureRepo(t)
			gittest.WriteFile(t, repo, "intent.txt", "later\n")
			gittest.Git(t, repo, "add", "-N", "intent.txt")
			gittest.Git(t, repo, "update-index", "--skip-worktree", "a.txt")
			gittest.Git(t, repo, "update-index", "--index-version", version)
			data := readFixtureIndex(t, repo)
			ix := mustParse(t, data)
			if fmt.Sprint(ix.Version) != version {
				t.Fatalf("Version = %d, want %s", ix.Version, version)
			}
			if e, ok := ix.Lookup("dir/subway/three.py"); !ok || !e.Tracked() {
				t.Errorf("dir/subway/three.py = %+v, %v; want tracked", e, ok)
			}
			if e, ok := ix.Lookup("intent.txt"); !ok || !e.IntentToAdd || e.Tracked() {
				t.Errorf("intent.txt = %+v, %v; want an intent-to-add entry, untracked", e, ok)
			}
			if e, ok := ix.Lookup("a.txt"); !ok || !e.SkipWorktree || e.Tracked() {
				t.Errorf("a.txt = %+v, %v; want a skip-worktree entry, untracked", e, ok)
			}
			if e, ok := ix.Lookup("run.sh"); !ok || e.SkipWorktree || e.IntentToAdd || !e.Tracked() {
				t.Errorf("run.sh = %+v, %v; want tracked", e, ok)
			}
		})
	}
}

// A repository of SHA-256 object IDs has 32-byte IDs and trailer.
func TestIndexSHA256(t *testing.T) {
	t.Parallel()
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, repo, "init", "-q", "--object-format=sha256")
	gittest.WriteFile(t, repo, "x.py", "x\n")
	gittest.AddAll(t, repo)
	ix := mustParse(t, readFixtureIndex(t, repo))
	if e, ok := ix.Lookup("x.py"); !ok || !e.Tracked() {
		t.Errorf("x.py = %+v, %v; want tracked", e, ok)
	}
}

// A merge conflict keeps stages 1–3 of a path: it is still tracked.
func TestIndexConflictStages(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "c.txt", "base\n")
	gittest.Commit(t, repo, "base")
	gittest.Git(t, repo, "checkout", "-q", "-b", "other")
	gittest.WriteFile(t, repo, "c.txt", "other\n")
	gittest.Commit(t, repo, "other")
	gittest.Git(t, repo, "checkout", "-q", "main")
	gittest.WriteFile(t, repo, "c.txt", "main\n")
	gittest.Commit(t, repo, "main")
	mergeConflict(t, repo)
	ix := mustParse(t, readFixtureIndex(t, repo))
	if e, ok := ix.Lookup("c.txt"); !ok || e.Stage == 0 || !e.Tracked() {
		t.Errorf("c.txt = %+v, %v; want a conflict stage, tracked", e, ok)
	}
}

// mergeConflict merges branch other into the current one, which must stop
// on a conflict.
func mergeConflict(t *testing.T, repo string) {
	t.Helper()
	out := gittest.GitFails(t, repo, "merge", "-q", "other")
	if !strings.Contains(out, "CONFLICT") {
		t.Fatalf("merge did not conflict:\n%s", out)
	}
}

// resign replaces an index's SHA-1 trailer with the checksum of its body.
func resign(body []byte) []byte {
	sum := sha1.Sum(body)
	return append(append([]byte{}, body...), sum[:]...)
}

// withExtension inserts an extension before the trailer of a valid SHA-1
// index and re-signs it.
func withExtension(data []byte, sig string, payload []byte) []byte {
	body := append([]byte{}, data[:len(data)-sha1.Size]...)
	body = append(body, sig...)
	body = binary.BigEndian.AppendUint32(body, uint32(len(payload)))
	body = append(body, payload...)
	return resign(body)
}

func TestIndexRefuses(t *testing.T) {
	t.Parallel()
	repo := fixtureRepo(t)
	valid := readFixtureIndex(t, repo)
	mustParse(t, valid)

	flipped := append([]byte{}, valid...)
	flipped[headerSize+entryFixed+sha1.Size+2] ^= 0x01 // a byte of the first path
	badVersion := append([]byte{}, valid[:len(valid)-sha1.Size]...)
	binary.BigEndian.PutUint32(badVersion[4:8], 5)
	hugeCount := append([]byte{}, valid[:len(valid)-sha1.Size]...)
	binary.BigEndian.PutUint32(hugeCount[8:12], 0xffffffff)
	zeroed := append([]byte{}, valid...)
	copy(zeroed[len(zeroed)-sha1.Size:], make([]byte, sha1.Size))

	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a git index"},
		{"wrong signature", append([]byte("DIRX"), valid[4:]...), "not a git index"},
		{"bad checksum", flipped, "checksum does not match"},
		{"unsupported version", resign(badVersion), "version 5 is not supported"},
		{"count above the size", resign(hugeCount), "claims 4294967295 entries"},
		{"required unknown extension", withExtension(valid, "abcd", []byte("xyz")), `required extension "abcd"`},
		{"split index link", withExtension(valid, "link", make([]byte, 20)), `the index is split (extension "link")`},
		{"sparse sdir", withExtension(valid, "sdir", nil), `the index is sparse (extension "sdir")`},
		{"extension past the end", withExtension(valid, "TREE", nil)[:len(valid)+4], "checksum"},
		{"stray bytes", resign(append(append([]byte{}, valid[:len(valid)-sha1.Size]...), 'Z', 'Z')), "stray bytes"},
		{"extension size too large", resign(append(append([]byte{}, valid[:len(valid)-sha1.Size]...), 'T', 'R', 'E', 'E', 0, 0, 1, 0)), "claims 256 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Parse(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, %v; want an error containing %q", ix, err, tt.want)
			}
		})
	}
	t.Run("optional unknown extension is skipped", func(t *testing.T) {
		ix := mustParse(t, withExtension(valid, "ZZZZ", []byte("anything")))
		if _, ok := ix.Lookup("a.txt"); !ok {
			t.Error("a.txt lost")
		}
	})
	t.Run("all-zero trailer (index.skipHash) is accepted", func(t *testing.T) {
		mustParse(t, zeroed)
	})
}

// Every truncation of a valid index of each version fails cleanly.
func TestIndexTruncated(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "3", "4"} {
		repo := fixtureRepo(t)
		gittest.WriteFile(t, repo, "intent.txt", "later\n")
		gittest.Git(t, repo, "add", "-N", "intent.txt")
		gittest.Git(t, repo, "update-index", "--index-version", version)
		valid := readFixtureIndex(t, repo)
		for n := 0; n < len(valid); n++ {
			if _, err := Parse(valid[:n]); err == nil {
				t.Fatalf("v%s: Parse of the first %d of %d bytes succeeded", version, n, len(valid))
			}
			// Re-signed and zero-signed truncations reach the parser
			// itself rather than stopping at the checksum.
			body := valid[:n]
			if n > headerSize {
				body = valid[:n-1]
			}
			_, _ = Parse(resign(body))
			_, _ = Parse(append(append([]byte{}, body...), make([]byte, sha1.Size)...))
		}
	}
}

// craft builds an index of one entry by hand, for malformations git never
// writes.
type craft struct {
	version   uint32
	mode      uint32
	flags     uint16
	ext       *uint16
	name      string
	v4Strip   []byte // version 4: the varint, as bytes
	count     uint32
	noNUL     bool
	prefixOne bool // version 4: an entry "a" first, so that stripping has something
}

func (c craft) build() []byte {
	count := c.count
	if count == 0 {
		count = 1
		if c.prefixOne {
			count = 2
		}
	}
	b := []byte(signature)
	b = binary.BigEndian.AppendUint32(b, c.version)
	b = binary.BigEndian.AppendUint32(b, count)
	entry := func(mode uint32, flags uint16, ext *uint16, strip []byte, name string, nul bool) {
		start := len(b)
		b = append(b, make([]byte, entryFixed)...)
		binary.BigEndian.PutUint32(b[start+entryModeOffset:], mode)
		b = append(b, make([]byte, sha1.Size)...)
		b = binary.BigEndian.AppendUint16(b, flags)
		if ext != nil {
			b = binary.BigEndian.AppendUint16(b, *ext)
		}
		if c.version == 4 {
			b = append(b, strip...)
			b = append(b, name...)
			if nul {
				b = append(b, 0)
			}
			return
		}
		b = append(b, name...)
		if nul {
			size := (len(b) - start + 8) &^ 7
			b = append(b, make([]byte, size-(len(b)-start))...)
		}
	}
	if c.prefixOne {
		entry(ModeRegular, 1, nil, []byte{0}, "a", true)
	}
	flags := c.flags
	if flags == 0 {
		flags = uint16(min(len(c.name), flagNameMask))
	}
	strip := c.v4Strip
	if strip == nil {
		strip = []byte{0}
	}
	entry(c.mode, flags, c.ext, strip, c.name, !c.noNUL)
	return resign(b)
}

func TestIndexCrafted(t *testing.T) {
	t.Parallel()
	u16 := func(v uint16) *uint16 { return &v }
	tests := []struct {
		name string
		c    craft
		want string // "" means it parses
	}{
		{"plain v2", craft{version: 2, mode: ModeRegular, name: "x.py"}, ""},
		{"gitlink", craft{version: 2, mode: ModeGitlink, name: "sub"}, ""},
		{"unknown mode", craft{version: 2, mode: 0o100600, name: "x"}, "unknown mode"},
		{"sparse directory entry", craft{version: 3, mode: ModeDir, name: "d/"}, "sparse directory"},
		{"extended flag in v2", craft{version: 2, mode: ModeRegular, flags: flagExtended | 1, ext: u16(0), name: "x"}, "version 2"},
		{"unknown extended flag", craft{version: 3, mode: ModeRegular, flags: flagExtended | 1, ext: u16(0x1000), name: "x"}, "unknown extended flags"},
		{"reserved extended bit", craft{version: 3, mode: ModeRegular, flags: flagExtended | 1, ext: u16(0x8000), name: "x"}, "unknown extended flags"},
		{"name length mismatch", craft{version: 2, mode: ModeRegular, flags: 3, name: "x"}, "flags say 3"},
		{"long name uses 0xfff", craft{version: 2, mode: ModeRegular, flags: flagNameMask, name: strings.Repeat("n", 5000)}, "longer than 4096"},
		{"0xfff name length", craft{version: 2, mode: ModeRegular, flags: flagNameMask, name: strings.Repeat("n", 4095)}, ""},
		{"empty name", craft{version: 2, mode: ModeRegular, flags: 0x0, name: ""}, "empty path"},
		{"unterminated name", craft{version: 2, mode: ModeRegular, name: "x", noNUL: true}, "unterminated"},
		{"v4 plain", craft{version: 4, mode: ModeRegular, name: "x"}, ""},
		{"v4 strip within the previous path", craft{version: 4, mode: ModeRegular, v4Strip: []byte{1}, name: "b", prefixOne: true}, ""},
		{"v4 strip beyond the previous path", craft{version: 4, mode: ModeRegular, v4Strip: []byte{2}, name: "b", prefixOne: true}, "strips 2 bytes"},
		{"v4 overlong varint", craft{version: 4, mode: ModeRegular, v4Strip: bytes.Repeat([]byte{0xff}, 11), name: "b"}, "varint"},
		{"v4 truncated varint", craft{version: 4, mode: ModeRegular, v4Strip: []byte{0x80}, name: "", noNUL: true}, "varint"},
		{"v4 empty path", craft{version: 4, mode: ModeRegular, v4Strip: []byte{1}, flags: 0x0, name: "", prefixOne: true}, "empty path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Parse(tt.c.build())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if ix.Len() == 0 {
					t.Error("no entries")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// A version 4 index that rebuilds long paths from tiny entries is stopped
// by the path budget, not by memory.
func TestIndexPathBudget(t *testing.T) {
	t.Parallel()
	const n = 3000
	b := []byte(signature)
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint32(b, n)
	for i := 0; i < n; i++ {
		start := len(b)
		b = append(b, make([]byte, entryFixed+sha1.Size)...)
		binary.BigEndian.PutUint32(b[start+entryModeOffset:], ModeRegular)
		b = binary.BigEndian.AppendUint16(b, flagNameMask)
		b = append(b, 0, 'a', 'a', 'a', 0) // strip nothing, add "aaa"
	}
	_, err := Parse(resign(b))
	if err == nil || !(strings.Contains(err.Error(), "expand beyond") || strings.Contains(err.Error(), "longer than")) {
		t.Errorf("Parse = %v; want the path budget or length cap to stop it", err)
	}
}

func TestVarint(t *testing.T) {
	t.Parallel()
	// Values from git's encode_varint: 127 is one byte, 128 is 0x80 0x00.
	for _, tt := range []struct {
		in   []byte
		want uint64
	}{
		{[]byte{0}, 0},
		{[]byte{0x7f}, 127},
		{[]byte{0x80, 0x00}, 128},
		{[]byte{0x80, 0x7f}, 255},
		{[]byte{0x81, 0x00}, 256},
		{[]byte{0xff, 0x7f}, 16511},
	} {
		got, n, err := varint(tt.in)
		if err != nil || got != tt.want || n != len(tt.in) {
			t.Errorf("varint(% x) = %d, %d, %v; want %d, %d", tt.in, got, n, err, tt.want, len(tt.in))
		}
	}
}
