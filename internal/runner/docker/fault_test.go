package docker

// Fault injection through the fake Engine API (fakeengine_test.go): each test
// makes the engine fail in one way and checks, through runner.Run and
// verdict.Judge as behaves run uses them, that the failure becomes what the
// core's fault rules say (an undetermined case with the reason, partial
// acquisition, sandbox warnings), never a pass or a fail, and never a hang.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// faultProfile is the integration tests' shell profile with the fake's
// image and a shorter timeout: /program/main.sh.
func faultProfile() runner.Profile {
	p := shProfile(fakeImageID)
	p.Timeout = 5 * time.Second
	return p
}

// faultJob is one program with n cases; each expects exit 0 and stdout "ok".
func faultJob(prof runner.Profile, n int) runner.Job {
	invs := make([]runner.Invocation, n)
	for i := range invs {
		invs[i] = runner.Invocation{Args: []string{fmt.Sprint(i)}, Stdin: []byte("in")}
	}
	return runner.Job{
		Program:     runner.Program{Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo ok\n")}), Entry: "main.sh"},
		Profile:     prof,
		Invocations: invs,
	}
}

var expectOK = verdict.Expectation{ExitCode: 0, Stdout: &verdict.Matcher{Kind: verdict.Equals, Value: "ok"}}

// faultOutcome is one program's observation and its verdicts.
type faultOutcome struct {
	obs     runner.Observation
	lost    error // runner.Run's error: the engine was lost
	cases   []verdict.CaseResult
	verdict verdict.Verdict
	reason  string
	elapsed time.Duration
}

// runJob runs one job on sb (one invocation at a time, so that the order of
// the cases is the order of the engine calls) and judges every case against
// expectOK. It fails the test when runner.Run has not returned within
// limit: a hang is a failure, not a stuck test binary.
func runJob(t *testing.T, sb *Sandbox, job runner.Job, limit time.Duration) faultOutcome {
	t.Helper()
	return runJobCtx(t, context.Background(), sb, job, limit)
}

// runJobCtx is runJob on a run context that a test may cancel (a signal).
func runJobCtx(t *testing.T, ctx context.Context, sb *Sandbox, job runner.Job, limit time.Duration) faultOutcome {
	t.Helper()
	type result struct {
		obs     []runner.Observation
		lost    error
		elapsed time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		obs, lost := runner.Run(ctx, sb, []runner.Job{job}, runner.Options{Parallel: 1})
		done <- result{obs, lost, time.Since(start)}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(limit):
		t.Fatalf("runner.Run did not return within %s: the sandbox hangs on an engine that stopped answering", limit)
	}
	out := faultOutcome{obs: res.obs[0], lost: res.lost, elapsed: res.elapsed}
	for _, ev := range out.obs.Events {
		out.cases = append(out.cases, verdict.Judge(expectOK, ev))
	}
	out.verdict, out.reason = verdict.Program(out.cases)
	return out
}

// verdicts lists the case verdicts, for messages and comparisons.
func (o faultOutcome) verdicts() []string {
	var vs []string
	for _, c := range o.cases {
		vs = append(vs, c.Verdict.String())
	}
	return vs
}

// String is a readable account of the outcome for failure messages.
func (o faultOutcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "program %s (%q), acquisition %s %q, warnings %q, engine lost: %v\n", o.verdict, o.reason, o.obs.Acquisition, o.obs.Reasons, o.obs.SandboxWarnings, o.lost)
	for i, c := range o.cases {
		ev := o.obs.Events[i]
		code := "nil"
		if ev.ExitCode != nil {
			code = fmt.Sprint(*ev.ExitCode)
		}
		fmt.Fprintf(&b, "  case %d: %s (%q) exit=%s timed_out=%v stdout=%q sandbox_error=%q\n", i, c.Verdict, c.Reason, code, ev.TimedOut, ev.Stdout.Data, ev.SandboxError)
	}
	return b.String()
}

// assertLeftoversNamed fails when the fake still holds a container or
// volume that no sandbox warning of o names.
func assertLeftoversNamed(t *testing.T, d *fakeDaemon, o faultOutcome) {
	t.Helper()
	cs, vs := d.leftovers()
	w := strings.Join(o.obs.SandboxWarnings, "\n")
	for _, name := range append(cs, vs...) {
		if !strings.Contains(w, name) {
			t.Errorf("%s was left behind and no sandbox warning names it:\n%s", name, o)
		}
	}
}

// assertNoLeftovers fails when the fake still holds a container or volume.
func assertNoLeftovers(t *testing.T, d *fakeDaemon) {
	t.Helper()
	if cs, vs := d.leftovers(); len(cs) > 0 || len(vs) > 0 {
		t.Errorf("left in the engine: containers %v, volumes %v", cs, vs)
	}
}

// TestFakeEngineRunsCases checks the fake itself: with no fault, the real
// sandbox runs every case to a true verdict through it, in the engine order
// the design requires (attach and the next-exit wait before start), and
// removes everything.
func TestFakeEngineRunsCases(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 2), 30*time.Second)
	if o.verdict != verdict.True || o.obs.Acquisition != runner.AcquisitionComplete || len(o.obs.SandboxWarnings) != 0 {
		t.Fatalf("no fault:\n%s", o)
	}
	assertNoLeftovers(t, d)
	want := []string{
		// info: the runtime's registration, once per sandbox.
		"image-inspect", "info", "volume-create",
		"create helper", "archive helper", "remove helper",
		// events: the run's one subscription, made before its first start.
		"create program", "attach program", "wait program", "events", "start program", "inspect program", "remove program",
		"create program", "attach program", "wait program", "start program", "inspect program", "remove program",
		"volume-remove",
	}
	// The client pings once more to negotiate the version: pings are not
	// part of the order.
	got := slices.DeleteFunc(d.Calls(), func(c string) bool { return c == "ping" })
	if !slices.Equal(got, want) {
		t.Errorf("engine calls:\n got %q\nwant %q", got, want)
	}
}

