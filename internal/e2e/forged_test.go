package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/peakrss"
)

// The pull request's run that the forged reports claim to come from.
const (
	forgedRunID = "9000000001"
	forgedHead  = "1111111111111111111111111111111111111111"
)

// TestForgedReportsCostLittle guards `behaves publish` in the fork-safe
// pattern, where the report is an attacker's: under a workflow_run event whose provenance the
// forged reports match, each shape that once cost gigabytes (a pass@k
// bomb, a reference_events bomb of `{}`) and a pass_at_reasons key that
// once reached the comment is refused with exit 4, naming the field, with
// no request to GitHub and little memory (under 256 MiB of peak RSS,
// measured from outside as TestExtremeOutput does); and a report at the
// default read bound (320 MiB) of the costliest shape the shape pass lets
// through is read within docs/security.md's bound, 8 × the file plus 64
// MiB. The genuine report, from a real run, publishes under the same event:
// the refusals are the shapes', not the provenance's. Wall times are
// logged, not asserted (docs/performance.md's rule for tests).
func TestForgedReportsCostLittle(t *testing.T) {
	img := testImages(t)
	bin := buildBehaves(t)
	spec, files := differentialSpec(img.busybox)
	files["behaves.yml"] = spec
	dir := writeTree(t, files)
	genuine := pullRequestRun(t, dir)

	api := newRecordingGitHub(t)
	pub := publisher{t: t, bin: bin, api: api}
	if r := pub.publish(genuine); r.code != cli.ExitFalse || api.count() == 0 {
		t.Fatalf("the genuine report: exit %d with %d requests to GitHub, want %d and some\n%s", r.code, api.count(), cli.ExitFalse, indent(r.stdout))
	}

	for _, tt := range []struct {
		name, field string
		forged      []byte
	}{
		{"pass@k bomb, 286 KB", "pass_at", passAtBomb(t, genuine, 286<<10)},
		{"pass@k bomb, 585 KB", "pass_at", passAtBomb(t, genuine, 585<<10)},
		{"reference_events bomb, 9 MB", "reference_events", referenceBomb(t, genuine, 9<<20)},
		{"reference_events bomb, 18 MB", "reference_events", referenceBomb(t, genuine, 18<<20)},
		{"a pass_at_reasons key with markdown", "pass_at_reasons", splice(t, genuine, `"pass_at_reasons": {`,
			`"pass_at_reasons": {"1 @octo/team @octocat ![b](http://127.0.0.1/b.png) [x](http://127.0.0.1/) | ✅ true |\t<!-- behaves:sticky -->": "x"`+",", 1)},
	} {
		before := api.count()
		r := pub.publish(tt.forged)
		t.Logf("%s (%d bytes): exit %d in %v, peak RSS %.1f MiB", tt.name, len(tt.forged), r.code, r.wall.Round(time.Millisecond), mib(r.peak))
		if r.code != cli.ExitRunFailed || !strings.Contains(r.stdout, "nothing published") || !strings.Contains(r.stdout, tt.field) {
			t.Errorf("%s: exit %d, want %d with %q and the field %s named:\n%s", tt.name, r.code, cli.ExitRunFailed, "nothing published", tt.field, indent(shortText(r.stdout)))
		}
		if n := api.count() - before; n != 0 {
			t.Errorf("%s: %d requests reached GitHub", tt.name, n)
		}
		if r.peak >= 256<<20 { // 0 when it ended before the first poll
			t.Errorf("%s: peak RSS %.1f MiB, want under 256 MiB", tt.name, mib(r.peak))
		}
	}

	// At the read bound: sandbox warnings of 12 bytes each (15 in JSON
	// with quotes and comma), the list the decoder makes the most of
	// within the shape pass's budget. The run ID is another run's, so
	// that publish refuses it right after Read accepts it.
	bound := int64(cli.DefaultMaxReadReport)
	big := bigWarnings(t, bytes.Replace(genuine, []byte(`"run_id": "`+forgedRunID+`"`), []byte(`"run_id": "9000000002"`), 1), bound)
	before := api.count()
	r := pub.publish(big)
	limit := 8*int64(len(big)) + 64<<20
	t.Logf("a %.1f MiB report: exit %d in %v, peak RSS %.1f MiB (bound %.1f MiB)", mib(int64(len(big))), r.code, r.wall.Round(time.Millisecond), mib(r.peak), mib(limit))
	if r.code != cli.ExitRunFailed || !strings.Contains(r.stdout, "github.run_id") {
		t.Errorf("the report at the read bound: exit %d, want %d refused for its run ID (read first):\n%s", r.code, cli.ExitRunFailed, indent(shortText(r.stdout)))
	}
	if r.peak == 0 || r.peak > limit {
		t.Errorf("reading %.1f MiB took a peak RSS of %.1f MiB, over 8 × the file + 64 MiB (%.1f MiB)", mib(int64(len(big))), mib(r.peak), mib(limit))
	}
	if n := api.count() - before; n != 0 {
		t.Errorf("the report at the read bound: %d requests reached GitHub", n)
	}
}

