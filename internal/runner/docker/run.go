package docker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Run runs one invocation in a fresh container: create, attach, register
// the wait (next-exit), start, pump the streams against the timeout, inspect,
// remove. The returned event is always the evidence observed; SandboxError
// says why it is incomplete. The error is non-nil only when the container
// could not be removed, or when the engine was lost (a runner.LostError,
// joined): then the run must stop.
//
// Timeout rule: TimedOut is set only when behaves' kill, sent after
// prof.Timeout (counted from the return of start), ended a running program:
// the engine accepted the kill, the container exited with 137 (SIGKILL), and
// its recorded run time reached the timeout (see killEndedRun). The exit
// code is reported for every container that exited, so a timed-out run
// reports 137 with TimedOut set; a container that is not exited reports no
// exit code.
//
// Cancellation of ctx: the event's SandboxError is "interrupted" (never a
// timeout), and the container is killed and removed by the forced removal,
// which runs on a fresh context with its own deadline.
func (a *Attempt) Run(ctx context.Context, inv runner.Invocation) (ev runner.Event, err error) {
	s := a.sb
	cfg, hc := a.config(inv)
	ev = a.newEvent(cfg, inv)
	if ctx.Err() != nil {
		ev.SandboxError = "interrupted"
		return ev, nil
	}

	name := s.nextName(a.suffix)
	cctx, cancel := s.createCtx(ctx)
	created, err := s.cli.ContainerCreate(cctx, cfg, hc, nil, nil, name)
	cancel()
	if err != nil {
		ev.SandboxError = faultText(ctx, creating("container", name, err), err, s.opt.EngineTimeout)
		return ev, errors.Join(s.removeFailedCreate(s.cleanupParent(ctx), name, err), s.lostErr())
	}
	// The container exists: whatever happens below, it is removed (forced,
	// on a cleanup context that outlives ctx), and a failed removal is this
	// call's error. An exited container whose state shows no OOM kill is
	// then checked against its events (see oom.go).
	var checkOOM bool
	var createdAt string
	var watch *oomWatch
	defer func() {
		err = s.removeContainer(s.cleanupParent(ctx), name, created.ID)
		if checkOOM {
			s.confirmNoOOM(ctx, &ev, watch, createdAt, err)
			if a.rt.GVisor {
				noteUnattributedKill(&ev)
			}
		}
		if watch != nil {
			watch.Stop()
		}
		err = errors.Join(err, s.lostErr())
	}()

	actx, cancel := s.engineCtx(ctx)
	conn, err := s.attach(actx, created.ID)
	cancel()
	if err != nil {
		ev.SandboxError = faultText(ctx, "attaching to container", err, s.opt.EngineTimeout)
		return ev, nil
	}
	defer conn.Close()

	waitCtx, stopWait := context.WithCancel(ctx)
	defer stopWait()
	waitC, waitErrC, err := s.registerWait(waitCtx, stopWait, created.ID)
	s.noteTransport("waiting for a container", err, true)
	if err != nil {
		ev.SandboxError = faultText(ctx, "waiting for container", err, s.opt.EngineTimeout)
		return ev, nil
	}
	// The client's wait goroutine blocks until its answer is received: if
	// pump did not take it, stop the wait and take it in the background.
	waitTaken := false
	defer func() {
		if !waitTaken {
			stopWait()
			go drainWait(waitC, waitErrC)
		}
	}()

	if a.watchesOOM() {
		watch, err = s.watchOOM(s.cleanupParent(ctx), created.ID)
		if err != nil {
			ev.SandboxError = faultText(ctx, "following the container's events", err, s.opt.EngineTimeout)
			return ev, nil
		}
	}
	sctx, cancel := s.engineCtx(ctx)
	err = s.cli.ContainerStart(sctx, created.ID, container.StartOptions{})
	cancel()
	startedAt := time.Now()
	if err != nil {
		ev.SandboxError = faultText(ctx, "starting container", err, s.opt.EngineTimeout)
		return ev, nil
	}

	ceiling := make(chan struct{}, 1)
	onCeiling := func() {
		select {
		case ceiling <- struct{}{}:
		default:
		}
	}
	lim := a.applied.Limits
	stdout := newBoundedWriter(lim.OutputLimit, lim.OutputCeiling, onCeiling)
	stderr := newBoundedWriter(lim.OutputLimit, lim.OutputCeiling, onCeiling)
	res := pump(ctx, pumpInput{
		conn:     conn,
		stdin:    inv.Stdin,
		stdout:   stdout,
		stderr:   stderr,
		ceiling:  ceiling,
		waitC:    waitC,
		waitErrC: waitErrC,
		timeout:  a.timeout(),
		grace:    s.opt.Grace,
		kill:     func() (bool, error) { return s.kill(ctx, created.ID) },
		inspect: func(pctx context.Context) (container.InspectResponse, error) {
			ictx, cancel := s.engineCtx(pctx)
			defer cancel()
			return s.cli.ContainerInspect(ictx, created.ID)
		},
	})
	waitTaken = res.waitTaken
	// A wait cut short (EOF, reset) means the engine, or the path to it,
	// went away: a daemon restart ends every wait this way.
	s.noteTransport("waiting for a container", res.waitErr, true)
	ev.Stdout, ev.Stderr, ev.StdinBytes = stdout.stream(), stderr.stream(), res.stdinBytes

	if res.interrupted {
		// The deferred forced removal kills and removes it in one engine
		// call, within the cleanup deadline.
		ev.SandboxError = "interrupted"
		ev.Duration = time.Since(startedAt)
		return ev, nil
	}

	// The container is inspected once: at the end of its output streams
	// when they ended before the exit was reported (pump), else now.
	info, err := res.inspected, res.inspectErr
	if !res.inspectDone {
		ictx, cancel := s.engineCtx(ctx)
		info, err = s.cli.ContainerInspect(ictx, created.ID)
		cancel()
	}
	if err != nil || info.ContainerJSONBase == nil || info.State == nil {
		if err == nil {
			err = errors.New("the engine returned no state")
		}
		ev.SandboxError = faultText(ctx, "inspecting container", err, s.opt.EngineTimeout)
		return ev, nil
	}
	judge(&ev, info.State, res, startedAt, a.timeout())
	if a.afterExit != nil && ev.SandboxError == "" && info.State.Status == container.StateExited {
		a.afterExit(ctx, created.ID, &ev)
	}
	checkOOM = watch != nil && ev.SandboxError == "" && info.State.Status == container.StateExited && !info.State.OOMKilled
	createdAt = info.Created
	return ev, nil
}