// TestFaultContainerFailures: a create, start or attach that the engine
// refuses makes that case undetermined with the engine's reason; the
// program's other cases still run (acquisition partial), and the container
// that was made is removed. Guards the rule "a broken runner never looks like
// a broken program".
func TestFaultContainerFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		op, reason string
	}{
		{"create", "creating container: "},
		{"start", "starting container: "},
		{"attach", "attaching to container: "},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			d.fault(tt.op, forRole(RoleProgram, 2, failWith(500, "fake: no space left on device")))
			o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 3), 30*time.Second)
			if got := o.verdicts(); !slices.Equal(got, []string{"true", "undetermined", "true"}) {
				t.Fatalf("case verdicts %v, want the failed case undetermined and the others true:\n%s", got, o)
			}
			if o.verdict != verdict.Undetermined || o.obs.Acquisition != runner.AcquisitionPartial {
				t.Errorf("program:\n%s", o)
			}
			// The client drops the engine's message of a refused attach
			// ("unable to upgrade to tcp, received 500").
			if r := o.cases[1].Reason; !strings.HasPrefix(r, tt.reason) || tt.op != "attach" && !strings.Contains(r, "no space left on device") {
				t.Errorf("reason %q, want %q and the engine's message", r, tt.reason+"…")
			}
			if len(o.obs.SandboxWarnings) != 0 {
				t.Errorf("warnings %q, want none (everything was removed)", o.obs.SandboxWarnings)
			}
			if o.lost != nil {
				t.Errorf("an engine's refusal was taken for the loss of the engine: %v", o.lost)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// TestFaultAttachStreamBreaks: the attach stream breaks while the container is
// still running (per the engine). Whatever the container does next, the case
// is undetermined: output was lost, so neither a pass nor a fail is settled
// by the evidence. Never a pass.
func TestFaultAttachStreamBreaks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		program func(d *fakeDaemon) fakeProgram
	}{
		{
			// The connection drops in the middle of a frame (the engine
			// died or closed it): "ok\n" was delivered, "more\n" was cut.
			// The program then exits 0 by itself.
			name: "cut mid-frame, then exits 0",
			program: func(d *fakeDaemon) fakeProgram {
				return func(p *fakeProc) int {
					io.WriteString(p.Stdout, "ok\n")
					<-p.StdinDone
					p.Conn.Write(append(frameHeader(1, 5), "mo"...))
					p.Conn.Close()
					time.Sleep(100 * time.Millisecond) // still running per inspect
					return 0
				}
			},
		},
		{
			name: "reset, then exits 0",
			program: func(d *fakeDaemon) fakeProgram {
				return func(p *fakeProc) int {
					io.WriteString(p.Stdout, "ok\n")
					<-p.StdinDone // else the reset may fail the stdin write instead, which is ignored by design
					rst(p.Conn)
					time.Sleep(100 * time.Millisecond)
					return 0
				}
			},
		},
		{
			name: "reset, then runs until the timeout kill",
			program: func(d *fakeDaemon) fakeProgram {
				return func(p *fakeProc) int {
					io.WriteString(p.Stdout, "ok\n")
					<-p.StdinDone // else the reset may fail the stdin write instead, which is ignored by design
					rst(p.Conn)
					<-p.Killed
					return 137
				}
			},
		},
		{
			name: "reset, and the kill does not stop it",
			program: func(d *fakeDaemon) fakeProgram {
				return func(p *fakeProc) int {
					io.WriteString(p.Stdout, "ok\n")
					<-p.StdinDone // else the reset may fail the stdin write instead, which is ignored by design
					rst(p.Conn)
					<-d.release // ignores the kill: still running per inspect until the test ends
					return 0
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			d.program = tt.program(d)
			prof := faultProfile()
			prof.Timeout = 300 * time.Millisecond
			o := runJob(t, d.sandbox(t, Options{Grace: 300 * time.Millisecond}), faultJob(prof, 1), 30*time.Second)
			if o.cases[0].Verdict != verdict.Undetermined {
				t.Errorf("a broken attach stream gave a %s case, want undetermined:\n%s", o.cases[0].Verdict, o)
			}
			if o.obs.Events[0].SandboxError == "" {
				t.Errorf("no sandbox error recorded for a broken attach stream:\n%s", o)
			}
			if o.lost != nil {
				t.Errorf("a broken attach stream, with the engine still answering, was taken for the loss of the engine: %v", o.lost)
			}
		})
	}
}

