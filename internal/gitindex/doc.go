// Package gitindex owns one question: which paths does git track in a work
// tree? It answers it without a git binary (the action's image has none) by
// reading the index file itself: versions 2, 3 and 4 (with path prefix
// compression), SHA-1 or SHA-256 object IDs, the trailer checksum checked.
//
// The index is untrusted input (the work tree comes from a pull request, and
// whatever wrote the index is not vouched for): every length is bounds-checked,
// the file and the paths it expands to are capped, and nothing here panics on
// any input. Whatever cannot be read with certainty is an error, never an
// empty answer: an unknown required extension (a split index's "link", a
// sparse index's "sdir"), a directory entry, a .git file pointing at a
// folder that does not exist here.
//
// Open finds the index from a work tree's .git entry: a directory, or a file
// "gitdir: <path>" (linked worktrees and submodules; a linked worktree's
// index is in its own gitdir, next to its commondir link). A path inside a
// submodule (under a gitlink entry, mode 160000) is tracked only if the
// submodule's own index lists it.
//
// What counts as tracked: an entry at any stage whose mode is a regular
// file or a symlink. Entries marked intent-to-add (git add -N) carry no
// content yet, and skip-worktree entries (sparse checkout) are ones git
// itself does not look at in the work tree: whatever file sits at their
// path is not the content git tracks, so both count as untracked. Paths are
// compared byte for byte, as git's index does: on a case-insensitive file
// system a path spelled with other case than the index's is untracked.
package gitindex
