package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
)

// buildImage is the image of a profile's build stage ("" without one).
func buildImage(p runner.Profile) string {
	if p.Build == nil {
		return ""
	}
	return p.Build.Image
}

// ErrCannotPull is the pull phase's error for a sandbox that cannot pull.
var ErrCannotPull = errors.New("this sandbox cannot pull images")

// Pull is the pull phase: each distinct image the spec's programs and
// then its checkers run or build with, in the order they first use it, is
// pulled if the engine lacks it, with a progress line each (escaped: an image reference is spec
// text). It returns how many could not be pulled; its error is
// ErrCannotPull, or the interruption. Scoring comes after it and never
// pulls: a failed image stays missing, and the sandbox gives its failure
// as the reason of its programs' cases.
func Pull(ctx context.Context, env Env, sb runner.Sandbox, sp *spec.Spec, timeout time.Duration) (failed int, err error) {
	p, ok := sb.(runner.ImagePuller)
	if !ok {
		return 0, ErrCannotPull
	}
	seen := map[string]bool{}
	var refs []string
	profiles := make([]string, 0, len(sp.Programs)+len(sp.Checkers))
	for _, prog := range sp.Programs {
		profiles = append(profiles, prog.Profile)
	}
	for _, c := range sp.Checkers {
		profiles = append(profiles, c.Profile)
	}
	for _, name := range profiles {
		rt := sp.Profiles[name].Runtime
		for _, ref := range []string{rt.Image, buildImage(rt)} {
			if ref != "" && !seen[ref] {
				seen[ref] = true
				refs = append(refs, ref)
			}
		}
	}
	for _, ref := range refs {
		if err := ctx.Err(); err != nil {
			return failed, fmt.Errorf("pulling images: %w", err)
		}
		start := time.Now()
		status, err := p.PullImage(ctx, ref, timeout)
		switch {
		case err != nil:
			failed++
			env.messages("behaves: " + err.Error())
		case status == runner.PullPresent:
			env.messages(fmt.Sprintf("behaves: image %s is present", ref))
		default:
			env.messages(fmt.Sprintf("behaves: pulled %s in %s", ref, time.Since(start).Round(100*time.Millisecond)))
		}
	}
	if err := ctx.Err(); err != nil {
		return failed, fmt.Errorf("pulling images: %w", err)
	}
	return failed, nil
}
