package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readThrough reads f through Open to its end: the bytes, and how it ended.
func readThrough(t *testing.T, f File) (string, error) {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return string(b), err
}

// TestReadFile: a file read from disk is hashed once and kept as a handle
// (its size and digest), and read again through Open, the same bytes.
func TestReadFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "parsing.py")
	writeFile(t, path, "X = 1\n")
	f, err := ReadFile(path, "tool/parsing.py", lstat(t, path), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("X = 1\n"))
	if f.Bytes != 6 || f.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("handle %d bytes, sha256 %s; want 6 and %x", f.Bytes, f.SHA256, sum)
	}
	if !f.Equal(BytesFile([]byte("X = 1\n"))) {
		t.Error("a file read from disk is not Equal to the same bytes in memory")
	}
	for range 2 { // every Open reads it again
		if got, err := readThrough(t, f); got != "X = 1\n" || err != nil {
			t.Errorf("read again: %q, %v", got, err)
		}
	}
	if _, err := ReadFile(path, "tool/parsing.py", lstat(t, path), 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("above the cap: %v, want ErrTooLarge", err)
	}
}

// TestFileChangedOnDisk: a file that is not the bytes recorded when read
// (rewritten, grown, shrunk, replaced, a symlink swapped in) ends its
// reader with an error naming it, never io.EOF, and after no more than the
// recorded size; so a delivery that copies to the end cannot deliver
// bytes other than the digest says.
func TestFileChangedOnDisk(t *testing.T) {
	t.Parallel()
	const orig = "X = 1\n"
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, path string)
		want   string // in the error
	}{
		{"rewritten in place", func(t *testing.T, path string) { rewrite(t, path, "X = 2\n") }, "its 6 bytes now have sha256"},
		{"grown", func(t *testing.T, path string) { rewrite(t, path, orig+"Y = 2\n") }, "now longer than the 6 bytes read"},
		{"shrunk", func(t *testing.T, path string) { rewrite(t, path, "X") }, "now ends after 1 of the 6 bytes read"},
		{"replaced", func(t *testing.T, path string) {
			tmp := path + ".new"
			writeFile(t, tmp, orig) // the same bytes, another file
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}, "was replaced by another file"},
		{"a symlink swapped in", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "secret")
			writeFile(t, other, orig)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, path); err != nil {
				t.Fatal(err)
			}
		}, "opening tool/parsing.py again"},
		{"removed", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "opening tool/parsing.py again"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "parsing.py")
			writeFile(t, path, orig)
			f, err := ReadFile(path, "tool/parsing.py", lstat(t, path), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			tt.change(t, path)
			got, err := readThrough(t, f)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "tool/parsing.py") {
				t.Fatalf("read after the change: %q, %v; want an error naming tool/parsing.py with %q", got, err, tt.want)
			}
			if len(got) > len(orig) {
				t.Errorf("%d bytes read, more than the %d recorded", len(got), len(orig))
			}
			var ce *ChangedError
			if strings.Contains(tt.want, "now") || tt.name == "replaced" {
				if !errors.As(err, &ce) || ce.Name != "tool/parsing.py" {
					t.Errorf("%v: want a *ChangedError naming tool/parsing.py", err)
				}
				if !strings.Contains(err.Error(), "tool/parsing.py changed on disk after behaves read it") {
					t.Errorf("message %q", err)
				}
			}
		})
	}
}

// TestBytesFile: bytes in memory are a handle too; the zero File has no
// content to read.
func TestBytesFile(t *testing.T) {
	t.Parallel()
	b := []byte("print(1)\n")
	f := BytesFile(b)
	if got, err := f.ReadAll(); string(got) != "print(1)\n" || err != nil {
		t.Errorf("ReadAll = %q, %v", got, err)
	}
	b[0] = 'P' // changed behind the handle's back
	var ce *ChangedError
	if _, err := f.ReadAll(); !errors.As(err, &ce) || !strings.Contains(err.Error(), "held in memory changed") {
		t.Errorf("after a change: %v, want a *ChangedError", err)
	}
	if _, err := (File{}).Open(); err == nil {
		t.Error("the zero File opened")
	}
	if e := BytesFile(nil); e.Bytes != 0 || e.SHA256 != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("empty file: %+v", e)
	}
	if got, err := BytesFile(nil).ReadAll(); len(got) != 0 || err != nil {
		t.Errorf("empty file read: %q, %v", got, err)
	}
}

// TestProgramDigestFromHandles: a program's digest and list come from the
// handles' recorded digests.
func TestProgramDigestFromHandles(t *testing.T) {
	t.Parallel()
	one := Program{Entry: "a.py", Files: FilesOf(map[string][]byte{"a.py": []byte("A")})}
	if one.Digest() != one.Files["a.py"].SHA256 {
		t.Errorf("one file: %s", one.Digest())
	}
	folder := Program{Folder: true, Files: FilesOf(map[string][]byte{"b": []byte("BB"), "a": []byte("A")}), Executable: map[string]bool{"b": true}}
	l := folder.List()
	if len(l) != 2 || l[0].Path != "a" || l[1].Mode != ListModeExecutable || l[1].Bytes != 2 || l[1].SHA256 != folder.Files["b"].SHA256 {
		t.Errorf("list %+v", l)
	}
	if folder.Digest() != sha256Hex([]byte(folder.FileList())) {
		t.Errorf("folder digest %s", folder.Digest())
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rewrite changes a file's bytes in place (the same inode).
func rewrite(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func lstat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
