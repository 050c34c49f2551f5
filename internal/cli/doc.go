// Package cli owns the command line: it parses subcommands and flags, wires
// spec → runner → verdict → report in one direction, and turns the outcome
// into the documented exit code. main.go only sets up signals and calls Main.
package cli