// confirmNoOOM asks the container's events whether it was OOM-killed after
// all: up to its removal through the live subscription, or, when it could
// not be removed (removeErr), up to now by replay. If it was, the event's
// resource limit is memory (which wins over output, as in judge); if the
// question cannot be answered, the evidence is incomplete and the event
// says why.
func (s *Sandbox) confirmNoOOM(ctx context.Context, ev *runner.Event, watch *oomWatch, created string, removeErr error) {
	var oom bool
	var err error
	if removeErr == nil {
		oom, err = watch.OOMBeforeDestroy(s.opt.EngineTimeout)
	} else {
		oom, err = s.oomLoggedUntilNow(s.cleanupParent(ctx), watch.id, created)
	}
	switch {
	case err != nil:
		// The live subscription's end (EOF) is the engine's loss; the
		// replay's end is its normal answer and no error.
		s.noteTransport("following a container's events", err, removeErr == nil)
		ev.SandboxError = faultText(ctx, "checking for an OOM kill", err, s.opt.EngineTimeout)
	case oom:
		ev.ResourceLimit = runner.LimitMemory
	}
}

// UnattributedKill is the sandbox error of a gVisor container that exited
// with the status SIGKILL leaves when behaves did not kill it and the
// engine recorded no OOM kill (noteUnattributedKill).
const UnattributedKill = "the runsc sandbox was killed (exit status 137) and the engine recorded no cause: " +
	"under gVisor an OOM kill is not always reported, so the memory limit cannot be told from a SIGKILL the program sent itself"

