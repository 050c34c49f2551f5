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
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestInitPinRun is the start of a spec as a user makes it, against the
// real daemon and the loopback registry: behaves init in a repository
// with a Python script, a Python folder run with -m, a Go module and a
// shell script (the shell's image given as a tag in the loopback
// registry, the others as the local test images' IDs), behaves pin, then
// behaves validate and behaves run --pull-images. Every program's
// placeholder case passes: the profiles init writes run what it found.
func TestInitPinRun(t *testing.T) {
	t.Parallel()
	py := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	golang := dockertest.Image(t, "BEHAVES_IMAGE_GOLANG")
	shared := dockertest.RegistryDigest(t) // 127.0.0.1:<port>/behaves-test/busybox@sha256:…, pushed as :ci by the engine
	cl := dockertest.Client(t)
	host, _, _ := strings.Cut(shared, "/")
	repo, digest, _ := strings.Cut(shared, "@")
	ctx := context.Background()

	dir := gittest.NewRepo(t)
	for rel, content := range map[string]string{
		"fizzbuzz.py":          "import sys\n\nif __name__ == '__main__':\n    print(' '.join(sys.argv[1:]) or 'fizz')\n",
		"app/tool/__init__.py": "",
		"app/tool/__main__.py": "from tool import words\n\nprint(words.count('a b c'))\n",
		"app/tool/words.py":    "def count(s):\n    return len(s.split())\n",
		"rpn/go.mod":           "module example.com/rpn\n\ngo 1.19\n",
		"rpn/main.go":          "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"rpn\") }\n",
		"hello.sh":             "#!/bin/sh\necho hello\n",
	} {
		gittest.WriteFile(t, dir, rel, content)
	}
	gittest.AddAll(t, dir)
	path := filepath.Join(dir, "behaves.yml")
	behaves := func(args ...string) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := cli.Main(ctx, args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, NewSandbox: cli.DockerSandbox(context.Background())})
		return code, stdout.String(), stderr.String()
	}

	code, stdout, stderr := behaves("init", "--spec", path, "--image", "python="+py, "--image", "go="+golang, "--image", "shell="+repo+":ci")
	if code != cli.ExitTrue || !strings.Contains(stdout, "next: behaves pin --spec "+path+" --allow-registry "+host) {
		t.Fatalf("init: exit %d; stdout:\n%s\nstderr:\n%s", code, indent(stdout), indent(stderr))
	}
	if code, stdout, stderr = behaves("pin", "--spec", path, "--allow-registry", host); code != cli.ExitTrue {
		t.Fatalf("pin: exit %d; stdout:\n%s\nstderr:\n%s", code, indent(stdout), indent(stderr))
	}
	spec, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(spec), `image: "`+repo+`:ci@`+digest+`"`) || strings.Contains(string(spec), "TODO") {
		t.Fatalf("the pinned spec:\n%s", indent(string(spec)))
	}
	if code, stdout, stderr = behaves("validate", "--spec", path); code != cli.ExitTrue {
		t.Fatalf("validate: exit %d; stdout:\n%s\nstderr:\n%s", code, indent(stdout), indent(stderr))
	}

	reportPath := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr = behaves("run", "--spec", path, "--report", reportPath, "--pull-images", "--allow-registry", host)
	b, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatalf("run: exit %d, no report: %v; stderr:\n%s", code, err, indent(stderr))
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	dockertest.AssertNothingLeft(t, cl, rep.RunID)
	if code != cli.ExitTrue {
		t.Errorf("run: exit %d, want %d; stdout:\n%s\nstderr:\n%s\nspec:\n%s", code, cli.ExitTrue, indent(stdout), indent(stderr), indent(string(spec)))
	}
	t.Logf("run:\n%s", indent(stdout))
	got := map[string]verdict.Verdict{}
	for _, p := range rep.Programs {
		got[p.Name] = p.Verdict
		if p.Verdict != verdict.True {
			t.Errorf("program %s: %s (%s)", p.Name, p.Verdict, p.Reason)
		}
	}
	for _, name := range []string{"fizzbuzz", "tool", "rpn", "hello"} {
		if _, ok := got[name]; !ok {
			t.Errorf("program %s is not in the report (%v)", name, got)
		}
	}
}
