package workfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/behaves-dev/behaves/internal/filekind"
)

// ErrReplaced is Open's error for a path that now names another file than
// the one checked: something replaced it (an editor's or git's rename, a
// symlink swapped in for a folder of its path) after the check.
var ErrReplaced = errors.New("the file was replaced after it was checked")

// ErrNotRegular is in Open's error for a path that is no regular file
// (which the check found it to be, when there was one).
var ErrNotRegular = errors.New("not a regular file")

// Open opens the file at real (a path with every symlink resolved) for
// reading, without following a final symlink and without blocking when it
// is a FIFO, and checks what it opened: a regular file and, when checked
// is not nil, the same file (device and inode) as checked. It returns the
// open file and its fs.FileInfo (the size to read is the caller's: a file
// can grow while it is read). The errors are *fs.PathError for what the
// system refused, ErrReplaced, or ErrNotRegular with the file's type.
func Open(real string, checked fs.FileInfo) (*os.File, fs.FileInfo, error) {
	f, err := openRegular(real)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("it is %s: %w", filekind.Of(fi.Mode()), ErrNotRegular)
	case checked != nil && !os.SameFile(fi, checked):
		err = ErrReplaced
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
