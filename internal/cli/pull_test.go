package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Images of the pull tests' specs, in registries the tests allow or not.
var (
	ghcrImage  = "ghcr.io/behaves/sh@sha256:" + strings.Repeat("a", 64)
	localImage = "127.0.0.1:5000/behaves/sh@sha256:" + strings.Repeat("b", 64)
	hubImage   = "python@sha256:" + strings.Repeat("c", 64)
)

// pullSpec writes a spec whose programs a, b, c and d run on the profiles
// ghcr, local, ghcr again and id (testImage, a local image ID), with hub
// unused.
func pullSpec(t *testing.T) string {
	t.Helper()
	return writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  ghcr: {image: "` + ghcrImage + `", command: ["/bin/sh"]}
  local: {image: "` + localImage + `", command: ["/bin/sh"]}
  id: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: a, file: prog.sh, profile: ghcr, cases: [{name: c1}]}
  - {name: b, file: prog.sh, profile: local, cases: [{name: c1}]}
  - {name: c, file: prog.sh, profile: ghcr, cases: [{name: c1}]}
  - {name: d, file: prog.sh, profile: id, cases: [{name: c1}]}
`,
		"prog.sh": "true\n",
	})
}

// pullingSandbox is a recordingSandbox that can pull: it answers each
// image with a fixed outcome (pulled when none is set), records the pulls,
// and fails Prepare for an image whose pull failed, as the Docker sandbox
// does.
type pullingSandbox struct {
	recordingSandbox
	fail    map[string]error
	present map[string]bool

	pmu    sync.Mutex
	pulled []string
}

func (p *pullingSandbox) PullImage(ctx context.Context, ref string, timeout time.Duration) (runner.PullStatus, error) {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	p.pulled = append(p.pulled, fmt.Sprintf("%s %s", ref, timeout))
	switch {
	case p.fail[ref] != nil:
		return "", p.fail[ref]
	case p.present[ref]:
		return runner.PullPresent, nil
	}
	return runner.PullPulled, nil
}

func (p *pullingSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := p.recordingSandbox.Prepare(ctx, batch)
	for i, req := range batch {
		if err := p.fail[req.Profile.Image]; err != nil {
			out[i] = runner.Prepared{Err: fmt.Errorf("image not present: %w", err)}
		}
	}
	return out
}

func (p *pullingSandbox) pulls() []string {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	return append([]string(nil), p.pulled...)
}

// Pulling needs a registry to pull from, a sound one: pulling from
// nowhere is refused with a message that names the flag, and nothing is
// pulled or run.
func TestPullUsageErrors(t *testing.T) {
	t.Parallel()
	path := pullSpec(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"pull", "--spec", path}, "behaves pull: pulling needs --allow-registry HOST[:PORT]"},
		{[]string{"run", "--spec", path, "--pull-images"}, "behaves run: --pull-images needs --allow-registry HOST[:PORT]"},
		{[]string{"validate", "--spec", path, "--pull-images"}, "behaves validate: --pull-images needs --allow-registry HOST[:PORT]"},
		{[]string{"pull", "--spec", path, "--allow-registry", "https://ghcr.io"}, `registry "https://ghcr.io" is not a host or host:port`},
		{[]string{"run", "--spec", path, "--allow-registry", "ghcr"}, `Docker would read it as a repository on docker.io`},
		{[]string{"pull", "--spec", path, "--allow-registry", "ghcr.io", "--pull-timeout", "0s"}, `invalid value "0s" for flag -pull-timeout: must be greater than 0`},
	} {
		sb := &pullingSandbox{}
		report := filepath.Join(t.TempDir(), "r.json")
		args := tt.args
		if args[0] == "run" {
			args = append(args, "--report", report)
		}
		r := runMain(t, context.Background(), fixed(sb), args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant %d and %q", tt.args, r.code, r.stderr, ExitUsage, tt.want)
		}
		if len(sb.pulls()) > 0 || len(sb.seen) > 0 {
			t.Errorf("%q: the sandbox was used: pulls %q", tt.args, sb.pulls())
		}
	}
}

// An image from a registry that is not allowed is a spec error at the image
// when pulling is asked for, and only then.
func TestPullRegistryNotAllowed(t *testing.T) {
	t.Parallel()
	path := pullSpec(t)
	want := `behaves.yml:4:18: image "127.0.0.1:5000/behaves/sh@sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbb…" is in registry 127.0.0.1:5000, which pulling may not fetch from: add --allow-registry 127.0.0.1:5000 if the workflow trusts it (allowed: ghcr.io)`
	for _, args := range [][]string{
		{"pull", "--spec", path, "--allow-registry", "ghcr.io"},
		{"run", "--spec", path, "--allow-registry", "ghcr.io", "--pull-images", "--report", filepath.Join(t.TempDir(), "r.json")},
		{"validate", "--spec", path, "--allow-registry", "ghcr.io", "--pull-images"},
	} {
		sb := &pullingSandbox{}
		r := runMain(t, context.Background(), fixed(sb), args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant %d and\n%s", args, r.code, r.stderr, ExitUsage, want)
		}
		if len(sb.pulls()) > 0 || len(sb.seen) > 0 {
			t.Errorf("%q: the sandbox was used: pulls %q", args, sb.pulls())
		}
	}
	// An --image override is held to the same rule.
	args := []string{"validate", "--spec", path, "--allow-registry", "ghcr.io", "--allow-registry", "127.0.0.1:5000", "--pull-images", "--image", "id=" + hubImage}
	r := runMain(t, context.Background(), nil, args...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--image id="+hubImage[:20]) || !strings.Contains(r.stderr, "add --allow-registry docker.io") {
		t.Errorf("%q: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	// Without pulling, the registries do not matter.
	for _, args := range [][]string{
		{"validate", "--spec", path},
		{"validate", "--spec", path, "--allow-registry", "ghcr.io"},
	} {
		if r := runMain(t, context.Background(), nil, args...); r.code != ExitTrue {
			t.Errorf("%q: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
	}
}

// behaves pull pulls each distinct image once, in the order programs first
// use it, with a line each; one failure is exit 4, and nothing is scored.
func TestPullCommand(t *testing.T) {
	t.Parallel()
	path := pullSpec(t)
	allow := []string{"--allow-registry", "ghcr.io", "--allow-registry", "127.0.0.1:5000"}
	sb := &pullingSandbox{present: map[string]bool{ghcrImage: true}}
	r := runMain(t, context.Background(), fixed(sb), append([]string{"pull", "--spec", path, "--pull-timeout", "90s"}, allow...)...)
	if r.code != ExitTrue {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitTrue, r.stderr)
	}
	want := []string{ghcrImage + " 1m30s", localImage + " 1m30s", testImage + " 1m30s"}
	if got := sb.pulls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pulls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, line := range []string{"behaves: image " + ghcrImage + " is present\n", "behaves: pulled " + localImage + " in "} {
		if !strings.Contains(r.stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
		}
	}
	if len(sb.seen) > 0 {
		t.Errorf("pull prepared programs: %q", sb.seen)
	}

	sb = &pullingSandbox{fail: map[string]error{localImage: errors.New("pulling " + localImage + " failed: manifest unknown\n::error::forged")}}
	r = runMain(t, context.Background(), fixed(sb), append([]string{"pull", "--spec", path}, allow...)...)
	if r.code != ExitRunFailed {
		t.Errorf("a failed pull: exit %d, want %d; stderr:\n%s", r.code, ExitRunFailed, r.stderr)
	}
	if !strings.Contains(r.stderr, `failed: manifest unknown\n::error::forged`) || !strings.Contains(r.stderr, "1 image could not be pulled") {
		t.Errorf("stderr does not give the failure, escaped, and the count:\n%s", r.stderr)
	}
	if n := len(sb.pulls()); n != 3 {
		t.Errorf("%d pulls, want 3: a failure does not stop the others", n)
	}

	// A sandbox that cannot pull, or none at all, fails the command.
	r = runMain(t, context.Background(), fixed(&recordingSandbox{}), append([]string{"pull", "--spec", path}, allow...)...)
	if r.code != ExitRunFailed || !strings.Contains(r.stderr, "cannot pull") {
		t.Errorf("a sandbox that cannot pull: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// run --pull-images pulls before scoring; a failed pull makes its image's
// programs undetermined with the failure as the reason, and the others
// still run. Without the flag, run never pulls.
func TestRunPullImages(t *testing.T) {
	t.Parallel()
	path := pullSpec(t)
	allow := []string{"--allow-registry", "ghcr.io", "--allow-registry", "127.0.0.1:5000"}
	why := errors.New("pulling " + localImage + " failed: manifest unknown")
	sb := &pullingSandbox{fail: map[string]error{localImage: why}, recordingSandbox: recordingSandbox{ev: runner.Event{ExitCode: new(int)}}}
	report := filepath.Join(t.TempDir(), "r.json")
	r := runMain(t, context.Background(), fixed(sb), append([]string{"run", "--spec", path, "--report", report, "--pull-images"}, allow...)...)
	if r.code != ExitUndetermined {
		t.Errorf("exit %d, want %d (a failed pull is its programs' undetermined, not a failed run); stderr:\n%s", r.code, ExitUndetermined, r.stderr)
	}
	if n := len(sb.pulls()); n != 3 {
		t.Errorf("%d pulls, want 3: %q", n, sb.pulls())
	}
	for _, p := range r.report["programs"].([]any) {
		p := p.(map[string]any)
		want, reason := "true", ""
		if p["name"] == "b" {
			want, reason = "undetermined", "image not present: "+why.Error()
		}
		c := p["cases"].([]any)[0].(map[string]any)
		if p["verdict"] != want || fmt.Sprint(c["reason"]) != reason && reason != "" {
			t.Errorf("program %v: %v (case reason %q), want %s %q", p["name"], p["verdict"], c["reason"], want, reason)
		}
	}

	sb = &pullingSandbox{recordingSandbox: recordingSandbox{ev: runner.Event{ExitCode: new(int)}}}
	r = runMain(t, context.Background(), fixed(sb), append([]string{"run", "--spec", path, "--report", report}, allow...)...)
	if r.code != ExitTrue || len(sb.pulls()) > 0 {
		t.Errorf("run without --pull-images: exit %d, pulls %q; want %d and none", r.code, sb.pulls(), ExitTrue)
	}

	r = runMain(t, context.Background(), fixed(&recordingSandbox{}), append([]string{"run", "--spec", path, "--report", report, "--pull-images"}, allow...)...)
	if r.code != ExitRunFailed || !strings.Contains(r.stderr, "cannot pull") {
		t.Errorf("run --pull-images on a sandbox that cannot pull: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// The pull phase pulls a build stage's image too, after its profile's,
// and an image once.
func TestPullBuildImage(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  c:
    image: "` + ghcrImage + `"
    command: ["/build/main"]
    build: {image: "` + localImage + `", command: ["gcc", "-o", "/build/main"]}
  d:
    image: "` + testImage + `"
    command: ["/build/main"]
    build: {command: ["gcc", "-o", "/build/main"]}
programs:
  - {name: a, file: prog.sh, profile: c, cases: [{name: c1}]}
  - {name: b, file: prog.sh, profile: d, cases: [{name: c1}]}
`,
		"prog.sh": "true\n",
	})
	sb := &pullingSandbox{}
	r := runMain(t, context.Background(), fixed(sb), "pull", "--spec", path, "--pull-timeout", "90s", "--allow-registry", "ghcr.io", "--allow-registry", "127.0.0.1:5000")
	if r.code != ExitTrue {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitTrue, r.stderr)
	}
	want := []string{ghcrImage + " 1m30s", localImage + " 1m30s", testImage + " 1m30s"}
	if got := sb.pulls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pulls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The pull phase pulls the images a spec's checkers run on too, after the
// programs'.
func TestPullCheckerImage(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  p: {image: "` + ghcrImage + `", command: ["/bin/sh"]}
  ck: {image: "` + localImage + `", command: ["/bin/sh"]}
checkers:
  same: {file: check.sh, profile: ck}
programs:
  - {name: a, file: prog.sh, profile: p, cases: [{name: c1, expect: {stdout: {checker: same}}}]}
`,
		"prog.sh":  "true\n",
		"check.sh": "true\n",
	})
	sb := &pullingSandbox{}
	r := runMain(t, context.Background(), fixed(sb), "pull", "--spec", path, "--pull-timeout", "90s", "--allow-registry", "ghcr.io", "--allow-registry", "127.0.0.1:5000")
	if r.code != ExitTrue {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitTrue, r.stderr)
	}
	want := []string{ghcrImage + " 1m30s", localImage + " 1m30s"}
	if got := sb.pulls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pulls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
