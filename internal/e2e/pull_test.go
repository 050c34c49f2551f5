package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestPullFromLoopbackRegistry pulls for real from the loopback registry of
// scripts/registry.sh: `behaves pull` fetches a missing image by its digest
// and a following run of it is true; `run --pull-images` does both in one
// go; a digest the registry does not have leaves its program undetermined
// with the pull's failure as the reason (exit 3: the run itself is not
// lost), and makes `behaves pull` exit 4.
//
// It pushes the registry image under a repository of its own and removes
// that repository's local references before each pull, so that the shared
// BEHAVES_IMAGE_REGISTRY_DIGEST reference, which other tests run at the
// same time, stays present. It needs BEHAVES_IMAGE_REGISTRY_DIGEST
// (dockertest.RegistryDigest: it fails without it in CI).
func TestPullFromLoopbackRegistry(t *testing.T) {
	t.Parallel()
	shared := dockertest.RegistryDigest(t)
	cl := dockertest.Client(t)
	host, _, _ := strings.Cut(shared, "/")
	_, digest, _ := strings.Cut(shared, "@")
	repo := host + "/behaves-test/pull-" + randomHex(t)
	pinned := repo + "@" + digest
	absent := repo + "@sha256:" + strings.Repeat("0", 63) + "1"
	ctx := context.Background()

	// Cleanup first: this test's references on the engine and its
	// repository's manifest in the registry.
	t.Cleanup(func() {
		for _, ref := range []string{repo + ":push", pinned} {
			if _, err := cl.ImageRemove(context.Background(), ref, image.RemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
				t.Errorf("removing %s: %v", ref, err)
			}
		}
		deleteManifest(t, repo, digest)
	})
	if err := cl.ImageTag(ctx, shared, repo+":push"); err != nil {
		t.Fatalf("tagging: %v", err)
	}
	push(t, cl, repo+":push")
	if _, err := cl.ImageRemove(ctx, repo+":push", image.RemoveOptions{}); err != nil {
		t.Fatalf("removing the pushed tag: %v", err)
	}
	// removeLocal makes the pinned image missing on the engine.
	removeLocal := func() {
		t.Helper()
		if _, err := cl.ImageRemove(ctx, pinned, image.RemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
			t.Fatalf("removing %s: %v", pinned, err)
		}
		if _, err := cl.ImageInspect(ctx, pinned); !cerrdefs.IsNotFound(err) {
			t.Fatalf("%s is still present after its removal: %v", pinned, err)
		}
	}

	spec := fmt.Sprintf(`version: 1
profiles:
  pinned: {image: %q, command: ["/bin/sh"], timeout: 20s}
  absent: {image: %q, command: ["/bin/sh"], timeout: 20s}
programs:
  - {name: pulled, file: prog.sh, profile: pinned, cases: [{name: c, expect: {stdout: {equals: "pulled"}}}]}
  - {name: missing, file: prog.sh, profile: absent, cases: [{name: c, expect: {stdout: {equals: "pulled"}}}]}
`, pinned, absent)
	files := map[string]string{"prog.sh": "echo pulled\n"}
	allow := []string{"--allow-registry", host}

	// behaves pull, then run (which never pulls).
	removeLocal()
	dir := writeTree(t, map[string]string{"behaves.yml": spec, "prog.sh": files["prog.sh"]})
	var stdout, stderr bytes.Buffer
	code := cli.Main(ctx, append([]string{"pull", "--spec", filepath.Join(dir, "behaves.yml")}, allow...), cli.Env{
		Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, NewSandbox: cli.DockerSandbox(context.Background()),
	})
	if code != cli.ExitRunFailed || !strings.Contains(stderr.String(), "behaves: pulled "+pinned+" in ") ||
		!strings.Contains(stderr.String(), "behaves: pulling "+absent+" failed: ") {
		t.Errorf("behaves pull: exit %d, want %d (one image could not be pulled); stderr:\n%s", code, cli.ExitRunFailed, indent(stderr.String()))
	}
	o := runBehaves(t, ctx, spec, files)
	checkPulled(t, o, absent)
	if strings.Contains(o.stderr, "pull") {
		t.Errorf("run without --pull-images pulled:\n%s", indent(o.stderr))
	}

	// run --pull-images: the pull phase, then scoring.
	removeLocal()
	o = runBehaves(t, ctx, spec, files, append([]string{"--pull-images"}, allow...)...)
	checkPulled(t, o, absent)
	if !strings.Contains(o.stderr, "behaves: pulled "+pinned+" in ") {
		t.Errorf("run --pull-images: no progress line for %s:\n%s", pinned, indent(o.stderr))
	}
	if o.code != cli.ExitUndetermined {
		t.Errorf("run --pull-images: exit %d, want %d (a failed pull is its program's undetermined)", o.code, cli.ExitUndetermined)
	}

	// Present now: nothing to pull.
	o = runBehaves(t, ctx, spec, files, append([]string{"--pull-images"}, allow...)...)
	if !strings.Contains(o.stderr, "behaves: image "+pinned+" is present") {
		t.Errorf("run --pull-images of a present image:\n%s", indent(o.stderr))
	}
}

// checkPulled checks a run of the pull spec: the pulled program is true, the
// missing one undetermined with the pull's failure as its reason when the
// run pulled, with the plain "not present" otherwise.
func checkPulled(t *testing.T, o outcome, absent string) {
	t.Helper()
	if p := o.program(t, "pulled"); p.Verdict != verdict.True {
		t.Errorf("program pulled: %s (%s), want true; stderr:\n%s", p.Verdict, p.Reason, indent(o.stderr))
	}
	p := o.program(t, "missing")
	want := "image not present: pull it before scoring (" + absent + ")"
	if strings.Contains(o.stderr, "pulling") {
		want = "image not present: pulling " + absent + " failed: "
	}
	if p.Verdict != verdict.Undetermined || !strings.HasPrefix(p.Cases[0].Reason, want) {
		t.Errorf("program missing: %s, case reason %q; want undetermined, %q…", p.Verdict, p.Cases[0].Reason, want)
	}
}

// push pushes ref to its (loopback, unauthenticated) registry.
func push(t *testing.T, cl *client.Client, ref string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The engine wants an X-Registry-Auth header even for a registry that
	// takes none: "{}", base64url-encoded.
	body, err := cl.ImagePush(ctx, ref, image.PushOptions{RegistryAuth: "e30="})
	if err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	defer body.Close()
	if err := jsonmessage.DisplayJSONMessagesStream(body, io.Discard, 0, false, nil); err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
}

// deleteManifest deletes repo's manifest digest from the loopback registry
// (scripts/registry.sh enables deletes), so that the test leaves nothing
// there either.
func deleteManifest(t *testing.T, repo, digest string) {
	t.Helper()
	host, name, _ := strings.Cut(repo, "/")
	req, err := http.NewRequest(http.MethodDelete, "http://"+host+"/v2/"+name+"/manifests/"+digest, nil)
	if err != nil {
		t.Errorf("deleting the manifest: %v", err)
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("deleting the manifest of %s: %v", repo, err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNotFound {
		t.Errorf("deleting the manifest of %s: %s", repo, resp.Status)
	}
}
