package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The self-test workflow (.github/workflows/self-test.yml) pulls the demo's
// images from Docker Hub in a step of its own (id: images) and hands their
// IDs to `uses: ./` as that step's outputs. Nothing can be pulled where the
// tests run, so TestActSelfTest runs a copy derived from it here: the same
// file with that one step's `docker pull` lines dropped and each
// `$(docker image inspect --format '{{.Id}}' REF)` replaced by the ID of the
// local image for that output. Every other byte of meaning stays the
// repository's: TestSelfTestDerivation checks that, so the copy cannot drift
// from the workflow it stands for.

// selfTestPath is the self-test workflow, relative to the repository root.
const selfTestPath = ".github/workflows/self-test.yml"

// imagesStepID is the id of the self-test's step that pulls the images.
const imagesStepID = "images"

var (
	pullLine    = regexp.MustCompile(`^docker pull (\S+)$`)
	inspectLine = regexp.MustCompile(`^echo "([A-Za-z0-9_-]+)=\$\(docker image inspect --format '\{\{\.Id\}\}' (\S+)\)" >> "\$GITHUB_OUTPUT"$`)
)

// deriveSelfTest returns workflow with the run script of its step with id
// images rewritten to write the local image IDs (output name → ID) as that
// step's outputs instead of pulling. It fails when there is not exactly one
// such step, when the script has a line of another shape than the two it
// knows, when it inspects an image it did not pull, or when the outputs it
// writes are not exactly those of ids.
func deriveSelfTest(workflow []byte, ids map[string]string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(workflow, &doc); err != nil {
		return nil, fmt.Errorf("parsing the workflow: %w", err)
	}
	run, err := imagesRun(&doc)
	if err != nil {
		return nil, err
	}
	pulled := map[string]bool{}
	written := map[string]bool{}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(run.Value, "\n"), "\n") {
		if m := pullLine.FindStringSubmatch(line); m != nil {
			pulled[m[1]] = true
			continue
		}
		m := inspectLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("step %s: the line %q is neither `docker pull REF` nor `echo \"NAME=$(docker image inspect --format '{{.Id}}' REF)\" >> \"$GITHUB_OUTPUT\"`: teach deriveSelfTest how to run it offline", imagesStepID, line)
		}
		name, ref := m[1], m[2]
		if !pulled[ref] {
			return nil, fmt.Errorf("step %s: output %s inspects %s, which the step did not pull before", imagesStepID, name, ref)
		}
		id, ok := ids[name]
		if !ok {
			return nil, fmt.Errorf("step %s: output %s has no local image", imagesStepID, name)
		}
		if written[name] {
			return nil, fmt.Errorf("step %s: output %s is written twice", imagesStepID, name)
		}
		written[name] = true
		out = append(out, fmt.Sprintf("echo %q >> \"$GITHUB_OUTPUT\"", name+"="+id))
	}
	for name := range ids {
		if !written[name] {
			return nil, fmt.Errorf("step %s: writes no output %s", imagesStepID, name)
		}
	}
	run.Value = strings.Join(out, "\n") + "\n"
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("writing the derived workflow: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing the derived workflow: %w", err)
	}
	return b.Bytes(), nil
}

// imagesRun finds the run script of the one step with id images in a
// workflow's document node.
func imagesRun(doc *yaml.Node) (*yaml.Node, error) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("the workflow is not one YAML document")
	}
	var found []*yaml.Node
	for _, job := range mappingValues(mappingValue(doc.Content[0], "jobs")) {
		steps := mappingValue(job, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			continue
		}
		for _, step := range steps.Content {
			if id := mappingValue(step, "id"); id != nil && id.Value == imagesStepID {
				found = append(found, step)
			}
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%d steps with id %s, want 1", len(found), imagesStepID)
	}
	run := mappingValue(found[0], "run")
	if run == nil || run.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("the step with id %s has no run script", imagesStepID)
	}
	return run, nil
}

// mappingValue is the value of key in the mapping node m (nil when m is
// not a mapping or has no such key).
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mappingValues are the values of the mapping node m, in order.
func mappingValues(m *yaml.Node) []*yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var vs []*yaml.Node
	for i := 1; i < len(m.Content); i += 2 {
		vs = append(vs, m.Content[i])
	}
	return vs
}

