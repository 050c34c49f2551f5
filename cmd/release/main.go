// Command release builds a release of behaves from the checked-out commit
// and pushes its action image (package release says how and what):
//
//	go run ./cmd/release --registry HOST[:PORT] --out DIR [--name behaves] [--repo .] [--allow-dirty]
//
// Run it through scripts/release.sh, which builds this program from a clone
// of HEAD in a pinned environment: `go run` in a work tree would let
// uncommitted code and the caller's Go settings shape the program that
// makes the release. The pushed reference is the last line of stdout; logs
// go to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/behaves-dev/behaves/internal/release"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt release.Options
	fs.StringVar(&opt.Registry, "registry", "", "HOST[:PORT] of the registry to push the image to (required)")
	fs.StringVar(&opt.Out, "out", "", "the folder to write action.yml, the binaries, SHA256SUMS and the SBOM into (required; created)")
	fs.StringVar(&opt.Name, "name", "behaves", "the image's repository name in the registry (lower case)")
	fs.StringVar(&opt.Repo, "repo", ".", "the git work tree whose HEAD is released")
	fs.BoolVar(&opt.AllowDirty, "allow-dirty", false, "release HEAD although the work tree has changes or untracked files (not released either way); the version is marked +dirty")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if opt.Registry == "" || opt.Out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "release: usage: release --registry HOST[:PORT] --out DIR [--name behaves] [--repo .] [--allow-dirty]")
		return 2
	}
	opt.Log = func(format string, a ...any) { fmt.Fprintf(stderr, "release: "+format+"\n", a...) }
	rel, err := release.Build(ctx, opt)
	if err != nil {
		fmt.Fprintf(stderr, "release: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, rel.Reference)
	return 0
}
