package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// The labels behaves puts on its containers and volumes (as in
// internal/runner/docker; repeated so the test checks what the product
// writes).
const (
	labelRunID = "behaves.run-id"
	labelPID   = "behaves.pid"
	labelRole  = "behaves.role"
)

// signalExitLimit is how long behaves may take to exit after a signal (the
// core issue's promise).
const signalExitLimit = 10 * time.Second

// signalSpec has three programs, each a quick case and a case that sleeps
// 30 s, run two at a time: when the signal comes, the first programs' quick
// cases are done, their slow cases are running, and the last program has not
// started.
func signalSpec(image string) string {
	return fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %q
    command: ["/bin/sh"]
    timeout: 60s
    memory: 32MiB
programs:
  - {name: first, file: sleep.sh, profile: sh, cases: [{name: quick, args: ["0"], expect: {stdout: {equals: done}}}, {name: slow, args: ["30"], expect: {stdout: {equals: done}}}]}
  - {name: second, file: sleep.sh, profile: sh, cases: [{name: quick, args: ["0"], expect: {stdout: {equals: done}}}, {name: slow, args: ["30"], expect: {stdout: {equals: done}}}]}
  - {name: third, file: sleep.sh, profile: sh, cases: [{name: quick, args: ["0"], expect: {stdout: {equals: done}}}, {name: slow, args: ["30"], expect: {stdout: {equals: done}}}]}
`, image)
}

const sleepScript = "sleep \"$1\"\necho done\n"

// TestSignal runs the real behaves binary against the real daemon, signals it
// while cases run, and checks the core's promise: it stops starting cases,
// kills and removes what it made, writes the report with what it observed
// (interrupted programs undetermined, acquisition partial or error; no case
// that did not finish judged true or false) and exits 4 within 10 s. A second
// signal abandons cleanup: behaves exits right after writing the report,
// which lists whatever it could not remove.
func TestSignal(t *testing.T) {
	img := testImages(t)
	dockertest.Client(t) // skip (or fail in CI) before building without a daemon
	bin := buildBehaves(t)

	tests := []struct {
		name    string
		signals []syscall.Signal
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}},
		{"SIGINT twice", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A client of its own: the Docker client negotiates its API
			// version on first use, racily with a concurrent ContainerList.
			cl := dockertest.Client(t)
			dir := writeTree(t, map[string]string{"behaves.yml": signalSpec(img.busybox), "sleep.sh": sleepScript})
			reportPath := filepath.Join(t.TempDir(), "report.json")
			var stdout, stderr syncBuffer
			cmd := exec.Command(bin, "run", "--spec", filepath.Join(dir, "behaves.yml"), "--report", reportPath, "--parallel", "2")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a signal to the test's group does not reach it
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var runID string
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					<-exited
				}
				if runID != "" {
					removeRun(t, cl, runID) // the shared daemon stays clean even when the test fails
				}
			})

			// Signal once two sleeping cases run: the run ID is not known
			// before the report, but behaves' PID labels its containers.
			runID = waitRunning(t, cl, cmd.Process.Pid, 2, exited, &stderr)
			signalled := time.Now()
			for i, sig := range tt.signals {
				if i > 0 {
					time.Sleep(50 * time.Millisecond)
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatalf("signalling behaves: %v", err)
				}
			}

			var waitErr error
			select {
			case waitErr = <-exited:
			case <-time.After(signalExitLimit):
				t.Fatalf("behaves did not exit within %s of %v\nstderr:\n%s", signalExitLimit, tt.signals, indent(stderr.String()))
			}
			took := time.Since(signalled)
			code := cmd.ProcessState.ExitCode()
			var ee *exec.ExitError
			if waitErr != nil && !errors.As(waitErr, &ee) {
				t.Fatalf("waiting for behaves: %v", waitErr)
			}
			if code != 4 {
				t.Errorf("exit code %d after %v, want 4 (the run failed: interrupted)\nstderr:\n%s", code, tt.signals, indent(stderr.String()))
			}
			t.Logf("%v: exit %d %s after the signal", tt.signals, code, took.Round(time.Millisecond))

			rep := readReport(t, reportPath, &stderr)
			if rep.RunID != runID {
				t.Errorf("report run ID %q, containers labelled %q", rep.RunID, runID)
			}
			checkInterruptedReport(t, rep)

			if len(tt.signals) == 1 {
				if cs, vs := runObjects(t, cl, runID); len(cs)+len(vs) > 0 {
					describeLeftovers(t, cl, runID, signalled, rep)
				}
				dockertest.AssertNothingLeft(t, cl, runID)
				for _, p := range rep.Programs {
					if len(p.SandboxWarnings) > 0 {
						t.Errorf("program %s: warnings %q after a clean interruption", p.Name, p.SandboxWarnings)
					}
				}
				return
			}
			// The second signal abandoned cleanup: what is left must be
			// said in the report.
			var warnings []string
			for _, p := range rep.Programs {
				warnings = append(warnings, p.SandboxWarnings...)
			}
			all := strings.Join(warnings, "\n")
			containers, volumes := runObjects(t, cl, runID)
			for _, name := range append(containers, volumes...) {
				if !strings.Contains(all, name) {
					t.Errorf("%s was left behind but no sandbox warning names it (warnings %q)", name, warnings)
				}
			}
			t.Logf("left after the second signal (and named in the warnings): containers %v, volumes %v", containers, volumes)
		})
	}
}

// checkInterruptedReport checks the report of an interrupted run of
// signalSpec.
func checkInterruptedReport(t *testing.T, rep report.Report) {
	t.Helper()
	if !rep.Interrupted || rep.Error == "" {
		t.Errorf("report: interrupted=%v error=%q, want interrupted with the reason", rep.Interrupted, rep.Error)
	}
	if rep.Verdict != verdict.Undetermined {
		t.Errorf("report verdict %s, want undetermined", rep.Verdict)
	}
	if len(rep.Programs) != 3 {
		t.Fatalf("%d programs in the report, want 3", len(rep.Programs))
	}
	interrupted := 0
	for _, p := range rep.Programs {
		if p.Verdict != verdict.Undetermined {
			t.Errorf("program %s: %s, want undetermined (its slow case cannot have finished)", p.Name, p.Verdict)
		}
		if p.Acquisition != runner.AcquisitionPartial && p.Acquisition != runner.AcquisitionError {
			t.Errorf("program %s: acquisition %s, want partial or error", p.Name, p.Acquisition)
		}
		for _, c := range p.Cases {
			ev := c.Event
			finished := ev.SandboxError == "" && ev.ExitCode != nil
			if c.Verdict != verdict.Undetermined && !finished {
				t.Errorf("%s/%s: %s although it did not finish (sandbox error %q)", p.Name, c.Name, c.Verdict, ev.SandboxError)
			}
			if c.Name == "slow" && (c.Verdict != verdict.Undetermined || ev.TimedOut) {
				t.Errorf("%s/slow: %s, timed_out=%v, want undetermined, not a timeout", p.Name, c.Verdict, ev.TimedOut)
			}
			if c.Name == "quick" && finished && c.Verdict != verdict.True {
				t.Errorf("%s/quick finished but is %s (%s)", p.Name, c.Verdict, c.Reason)
			}
			if ev.SandboxError == "interrupted" {
				interrupted++
			}
		}
	}
	if interrupted == 0 {
		t.Errorf("no case was recorded as interrupted, yet containers were running when the signal came")
	}
	if p := rep.Programs[2]; p.Acquisition != runner.AcquisitionError {
		t.Errorf("program third: acquisition %s, want error (it never started)", p.Acquisition)
	}
}

// buildBehaves builds the behaves binary into a temporary folder.
func buildBehaves(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "behaves")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/behaves-dev/behaves")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// waitRunning waits until at least n program containers labelled with
// behaves' PID run, and returns their run ID. It fails when behaves exits
// first or after a minute (the shared daemon can be slow).
func waitRunning(t *testing.T, cl *client.Client, pid, n int, exited <-chan error, stderr *syncBuffer) string {
	t.Helper()
	f := filters.NewArgs(
		filters.Arg("label", labelPID+"="+strconv.Itoa(pid)),
		filters.Arg("label", labelRole+"=program"),
		filters.Arg("status", "running"),
	)
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cs, err := cl.ContainerList(ctx, container.ListOptions{Filters: f})
		cancel()
		if err != nil {
			t.Fatalf("listing containers: %v", err)
		}
		if len(cs) >= n {
			return cs[0].Labels[labelRunID]
		}
		select {
		case err := <-exited:
			t.Fatalf("behaves exited (%v) before %d containers ran\nstderr:\n%s", err, n, indent(stderr.String()))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d containers of behaves (pid %d) running after a minute", n, pid)
		}
	}
}

// readReport decodes the JSON report.
func readReport(t *testing.T, path string, stderr *syncBuffer) report.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no report: %v\nstderr:\n%s", err, indent(stderr.String()))
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("the report is not valid JSON: %v", err)
	}
	schematest.Check(t, path, b)
	return rep
}

// runObjects lists the names of the containers and volumes labelled with
// runID.
func runObjects(t *testing.T, cl *client.Client, runID string) (containers, volumes []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := filters.NewArgs(filters.Arg("label", labelRunID+"="+runID))
	cs, err := cl.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatalf("listing containers: %v", err)
	}
	for _, c := range cs {
		for _, n := range c.Names {
			containers = append(containers, strings.TrimPrefix(n, "/"))
		}
	}
	vs, err := cl.VolumeList(ctx, volume.ListOptions{Filters: f})
	if err != nil {
		t.Fatalf("listing volumes: %v", err)
	}
	for _, v := range vs.Volumes {
		volumes = append(volumes, v.Name)
	}
	return containers, volumes
}

// removeRun removes every container and volume labelled with runID,
// waiting out removals the engine is still doing (behaves may have asked for
// them and given up).
func removeRun(t *testing.T, cl *client.Client, runID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := filters.NewArgs(filters.Arg("label", labelRunID+"="+runID))
	for {
		var errs []error
		cs, err := cl.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
		errs = append(errs, err)
		for _, c := range cs {
			err := cl.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
			if err != nil && !cerrdefs.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("removing container %v: %w", c.Names, err))
			}
		}
		vs, err := cl.VolumeList(ctx, volume.ListOptions{Filters: f})
		errs = append(errs, err)
		for _, v := range vs.Volumes {
			if err := cl.VolumeRemove(ctx, v.Name, true); err != nil && !cerrdefs.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("removing volume %s: %w", v.Name, err))
			}
		}
		err = errors.Join(errs...)
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Errorf("cleaning up run %s: %v", runID, err)
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// syncBuffer is a bytes.Buffer that a child process's output can be copied
// into while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// describeLeftovers logs what a failed cleanup left and what the report says
// about each case, to tell which step of which case leaked.
func describeLeftovers(t *testing.T, cl *client.Client, runID string, signalled time.Time, rep report.Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := filters.NewArgs(filters.Arg("label", labelRunID+"="+runID))
	cs, _ := cl.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	for _, c := range cs {
		t.Logf("left: container %v (%s), state %s, created %s after the signal", c.Names, c.Labels[labelRole], c.State,
			time.Unix(c.Created, 0).Sub(signalled.Truncate(time.Second)))
	}
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			t.Logf("report: %s/%s: %s, sandbox error %q", p.Name, c.Name, c.Verdict, c.Event.SandboxError)
		}
		t.Logf("report: %s: acquisition %s %q, warnings %q", p.Name, p.Acquisition, p.AcquisitionReasons, p.SandboxWarnings)
	}
}