// noteUnattributedKill makes the evidence of a gVisor container that
// exited 137, with no timeout or output kill of behaves' and no OOM kill
// on record, incomplete. Under runsc the whole sandbox (the sentry) is in
// the container's memory cgroup, and the host's OOM killer kills the
// sandbox rather than the program. containerd's shim then publishes the
// OOM only if it reads the cgroup's OOM notification before the dying
// sandbox's cgroup is deleted: measured here on a loaded engine, about
// one OOM kill in twenty left no "oom" event and no OOMKilled at all
// (runc keeps the cgroup until the container is deleted, and is not
// affected). Such a kill cannot be told from the program's own SIGKILL,
// and calling it either would be a guess: the case is undetermined,
// saying why.
func noteUnattributedKill(ev *runner.Event) {
	if ev.SandboxError == "" && !ev.TimedOut && ev.ResourceLimit == runner.LimitNone &&
		ev.ExitCode != nil && *ev.ExitCode == 128+9 {
		ev.SandboxError = UnattributedKill
	}
}

// attach attaches to the container within ctx. The client's hijacked attach
// does not watch its context once connected (it reads the upgrade answer
// with no deadline), so the call runs aside: past ctx, attach returns
// ctx's error, and a connection that arrives later is closed.
func (s *Sandbox) attach(ctx context.Context, id string) (types.HijackedResponse, error) {
	type result struct {
		conn types.HijackedResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		conn, err := s.cli.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
		done <- result{conn, err}
	}()
	select {
	case r := <-done:
		return r.conn, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.err == nil {
				r.conn.Close()
			}
		}()
		return types.HijackedResponse{}, ctx.Err()
	}
}

// frameReader passes a stdcopy stream through and turns an end of stream
// inside a frame (header or payload) into io.ErrUnexpectedEOF: stdcopy
// takes it for a clean end, but it is a broken stream.
type frameReader struct {
	r      io.Reader
	header [8]byte
	nhead  int    // header bytes seen of the current frame
	left   uint32 // payload bytes still due
}

