// Package gittest runs the git binary for tests that need real repositories
// as fixtures (indexes of every version, worktrees, submodules). It isolates
// git from the machine: no global or system config, a fixed identity, no
// GIT_* variable from the test's environment, and never a change of the
// process's working directory.
package gittest
