package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/pin"
	"github.com/behaves-dev/behaves/internal/spec"
)

var pinHelp = commandHelp{
	args: `[--spec behaves.yml] [--check] --allow-registry HOST[:PORT]...`,
	about: `Pins every profile's and build stage's image written as name:tag (or
name:tag@sha256:…) to the digest its tag points to in its registry now
(for a multi-platform image, the index's digest), and rewrites only those
values, as name:tag@sha256:<digest>: comments, order and quoting stay as
they are. Images pinned by ID (sha256:…) or by digest without a tag are
left alone. Only the registries --allow-registry names are asked; an image
in another is an error naming the flag, and nothing is asked.

pin reads registry credentials as docker pull does (the Docker config,
~/.docker/config.json or $DOCKER_CONFIG, and its credential helpers), so a
private registry works after docker login. run, publish and the action
read none.

--check changes nothing: it exits 1 when an image is unpinned or its pin
is stale, naming each, so that a scheduled workflow can open the update.`,
	exits: `0 pinned (with --check: every pin current) · 1 --check: a pin is
            missing or stale · 2 usage or spec error, an image pin cannot
            follow, or a registry not allowed · 4 a registry could not be
            reached or could not resolve a tag (nothing is written)`,
}

// pinCommand is `behaves pin`: flags over pin.Plan and pin.Write. Of the
// command line, only this file and init.go import internal/pin (a test
// keeps it so): no other command reads registry credentials.
func pinCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("pin", flag.ContinueOnError)
	path := fs.String("spec", "behaves.yml", "the spec file")
	check := fs.Bool("check", false, "change nothing: exit 1 when an image is unpinned or its pin is stale, 0 when every pin is current")
	var registries registryFlag
	fs.Var(&registries, "allow-registry", "HOST[:PORT]: a registry pin may ask for digests (docker.io, ghcr.io, 127.0.0.1:5000); none by default; repeatable")
	timeout := pin.DefaultTimeout
	fs.Var((*timeoutFlag)(&timeout), "timeout", "the longest the resolution of one image may take")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	data, err := readSpecBytes(*path)
	if err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves pin: %v", err))
		return ExitUsage
	}
	res := newResolver(registries, timeout)
	outcomes, err := pin.Plan(ctx, data, res)
	if err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves pin: %s: %v", *path, err))
		return ExitUsage
	}
	return pinReport(env, *path, data, outcomes, *check)
}

// newResolver is the resolver of pin and init: the registries allowed and
// the Docker config's credentials.
func newResolver(registries []string, timeout time.Duration) *pin.Resolver {
	return &pin.Resolver{Registries: registries, Timeout: timeout, UserAgent: "behaves/" + version()}
}

// pinReport prints what pin found, one line per image, writes the spec
// unless check, and returns the exit code.
func pinReport(env Env, path string, data []byte, outcomes []pin.Outcome, check bool) int {
	var lines, problems []string
	var refused, failed, todo, current, skipped int
	var unreached []string
	for _, o := range outcomes {
		at := fmt.Sprintf("%s:%d:%d: %s %q", path, o.Line, o.Column, o.Where(), o.Ref)
		switch o.Status {
		case pin.Current:
			current++
			lines = append(lines, at+": current")
		case pin.Missing:
			todo++
			if check {
				lines = append(lines, fmt.Sprintf("%s: unpinned: its tag points to %s", at, o.Now))
			} else {
				lines = append(lines, fmt.Sprintf("%s: pinned to %s", at, o.Now))
			}
		case pin.Stale:
			todo++
			if check {
				lines = append(lines, fmt.Sprintf("%s: stale: pinned to %s, its tag now points to %s", at, o.Digest, o.Now))
			} else {
				lines = append(lines, fmt.Sprintf("%s: updated from %s to %s", at, o.Digest, o.Now))
			}
		case pin.Skipped:
			skipped++
			if o.Kind == pin.ByID {
				lines = append(lines, at+": pinned by image ID, left alone (no registry to ask)")
			} else {
				lines = append(lines, at+": pinned by digest without a tag, left alone (pin follows a tag: write name:tag@sha256:…)")
			}
		case pin.Refused:
			refused++
			problems = append(problems, fmt.Sprintf("%s:%d:%d: %s: %v", path, o.Line, o.Column, o.Where(), o.Err))
		case pin.Failed:
			failed++
			problems = append(problems, fmt.Sprintf("%s:%d:%d: %s %q: %v", path, o.Line, o.Column, o.Where(), o.Ref, o.Err))
			var ue *pin.UnreachableError
			if errors.As(o.Err, &ue) && !slices.Contains(unreached, ue.Registry) {
				unreached = append(unreached, ue.Registry)
			}
		}
	}
	printMessages(env.Stdout, env, lines...)
	switch {
	case refused > 0:
		problems = append(problems, fmt.Sprintf("behaves pin: %s: %s refused; no registry was asked and nothing was written", path, countImages(refused)))
		printMessages(env.Stderr, env, problems...)
		return ExitUsage
	case failed > 0:
		sort.Strings(unreached)
		msg := fmt.Sprintf("behaves pin: %s: %s could not be resolved; nothing was written", path, countImages(failed))
		if len(unreached) > 0 {
			msg += fmt.Sprintf(" (unreachable: %s)", strings.Join(unreached, ", "))
		}
		printMessages(env.Stderr, env, append(problems, msg)...)
		return ExitRunFailed
	case len(outcomes) == 0:
		printMessages(env.Stdout, env, fmt.Sprintf("behaves pin: %s names no profile or build image", path))
		return ExitTrue
	case check && todo > 0:
		printMessages(env.Stdout, env, fmt.Sprintf("behaves pin --check: %s: %s to pin (behaves pin updates the file), %d current", path, countImages(todo), current))
		return ExitFalse
	case check:
		printMessages(env.Stdout, env, fmt.Sprintf("behaves pin --check: %s: every pin is current (%d current, %d left alone)", path, current, skipped))
		return ExitTrue
	case todo == 0:
		printMessages(env.Stdout, env, fmt.Sprintf("behaves pin: %s: every pin is current; nothing to write", path))
		return ExitTrue
	}
	out, err := pin.Write(data, outcomes)
	if err == nil {
		err = pin.WriteFile(path, out)
	}
	if err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves pin: writing %s: %v", path, err))
		return ExitRunFailed
	}
	printMessages(env.Stdout, env, fmt.Sprintf("behaves pin: wrote %s: %s pinned, %d already current", path, countImages(todo), current))
	return ExitTrue
}

// readSpecBytes reads the spec file for pin: a regular file of at most
// spec.MaxSpecSize bytes.
func readSpecBytes(path string) ([]byte, error) {
	// Its type is checked before it is opened: opening a FIFO would block.
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("reading the spec: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the spec %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the spec: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading the spec: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the spec %s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, spec.MaxSpecSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the spec: %w", err)
	}
	if int64(len(data)) > spec.MaxSpecSize {
		return nil, fmt.Errorf("the spec %s is above the %d-byte cap", path, spec.MaxSpecSize)
	}
	return data, nil
}

// countImages is "1 image", "2 images".
func countImages(n int) string { return countNoun(n, "image") }

// countNoun is "1 program", "2 programs" (nouns whose plural adds s).
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