func (f *frameReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	for b := p[:n]; len(b) > 0; {
		if f.left > 0 {
			k := min(uint32(len(b)), f.left)
			f.left -= k
			b = b[k:]
			continue
		}
		k := copy(f.header[f.nhead:], b)
		f.nhead += k
		b = b[k:]
		if f.nhead == len(f.header) {
			f.left, f.nhead = binary.BigEndian.Uint32(f.header[4:]), 0
		}
	}
	if errors.Is(err, io.EOF) && (f.nhead > 0 || f.left > 0) {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// newEvent is an invocation's event before anything ran: everything known
// from the attempt and the configuration, with empty (non-nil) streams.
// config is the configuration of the container that runs inv.
func (a *Attempt) config(inv runner.Invocation) (*container.Config, *container.HostConfig) {
	role := a.role
	if role == "" {
		role = RoleProgram
	}
	cfg, hc := containerConfig(a.applied, a.img, a.rt, a.volume, inv, labels(a.sb.opt, role))
	if a.adjust != nil {
		a.adjust(cfg, hc)
	}
	if a.floor != nil {
		a.floor.apply(cfg, hc)
	}
	return cfg, hc
}

// timeout bounds a run of the attempt's containers.
func (a *Attempt) timeout() time.Duration {
	return time.Duration(a.applied.Limits.TimeoutMS) * time.Millisecond
}

func (a *Attempt) newEvent(cfg *container.Config, inv runner.Invocation) runner.Event {
	command := append(slices.Clone([]string(cfg.Entrypoint)), cfg.Cmd...)
	return runner.Event{
		Stdout:        runner.Stream{Data: []byte{}},
		Stderr:        runner.Stream{Data: []byte{}},
		StdinSHA256:   sha256Hex(inv.Stdin),
		Command:       command,
		ImageDigest:   a.img.ID,
		RepoDigest:    a.img.RepoDigest,
		ProgramSHA256: a.programSHA256,
		Limits:        a.limits,
	}
}

// registerWait registers a "next-exit" wait before start (a "not-running"
// wait returns at once on a created container). The engine's acknowledgement
// is bounded by EngineTimeout: past it, cancel stops the wait.
func (s *Sandbox) registerWait(ctx context.Context, cancel context.CancelFunc, id string) (<-chan container.WaitResponse, <-chan error, error) {
	ack := time.AfterFunc(s.opt.EngineTimeout, cancel)
	waitC, errC := s.cli.ContainerWait(ctx, id, container.WaitConditionNextExit)
	if !ack.Stop() {
		return nil, nil, context.DeadlineExceeded
	}
	select {
	case err := <-errC:
		return nil, nil, err
	default:
	}
	return waitC, errC, nil
}

// drainWait receives the answer of a wait nobody else will read, so that
// the client's goroutine that delivers it can end. The wait's context must
// be cancelled, so that one of the two channels is sure to deliver.
func drainWait(waitC <-chan container.WaitResponse, errC <-chan error) {
	select {
	case <-waitC:
	case <-errC:
	}
}

// kill sends SIGKILL. hit reports that the engine accepted it, which on
// Engine 20.10 does not prove the container was running (see killEndedRun);
// a container that had already exited ("is not running") is neither a hit
// nor an error.
func (s *Sandbox) kill(ctx context.Context, id string) (hit bool, err error) {
	kctx, cancel := s.engineCtx(ctx)
	defer cancel()
	err = s.cli.ContainerKill(kctx, id, "KILL")
	switch {
	case err == nil:
		return true, nil
	case strings.Contains(err.Error(), "is not running"):
		return false, nil
	}
	return false, err
}

// faultText is the SandboxError for a failed engine call: "interrupted"
// when the run's context was cancelled, else what failed and why.
func faultText(ctx context.Context, what string, err error, engineTimeout time.Duration) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("%s: the engine did not answer within %s", what, engineTimeout)
	}
	return what + ": " + err.Error()
}

// judge fills the event from the container's state after the run; timeout
// is the program's timeout.
//
// Precedence of resource limits: an OOM kill ("memory", set by the kernel for
// any process of the container) wins over the output ceiling ("output"): it
// is the engine's own record, and a program that exhausted its memory while
// also flooding its output is reported by the harder limit. Either makes the
// case false.
func judge(ev *runner.Event, st *container.State, res pumpResult, startedAt time.Time, timeout time.Duration) {
	ev.TimedOut = res.timedOut && killEndedRun(st, timeout)
	switch {
	case st.OOMKilled:
		ev.ResourceLimit = runner.LimitMemory
	case res.ceilingHit:
		ev.ResourceLimit = runner.LimitOutput
	}
	ev.Duration = runDuration(st, startedAt, res)

	if st.Status == container.StateExited {
		code := st.ExitCode
		ev.ExitCode = &code
		ev.SandboxError = res.fault
		return
	}
	switch {
	case res.killed && st.Status != container.StateExited:
		ev.SandboxError = "container still running after kill"
	case res.fault != "":
		ev.SandboxError = res.fault
	default:
		ev.SandboxError = fmt.Sprintf("container not exited after the run (status %q)", st.Status)
	}
}

