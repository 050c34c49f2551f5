package docker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"

	"github.com/behaves-dev/behaves/internal/runner"
)

// *Sandbox is the Docker runner.ImagePuller.
var _ runner.ImagePuller = (*Sandbox)(nil)

// maxPullMessage caps one line of the engine's pull progress stream. The
// engine's own lines are a few hundred bytes; the cap keeps a registry's
// error text (which the engine quotes) from growing behaves' memory.
const maxPullMessage = 64 << 10

// maxPullError caps the engine's or registry's error text kept in a pull
// failure.
const maxPullError = 1 << 10

// PullImage fetches ref when the engine does not have it, by its registry
// digest (name@sha256:…), within timeout, and checks that the image now
// carries that digest. It is the pull phase's one step, separate from
// scoring: Prepare never pulls.
//
// A failure is also recorded by the sandbox: a later Prepare that finds
// the image missing gives "image not present: <the failure>" as its reason,
// so that a program whose image could not be pulled is undetermined for
// that reason. A local image ID (sha256:<id>) names no registry: when it is
// absent, PullImage fails without calling the engine's pull.
func (s *Sandbox) PullImage(ctx context.Context, ref string, timeout time.Duration) (runner.PullStatus, error) {
	st, err := s.pullImage(ctx, ref, timeout)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.pullFailures[ref] = err.Error()
	} else {
		delete(s.pullFailures, ref)
	}
	return st, err
}

func (s *Sandbox) pullImage(ctx context.Context, ref string, timeout time.Duration) (runner.PullStatus, error) {
	p, err := parsePin(ref)
	if err != nil {
		return "", err
	}
	present, err := s.present(ctx, ref)
	if err != nil {
		return "", err
	}
	if present {
		return runner.PullPresent, nil
	}
	if p.id != "" {
		return "", fmt.Errorf("%s is a local image ID, which names no registry to pull from: build or load the image on the engine before scoring", ref)
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := s.pull(pctx, ref); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return "", fmt.Errorf("pulling %s failed: it did not finish within the pull timeout %s", ref, timeout)
		}
		// The engine's answer may quote the registry's: cut, since it
		// becomes the reason of every case of the image's programs.
		return "", fmt.Errorf("pulling %s failed: %s", ref, clip(err.Error(), maxPullError))
	}
	// The engine checks a manifest against the digest it was asked for;
	// this checks that what it now holds is what the pin names, so that a
	// success here means the scoring's own check will pass.
	ictx, icancel := s.engineCtx(ctx)
	defer icancel()
	resp, err := s.cli.ImageInspect(ictx, ref)
	if err != nil {
		return "", fmt.Errorf("pulling %s: inspecting the pulled image: %w", ref, err)
	}
	if repoDigest(p, resp.RepoDigests) == "" {
		return "", fmt.Errorf("pulling %s failed: the pulled image %s has repo digests [%s], not the pinned one",
			ref, resp.ID, strings.Join(resp.RepoDigests, ", "))
	}
	return runner.PullPulled, nil
}

// ImagePresent asks the engine whether it has ref (by ID or by digest),
// pulling nothing: validate --check-images.
func (s *Sandbox) ImagePresent(ctx context.Context, ref string) (bool, error) {
	return s.present(ctx, ref)
}

// present asks the engine whether it has ref (by ID or by digest).
func (s *Sandbox) present(ctx context.Context, ref string) (bool, error) {
	ictx, cancel := s.engineCtx(ctx)
	defer cancel()
	_, err := s.cli.ImageInspect(ictx, ref)
	switch {
	case err == nil:
		return true, nil
	case cerrdefs.IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("inspecting image %s: %w", ref, err)
	}
}

// pull asks the engine to pull ref (no credentials: a private registry is
// out of scope) and reads its progress stream to the end, which is when
// the engine has finished. An error message in the stream is a failure
// even though the request itself succeeded.
func (s *Sandbox) pull(ctx context.Context, ref string) error {
	body, err := s.cli.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return err
	}
	defer body.Close()
	if err := readPullStream(body); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

// pullMessage is the part of the engine's JSON progress message that
// matters here: its error, in the current field and the legacy one.
type pullMessage struct {
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// readPullStream drains the engine's pull progress stream (one JSON
// message a line) and returns the first error message in it. Lines longer
// than maxPullMessage, or lines that are not JSON, are failures: the engine
// writes neither.
func readPullStream(r io.Reader) error {
	br := bufio.NewReaderSize(r, 4096)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > maxPullMessage {
			return fmt.Errorf("the engine's progress stream has a line longer than %d bytes", maxPullMessage)
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			var m pullMessage
			if jerr := json.Unmarshal(msg, &m); jerr != nil {
				return fmt.Errorf("the engine's progress stream is not JSON: %w", jerr)
			}
			text := m.Error
			if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
				text = m.ErrorDetail.Message
			}
			if text != "" {
				return errors.New(text)
			}
		}
		line = line[:0]
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return fmt.Errorf("reading the engine's progress stream: %w", err)
		}
	}
}

// clip cuts s to at most n bytes (at a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (cut)"
}
