// Package workfile opens a workspace file that was checked once (its path
// resolved so that no symlink is left, admitted by the workspace rule,
// found to be a regular file) for reading, again: the spec loader when it
// reads a file it checked, and a program's content handle
// (runner.ReadFile, runner.File.Open) each time it reads the bytes it
// delivers. It is the one place that says how such a file is opened, so
// that the loader and the delivery keep the same guarantees: no final
// symlink followed (one swapped in since the check is refused), no FIFO
// blocked on, nothing but a regular file read, and, when the caller has
// the check's fs.FileInfo, only the very file that was checked (the same
// device and inode).
package workfile
