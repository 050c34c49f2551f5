package cli

import (
	"context"
	"os"
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
	m := regexp.MustCompile(`(?m)^bash scripts/images\.sh --only ([a-z,]+) `).FindSubmatch(script)
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