// repoRoot is the repository's root folder (the tests run in internal/e2e).
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "action.yml")); err != nil {
		tb.Fatalf("no action.yml at the repository root %s: %v", root, err)
	}
	return root
}

// TestSelfTestDerivation derives the act copy from the repository's
// self-test workflow and checks that it differs from it only in the images
// step's script, which pulls nothing and writes the local IDs as the same
// outputs; and that a script line of an unknown shape, an image inspected
// without a pull, or a missing output stops the derivation instead of being
// carried into the copy.
func TestSelfTestDerivation(t *testing.T) {
	t.Parallel()
	orig, err := os.ReadFile(filepath.Join(repoRoot(t), selfTestPath))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{
		"python": "sha256:" + strings.Repeat("1", 64),
		"shell":  "sha256:" + strings.Repeat("2", 64),
	}
	derived, err := deriveSelfTest(orig, ids)
	if err != nil {
		t.Fatalf("deriving the act copy of %s: %v", selfTestPath, err)
	}

	// The images step's script: no docker, each ID as its output.
	var doc yaml.Node
	if err := yaml.Unmarshal(derived, &doc); err != nil {
		t.Fatalf("the derived workflow does not parse: %v\n%s", err, derived)
	}
	run, err := imagesRun(&doc)
	if err != nil {
		t.Fatal(err)
	}
	want := "echo \"python=" + ids["python"] + "\" >> \"$GITHUB_OUTPUT\"\n" +
		"echo \"shell=" + ids["shell"] + "\" >> \"$GITHUB_OUTPUT\"\n"
	if run.Value != want {
		t.Errorf("the derived images step runs\n%s\nwant\n%s", run.Value, want)
	}
	if strings.Contains(string(derived), "docker ") {
		t.Errorf("the derived workflow still runs docker:\n%s", derived)
	}

	// Everything else: the same data as the repository's workflow.
	var a, b any
	if err := yaml.Unmarshal(orig, &a); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(derived, &b); err != nil {
		t.Fatal(err)
	}
	if n := blankImagesRun(a) + blankImagesRun(b); n != 2 {
		t.Fatalf("found the images step %d times in the two workflows, want once in each", n)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the derived workflow differs from %s beyond the images step:\n%s", selfTestPath, derived)
	}

	// A script the derivation does not understand is refused.
	origRun := "          docker pull python:3.12-slim\n"
	if !strings.Contains(string(orig), origRun) {
		t.Fatalf("%s no longer pulls python:3.12-slim on a line of its own: update this test", selfTestPath)
	}
	for name, edit := range map[string]struct{ old, new string }{
		"an unknown line":         {origRun, origRun + "          docker login -u x\n"},
		"an inspect, no pull":     {origRun, ""},
		"an output missing":       {`echo "shell=`, `echo "other=`},
		"a second images step":    {"      - name: behaves\n", "      - id: images\n        run: \"true\"\n      - name: behaves\n"},
		"the images step gone":    {"        id: images\n", ""},
		"an output written twice": {"          docker pull busybox:1.36\n", "          docker pull busybox:1.36\n          echo \"shell=$(docker image inspect --format '{{.Id}}' busybox:1.36)\" >> \"$GITHUB_OUTPUT\"\n"},
	} {
		bad := strings.Replace(string(orig), edit.old, edit.new, 1)
		if bad == string(orig) {
			t.Fatalf("%s: the edit %q does not apply to %s: update this test", name, edit.old, selfTestPath)
		}
		if _, err := deriveSelfTest([]byte(bad), ids); err == nil {
			t.Errorf("%s: deriveSelfTest accepted it", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// blankImagesRun empties the run script of the images step in a decoded
// workflow and returns how many such steps it found.
func blankImagesRun(workflow any) int {
	n := 0
	jobs, _ := workflow.(map[string]any)["jobs"].(map[string]any)
	for _, job := range jobs {
		steps, _ := job.(map[string]any)["steps"].([]any)
		for _, s := range steps {
			if step, ok := s.(map[string]any); ok && step["id"] == imagesStepID {
				step["run"] = ""
				n++
			}
		}
	}
	return n
}