// pullRequestRun runs the spec in dir as the pull request's run under
// GitHub Actions (in this process, with the real daemon) and returns its
// report; the run must exit 1.
func pullRequestRun(t *testing.T, dir string) []byte {
	t.Helper()
	code, stdout, b := runUnderActions(t, dir, false)
	if code != cli.ExitFalse {
		t.Fatalf("the pull request's run: exit %d, want %d\n%s", code, cli.ExitFalse, indent(stdout))
	}
	return b
}

// runUnderActions runs the spec in dir as the pull request's run under
// GitHub Actions (in this process, with the real daemon): `behaves run`,
// or with action the action's default command (run, then publish, with
// no comment or check run), and returns its exit code, its stdout and
// stderr (where the workflow commands are) and its report.
func runUnderActions(t *testing.T, dir string, action bool) (int, string, []byte) {
	t.Helper()
	tmp := t.TempDir()
	event := filepath.Join(tmp, "event.json")
	writeFile(t, event, `{"pull_request": {"number": 7, "head": {"sha": "`+forgedHead+`"}}}`)
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": forgedRunID, "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REPOSITORY": "octo/repo",
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event, "GITHUB_SHA": strings.Repeat("2", 40),
		"GITHUB_STEP_SUMMARY": filepath.Join(tmp, "summary.md"),
	}
	path := filepath.Join(tmp, "report.json")
	argv := []string{"run", "--spec", filepath.Join(dir, "behaves.yml"), "--report", path}
	if action {
		argv = []string{"action"}
		for k, v := range map[string]string{
			"GITHUB_WORKSPACE": dir, "GITHUB_OUTPUT": filepath.Join(tmp, "output"),
			"INPUT_SPEC": filepath.Join(dir, "behaves.yml"), "INPUT_REPORT": path, "INPUT_COMMENT": "off", "INPUT_CHECK-RUN": "false",
		} {
			env[k] = v
		}
	}
	var out bytes.Buffer
	code := cli.Main(context.Background(), argv, cli.Env{
		Stdout: &out, Stderr: &out,
		Getenv: func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "RUNNER_") {
				return ""
			}
			return os.Getenv(k)
		},
		NewSandbox: cli.DockerSandbox(context.Background()),
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the pull request's run: exit %d, %v\n%s", code, err, indent(out.String()))
	}
	if !bytes.Contains(b, []byte(`"head_sha": "`+forgedHead+`"`)) {
		t.Fatalf("the report does not name the pull request's head")
	}
	return code, out.String(), b
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// splice replaces the first n occurrences of old in data with new, failing
// the test when there are fewer.
func splice(t *testing.T, data []byte, old, new string, n int) []byte {
	t.Helper()
	if c := bytes.Count(data, []byte(old)); c < n {
		t.Fatalf("the report holds %q %d times, want %d", old, c, n)
	}
	return bytes.Replace(data, []byte(old), []byte(new), n)
}