// killEndedRun says whether the engine's record agrees that a timeout kill
// ended a running program. The kill's own answer cannot say so: Engine
// 20.10 accepts a kill sent after the process exited but before the daemon
// processed the exit, so a program that exited by itself just before its
// timeout would be taken for a timed-out one. The record cannot race:
//   - the container exited with 137, as SIGKILL leaves it (a program that
//     exited with anything else, 0 included, ended by itself);
//   - its run time, FinishedAt − StartedAt, reached the timeout. The engine
//     records StartedAt before start returns, and behaves counts the timeout
//     from that return and kills after it, so a program its kill ended ran
//     at least the timeout by the engine's own clock. The comparison allows
//     for the record's resolution (the digits the engine wrote: a whole
//     second when it wrote none) and 0.1% of the timeout for a clock being
//     slewed meanwhile (NTP slews by at most 0.05%).
//
// When the engine recorded no valid times, the exit code alone decides:
// a program that ran forever must never pass a spec expecting 137 because
// a record was missing.
func killEndedRun(st *container.State, timeout time.Duration) bool {
	if st.Status != container.StateExited || st.ExitCode != 137 {
		return false
	}
	start, err1 := time.Parse(time.RFC3339Nano, st.StartedAt)
	end, err2 := time.Parse(time.RFC3339Nano, st.FinishedAt)
	if err1 != nil || err2 != nil || start.Year() <= 1 || end.Before(start) {
		return true
	}
	slack := max(stampResolution(st.StartedAt), stampResolution(st.FinishedAt)) + timeout/1000
	return end.Sub(start)+slack >= timeout
}

// stampResolution is the resolution of an RFC 3339 time as written: one
// second without a fraction, a tenth of a second for one digit, and so on.
// Go's writers drop trailing zeros, so it may be coarser than the clock
// was: that only widens the slack.
func stampResolution(s string) time.Duration {
	r := time.Second
	if i := strings.IndexByte(s, '.'); i >= 0 {
		for _, c := range s[i+1:] {
			if c < '0' || c > '9' || r == time.Nanosecond {
				break
			}
			r /= 10
		}
	}
	return r
}

// runDuration is the program's run time: the engine's StartedAt to
// FinishedAt when both are valid, else from the return of start to the wait
// result as measured here.
func runDuration(st *container.State, startedAt time.Time, res pumpResult) time.Duration {
	start, err1 := time.Parse(time.RFC3339Nano, st.StartedAt)
	end, err2 := time.Parse(time.RFC3339Nano, st.FinishedAt)
	if err1 == nil && err2 == nil && st.Status == container.StateExited && start.Year() > 1 && end.After(start) {
		return end.Sub(start)
	}
	if res.exited {
		return res.exitedAt.Sub(startedAt)
	}
	return time.Since(startedAt)
}

// pumpInput is what pump needs for one started container.
type pumpInput struct {
	conn           types.HijackedResponse
	stdin          []byte
	stdout, stderr *boundedWriter
	ceiling        <-chan struct{} // signalled when a stream passes the ceiling
	waitC          <-chan container.WaitResponse
	waitErrC       <-chan error
	timeout        time.Duration // the program's run time, from now
	grace          time.Duration // after exit or kill, for the rest to arrive
	kill           func() (hit bool, err error)
	// inspect inspects the container (within pctx and the engine's
	// deadline); see pump for when.
	inspect func(pctx context.Context) (container.InspectResponse, error)
}

// pumpResult is what pump observed.
type pumpResult struct {
	exited      bool      // the wait reported the exit
	waitTaken   bool      // the wait's answer (exit or error) was received
	exitedAt    time.Time // when it did
	stdinBytes  int64     // stdin bytes the engine accepted
	timedOut    bool      // the engine accepted the timeout kill (not proof that it hit: see killEndedRun)
	killed      bool      // some kill (timeout, ceiling, a cut stream) was accepted
	ceilingHit  bool      // a stream passed the output ceiling
	interrupted bool      // ctx was cancelled
	fault       string    // why the evidence is incomplete ("" if it is not)
	waitErr     error     // the wait's failure, if it failed

	// The inspect made when the output streams ended before the exit was
	// reported: inspectDone says it found the container exited, or failed,
	// within the pump; the run then uses it instead of inspecting again.
	inspectDone bool
	inspected   container.InspectResponse
	inspectErr  error
}