// TestFaultEngineStopsAnswering: the engine stops answering at one step of a
// case. Each engine call has its deadline (EngineTimeout), so the case ends
// as a sandbox error with that reason, the program's next case still runs,
// and runner.Run returns; no step may wait forever.
func TestFaultEngineStopsAnswering(t *testing.T) {
	t.Parallel()
	const engineTimeout = 300 * time.Millisecond
	for _, op := range []string{"create", "attach", "wait", "start", "inspect", "events"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			role := RoleProgram
			if op == "events" {
				role = "" // the run's one subscription names no container
			}
			d.fault(op, forRole(role, 1, hang()))
			sb := d.sandbox(t, Options{EngineTimeout: engineTimeout, Grace: 300 * time.Millisecond, CleanupTimeout: 500 * time.Millisecond})
			o := runJob(t, sb, faultJob(faultProfile(), 2), 5*time.Second)
			if got := o.verdicts(); !slices.Equal(got, []string{"undetermined", "true"}) {
				t.Fatalf("case verdicts %v, want the hung case undetermined and the next true:\n%s", got, o)
			}
			if r := o.cases[0].Reason; !strings.Contains(r, "did not answer within "+engineTimeout.String()) {
				t.Errorf("reason %q, want the engine deadline", r)
			}
			if o.obs.Acquisition != runner.AcquisitionPartial {
				t.Errorf("acquisition %s, want partial", o.obs.Acquisition)
			}
			if o.lost != nil {
				t.Errorf("an engine that did not answer in time was taken for a lost one: %v", o.lost)
			}
		})
	}

	// Everything stops answering once the program runs: the kill, the
	// inspect, the removals. Each is bounded; the container is reported as
	// left behind (a warning), the program's other cases stop.
	t.Run("everything after start", func(t *testing.T) {
		t.Parallel()
		d := newFakeDaemon(t)
		d.program = func(p *fakeProc) int {
			d.silent.Store(true)
			<-p.Killed
			return 137
		}
		prof := faultProfile()
		prof.Timeout = 200 * time.Millisecond
		sb := d.sandbox(t, Options{EngineTimeout: engineTimeout, Grace: 200 * time.Millisecond, CleanupTimeout: 500 * time.Millisecond})
		o := runJob(t, sb, faultJob(prof, 2), 10*time.Second)
		if got := o.verdicts(); !slices.Equal(got, []string{"undetermined", "undetermined"}) {
			t.Fatalf("case verdicts %v, want both undetermined:\n%s", got, o)
		}
		if o.obs.Events[0].TimedOut || o.obs.Events[0].ExitCode != nil {
			t.Errorf("an unanswered kill was reported as a timeout or an exit:\n%s", o)
		}
		if o.obs.Events[1].SandboxError != runner.NotRunStopped {
			t.Errorf("second case: %q, want %q", o.obs.Events[1].SandboxError, runner.NotRunStopped)
		}
		if w := strings.Join(o.obs.SandboxWarnings, "\n"); !strings.Contains(w, "removing container ") || !strings.Contains(w, "removing volume ") {
			t.Errorf("warnings %q, want the container and the volume that could not be removed", o.obs.SandboxWarnings)
		}
	})
}

