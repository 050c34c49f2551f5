package report

import (
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Stopped says why the sandbox stopped this run before the program ended
// by itself ("timed out after 5s"), "" when it ended by itself
// (verdict.Stopped). A stopped run's exit code is the kill's, never the
// program's: the renderers say it was stopped instead of showing 137.
func (e Event) Stopped() string {
	return verdict.Stopped(runner.Event{
		ExitCode:      e.ExitCode,
		TimedOut:      e.TimedOut,
		ResourceLimit: e.ResourceLimit,
		Limits:        e.Limits.Runner(),
		Stdout:        runner.Stream{Bytes: e.StdoutBytes},
		Stderr:        runner.Stream{Bytes: e.StderrBytes},
	})
}

// EventOf is the runner's event as the report holds it, without the kept
// output itself: its sizes and SHA-256 are there, its stdout and stderr
// fields "" until SetOutput fills them (a reportwrite.Writer streams them in
// instead).
func EventOf(ev runner.Event) Event {
	e := Event{
		StdoutTruncated: ev.Stdout.Truncated,
		StderrTruncated: ev.Stderr.Truncated,
		StdoutBytes:     ev.Stdout.Bytes,
		StderrBytes:     ev.Stderr.Bytes,
		StdinBytes:      ev.StdinBytes,
		StdinSHA256:     ev.StdinSHA256,
		TimedOut:        ev.TimedOut,
		ResourceLimit:   ev.ResourceLimit,
		Command:         append([]string{}, ev.Command...),
		ImageDigest:     ev.ImageDigest,
		RepoDigest:      ev.RepoDigest,
		DurationMS:      ev.Duration.Milliseconds(),
		ProgramSHA256:   ev.ProgramSHA256,
		Limits:          LimitsOf(ev.Limits),
		SandboxError:    ev.SandboxError,
		BuildFailure:    ev.BuildFailure,
	}
	if ev.ExitCode != nil {
		code := *ev.ExitCode
		e.ExitCode = &code
	}
	e.StdoutKeptBytes, e.StdoutSHA256 = int64(len(ev.Stdout.Data)), sha256Hex(ev.Stdout.Data)
	e.StderrKeptBytes, e.StderrSHA256 = int64(len(ev.Stderr.Data)), sha256Hex(ev.Stderr.Data)
	return e
}

// SetOutput puts the kept stdout and stderr bytes in e, each as text or
// base64, whichever is shorter in JSON (see encodeStream).
func (e *Event) SetOutput(stdout, stderr []byte) {
	e.Stdout, e.StdoutBase64 = encodeStream(stdout)
	e.Stderr, e.StderrBase64 = encodeStream(stderr)
}

// RunnerEvent turns a stored event back into the evidence it was built
// from (the inverse of EventOf and SetOutput), for judging it again. ok is
// false when a stream's kept bytes were left out of the report (its size
// budget): the digest alone cannot be judged.
func (e Event) RunnerEvent() (ev runner.Event, ok bool) {
	ev = runner.Event{
		Stdout:        runner.Stream{Data: e.StdoutData(), Truncated: e.StdoutTruncated, Bytes: e.StdoutBytes},
		Stderr:        runner.Stream{Data: e.StderrData(), Truncated: e.StderrTruncated, Bytes: e.StderrBytes},
		StdinBytes:    e.StdinBytes,
		StdinSHA256:   e.StdinSHA256,
		TimedOut:      e.TimedOut,
		ResourceLimit: e.ResourceLimit,
		Command:       append([]string{}, e.Command...),
		ImageDigest:   e.ImageDigest,
		RepoDigest:    e.RepoDigest,
		Duration:      time.Duration(e.DurationMS) * time.Millisecond,
		ProgramSHA256: e.ProgramSHA256,
		Limits:        e.Limits.Runner(),
		SandboxError:  e.SandboxError,
		BuildFailure:  e.BuildFailure,
	}
	if e.ExitCode != nil {
		code := *e.ExitCode
		ev.ExitCode = &code
	}
	return ev, !e.StdoutOmitted && !e.StderrOmitted
}

// RunnerEvent is the build's event as the runner gave it (see
// Event.RunnerEvent), with what /build held after the build.
func (b BuildStage) RunnerEvent() (runner.Event, bool) {
	ev, ok := b.Event.RunnerEvent()
	if b.OutputBytes != nil {
		ev.BuildOutputBytes = new(*b.OutputBytes)
	}
	return ev, ok
}