// pump writes stdin and drains stdout and stderr concurrently until both
// end-of-stream and the exit are seen. One deadline governs the program
// (timeout: kill, timedOut if the engine accepted it); after the exit or a
// kill, the grace period bounds the wait for the rest, and its expiry is a
// fault. It returns after closing the connection and joining its
// goroutines, so the writers may be read.
//
// An output stream that ends cleanly is the program's whole output only if
// the engine ended it, which it does at the container's exit: the engine
// closes the attach streams while it processes the exit, holding the
// container's lock, which an inspect waits for (Engine 20.10). So when the
// streams end before the exit is reported, pump inspects the container
// right then: exited, the output is complete (and that inspect is the
// run's); still running, something between behaves and the engine ended
// the streams (a proxy that closes both directions when behaves half-closes
// stdin does), the output may be incomplete, and the case is undetermined:
// the container is killed, since nothing it does can be observed any more.
// A stream that ends with an error (a reset, a frame cut short) is a fault
// by itself.
func pump(ctx context.Context, in pumpInput) pumpResult {
	var res pumpResult

	type inspection struct {
		info container.InspectResponse
		err  error
	}
	inspected := make(chan inspection, 1)
	inspectCtx, stopInspect := context.WithCancel(ctx)
	defer stopInspect()
	inspecting := false

	var delivered atomic.Int64
	stdinDone := make(chan struct{})
	go func() {
		defer close(stdinDone)
		writeStdin(in.conn, in.stdin, &delivered)
	}()
	copyDone := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(in.stdout, in.stderr, &frameReader{r: in.conn.Reader})
		copyDone <- err
	}()

	timer := time.NewTimer(in.timeout)
	defer timer.Stop()
	var grace <-chan time.Time
	startGrace := func() {
		if grace == nil {
			t := time.NewTimer(in.grace)
			grace = t.C
		}
	}
	kill := func(why string) {
		hit, err := in.kill()
		if hit {
			res.killed = true
		}
		if err != nil && res.fault == "" {
			res.fault = fmt.Sprintf("killing container (%s): %v", why, err)
		}
		startGrace()
	}
	ceiling := in.ceiling
	streamsDone, waitDone := false, false

loop:
	for !streamsDone || !waitDone || inspecting {
		select {
		case <-ctx.Done():
			res.interrupted = true
			break loop
		case <-timer.C:
			hit, err := in.kill()
			res.timedOut, res.killed = hit, res.killed || hit
			if err != nil && res.fault == "" {
				res.fault = fmt.Sprintf("killing container after the timeout: %v", err)
			}
			startGrace()
		case <-ceiling:
			ceiling = nil
			res.ceilingHit = true
			kill("output ceiling")
		case err := <-copyDone:
			streamsDone = true
			if resetAtClose(in.conn.Conn, err) {
				err = nil // an end like EOF: the inspect below settles it
			}
			if err != nil && res.fault == "" {
				res.fault = "reading the output: " + err.Error()
			}
			if err == nil && !waitDone && in.inspect != nil {
				inspecting = true
				go func() {
					info, err := in.inspect(inspectCtx)
					inspected <- inspection{info, err}
				}()
			}
		case r := <-inspected:
			inspecting = false
			if r.err != nil || r.info.ContainerJSONBase == nil || r.info.State == nil || r.info.State.Status == container.StateExited {
				// The run's inspect: exited (final), or failed, which the
				// run reports as it would any failed inspect.
				res.inspectDone, res.inspected, res.inspectErr = true, r.info, r.err
				continue
			}
			if res.fault == "" {
				res.fault = fmt.Sprintf("the output streams ended while the container was still %s: the connection to the engine ended them, not the program, so the output may be incomplete", r.info.State.Status)
			}
			kill("output streams cut") // the run inspects it again after its exit
		case w := <-in.waitC:
			waitDone, res.waitTaken = true, true
			res.exited, res.exitedAt = true, time.Now()
			timer.Stop()
			if w.Error != nil && w.Error.Message != "" && res.fault == "" {
				res.fault = "waiting for container: " + w.Error.Message
			}
			startGrace()
		case err := <-in.waitErrC:
			res.waitTaken, res.waitErr = true, err
			if ctx.Err() != nil {
				res.interrupted = true
				break loop
			}
			waitDone = true
			if res.fault == "" {
				res.fault = "waiting for container: " + err.Error()
			}
			startGrace()
		case <-grace:
			if streamsDone && waitDone {
				// Both arrived: only the inspect at the stream's end is
				// pending, bounded by the engine's deadline, not the grace.
				grace = nil
				continue
			}
			if res.fault == "" {
				res.fault = fmt.Sprintf("the output and the exit were not both observed within %s of the exit or kill", in.grace)
			}
			break loop
		}
	}

	// Closing the connection ends the copy (if it has not ended) and a
	// stdin write still blocked on a program that does not read. An
	// inspect still running is abandoned: the run inspects again.
	if inspecting {
		stopInspect()
		<-inspected
	}
	in.conn.Close()
	<-stdinDone
	if !streamsDone {
		<-copyDone
	}
	res.stdinBytes = delivered.Load()
	return res
}

