package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/run"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// DefaultPullTimeout bounds the pull of one image (--pull-timeout): long
// enough for a large image over a slow link, short enough that a registry
// that trickles bytes cannot hold the runner for the job's whole budget.
const DefaultPullTimeout = 10 * time.Minute

var pullHelp = commandHelp{
	args: `[--spec behaves.yml] --allow-registry HOST[:PORT]... [flags]`,
	about: `Pulls each distinct image the spec's programs run that the Docker engine
does not have, by its registry digest (name@sha256:…), one line per image,
and checks that the pulled image carries that digest. It pulls only from
the registries --allow-registry names: an image from another registry is a
spec error. A local image ID (sha256:…) cannot be pulled: if it is absent,
pull says so and fails. No credentials are sent, so a private registry is
out of scope: pull its images with the docker CLI (after docker login)
before behaves.`,
	exits: `0 every image present or pulled · 2 usage or spec error ·
            4 some image could not be pulled, or Docker is unreachable`,
}

// registryFlag collects --allow-registry HOST[:PORT], normalised as it is
// parsed (a malformed registry is a usage error).
type registryFlag []string

func (f *registryFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(*f, ",")
}

func (f *registryFlag) Set(s string) error {
	reg, err := spec.NormalizeRegistry(s)
	if err != nil {
		return err
	}
	*f = append(*f, reg)
	return nil
}

// registerPullImages adds run's and validate's --pull-images switch.
func (s *specFlags) registerPullImages(fs *flag.FlagSet) {
	fs.BoolVar(&s.pull, "pull-images", false, "pull the images the engine lacks, by digest, before scoring; needs --allow-registry (a failed pull makes its programs undetermined)")
}

// registerPullTimeout adds --pull-timeout (run and pull).
func registerPullTimeout(fs *flag.FlagSet) *time.Duration {
	d := DefaultPullTimeout
	fs.Var((*timeoutFlag)(&d), "pull-timeout", "the longest the pull of one image may take")
	return &d
}

// timeoutFlag is a duration greater than 0, checked as it is parsed.
type timeoutFlag time.Duration

func (f *timeoutFlag) String() string { return time.Duration(*f).String() }

func (f *timeoutFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if d <= 0 {
		return fmt.Errorf("must be greater than 0, not %s", d)
	}
	*f = timeoutFlag(d)
	return nil
}

// checkPull returns the usage error of a command that pulls with no
// registry allowed, or "". Pulling from nowhere is refused rather than
// allowed everywhere: the images are named by the spec, which a pull
// request may edit.
func (s *specFlags) checkPull(cmd, what string) string {
	if !s.pull || len(s.registries) > 0 {
		return ""
	}
	return fmt.Sprintf("behaves %s: %s needs --allow-registry HOST[:PORT] (repeatable): the registries a pull may fetch from, since the spec, which a pull request may edit, names the images; none is allowed by default", cmd, what)
}

// parseAndLoad parses the flags of a command that loads the spec and
// nothing else first (validate, pull), checks its pull flags (what names
// the pulling for the message) and loads the spec. On a usage or spec
// error it prints why and returns nil.
func (s *specFlags) parseAndLoad(fs *flag.FlagSet, args []string, env Env, what string) *spec.Spec {
	if !parse(fs, args, env) {
		return nil
	}
	if msg := s.checkPull(fs.Name(), what); msg != "" {
		fmt.Fprintln(env.Stderr, msg)
		return nil
	}
	sp, err := s.load()
	if err != nil {
		printMessages(env.Stderr, env, specErrorLines(err)...)
		return nil
	}
	return sp
}

// pullCommand is `behaves pull`: the pull phase of run --pull-images on
// its own, so that a workflow can pull in a step of its own.
func pullCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("pull", flag.ContinueOnError)
	var sf specFlags
	sf.register(fs)
	timeout := registerPullTimeout(fs)
	sf.pull = true // what pull does; it has no --pull-images to unset it
	sp := sf.parseAndLoad(fs, args, env, "pulling")
	if sp == nil {
		return ExitUsage
	}
	if env.NewSandbox == nil {
		fmt.Fprintln(env.Stderr, "behaves pull: no Docker connection is configured")
		return ExitRunFailed
	}
	sb, closer, err := env.NewSandbox(ctx, newRunID())
	if err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves pull: sandbox unavailable: %v", err))
		return ExitRunFailed
	}
	defer func() {
		if err := closer.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: closing the Docker client: %v\n", err)
		}
	}()
	failed, err := run.Pull(ctx, runEnv(env), sb, sp, *timeout)
	switch {
	case err != nil:
		printMessages(env.Stderr, env, fmt.Sprintf("behaves pull: %v", err))
		return ExitRunFailed
	case failed > 0:
		printMessages(env.Stderr, env, fmt.Sprintf("behaves pull: %s could not be pulled", verdict.Count(failed, "image", "images")))
		return ExitRunFailed
	}
	return ExitTrue
}
