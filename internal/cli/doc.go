// Package cli owns the command line: it parses subcommands and flags,
// reads the action's inputs and behaves' environment (the only package
// that does), wires them over the library calls run.Run and
// ghpublish.Publish, and turns their outcome into the documented exit
// code. main.go only sets up signals and calls Main.
package cli