// TestFaultInterrupted: the run context is cancelled (behaves got SIGINT or
// SIGTERM) while a case runs, also while the engine is not answering: Run
// returns promptly, the running case is undetermined ("interrupted", never a
// timeout), the cases not started are "not run", what was observed keeps its
// verdict, and everything made is removed.
func TestFaultInterrupted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(d *fakeDaemon)
	}{
		// The second case's program runs until it is killed.
		{"while the program runs", func(d *fakeDaemon) {
			var n atomic.Int32
			d.program = func(p *fakeProc) int {
				if n.Add(1) == 1 {
					io.WriteString(p.Stdout, "ok\n")
					return 0
				}
				<-p.Killed
				return 137
			}
		}},
		// The engine stops answering at the second case's attach, with the
		// default (minute-long) engine deadline: only the cancellation can
		// end it.
		{"while the engine does not answer the attach", func(d *fakeDaemon) {
			d.fault("attach", forRole(RoleProgram, 2, hang()))
		}},
		{"while the engine does not answer the start", func(d *fakeDaemon) {
			d.fault("start", forRole(RoleProgram, 2, hang()))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			tt.setup(d)
			sb := d.sandbox(t, Options{EngineTimeout: time.Minute, Grace: time.Minute})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { // the signal, once the second case is under way
				for d.count("create program") < 2 {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond)
				cancel()
			}()
			o := runJobCtx(t, ctx, sb, faultJob(faultProfile(), 3), 5*time.Second)
			if got := o.verdicts(); !slices.Equal(got, []string{"true", "undetermined", "undetermined"}) {
				t.Fatalf("case verdicts %v, want the observed case true and the others undetermined:\n%s", got, o)
			}
			if ev := o.obs.Events[1]; ev.SandboxError != "interrupted" || ev.TimedOut {
				t.Errorf("the interrupted case: %q timed_out=%v, want \"interrupted\"", ev.SandboxError, ev.TimedOut)
			}
			if ev := o.obs.Events[2]; ev.SandboxError != runner.NotRunInterrupted {
				t.Errorf("the case not started: %q, want %q", ev.SandboxError, runner.NotRunInterrupted)
			}
			if o.obs.Acquisition != runner.AcquisitionPartial || len(o.obs.SandboxWarnings) != 0 {
				t.Errorf("program:\n%s", o)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// TestFaultInterruptedCreate: the signal comes while the engine is creating
// a container or a volume, and the engine finishes the create a moment
// later, whether or not the client still waits. What was made must still be
// removed (or at least named in the sandbox warnings): an interrupted run
// leaves nothing behind.
// Seen for real in TestSignal (internal/e2e): a helper container left after
// one SIGINT.
func TestFaultInterruptedCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, op, role string
	}{
		{"program container", "create", RoleProgram},
		{"helper container", "create", RoleHelper},
		{"program volume", "volume-create", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			d.fault(tt.op, forRole(tt.role, 1, slowCreate(slowCreateDelay, cancel)))
			o := runJobCtx(t, ctx, d.sandbox(t, Options{}), faultJob(faultProfile(), 2), 10*time.Second)
			if got := o.verdicts(); !slices.Equal(got, []string{"undetermined", "undetermined"}) {
				t.Errorf("case verdicts %v, want undetermined (interrupted):\n%s", got, o)
			}
			time.Sleep(3 * slowCreateDelay) // the engine has finished the create
			assertLeftoversNamed(t, d, o)
		})
	}
}

// TestFaultCreateAnsweredLate: the engine answers a create (program or
// helper container, program volume) after the engine deadline, and makes
// the object anyway, as a daemon does. The case or the program is
// undetermined with the deadline as its reason, and the object is found by
// its name and removed: nothing is left and no warning is needed. Guards
// lookAfterFailedCreate and behaves' own volume names.
func TestFaultCreateAnsweredLate(t *testing.T) {
	t.Parallel()
	const engineTimeout = 100 * time.Millisecond
	tests := []struct {
		name, op, role string
		want           []string
	}{
		{"program container", "create", RoleProgram, []string{"undetermined", "true"}},
		{"helper container", "create", RoleHelper, []string{"undetermined", "undetermined"}},
		{"program volume", "volume-create", "", []string{"undetermined", "undetermined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			d.fault(tt.op, forRole(tt.role, 1, slowCreate(3*engineTimeout, func() {})))
			sb := d.sandbox(t, Options{EngineTimeout: engineTimeout, CleanupTimeout: 2 * time.Second})
			o := runJob(t, sb, faultJob(faultProfile(), 2), 10*time.Second)
			if got := o.verdicts(); !slices.Equal(got, tt.want) {
				t.Fatalf("case verdicts %v, want %v:\n%s", got, tt.want, o)
			}
			if r := o.cases[0].Reason; !strings.Contains(r, "context deadline exceeded") && !strings.Contains(r, "did not answer within") {
				t.Errorf("reason %q, want the engine deadline", r)
			}
			if len(o.obs.SandboxWarnings) != 0 {
				t.Errorf("warnings %q, want none: the late object was removed", o.obs.SandboxWarnings)
			}
			time.Sleep(4 * engineTimeout) // the engine has finished the create
			assertNoLeftovers(t, d)
		})
	}
}

// TestPrepareBatchFailuresStayAlone: in one batch, a program whose files
// cannot be laid out (a file that is also a directory) and one whose image
// is missing fail alone; the others of the batch, sharing its helper, are
// delivered. Guards the per-program checks before the batch's one copy.
func TestPrepareBatchFailuresStayAlone(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	sb := d.sandbox(t, Options{})
	ok := faultJob(faultProfile(), 1).Program
	clash := runner.Program{Entry: "main.sh", Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo ok\n"), "a": nil, "a/b": nil})}
	missing := faultProfile()
	missing.Image = "sha256:" + strings.Repeat("0", 64) // the fake holds another image
	res := sb.Prepare(context.Background(), []runner.Request{
		{Program: ok, Profile: faultProfile()},
		{Program: clash, Profile: faultProfile()},
		{Program: ok, Profile: missing},
		{Program: ok, Profile: faultProfile()},
	})
	for _, i := range []int{0, 3} {
		if res[i].Err != nil || res[i].Attempt == nil {
			t.Errorf("program %d: %v, want delivered", i, res[i].Err)
		}
	}
	if err := res[1].Err; err == nil || !strings.Contains(err.Error(), "laying out the program: ") {
		t.Errorf("program with a file that is also a directory: %v", err)
	}
	if err := res[2].Err; err == nil || res[2].Attempt != nil {
		t.Errorf("program with a missing image: %v", err)
	}
	if n := d.count("create"); n != 1 {
		t.Errorf("%d helper containers for one image, want 1", n)
	}
	for _, r := range res {
		if r.Attempt != nil {
			if err := r.Attempt.Close(context.Background()); err != nil {
				t.Error(err)
			}
		}
	}
	assertNoLeftovers(t, d)
}

// TestFaultPrepareCleanupFails: delivering the program fails and so does the
// removal of the helper container (and, in use by it, of the volume). The
// program is undetermined (acquisition error), and what was left is in the
// sandbox warnings, where a reader (and behaves gc) looks for leftovers; a
// case reason is not a warning.
func TestFaultPrepareCleanupFails(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.fault("archive", failWith(500, "fake: copy failed"))
	d.fault("remove", forRole(RoleHelper, 0, failWith(500, "fake: device or resource busy")))
	o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 2), 30*time.Second)
	if o.verdict != verdict.Undetermined || o.obs.Acquisition != runner.AcquisitionError {
		t.Errorf("program:\n%s", o)
	}
	if r := o.cases[0].Reason; !strings.Contains(r, "copying the program into its volume") {
		t.Errorf("reason %q, want the failed delivery", r)
	}
	if cs, vs := d.leftovers(); len(cs) != 1 || len(vs) != 1 {
		t.Fatalf("the fake holds containers %v and volumes %v, want the helper and its volume", cs, vs)
	}
	assertLeftoversNamed(t, d, o)
}

// TestFaultCleanupHangs: removals that never answer end at the sandbox's
// CleanupTimeout, for Run (the container) and for Close (the volume): the
// cleanup deadline is what lets an interrupted behaves exit in time.
func TestFaultCleanupHangs(t *testing.T) {
	t.Parallel()
	const cleanup = 400 * time.Millisecond
	const slack = 2 * time.Second // scheduling; a hang would be unbounded
	d := newFakeDaemon(t)
	d.fault("remove", forRole(RoleProgram, 0, hang()))
	d.fault("volume-remove", hang())
	sb := d.sandbox(t, Options{CleanupTimeout: cleanup})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	att, err := prepareOne(ctx, sb, faultJob(faultProfile(), 1).Program, faultProfile())
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	for _, interrupted := range []bool{false, true} {
		rctx, rcancel := context.WithCancel(ctx)
		if interrupted {
			d.program = func(p *fakeProc) int { <-p.Killed; return 137 }
			time.AfterFunc(200*time.Millisecond, rcancel) // a signal mid-run
		}
		start := time.Now()
		ev, err := att.Run(rctx, runner.Invocation{})
		elapsed := time.Since(start)
		rcancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "removing container ") {
			t.Errorf("interrupted=%v: Run error %v, want the removal's deadline", interrupted, err)
		}
		if interrupted && ev.SandboxError != "interrupted" {
			t.Errorf("interrupted run: sandbox error %q", ev.SandboxError)
		}
		if limit := 200*time.Millisecond + cleanup + slack; elapsed > limit {
			t.Errorf("interrupted=%v: Run took %s with a hung removal, want within the cleanup deadline (%s + slack)", interrupted, elapsed, cleanup)
		}
	}
	start := time.Now()
	err = att.Close(context.Background())
	if elapsed := time.Since(start); elapsed > cleanup+slack {
		t.Errorf("Close took %s with a hung volume removal, want within %s + slack", elapsed, cleanup)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "removing volume ") {
		t.Errorf("Close error %v, want the volume removal's deadline", err)
	}
}

