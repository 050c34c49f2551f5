package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestFaultDaemonUnreachable: with no Docker daemon behind DOCKER_HOST,
// every program is undetermined with the reason, the report is still
// written, and behaves exits 4 (the run failed), whatever --fail-on says: a
// broken runner must never pass a gate. It needs no daemon. It does not run
// in parallel: it sets DOCKER_HOST in behaves' own environment.
func TestFaultDaemonUnreachable(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-daemon.sock"))
	image := "sha256:" + strings.Repeat("a", 64) // never looked at
	spec := `version: 1
profiles:
  sh: {image: "` + image + `", command: ["/bin/sh"]}
programs:
  - {name: one, file: p.sh, profile: sh, cases: [{name: a, expect: {stdout: {equals: ok}}}, {name: b, expect: {exit_code: 1}}]}
  - {name: two, file: p.sh, profile: sh, cases: [{name: a, expect: {stdout: {equals: ok}}}]}
`
	dir := writeTree(t, map[string]string{"behaves.yml": spec, "p.sh": "echo ok\n"})
	for _, failOn := range []string{"undetermined", "false"} {
		t.Run("fail-on "+failOn, func(t *testing.T) {
			reportPath := filepath.Join(t.TempDir(), "report.json")
			var stdout, stderr bytes.Buffer
			code := cli.Main(context.Background(), []string{"run", "--spec", filepath.Join(dir, "behaves.yml"), "--report", reportPath, "--fail-on", failOn}, cli.Env{
				Stdout:     &stdout,
				Stderr:     &stderr,
				Getenv:     os.Getenv,
				NewSandbox: cli.DockerSandbox(context.Background()),
			})
			if code != cli.ExitRunFailed {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, cli.ExitRunFailed, indent(stderr.String()))
			}
			b, err := os.ReadFile(reportPath)
			if err != nil {
				t.Fatalf("no report: %v", err)
			}
			var rep report.Report
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatalf("the report is not valid JSON: %v", err)
			}
			if rep.Verdict != verdict.Undetermined || rep.Interrupted || !strings.Contains(rep.Error, "Docker daemon") {
				t.Errorf("report: verdict %s, interrupted %v, error %q; want undetermined, the daemon named", rep.Verdict, rep.Interrupted, rep.Error)
			}
			for _, p := range rep.Programs {
				if p.Verdict != verdict.Undetermined || p.Acquisition != runner.AcquisitionError || !strings.Contains(p.Reason, "Docker daemon") {
					t.Errorf("program %s: %s, acquisition %s, reason %q; want undetermined, error, the daemon named", p.Name, p.Verdict, p.Acquisition, p.Reason)
				}
				for _, c := range p.Cases {
					if c.Verdict != verdict.Undetermined || c.Event.SandboxError == "" {
						t.Errorf("%s/%s: %s (sandbox error %q), want undetermined with the reason", p.Name, c.Name, c.Verdict, c.Event.SandboxError)
					}
				}
			}
			if !strings.Contains(stderr.String(), "the run failed") {
				t.Errorf("stderr does not say the run failed:\n%s", indent(stderr.String()))
			}
		})
	}
}