// passAtBomb is the report with the first group's pass_at holding k
// values until the report is size bytes: 1 … 10000, then beyond.
func passAtBomb(t *testing.T, genuine []byte, size int) []byte {
	var sb strings.Builder
	for k := 1; sb.Len() < size-len(genuine); k++ {
		fmt.Fprintf(&sb, "%q: null, ", fmt.Sprint(k))
	}
	return splice(t, genuine, `"pass_at": {`, `"pass_at": {`+sb.String(), 1)
}

// referenceBomb is the report with its first reference_events holding `{}`
// until the report is size bytes.
func referenceBomb(t *testing.T, genuine []byte, size int) []byte {
	n := (size - len(genuine)) / 3
	return splice(t, genuine, `"reference_events": [`, `"reference_events": [`+strings.Repeat("{},", n), 1)
}

// bigWarnings is the report with the first program's sandbox_warnings
// holding 12-byte warnings until the report is just under size bytes.
func bigWarnings(t *testing.T, genuine []byte, size int64) []byte {
	const warning = `"warning 0001",`
	n := (size - int64(len(genuine)) - 1024) / int64(len(warning))
	return splice(t, genuine, `"sandbox_warnings": []`, `"sandbox_warnings": [`+strings.Repeat(warning, int(n))+`"warning 0001"]`, 1)
}

func shortText(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}

// publisher runs `behaves publish` as a child under the workflow_run of
// the pull request's run, against a recording GitHub.
type publisher struct {
	t   *testing.T
	bin string
	api *recordingGitHub
}

type published struct {
	code   int
	stdout string
	peak   int64
	wall   time.Duration
}

func (p publisher) publish(data []byte) published {
	t := p.t
	t.Helper()
	tmp := t.TempDir()
	path := filepath.Join(tmp, "behaves-report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(tmp, "event.json")
	writeFile(t, event, `{"workflow_run": {"id": `+forgedRunID+`, "run_attempt": 1, "head_sha": "`+forgedHead+`", "event": "pull_request",
		"pull_requests": [{"number": 7, "head": {"sha": "`+forgedHead+`"}}]}, "repository": {"full_name": "octo/repo"}}`)
	cmd := exec.Command(p.bin, "publish", "--report", path, "--check-run")
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + tmp,
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=workflow_run", "GITHUB_EVENT_PATH=" + event,
		"GITHUB_RUN_ID=9000000050", "GITHUB_RUN_ATTEMPT=1", "GITHUB_REPOSITORY=octo/repo", "GITHUB_TOKEN=forged-test-token",
		"GITHUB_API_URL=" + p.api.URL, "GITHUB_GRAPHQL_URL=" + p.api.URL + "/graphql", "GITHUB_SERVER_URL=" + p.api.URL,
		"GITHUB_STEP_SUMMARY=" + filepath.Join(tmp, "summary.md"), "GITHUB_OUTPUT=" + filepath.Join(tmp, "output"),
	}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	start := time.Now()
	var peak int64
	err := cmd.Start()
	if err == nil {
		stop, got := make(chan struct{}), make(chan int64, 1)
		go func() { got <- peakrss.Poll(cmd.Process.Pid, stop) }()
		err = cmd.Wait()
		close(stop)
		peak = <-got
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("running behaves publish: %v", err)
	}
	return published{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), peak: peak, wall: time.Since(start)}
}

// recordingGitHub answers what publish asks of GitHub plausibly and
// counts every request it receives.
type recordingGitHub struct {
	*httptest.Server
	mu sync.Mutex
	n  int
}

func newRecordingGitHub(t *testing.T) *recordingGitHub {
	g := &recordingGitHub{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.n++
		g.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer forged-test-token" && r.Header.Get("Authorization") != "token forged-test-token" {
			t.Errorf("a request without the token: %s %s", r.Method, r.URL)
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/user":
			fmt.Fprint(w, `{"login": "github-actions[bot]", "type": "Bot"}`)
		case r.URL.Path == "/graphql":
			fmt.Fprint(w, `{"data": {"viewer": {"login": "github-actions[bot]"}}}`)
		case r.Method == http.MethodGet:
			fmt.Fprint(w, `[]`)
		default:
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"id": 1, "html_url": "http://127.0.0.1/x"}`)
		}
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *recordingGitHub) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}
