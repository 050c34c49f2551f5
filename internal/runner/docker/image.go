package docker

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/behaves-dev/behaves/internal/runner"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/docker/docker/api/types/image"
)

// imageError is a definitive answer of the image check (not present, not
// matching its pin, not pinned, unusable): it is cached, unlike a transient
// engine failure.
type imageError struct{ msg string }

func (e *imageError) Error() string { return e.msg }

// imageEntry is one image reference's check, shared by every Prepare of
// this sandbox that uses it.
type imageEntry struct {
	done chan struct{}
	info imageInfo
	err  error
}

// image checks ref once per sandbox: concurrent callers share one inspect.
// A definitive result is kept for the sandbox's life; a transient failure
// (the engine timed out or was unreachable) is not, so the next Prepare asks
// again. The inspect runs on a context detached from the first caller's
// cancellation (bounded by EngineTimeout), and each caller waits on its own
// ctx.
func (s *Sandbox) image(ctx context.Context, ref string) (imageInfo, error) {
	s.mu.Lock()
	e, ok := s.images[ref]
	if !ok {
		e = &imageEntry{done: make(chan struct{})}
		s.images[ref] = e
		go func() {
			e.info, e.err = s.inspectImage(context.WithoutCancel(ctx), ref)
			var definitive *imageError
			if e.err != nil && !errors.As(e.err, &definitive) {
				s.mu.Lock()
				if s.images[ref] == e {
					delete(s.images, ref)
				}
				s.mu.Unlock()
			}
			close(e.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-e.done:
		return e.info, e.err
	case <-ctx.Done():
		return imageInfo{}, fmt.Errorf("checking image %s: %w", ref, ctx.Err())
	}
}

// inspectImage asks the engine about ref (never pulling) and checks the
// answer against the pin.
func (s *Sandbox) inspectImage(ctx context.Context, ref string) (imageInfo, error) {
	p, err := parsePin(ref)
	if err != nil {
		return imageInfo{}, err
	}
	ictx, cancel := s.engineCtx(ctx)
	defer cancel()
	resp, err := s.cli.ImageInspect(ictx, ref)
	if cerrdefs.IsNotFound(err) {
		s.mu.Lock()
		why, pulled := s.pullFailures[ref]
		s.mu.Unlock()
		if pulled {
			return imageInfo{}, &imageError{msg: "image not present: " + why}
		}
		return imageInfo{}, &imageError{msg: missingImage(ref, p)}
	}
	if err != nil {
		return imageInfo{}, fmt.Errorf("inspecting image %s: %w", ref, err)
	}
	return checkImage(ref, resp)
}

// missingImage is the reason for an image the engine lacks, with the
// advice that fits its pin: a local image ID names an image built or
// loaded on one engine, which no registry can serve, so pulling it is no
// answer; a registry digest can be pulled.
func missingImage(ref string, p pin) string {
	if p.id != "" {
		return fmt.Sprintf("image not present: %s is a local image ID, which cannot be pulled: build or load the image on this engine, or give the profile another with --image PROFILE=REF", ref)
	}
	return fmt.Sprintf("image not present: pull it before scoring (%s): docker pull it by digest, or run with --pull-images --allow-registry %s", ref, reference.Domain(p.digest))
}

// pin is what an image reference pins: an image ID, or a repository name
// and a registry digest.
type pin struct {
	id     string              // "sha256:<hex>" for an ID pin
	digest reference.Canonical // for a name@sha256:<hex> pin
}

var imageIDPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// parsePin accepts "sha256:<64 hex>" (a local image ID) and
// "name[:tag]@sha256:<64 hex>" (a registry digest).
func parsePin(ref string) (pin, error) {
	if strings.HasPrefix(ref, "sha256:") {
		if !imageIDPattern.MatchString(ref) {
			return pin{}, &imageError{msg: fmt.Sprintf("image %q is not a full image ID (sha256: and 64 lowercase hex digits)", ref)}
		}
		return pin{id: ref}, nil
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return pin{}, &imageError{msg: fmt.Sprintf("image %q is not a valid reference: %v", ref, err)}
	}
	canonical, ok := named.(reference.Canonical)
	if !ok || canonical.Digest().Algorithm() != "sha256" {
		return pin{}, &imageError{msg: fmt.Sprintf("image %q is not pinned: use name@sha256:<digest> or sha256:<image ID>", ref)}
	}
	return pin{digest: canonical}, nil
}

// repoDigest is the entry of an image's RepoDigests that the digest pin p
// names (the same repository and digest), or "".
func repoDigest(p pin, repoDigests []string) string {
	for _, rd := range repoDigests {
		got, err := reference.ParseNormalizedNamed(rd)
		if err != nil {
			continue
		}
		if c, ok := got.(reference.Canonical); ok && c.Name() == p.digest.Name() && c.Digest() == p.digest.Digest() {
			return rd
		}
	}
	return ""
}

// checkImage checks an inspect answer against the pin in ref and records
// what the containers need: the ID, the matching repo digest, the image's
// ENV and its VOLUMEs.
func checkImage(ref string, resp image.InspectResponse) (imageInfo, error) {
	p, err := parsePin(ref)
	if err != nil {
		return imageInfo{}, err
	}
	info := imageInfo{Ref: ref, ID: resp.ID}
	if p.id != "" {
		if resp.ID != p.id {
			return imageInfo{}, &imageError{msg: fmt.Sprintf("image %s does not match its pin: the engine's image has ID %s", ref, resp.ID)}
		}
		if len(resp.RepoDigests) > 0 {
			info.RepoDigest = resp.RepoDigests[0]
		}
	} else {
		info.RepoDigest = repoDigest(p, resp.RepoDigests)
		if info.RepoDigest == "" {
			return imageInfo{}, &imageError{msg: fmt.Sprintf("image %s does not match its pin: the engine's image %s has repo digests [%s]",
				ref, resp.ID, strings.Join(resp.RepoDigests, ", "))}
		}
	}
	if resp.Config != nil {
		info.Env = append([]string(nil), resp.Config.Env...)
		for v := range resp.Config.Volumes {
			c := path.Clean(v)
			switch {
			case !path.IsAbs(c) || c == "/":
				return imageInfo{}, &imageError{msg: fmt.Sprintf("image %s declares VOLUME %q, which cannot be covered with a tmpfs", ref, v)}
			case strings.HasPrefix(c, programDir+"/"):
				return imageInfo{}, &imageError{msg: fmt.Sprintf("image %s declares VOLUME %q inside %s, where the program is mounted read-only", ref, v, programDir)}
			}
			info.Volumes = append(info.Volumes, c)
		}
		sort.Strings(info.Volumes)
		info.Volumes = slices.Compact(info.Volumes)
	}
	return info, nil
}

// ResolveImage is the ID of the image this engine runs for pin (checked
// as every program's image is, never pulled): for a registry digest that
// names an index, the image of the engine's platform.
func (s *Sandbox) ResolveImage(ctx context.Context, pin string) (string, error) {
	img, err := s.image(ctx, pin)
	return img.ID, err
}

var _ runner.ImageResolver = (*Sandbox)(nil)