// TestFaultRemovalFails: a container the engine will not remove is Run's
// error; the scheduler records it in the program's sandbox warnings and
// stops the program's remaining cases, and what was already observed keeps
// its verdict. The volume, still in use by that container, is left too, and
// said so.
func TestFaultRemovalFails(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.fault("remove", forRole(RoleProgram, 1, failWith(500, "fake: device or resource busy")))
	o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 3), 30*time.Second)
	if got := o.verdicts(); !slices.Equal(got, []string{"true", "undetermined", "undetermined"}) {
		t.Fatalf("case verdicts %v, want the observed case true and the rest not run:\n%s", got, o)
	}
	for _, ev := range o.obs.Events[1:] {
		if ev.SandboxError != runner.NotRunStopped {
			t.Errorf("a case after the failed removal: %q, want %q", ev.SandboxError, runner.NotRunStopped)
		}
	}
	if o.verdict != verdict.Undetermined || o.obs.Acquisition != runner.AcquisitionPartial {
		t.Errorf("program:\n%s", o)
	}
	cs, vs := d.leftovers()
	w := strings.Join(o.obs.SandboxWarnings, "\n")
	if len(cs) != 1 || !strings.Contains(w, "removing container "+cs[0]+": ") || !strings.Contains(w, "device or resource busy") {
		t.Errorf("warnings %q do not name the container left behind (%v)", o.obs.SandboxWarnings, cs)
	}
	if len(vs) != 1 || !strings.Contains(w, "removing volume "+vs[0]+": ") {
		t.Errorf("warnings %q do not name the volume left behind (%v)", o.obs.SandboxWarnings, vs)
	}
}

// TestFaultOOMOnlyInEventLog: Engine 20.10 loses State.OOMKilled when
// containerd reports the OOM after the exit, but still logs an "oom" event.
// A program whose child was OOM-killed while the parent printed the right
// answer and exited 0 must still be false by the memory limit, whether or not
// its container could be removed. Guards oomLogged: without it, these cases
// are true.
func TestFaultOOMOnlyInEventLog(t *testing.T) {
	t.Parallel()
	for _, removable := range []bool{true, false} {
		t.Run(fmt.Sprintf("removed=%v", removable), func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			d.program = func(p *fakeProc) int {
				p.OOMEvent()
				fmt.Fprint(p.Stdout, "ok\n")
				return 0
			}
			if !removable {
				d.fault("remove", forRole(RoleProgram, 1, failWith(500, "fake: device or resource busy")))
			}
			o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 1), 30*time.Second)
			ev := o.obs.Events[0]
			if o.cases[0].Verdict != verdict.False || ev.ResourceLimit != runner.LimitMemory || ev.SandboxError != "" {
				t.Fatalf("an OOM kill only in the event log: want false by the memory limit:\n%s", o)
			}
		})
	}
}

// TestFaultUnattributedKillUnderRunsc: under gVisor the engine can lose an
// OOM kill of the sandbox altogether (no OOMKilled, no "oom" event), so a
// runsc container that exited 137 when behaves killed nothing is
// undetermined, saying why, where a runc container's 137 is the program's
// own status; an OOM kill on record stays the memory limit under runsc.
func TestFaultUnattributedKillUnderRunsc(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		runtime string
		oom     bool
		want    verdict.Verdict
		limit   runner.ResourceLimit
		sandbox string
	}{
		{"runsc, no cause on record", "runsc", false, verdict.Undetermined, runner.LimitNone, UnattributedKill},
		{"runsc, an oom event", "runsc", true, verdict.False, runner.LimitMemory, ""},
		{"runc, no cause on record", "", false, verdict.False, runner.LimitNone, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			d.runtimes = map[string]string{"runsc": "/usr/bin/runsc"}
			d.program = func(p *fakeProc) int {
				if tc.oom {
					p.OOMEvent()
				}
				return 137
			}
			prof := faultProfile()
			prof.Runtime = tc.runtime
			o := runJob(t, d.sandbox(t, Options{}), faultJob(prof, 1), 30*time.Second)
			ev := o.obs.Events[0]
			if o.cases[0].Verdict != tc.want || ev.ResourceLimit != tc.limit || ev.SandboxError != tc.sandbox || ev.ExitCode == nil || *ev.ExitCode != 137 {
				t.Fatalf("want verdict %s, resource limit %q, sandbox error %q, exit 137:\n%s", tc.want, tc.limit, tc.sandbox, o)
			}
		})
	}
}

