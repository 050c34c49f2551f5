package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/spec"
)

// TestDemoBuildsOnlyItsImages: scripts/demo.sh builds with images.sh
// --only exactly the images it passes with --image, and those are the demo
// spec's profiles, each given one: a cold demo builds nothing the demo does
// not run (the tests build the rest).
func TestDemoBuildsOnlyItsImages(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	script, err := os.ReadFile(filepath.Join(root, "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*bash scripts/images\.sh --only ([a-z,]+) `).FindSubmatch(script)
	if m == nil {
		t.Fatalf("scripts/demo.sh does not run scripts/images.sh --only NAME,...")
	}
	built := strings.Split(string(m[1]), ",")
	sort.Strings(built)
	var passed, profiles []string
	for _, im := range regexp.MustCompile(`--image "([a-z]+)=\$BEHAVES_IMAGE_([A-Z]+)"`).FindAllSubmatch(script, -1) {
		profiles = append(profiles, string(im[1]))
		passed = append(passed, strings.ToLower(string(im[2])))
	}
	sort.Strings(passed)
	sort.Strings(profiles)
	if !slices.Equal(built, passed) {
		t.Errorf("demo.sh builds %q but passes the images %q", built, passed)
	}
	// The demo spec's own images are placeholders: only --image makes it
	// loadable, so the profiles must be exactly the ones given.
	images := map[string]string{}
	for _, p := range profiles {
		images[p] = testImage
	}
	sp, err := spec.Load(filepath.Join(root, "demo", "behaves.yml"), spec.Options{Images: images})
	if err != nil {
		t.Fatalf("the demo spec with --image for %q: %v", profiles, err)
	}
	var want []string
	for name := range sp.Profiles {
		want = append(want, name)
	}
	sort.Strings(want)
	if !slices.Equal(profiles, want) {
		t.Errorf("demo.sh gives images to the profiles %q, the demo spec has %q", profiles, want)
	}
}

// TestDemoPythonHasStdlib: the demo's Python image (BEHAVES_IMAGE_PYTHON,
// from scripts/images.sh) holds Python's standard library, so that a
// program the demo's reader writes can import json.
func TestDemoPythonHasStdlib(t *testing.T) {
	t.Parallel()
	dockertest.Client(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	path := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  python: {image: "` + img + `", command: ["python3", "-I"], program_name: main.py}
programs:
  - name: stdlib
    file: main.py
    profile: python
    cases: [{name: imports, expect: {stdout: {equals: "{\"ok\": [1, 2]}\n"}}}]
`,
		"main.py": "import json, sqlite3, decimal\nprint(json.dumps({'ok': [1, 2]}))\n",
	})
	r := runMain(t, context.Background(), DockerSandbox(context.Background()), "run", "--spec", path, "--report", filepath.Join(t.TempDir(), "r.json"))
	if r.code != ExitTrue {
		t.Errorf("import json in %s: exit %d\n%s%s", img, r.code, r.stdout, r.stderr)
	}
}

// TestDemoLeavesTheUsersImagesFile runs scripts/demo.sh with its
// collaborators stubbed (docker-up.sh, images.sh, go and the behaves it
// builds): an images file the user points it at with BEHAVES_IMAGES_ENV is
// read and never rewritten, whether it has the demo's images (then they
// are the ones run) or not (then they are built, and given to behaves
// from elsewhere).
func TestDemoLeavesTheUsersImagesFile(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		file       string
		wantImages []string
	}{
		"has the images": {
			file:       "OTHER=kept\nBEHAVES_IMAGE_BUSYBOX=sha256:users-busybox\nBEHAVES_IMAGE_PYTHON=sha256:users-python\n",
			wantImages: []string{"python=sha256:users-python", "shell=sha256:users-busybox"},
		},
		"lacks them": {
			file:       "OTHER=kept\n",
			wantImages: []string{"python=sha256:built-python", "shell=sha256:built-busybox"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tree, bin := t.TempDir(), t.TempDir()
			stubs := map[string]string{
				filepath.Join(tree, "scripts", "demo.sh"):      string(script),
				filepath.Join(tree, "scripts", "docker-up.sh"): "exit 0\n",
				// images.sh writes its --env-file and prints the
				// assignments, as the real one does.
				filepath.Join(tree, "scripts", "images.sh"): `set -eu
env_file=
while [ $# -gt 0 ]; do case "$1" in --env-file) env_file="$2"; shift 2 ;; *) shift ;; esac; done
out="BEHAVES_IMAGE_BUSYBOX=sha256:built-busybox
BEHAVES_IMAGE_PYTHON=sha256:built-python"
printf '%s\n' "$out" >"$env_file"
printf '%s\n' "$out"
`,
				// go build -o bin/behaves . makes a behaves that records
				// its arguments.
				filepath.Join(bin, "go"): "#!/bin/sh\nmkdir -p bin\nprintf '#!/bin/sh\\nprintf \"%%s\\\\n\" \"$@\" >\"$ARGS_OUT\"\\n' >bin/behaves\nchmod +x bin/behaves\n",
			}
			for p, body := range stubs {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			userFile := filepath.Join(t.TempDir(), "my-images.env")
			if err := os.WriteFile(userFile, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			argsOut := filepath.Join(t.TempDir(), "args")
			cmd := exec.Command("bash", filepath.Join(tree, "scripts", "demo.sh"))
			cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir(),
				"BEHAVES_IMAGES_ENV=" + userFile, "ARGS_OUT=" + argsOut}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("demo.sh: %v\n%s", err, out)
			}
			if got, _ := os.ReadFile(userFile); string(got) != tc.file {
				t.Errorf("demo.sh rewrote the images file it was pointed at:\n%s\nwas:\n%s", got, tc.file)
			}
			args, err := os.ReadFile(argsOut)
			if err != nil {
				t.Fatalf("behaves did not run: %v", err)
			}
			for _, im := range tc.wantImages {
				if !strings.Contains(string(args), "--image\n"+im+"\n") {
					t.Errorf("behaves was not given --image %s:\n%s", im, args)
				}
			}
		})
	}
}
