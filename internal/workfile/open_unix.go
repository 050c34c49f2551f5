//go:build unix

package workfile

import (
	"os"
	"syscall"
)

// openRegular opens a file for reading without following a final symlink
// and without blocking when it turns out to be a FIFO; the caller checks
// the opened file's type before reading.
func openRegular(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