// resetAtClose says whether err, ending the output streams, is the
// engine closing a Unix socket that still held stdin the program never
// read (it exited without reading it all). Linux then reports ECONNRESET
// to this side instead of end-of-file, but only once every byte the
// engine sent before closing has been read: unix_stream_read_generic
// returns the socket's error only when its receive queue is empty. So
// such a reset ends the streams as an end-of-file does, and is settled
// the same way: the container is inspected, and the output is complete
// only if it has exited. Over TCP a reset may drop bytes already
// received, so there it stays a fault.
func resetAtClose(conn net.Conn, err error) bool {
	return err != nil && errors.Is(err, syscall.ECONNRESET) && conn != nil &&
		conn.RemoteAddr() != nil && conn.RemoteAddr().Network() == "unix"
}

// stdinChunk is the size of each stdin write, so that the count of bytes
// delivered is precise to a chunk when the program stops reading.
const stdinChunk = 32 << 10

// writeStdin sends data to the container's stdin, then closes the write
// side so the program sees end-of-file. A write error means the program (or
// the container) stopped reading: not a verdict, only the count of bytes
// delivered is kept.
func writeStdin(conn types.HijackedResponse, data []byte, delivered *atomic.Int64) {
	for len(data) > 0 {
		n, err := conn.Conn.Write(data[:min(len(data), stdinChunk)])
		delivered.Add(int64(n))
		if err != nil {
			return
		}
		data = data[n:]
	}
	_ = conn.CloseWrite()
}

// boundedWriter retains at most limit bytes, counts every byte, never fails
// (so the stream keeps draining), and calls onCeiling once when the count
// passes ceiling (0: no ceiling).
type boundedWriter struct {
	limit     int64
	ceiling   int64
	onCeiling func()

	data      []byte
	n         int64
	truncated bool
	passed    bool
}

func newBoundedWriter(limit, ceiling int64, onCeiling func()) *boundedWriter {
	return &boundedWriter{limit: limit, ceiling: ceiling, onCeiling: onCeiling, data: []byte{}}
}

// Write implements io.Writer.
func (w *boundedWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if room := w.limit - int64(len(w.data)); room > 0 {
		keep := p[:min(int64(len(p)), room)]
		if len(w.data)+len(keep) > cap(w.data) {
			// Grow by doubling, but never past the limit: append alone
			// would reserve up to twice the limit per stream.
			grown := make([]byte, len(w.data), min(max(2*cap(w.data), len(w.data)+len(keep), 4096), int(w.limit)))
			copy(grown, w.data)
			w.data = grown
		}
		w.data = append(w.data, keep...)
	}
	if w.n > w.limit {
		w.truncated = true
	}
	if w.ceiling > 0 && w.n > w.ceiling && !w.passed {
		w.passed = true
		if w.onCeiling != nil {
			w.onCeiling()
		}
	}
	return len(p), nil
}

// stream is what the writer observed. It hands over the writer's own
// buffer (no copy: the writer is done once the streams have ended).
func (w *boundedWriter) stream() runner.Stream {
	return runner.Stream{Data: w.data, Truncated: w.truncated, Bytes: w.n}
}
