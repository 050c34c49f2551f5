package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// runIn runs `behaves run` on the spec at specPath against the real daemon
// and returns what it printed and the report's bytes (nil when none was
// written).
func runIn(t *testing.T, specPath string, args ...string) (code int, stdout, stderr string, reportData []byte) {
	t.Helper()
	reportPath := filepath.Join(t.TempDir(), "report.json")
	var out, errOut bytes.Buffer
	argv := append([]string{"run", "--spec", specPath, "--report", reportPath}, args...)
	code = cli.Main(context.Background(), argv, cli.Env{
		Stdout:     &out,
		Stderr:     &errOut,
		Getenv:     os.Getenv,
		NewSandbox: cli.DockerSandbox(context.Background()),
	})
	data, err := os.ReadFile(reportPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String(), data
}

// The workspace holds secrets: actions/checkout leaves the job's token in .git/config
// as an extraheader, and earlier steps leave untracked credential files.
// A spec that names them, directly or through a symlink, is refused with
// exit 2 before anything runs, and the secret appears nowhere: not in the
// output, not in the report. The same repository with a tracked stdin file
// runs, so the refusal is what keeps the canary out.
func TestWorkspaceSecretsOutOfReach(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	canary := "CANARY" + randomHex(t)
	repo := gittest.NewRepo(t)
	gittest.Git(t, repo, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic "+canary)
	if data, err := os.ReadFile(filepath.Join(repo, ".git", "config")); err != nil || !strings.Contains(string(data), canary) {
		t.Fatalf("the canary is not in .git/config: %v", err)
	}
	gittest.WriteFile(t, repo, "input.txt", "tracked input\n")
	gittest.WriteFile(t, repo, "good.yml", fmt.Sprintf(`version: 1
profiles:
  cat: {image: %q, command: ["/bin/sh"], timeout: 20s}
programs:
  - name: cat
    file: cat.sh
    profile: cat
    cases:
      - {name: tracked, stdin_file: input.txt, expect: {stdout: {equals: "tracked input"}}}
`, img.busybox))
	gittest.WriteFile(t, repo, "cat.sh", "cat\n")
	if err := os.Symlink(".git/config", filepath.Join(repo, "config-link")); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, repo, "behaves.yml", fmt.Sprintf(`version: 1
profiles:
  cat: {image: %q, command: ["/bin/sh"], timeout: 20s}
programs:
  - name: cat
    file: cat.sh
    profile: cat
    cases:
      - {name: git config, stdin_file: .git/config, expect: {stdout: {equals: ""}}}
      - {name: through a symlink, stdin_file: config-link, expect: {stdout: {equals: ""}}}
      - {name: untracked credentials, stdin_file: creds.json, expect: {stdout: {equals: ""}}}
`, img.busybox))
	gittest.Commit(t, repo, "suite")
	gittest.WriteFile(t, repo, "creds.json", `{"token": "`+canary+`"}`)

	code, stdout, stderr, data := runIn(t, filepath.Join(repo, "behaves.yml"))
	if code != cli.ExitUsage {
		t.Errorf("exit %d, want %d (spec error)\nstderr:\n%s", code, cli.ExitUsage, indent(stderr))
	}
	for _, want := range []string{
		`behaves.yml:9:40: stdin_file ".git/config" has a path component named .git`,
		`behaves.yml:10:47: stdin_file "config-link" resolves to ".git/config", which has a path component named .git`,
		`behaves.yml:11:51: stdin_file "creds.json" is not a file git tracks`,
		"--allow-untracked",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, indent(stderr))
		}
	}
	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "report": string(data)} {
		if strings.Contains(text, canary) {
			t.Errorf("the canary reached the %s", what)
		}
	}
	// behaves replaces the report before it reads the spec (a stale
	// report must not pass for this run's): a spec error leaves one that says so, and holds no canary.
	if data == nil {
		t.Fatal("a spec error left no report")
	}
	var failed report.Report
	if err := json.Unmarshal(data, &failed); err != nil {
		t.Fatalf("the report is not valid JSON: %v", err)
	}
	if failed.Verdict != verdict.Undetermined || failed.Error == "" || !strings.Contains(string(data), ".git/config") {
		t.Errorf("the spec error's report: verdict %q, error %q; want undetermined, the spec errors named", failed.Verdict, failed.Error)
	}

	// The control: the same repository, a tracked stdin file, runs.
	code, stdout, stderr, data = runIn(t, filepath.Join(repo, "good.yml"))
	if code != cli.ExitTrue {
		t.Fatalf("the tracked control run: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, indent(stdout), indent(stderr))
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("the control's report is not valid JSON: %v", err)
	}
	dockertest.AssertNothingLeft(t, dockertest.Client(t), r.RunID)
}
