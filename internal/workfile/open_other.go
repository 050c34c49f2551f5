//go:build !unix

package workfile

import "os"

// openRegular opens a file for reading; the caller checks the opened
// file's type before reading.
func openRegular(path string) (*os.File, error) {
	return os.Open(path)
}
