package cli

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// imagesSpec writes a spec with two profiles, one with a build stage of
// its own image, and returns its path.
func imagesSpec(t *testing.T, present, absent, build string) string {
	t.Helper()
	return writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  here:
    image: "` + present + `"
    command: ["/bin/sh"]
  gone:
    command: ["/bin/sh"]
    image: "` + absent + `"
  built:
    image: "` + present + `"
    command: ["/bin/sh"]
    build:
      image: "` + build + `"
      command: ["cp"]
programs:
  - {name: p, file: prog.sh, profile: here, cases: [{name: c}]}
`,
		"prog.sh": "true\n",
	})
}

// presenceSandbox has the images in have.
type presenceSandbox struct {
	*recordingSandbox
	have  map[string]bool
	asked []string
}

func (p *presenceSandbox) ImagePresent(ctx context.Context, ref string) (bool, error) {
	p.asked = append(p.asked, ref)
	return p.have[ref], nil
}

const (
	absentID     = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	absentDigest = "behaves-no-such@sha256:0000000000000000000000000000000000000000000000000000000000000000"
)

// TestValidateSaysImagesUnchecked: without --check-images validate says it
// did not ask about the images.
func TestValidateSaysImagesUnchecked(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "validate", "--spec", shSpec(t, `[{name: c1}]`))
	if r.code != ExitTrue || !strings.Contains(r.stdout, "valid: 1 program, 1 case; images not checked (validate --check-images") {
		t.Errorf("validate: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestValidateCheckImages: each profile whose image (or build image) the
// engine lacks is an error at that image: value naming the profile, with
// advice fit for a local ID and for a registry digest; exit 2. Each
// distinct image is asked once.
func TestValidateCheckImages(t *testing.T) {
	t.Parallel()
	path := imagesSpec(t, testImage, absentID, absentDigest)
	sb := &presenceSandbox{recordingSandbox: &recordingSandbox{}, have: map[string]bool{testImage: true}}
	r := runMain(t, context.Background(), fixed(sb), "validate", "--spec", path, "--check-images")
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s%s", r.code, ExitUsage, r.stdout, r.stderr)
	}
	want := []string{
		path + `:8:12: image ` + absentID + ` of profile "gone" is not on the Docker engine: a local image ID cannot be pulled; build or load the image on this engine, or give the ID of one it has (--image gone=sha256:<id>)`,
		path + `:13:14: build image ` + absentDigest + ` of profile "built" is not on the Docker engine: pull it (behaves pull --allow-registry HOST, or run --pull-images), or give another with --image built=REF`,
		"behaves: the spec has 2 problems; nothing ran",
	}
	if got := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, strings.Join(want, "\n"))
	}
	if len(sb.asked) != 3 {
		t.Errorf("asked %q, want each of the 3 distinct images once", sb.asked)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing (not valid)", r.stdout)
	}

	// --image gives the missing profile one the engine has.
	r = runMain(t, context.Background(), fixed(sb), "validate", "--spec", path, "--check-images", "--image", "gone="+testImage, "--image", "built="+testImage)
	if r.code != ExitUsage || !strings.Contains(r.stderr, `build image `+absentDigest) || strings.Contains(r.stderr, `"gone"`) {
		t.Errorf("with --image: exit %d\n%s", r.code, r.stderr)
	}

	// An engine that cannot be reached is the run failing, not the spec.
	unreachable := func(context.Context, string) (runner.Sandbox, io.Closer, error) { return nil, nil, os.ErrNotExist }
	r = runMain(t, context.Background(), unreachable, "validate", "--spec", path, "--check-images")
	if r.code != ExitRunFailed || !strings.Contains(r.stderr, "sandbox unavailable") {
		t.Errorf("no engine: exit %d, want %d\n%s", r.code, ExitRunFailed, r.stderr)
	}
}

// TestValidateCheckImagesDocker asks the real engine: an image it has
// (from scripts/images.sh) passes, a local ID and a name it lacks fail at
// their image: values.
func TestValidateCheckImagesDocker(t *testing.T) {
	t.Parallel()
	dockertest.Client(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	path := imagesSpec(t, img, absentID, absentDigest)
	r := runMain(t, context.Background(), DockerSandbox(context.Background()), "validate", "--spec", path, "--check-images")
	if r.code != ExitUsage || !strings.Contains(r.stderr, path+`:8:12: image `+absentID+` of profile "gone" is not on the Docker engine`) ||
		!strings.Contains(r.stderr, path+`:13:14: build image `+absentDigest+` of profile "built"`) || strings.Contains(r.stderr, `"here"`) {
		t.Errorf("exit %d, want %d and both missing images at their positions:\n%s", r.code, ExitUsage, r.stderr)
	}
	r = runMain(t, context.Background(), DockerSandbox(context.Background()), "validate", "--spec", path, "--check-images",
		"--image", "gone="+img, "--image", "built="+img)
	// The build stage has an image of its own: --image does not change it.
	if r.code != ExitUsage || !strings.Contains(r.stderr, `build image `+absentDigest) {
		t.Errorf("with --image: exit %d\n%s", r.code, r.stderr)
	}
	good := imagesSpec(t, img, img, img)
	r = runMain(t, context.Background(), DockerSandbox(context.Background()), "validate", "--spec", good, "--check-images")
	if r.code != ExitTrue || !strings.Contains(r.stdout, "valid: 1 program, 1 case; the Docker engine has every image the spec names (1 image)") {
		t.Errorf("all present: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