// TestFaultOOMEventReachesOnlyItsContainer: the run's one event stream
// carries the events of every program container; an "oom" of one container
// while another runs beside it makes only its own case false by the memory
// limit, and the run subscribes once.
func TestFaultOOMEventReachesOnlyItsContainer(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	var started atomic.Int32
	both := make(chan struct{})
	d.program = func(p *fakeProc) int {
		n := started.Add(1)
		if n == 2 {
			close(both)
		}
		select {
		case <-both:
		case <-time.After(5 * time.Second):
			d.t.Errorf("the two cases did not run side by side")
		}
		if n == 1 {
			p.OOMEvent()
		}
		fmt.Fprint(p.Stdout, "ok\n")
		return 0
	}
	obs, err := runner.Run(context.Background(), d.sandbox(t, Options{}), []runner.Job{faultJob(faultProfile(), 2)}, runner.Options{Parallel: 2})
	if err != nil {
		t.Fatalf("runner.Run: %v", err)
	}
	memory := 0
	for i, ev := range obs[0].Events {
		if ev.SandboxError != "" || string(ev.Stdout.Data) != "ok\n" {
			t.Errorf("case %d: %+v, want observed", i, ev)
		}
		if ev.ResourceLimit == runner.LimitMemory {
			memory++
		}
	}
	if memory != 1 {
		t.Errorf("%d cases stopped by the memory limit, want only the one whose container logged the oom", memory)
	}
	if n := d.count("events"); n != 1 {
		t.Errorf("%d event subscriptions, want one for the run", n)
	}
	assertNoLeftovers(t, d)
}

// TestCloseEndsTheEventStream: the run's event stream lives until the
// sandbox is closed, and no later watch subscribes again.
func TestCloseEndsTheEventStream(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	sb := d.sandbox(t, Options{})
	if o := runJob(t, sb, faultJob(faultProfile(), 1), 30*time.Second); o.verdict != verdict.True {
		t.Fatalf("no fault:\n%s", o)
	}
	sb.evMu.Lock()
	st := sb.events
	sb.evMu.Unlock()
	if st == nil || st.isEnded() {
		t.Fatalf("after a run, want the run's stream live: %v", st)
	}
	sb.Close()
	for deadline := time.Now().Add(5 * time.Second); !st.isEnded(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the event stream did not end when the sandbox was closed")
		}
	}
	if _, err := sb.watchOOM(context.Background(), "after-close"); err == nil {
		t.Error("a watch after Close subscribed again")
	}
	if n := d.count("events"); n != 1 {
		t.Errorf("%d event subscriptions, want the run's one", n)
	}
}

// TestFaultBuildOOMOnlyInEventLog: a build stage's container is followed on
// the run's event stream like a program's: an OOM kill only in the event
// log fails the build by the memory limit (not a wait for a "destroy" that
// never comes), and every case is false by the build.
func TestFaultBuildOOMOnlyInEventLog(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.program = func(p *fakeProc) int {
		p.OOMEvent()
		return 1 // a failed build: /build is not counted
	}
	prof := faultProfile()
	prof.Build = &runner.Build{Image: fakeImageID, Command: []string{"/bin/sh"}, Timeout: 5 * time.Second,
		Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 1 << 10, OutputCeiling: 1 << 20, OutputSize: 1 << 20}
	o := runJob(t, d.sandbox(t, Options{}), faultJob(prof, 2), 30*time.Second)
	if b := o.obs.Build; b == nil || b.SandboxError != "" || b.ResourceLimit != runner.LimitMemory {
		t.Fatalf("the build: %+v, want observed and stopped by the memory limit:\n%s", b, o)
	}
	if got := o.verdicts(); !slices.Equal(got, []string{"false", "false"}) {
		t.Errorf("case verdicts %v, want false by the failed build:\n%s", got, o)
	}
	if n := d.count("start program"); n != 0 {
		t.Errorf("%d program containers started after the failed build", n)
	}
	assertNoLeftovers(t, d)
}

// TestFaultOOMCheckFails: when the event log cannot be read, whether the
// container was OOM-killed is unknown: the case is undetermined with the
// reason, never true.
func TestFaultOOMCheckFails(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.fault("events", forRole("", 1, failWith(500, "fake: events unavailable")))
	o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 2), 30*time.Second)
	if got := o.verdicts(); !slices.Equal(got, []string{"undetermined", "true"}) {
		t.Fatalf("case verdicts %v, want the unchecked case undetermined and the next true:\n%s", got, o)
	}
	if r := o.cases[0].Reason; !strings.Contains(r, "checking for an OOM kill: ") || !strings.Contains(r, "events unavailable") {
		t.Errorf("reason %q, want the failed OOM check and the engine's message", r)
	}
}

// TestFaultVolumeRemovalFails: a program volume the engine will not remove
// is a sandbox warning; the verdicts stand.
func TestFaultVolumeRemovalFails(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.fault("volume-remove", failWith(500, "fake: volume driver failed"))
	o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 2), 30*time.Second)
	if o.verdict != verdict.True || o.obs.Acquisition != runner.AcquisitionComplete {
		t.Errorf("a failed volume removal changed the evidence:\n%s", o)
	}
	_, vs := d.leftovers()
	if len(vs) != 1 || len(o.obs.SandboxWarnings) != 1 || !strings.HasPrefix(o.obs.SandboxWarnings[0], "removing volume "+vs[0]+": ") {
		t.Errorf("warnings %q, want the volume left behind (%v)", o.obs.SandboxWarnings, vs)
	}
}

