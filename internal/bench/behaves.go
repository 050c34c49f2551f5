package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/behaves-dev/behaves/internal/peakrss"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// buildBehaves builds the behaves binary of the module the bench belongs to
// into dir and returns its path.
func buildBehaves(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the behaves module (go env GOMOD is empty): run the bench from the repository")
	}
	bin := filepath.Join(dir, "behaves")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
}

// revision describes the tree behaves is built from: `git describe
// --always --dirty` in the module root, or "unknown".
func revision(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "unknown"
	}
	cmd := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(out)))
	rev, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(rev))
}

// behavesRun is one `behaves` process as measured from outside.
type behavesRun struct {
	Wall time.Duration
	CPU  time.Duration // user + system time of the process
	// MaxRSSKiB is the process's own peak resident set size: the largest
	// VmHWM of /proc/<pid>/status seen while it ran (polled every
	// peakrss.Interval; VmHWM is the high-water mark of the memory the
	// process got at exec, so a peak between polls is not missed, only
	// growth in the last interval before exit). It falls back to
	// RusageMaxRSSKiB where /proc cannot be read.
	MaxRSSKiB int64
	// RusageMaxRSSKiB is wait4's ru_maxrss. It is only an upper bound:
	// Go starts a child with CLONE_VFORK|CLONE_VM, and the kernel's exec
	// folds the high-water mark of the memory the child shared until exec
	// (the bench's own) into the child's maxrss.
	RusageMaxRSSKiB int64
	Report          report.Report
	ReportPath      string
}

// runBehaves runs `behaves run --spec specPath` plus args as a separate
// process and checks that it judged every case true. An interruption is
// passed on as SIGINT, so that behaves removes what it made.
func runBehaves(ctx context.Context, bin, specPath string, args ...string) (behavesRun, error) {
	r, err := runBehavesProcess(ctx, bin, specPath, args...)
	if err != nil {
		return r, err
	}
	if c := r.Report.Counts.Cases; c.True != c.Total || c.Total == 0 {
		return r, fmt.Errorf("behaves run --spec %s %s: %d of %d cases true%s", specPath, strings.Join(args, " "), c.True, c.Total, firstProblem(r.Report))
	}
	return r, nil
}

// runBehavesProcess runs `behaves run --spec specPath` plus args as a
// separate process and reads its report; an exit code other than 0, 1 or 3
// (the run itself failed) is an error.
func runBehavesProcess(ctx context.Context, bin, specPath string, args ...string) (behavesRun, error) {
	var r behavesRun
	reportPath := filepath.Join(filepath.Dir(specPath), "report.json")
	r.ReportPath = reportPath
	_ = os.Remove(reportPath)
	argv := append([]string{"run", "--spec", specPath, "--report", reportPath}, args...)
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	cmd.Env = behavesEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Start()
	if err == nil {
		// Start returns after the child's exec: VmHWM is behaves' own.
		stop, peak := make(chan struct{}), make(chan int64, 1)
		go func() { peak <- peakrss.Poll(cmd.Process.Pid, stop) >> 10 }()
		err = cmd.Wait()
		r.Wall = time.Since(t0)
		close(stop)
		r.MaxRSSKiB = <-peak
	}
	if cmd.ProcessState != nil {
		r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.RusageMaxRSSKiB = ru.Maxrss
		}
	}
	if r.MaxRSSKiB == 0 {
		r.MaxRSSKiB = r.RusageMaxRSSKiB
	}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	b, rerr := os.ReadFile(reportPath)
	if rerr == nil {
		rerr = json.Unmarshal(b, &r.Report)
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && (exitErr.ExitCode() == 1 || exitErr.ExitCode() == 3) {
		err = nil // some case is false or undetermined: the caller judges that
	}
	if err != nil || rerr != nil {
		return r, fmt.Errorf("behaves %s: %v%s\nstderr:\n%s", strings.Join(argv, " "), errors.Join(err, rerr), firstProblem(r.Report), tail(stderr.String(), 2000))
	}
	return r, nil
}

// validateBehaves times `behaves validate`: process start-up and loading
// the spec, without Docker.
func validateBehaves(ctx context.Context, bin, specPath string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, "validate", "--spec", specPath)
	cmd.Env = behavesEnv()
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("behaves validate --spec %s: %w\n%s", specPath, err, out)
	}
	return time.Since(t0), nil
}

// behavesEnv is the bench's environment without GITHUB_ACTIONS, so that the
// terminal output is the same everywhere.
func behavesEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_ACTIONS=") {
			env = append(env, kv)
		}
	}
	return env
}

// firstProblem is the first case that is not true, for an error message.
func firstProblem(rep report.Report) string {
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			if c.Verdict != verdict.True {
				return fmt.Sprintf(" (first: %s/%s is %s: %s %s)", p.Name, c.Name, c.Verdict, c.Reason, c.Event.SandboxError)
			}
		}
	}
	if rep.Error != "" {
		return " (" + rep.Error + ")"
	}
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// meanEventMS is the mean of the events' duration_ms (the program's own run
// time, from the engine's StartedAt to FinishedAt).
func meanEventMS(rep report.Report) float64 {
	var sum, n int64
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			sum += c.Event.DurationMS
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}
