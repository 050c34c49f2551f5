// Package filekind names the type of a file that is not a regular one,
// for the messages that refuse it (a spec's file, a stored report).
package filekind

import "io/fs"

// Of names m's type: "a directory", "a named pipe (FIFO)", a socket, a
// device, a symlink, else "a special file".
func Of(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	default:
		return "a special file"
	}
}