// TestFaultImage: an image the engine does not hold, or holds under another
// ID or digest, makes every case undetermined with that reason, before any
// volume or container exists, and is never pulled.
func TestFaultImage(t *testing.T) {
	t.Parallel()
	digestPin := "127.0.0.1:5000/behaves/sh@sha256:" + strings.Repeat("d", 64)
	tests := []struct {
		name   string
		pin    string
		image  image.InspectResponse
		reason string
	}{
		{"missing", fakeImageID, image.InspectResponse{}, "image not present: " + fakeImageID + " is a local image ID, which cannot be pulled: build or load the image on this engine, or give the profile another with --image PROFILE=REF"},
		{"another ID", fakeImageID, image.InspectResponse{ID: "sha256:" + strings.Repeat("e", 64)}, "image " + fakeImageID + " does not match its pin"},
		{"another digest", digestPin, image.InspectResponse{ID: fakeImageID, RepoDigests: []string{"127.0.0.1:5000/behaves/sh@sha256:" + strings.Repeat("c", 64)}}, "image " + digestPin + " does not match its pin"},
		{"no digest", digestPin, image.InspectResponse{ID: fakeImageID}, "image " + digestPin + " does not match its pin"},
		{"same digest, another name", digestPin, image.InspectResponse{ID: fakeImageID, RepoDigests: []string{"127.0.0.1:5000/other@sha256:" + strings.Repeat("d", 64)}}, "image " + digestPin + " does not match its pin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			d.image = tt.image
			prof := faultProfile()
			prof.Image = tt.pin
			o := runJob(t, d.sandbox(t, Options{}), faultJob(prof, 2), 30*time.Second)
			if o.verdict != verdict.Undetermined || o.obs.Acquisition != runner.AcquisitionError {
				t.Errorf("program:\n%s", o)
			}
			for i, c := range o.cases {
				if c.Verdict != verdict.Undetermined || !strings.HasPrefix(c.Reason, tt.reason) {
					t.Errorf("case %d: %s %q, want undetermined %q…", i, c.Verdict, c.Reason, tt.reason)
				}
			}
			if n := d.count("image-pull"); n != 0 {
				t.Errorf("the image was pulled %d times", n)
			}
			if n := d.count("create") + d.count("volume-create"); n != 0 {
				t.Errorf("%d containers or volumes were created for an unusable image", n)
			}
		})
	}
}

// CPUs asks the engine once, and an engine that does not answer is an
// error within the engine deadline, never a guess.
func TestFaultCPUs(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	sb := d.sandbox(t, Options{EngineTimeout: 300 * time.Millisecond})
	if n, err := sb.CPUs(context.Background()); n != fakeCPUs || err != nil {
		t.Errorf("CPUs: %d, %v; want %d", n, err, fakeCPUs)
	}
	d.fault("info", hang())
	if n, err := sb.CPUs(context.Background()); err == nil || !strings.Contains(err.Error(), "CPU count") {
		t.Errorf("CPUs of a hung engine: %d, %v; want an error", n, err)
	}
	if got := d.count("info"); got != 2 {
		t.Errorf("%d info requests, want 2", got)
	}
}

// acceptKill answers a kill with 204 and does not kill, as Engine 20.10 does
// for a container whose process has exited but whose exit the daemon has not
// processed yet; it closes arrived (once) when the first kill comes.
func acceptKill(arrived chan struct{}) fakeFault {
	var once sync.Once
	return func(d *fakeDaemon, c *fakeCall) bool {
		once.Do(func() { close(arrived) })
		c.W.WriteHeader(http.StatusNoContent)
		return true
	}
}

// holdWaitUntil answers a next-exit wait as the fake does (headers at once,
// the body at the exit), but not before release is closed: the daemon
// delivers the exit late.
func holdWaitUntil(release <-chan struct{}) fakeFault {
	return func(d *fakeDaemon, c *fakeCall) bool {
		parts := strings.Split(strings.Trim(c.R.URL.Path, "/"), "/")
		ctr := d.lookup(parts[len(parts)-2])
		c.W.Header().Set("Content-Type", "application/json")
		c.W.WriteHeader(http.StatusOK)
		c.W.(http.Flusher).Flush()
		for _, ch := range []<-chan struct{}{release, ctr.exited} {
			select {
			case <-ch:
			case <-c.R.Context().Done():
				return true
			case <-d.release:
				return true
			}
		}
		d.mu.Lock()
		code := ctr.exitCode
		d.mu.Unlock()
		json.NewEncoder(c.W).Encode(container.WaitResponse{StatusCode: int64(code)})
		return true
	}
}

// TestFaultKillRacesExit: the timeout kill is accepted (204) although the
// program ended by itself before the timeout. timed_out must not be set:
// it means that behaves' kill ended a running program, which the engine's
// record decides (exit code 137 and a run time that reached the timeout),
// never the kill's answer. Without killEndedRun, both cases are
// "timed out".
func TestFaultKillRacesExit(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond

	// Engine 20.10's race: the process exited 0 with its output written,
	// the kill arrives before the daemon processed the exit and is
	// accepted; the daemon then records the exit 0.
	t.Run("exited 0, kill accepted", func(t *testing.T) {
		t.Parallel()
		d := newFakeDaemon(t)
		killed := make(chan struct{})
		d.fault("kill", forRole(RoleProgram, 0, acceptKill(killed)))
		d.program = func(p *fakeProc) int {
			fmt.Fprint(p.Stdout, "ok\n")
			<-killed // the exit is processed only after the kill
			return 0
		}
		prof := faultProfile()
		prof.Timeout = timeout
		o := runJob(t, d.sandbox(t, Options{}), faultJob(prof, 1), 30*time.Second)
		ev := o.obs.Events[0]
		if ev.TimedOut || o.cases[0].Verdict != verdict.True || ev.ExitCode == nil || *ev.ExitCode != 0 {
			t.Fatalf("a program that exited 0 after a kill the engine accepted: want true, exit 0, not timed out:\n%s", o)
		}
		if d.count("kill") == 0 {
			t.Fatalf("no kill was sent: the race was not reproduced:\n%s", o)
		}
		assertNoLeftovers(t, d)
	})

	// The program killed itself (137) well before the timeout, and the
	// exit reached behaves only after its kill, which was accepted: the
	// recorded run time is below the timeout.
	t.Run("exited 137 by itself before the timeout", func(t *testing.T) {
		t.Parallel()
		d := newFakeDaemon(t)
		killed := make(chan struct{})
		d.fault("kill", forRole(RoleProgram, 0, acceptKill(killed)))
		d.fault("wait", forRole(RoleProgram, 0, holdWaitUntil(killed)))
		d.program = func(p *fakeProc) int {
			fmt.Fprint(p.Stdout, "ok\n")
			return 137
		}
		prof := faultProfile()
		prof.Timeout = timeout
		o := runJob(t, d.sandbox(t, Options{}), faultJob(prof, 1), 30*time.Second)
		ev := o.obs.Events[0]
		if ev.TimedOut || ev.ExitCode == nil || *ev.ExitCode != 137 || ev.SandboxError != "" {
			t.Fatalf("a program that exited 137 before its timeout: want exit 137, not timed out:\n%s", o)
		}
		if c := o.cases[0]; c.Verdict != verdict.False || strings.Contains(c.Reason, "timed out") {
			t.Errorf("want false by its exit code, not by a timeout: %s %q", c.Verdict, c.Reason)
		}
		assertNoLeftovers(t, d)
	})
}

