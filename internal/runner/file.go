package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"

	"github.com/behaves-dev/behaves/internal/workfile"
)

// File is one file of a program as a content handle: its size and the
// digest of its bytes, recorded when it was read, and where to read those
// bytes again (Open). Nothing holds a program's bytes from loading to
// delivery: the spec loader hashes each file while it reads it and keeps
// this handle, and the sandbox reads the file again while it streams it
// into the program's volume, hashing it again, so that a run's memory does
// not grow with its programs' size. Open checks on the way that the bytes
// are the ones recorded, so a digest in the report is always the digest of
// the bytes the program ran with.
//
// Why read twice and hash twice, rather than read once: the digest must be
// of the bytes delivered. Keeping the bytes from the load (where the digest
// is needed first: the evidence key, reuse, the shard digest) to the
// delivery would guarantee it by holding every program in memory at once;
// reading the file again unchecked would not guarantee it at all (a file
// rewritten in between would run under the old digest). Reading it again
// and hashing it while it streams guarantees it for the CPU time of a
// SHA-256: the bytes delivered are the bytes recorded, or the delivery
// fails and the program's cases say so.
//
// A File made by BytesFile holds its bytes in memory (tests, the bench's
// floor); one made by ReadFile reopens its file on disk. The zero File has
// no content and cannot be opened.
type File struct {
	// Bytes is the file's size and SHA256 the lowercase hex SHA-256 of its
	// bytes, as read.
	Bytes  int64
	SHA256 string
	src    source
}

// source is where a File's bytes are read again.
type source interface {
	open() (io.Reader, io.Closer, error)
	// name is the file as a message names it ("" for bytes in memory).
	name() string
}

// memory is a File's bytes held in memory.
type memory []byte

func (m memory) open() (io.Reader, io.Closer, error) { return bytes.NewReader(m), nil, nil }
func (memory) name() string                          { return "" }

// disk is a workspace file, checked by the spec loader (see ReadFile).
type disk struct {
	// path is its real path (no symlink left), shown its path as messages
	// name it, and info what the check found: the file reopened must be
	// that one.
	path, shown string
	info        fs.FileInfo
}

func (d *disk) open() (io.Reader, io.Closer, error) {
	f, _, err := workfile.Open(d.path, d.info)
	switch {
	case errors.Is(err, workfile.ErrReplaced):
		return nil, nil, &ChangedError{Name: d.shown, Why: "it was replaced by another file"}
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named below, as the user knows it
		}
		return nil, nil, fmt.Errorf("opening %s again: %w", d.shown, err)
	}
	return f, f, nil
}

func (d *disk) name() string { return d.shown }

// ErrTooLarge is in ReadFile's error for a file that grew above its cap
// while it was read.
var ErrTooLarge = errors.New("the file grew above its cap while it was read")

// BytesFile is a File of the bytes b, held in memory (b must not change
// afterwards: a read of the File would refuse it).
func BytesFile(b []byte) File {
	sum := sha256.Sum256(b)
	return File{Bytes: int64(len(b)), SHA256: hex.EncodeToString(sum[:]), src: memory(b)}
}

// FilesOf is BytesFile of each of m's values, by the same paths: a
// program's Files from bytes in memory.
func FilesOf(m map[string][]byte) map[string]File {
	out := make(map[string]File, len(m))
	for p, b := range m {
		out[p] = BytesFile(b)
	}
	return out
}

// ReadFile reads the workspace file at path (its real path: no symlink
// left) once, through workfile.Open (without following a symlink swapped
// in since the check, a regular file only, the same file as checked when
// checked is not nil), hashing it as it goes, and returns its handle; at
// most max bytes are read, and a file that grew past them is an error.
// shown names the file in Open's errors (its path relative to the
// repository root).
func ReadFile(path, shown string, checked fs.FileInfo, max int64) (File, error) {
	f, fi, err := workfile.Open(path, checked)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, max+1))
	switch {
	case err != nil:
		return File{}, err
	case n > max:
		return File{}, fmt.Errorf("%w (%d bytes)", ErrTooLarge, max)
	}
	if checked == nil {
		checked = fi
	}
	return File{Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil)), src: &disk{path: path, shown: shown, info: checked}}, nil
}

// Open returns a reader of the file's bytes: exactly Bytes of them, read
// again from where they came from and hashed as they are read. When they
// are not the bytes recorded (the file on disk was replaced, grew, shrank
// or was rewritten since it was read), the reader ends with a
// *ChangedError instead of io.EOF, after at most Bytes bytes: a consumer
// that copies to the end (the delivery's archive) fails rather than
// deliver bytes other than the recorded digest's.
func (f File) Open() (io.ReadCloser, error) {
	if f.src == nil {
		return nil, errors.New("the file has no content to read (a zero runner.File)")
	}
	r, c, err := f.src.open()
	if err != nil {
		return nil, err
	}
	return &checking{r: r, c: c, want: f, left: f.Bytes, h: sha256.New()}, nil
}

// Equal says whether f and g stand for the same bytes: the same size and
// digest, wherever each is read from (go-cmp uses it).
func (f File) Equal(g File) bool { return f.Bytes == g.Bytes && f.SHA256 == g.SHA256 }

// ReadAll is the file's bytes, read through Open: for a small file (a
// test's scripted sandbox), never a program's files in general, which are
// streamed.
func (f File) ReadAll() ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// ChangedError says that a file's bytes, read again, are not the ones
// recorded when it was first read.
type ChangedError struct {
	// Name is the file as the user knows it (its path relative to the
	// repository root; "" for bytes held in memory), Why what differs.
	Name, Why string
}

func (e *ChangedError) Error() string {
	if e.Name == "" {
		return "a file held in memory changed after behaves read it (" + e.Why + ")"
	}
	return e.Name + " changed on disk after behaves read it (" + e.Why + ")"
}

// checking reads a File's bytes again, hashing them (see File.Open).
type checking struct {
	r    io.Reader
	c    io.Closer // nil for bytes in memory
	want File
	left int64 // bytes still to read before the recorded end
	h    hash.Hash
	err  error // the end, once reached (io.EOF or why not)
}

func (c *checking) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.left == 0 {
		c.err = c.end()
		return 0, c.err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.left -= int64(n)
	switch {
	case err == io.EOF && c.left > 0:
		c.err = c.changed(fmt.Sprintf("it now ends after %d of the %d bytes read", c.want.Bytes-c.left, c.want.Bytes))
	case err == io.EOF:
		// The recorded size is reached: the next Read checks the end.
	case err != nil:
		c.err = c.failed(err)
	}
	return n, c.err
}

// end checks the file at its recorded size: nothing follows, and the
// bytes read have the recorded digest.
func (c *checking) end() error {
	var one [1]byte
	n, err := io.ReadFull(c.r, one[:])
	switch {
	case n > 0:
		return c.changed(fmt.Sprintf("it is now longer than the %d bytes read", c.want.Bytes))
	case err != io.EOF:
		return c.failed(err)
	}
	if got := hex.EncodeToString(c.h.Sum(nil)); got != c.want.SHA256 {
		return c.changed(fmt.Sprintf("its %d bytes now have sha256 %.12s…, not the %.12s… read", c.want.Bytes, got, c.want.SHA256))
	}
	return io.EOF
}

func (c *checking) changed(why string) error {
	return &ChangedError{Name: c.want.src.name(), Why: why}
}

func (c *checking) failed(err error) error {
	if name := c.want.src.name(); name != "" {
		return fmt.Errorf("reading %s again: %w", name, err)
	}
	return err
}

func (c *checking) Close() error {
	if c.c == nil {
		return nil
	}
	return c.c.Close()
}