// TestFaultEngineLost: the engine becomes unreachable mid-run. That is not
// one case's fault: runner.Run reports the loss (behaves run then exits 4
// whatever --fail-on says), starts no more cases (no engine call for each
// of the remaining cases), keeps the cases observed before, and gives every
// case not observed a reason. Without the loss, every later case would be
// undetermined one by one and the run would pass a --fail-on false gate.
func TestFaultEngineLost(t *testing.T) {
	t.Parallel()
	const cases = 20
	tests := []struct {
		name string
		// cut makes the engine unreachable while the third program
		// container runs (or is created).
		cut  func(d *fakeDaemon)
		want string // in the loss's text
	}{
		{
			// The daemon goes away: its socket refuses, and the
			// connections it held (the wait) are closed.
			name: "connection refused",
			cut: func(d *fakeDaemon) {
				d.program = func(p *fakeProc) int {
					if d.count("start program") == 3 {
						d.srv.Listener.Close()
						d.srv.CloseClientConnections()
					}
					fmt.Fprint(p.Stdout, "ok\n")
					return 0
				}
			},
			want: "became unreachable",
		},
		{
			// A request is cut short (the connection closes before the
			// answer), although later requests would be answered: the
			// path to the engine is not to be trusted any more.
			name: "EOF on a request",
			cut: func(d *fakeDaemon) {
				d.fault("create", forRole(RoleProgram, 3, func(d *fakeDaemon, c *fakeCall) bool {
					conn, _, err := c.W.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return true
				}))
			},
			want: "became unreachable (creating a container)",
		},
		{
			// The run's live event subscription ends, which it never does
			// by itself: a daemon restart between the inspect and the
			// removal is seen only there.
			name: "event stream ends",
			cut: func(d *fakeDaemon) {
				d.program = func(p *fakeProc) int {
					if d.count("start program") == 3 {
						d.EndEventStreams()
					}
					fmt.Fprint(p.Stdout, "ok\n")
					return 0
				}
			},
			want: "became unreachable (following a container's events)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			tt.cut(d)
			sb := d.sandbox(t, Options{CleanupTimeout: 500 * time.Millisecond})
			o := runJob(t, sb, faultJob(faultProfile(), cases), 30*time.Second)
			var lost *runner.LostError
			if !errors.As(o.lost, &lost) || !strings.Contains(o.lost.Error(), tt.want) {
				t.Fatalf("runner.Run returned %v, want the loss of the engine (%q):\n%s", o.lost, tt.want, o)
			}
			if got := o.verdicts()[:2]; !slices.Equal(got, []string{"true", "true"}) {
				t.Errorf("the cases observed before the loss: %v, want true:\n%s", got, o)
			}
			for i, c := range o.cases[2:] {
				ev := o.obs.Events[i+2]
				if c.Verdict != verdict.Undetermined || ev.SandboxError == "" {
					t.Errorf("case %d after the loss: %s (sandbox error %q), want undetermined with a reason", i+2, c.Verdict, ev.SandboxError)
				}
				if i > 0 && !strings.Contains(ev.SandboxError, "not run: ") {
					t.Errorf("case %d after the loss: reason %q, want not run with the loss", i+2, ev.SandboxError)
				}
			}
			if n := d.count("create"); n > 4 { // the helper and three program containers
				t.Errorf("%d creates: cases kept starting after the loss", n)
			}
		})
	}
}

// TestFaultStreamEndsBeforeExit: the attach stream ends cleanly (no reset,
// no frame cut short) while the container is still running, as through a
// proxy that closes both directions when behaves half-closes stdin. The
// program then prints the expected output and exits 0, but its output
// never arrived: the case must be undetermined, never false (output "") and
// never true. Without the inspect at the stream's end, it is false.
func TestFaultStreamEndsBeforeExit(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.program = func(p *fakeProc) int {
		<-p.StdinDone // behaves half-closed stdin: the proxy closes everything
		p.Conn.Close()
		time.Sleep(100 * time.Millisecond) // still running per inspect
		fmt.Fprint(p.Stdout, "ok\n")       // lost
		return 0
	}
	o := runJob(t, d.sandbox(t, Options{}), faultJob(faultProfile(), 2), 30*time.Second)
	for i, c := range o.cases {
		if c.Verdict != verdict.Undetermined || !strings.Contains(o.obs.Events[i].SandboxError, "ended while the container was still running") {
			t.Errorf("case %d: %s (%q), want undetermined: the stream ended while the container ran:\n%s", i, c.Verdict, c.Reason, o)
		}
	}
	if o.lost != nil {
		t.Errorf("a cut attach stream, with the engine still answering, was taken for the loss of the engine: %v", o.lost)
	}
	assertNoLeftovers(t, d)
}
