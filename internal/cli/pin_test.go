package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/initspec"
	"github.com/behaves-dev/behaves/internal/pin"
)

// loopbackRegistry is the registry scripts/registry.sh started on
// 127.0.0.1 (from BEHAVES_IMAGE_REGISTRY_DIGEST: the test skips without
// it, and fails in CI, where BEHAVES_REQUIRE_DOCKER=1), and the reference
// of the image that script pushed through the Docker engine.
func loopbackRegistry(t *testing.T) (host, shared string) {
	t.Helper()
	shared = dockertest.RegistryDigest(t)
	host, _, _ = strings.Cut(shared, "/")
	if !strings.HasPrefix(host, "127.") {
		t.Fatalf("the test registry %q is not on a loopback address", host)
	}
	return host, shared
}

func randomName(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// labelled is an image of no layers whose config carries label v: images
// with other labels have other digests.
func labelled(t *testing.T, v string) v1.Image {
	t.Helper()
	img, err := mutate.Config(empty.Image, v1.Config{Labels: map[string]string{"behaves.test": v}})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// pushTag pushes an image or an index to ref (repo:tag) on the loopback
// registry and returns its digest, and deletes the manifest from the
// registry when the test ends.
func pushTag(t *testing.T, ref string, what remote.Taggable) string {
	t.Helper()
	tag, err := name.NewTag(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	var digest v1.Hash
	switch w := what.(type) {
	case v1.ImageIndex:
		digest, err = w.Digest()
		if err == nil {
			t.Cleanup(func() { deleteManifest(t, tag.Context().Digest(digest.String())) })
			err = remote.WriteIndex(tag, w, remote.WithContext(t.Context()))
		}
	case v1.Image:
		digest, err = w.Digest()
		if err == nil {
			t.Cleanup(func() { deleteManifest(t, tag.Context().Digest(digest.String())) })
			err = remote.Write(tag, w, remote.WithContext(t.Context()))
		}
	}
	if err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	return digest.String()
}

func deleteManifest(t *testing.T, ref name.Digest) {
	if err := remote.Delete(ref, remote.WithContext(context.Background())); err != nil {
		t.Logf("deleting %s from the test registry: %v", ref, err)
	}
}

// TestPinLoopbackRegistry pins for real against the loopback registry: a
// tag pushed there is pinned to its digest, an index to the index's
// digest (not a platform's), the image scripts/registry.sh pushed through
// the Docker engine to the digest the engine recorded for it; every other
// byte of the spec, comments and quoting included, stays. Then the tag
// moves (another image pushed to it): pin --check exits 1 naming the
// stale pin and changes nothing, pin updates it, and pin --check exits 0.
func TestPinLoopbackRegistry(t *testing.T) {
	t.Parallel()
	host, shared := loopbackRegistry(t)
	repo := host + "/behaves-test/pin-" + randomName(t)
	ctx := context.Background()

	first := pushTag(t, repo+":app", labelled(t, "first"))
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: labelled(t, "amd64"), Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
		mutate.IndexAddendum{Add: labelled(t, "arm64"), Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}}})
	multi := pushTag(t, repo+":multi", idx)
	sharedRepo, sharedDigest, _ := strings.Cut(shared, "@")
	id := "sha256:" + strings.Repeat("7", 64)
	stale := "sha256:" + strings.Repeat("0", 64)

	// Every image style pin rewrites, and around them the things it must
	// keep: comments everywhere, other quoting, flow and block mappings,
	// an image ID, an untagged digest.
	spec := `# The spec of the pin test.   
version: 1
profiles:
  # the app, by tag
  app:   # a comment after the key
    image: "` + repo + `:app"  # TODO: pin this image: behaves pin --allow-registry ` + host + `
    command: ['/bin/sh', "-c"]    # kept as written
  multi: {image: '` + repo + `:multi', command: [sh]}   # a multi-platform index
  built:
    image: ` + id + `   # a local image ID: left alone
    build:
      image: ` + repo + `:app@` + stale + ` # a stale pin
      command: [cp]
  engine:
    image: "` + sharedRepo + `:ci"
    command: [sh]
  untagged: {image: "` + sharedRepo + `@` + sharedDigest + `", command: [sh]}
programs: []
# the end
`
	dir := t.TempDir()
	path := filepath.Join(dir, "behaves.yml")
	if err := os.WriteFile(path, []byte(spec), 0o640); err != nil {
		t.Fatal(err)
	}
	pinned := func(app string) string {
		s := strings.Replace(spec, `"`+repo+`:app"  # TODO: pin this image: behaves pin --allow-registry `+host+"\n", `"`+repo+`:app@`+app+`"`+"\n", 1)
		s = strings.Replace(s, `'`+repo+`:multi'`, `'`+repo+`:multi@`+multi+`'`, 1)
		s = strings.Replace(s, repo+`:app@`+stale, repo+`:app@`+app, 1)
		return strings.Replace(s, `"`+sharedRepo+`:ci"`, `"`+sharedRepo+`:ci@`+sharedDigest+`"`, 1)
	}
	read := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	allow := []string{"--spec", path, "--allow-registry", host}

	r := runMain(t, ctx, nil, append([]string{"pin", "--check"}, allow...)...)
	if r.code != ExitFalse || !strings.Contains(r.stdout, "profiles.app.image") || !strings.Contains(r.stdout, "unpinned: its tag points to "+first) ||
		!strings.Contains(r.stdout, "profiles.built.build.image") || !strings.Contains(r.stdout, "stale: pinned to "+stale+", its tag now points to "+first) ||
		!strings.Contains(r.stdout, "profiles.built.image") || !strings.Contains(r.stdout, "pinned by image ID, left alone") ||
		!strings.Contains(r.stdout, "profiles.untagged.image") || !strings.Contains(r.stdout, "pinned by digest without a tag, left alone") {
		t.Errorf("pin --check before pinning: exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, ExitFalse, r.stdout, r.stderr)
	}
	if got := read(); got != spec {
		t.Fatalf("pin --check changed the spec:\n%s", got)
	}

	r = runMain(t, ctx, nil, append([]string{"pin"}, allow...)...)
	if r.code != ExitTrue {
		t.Fatalf("pin: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got, want := read(), pinned(first); got != want {
		t.Errorf("pin wrote:\n%s\nwant (the original with only the images pinned):\n%s", got, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("the pinned spec's mode: %v, %v; want 0640 kept", fi.Mode(), err)
	}
	r = runMain(t, ctx, nil, append([]string{"pin", "--check"}, allow...)...)
	if r.code != ExitTrue || !strings.Contains(r.stdout, "every pin is current") {
		t.Errorf("pin --check after pinning: exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, ExitTrue, r.stdout, r.stderr)
	}

	// The tag moves.
	second := pushTag(t, repo+":app", labelled(t, "second"))
	if second == first {
		t.Fatal("the two images have one digest")
	}
	before := read()
	r = runMain(t, ctx, nil, append([]string{"pin", "--check"}, allow...)...)
	if r.code != ExitFalse || strings.Count(r.stdout, "stale: pinned to "+first+", its tag now points to "+second) != 2 {
		t.Errorf("pin --check after the tag moved: exit %d, want %d and two stale pins; stdout:\n%s\nstderr:\n%s", r.code, ExitFalse, r.stdout, r.stderr)
	}
	if read() != before {
		t.Fatal("pin --check changed the spec")
	}
	r = runMain(t, ctx, nil, append([]string{"pin"}, allow...)...)
	if r.code != ExitTrue || !strings.Contains(r.stdout, "updated from "+first+" to "+second) {
		t.Errorf("pin after the tag moved: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got, want := read(), pinned(second); got != want {
		t.Errorf("pin wrote:\n%s\nwant:\n%s", got, want)
	}
	r = runMain(t, ctx, nil, append([]string{"pin", "--check"}, allow...)...)
	if r.code != ExitTrue {
		t.Errorf("pin --check at the end: exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, ExitTrue, r.stdout, r.stderr)
	}

	// A tag the registry does not have: exit 4, nothing written.
	missing := strings.Replace(read(), repo+":multi@", repo+":nosuchtag@", 1)
	if err := os.WriteFile(path, []byte(missing), 0o640); err != nil {
		t.Fatal(err)
	}
	r = runMain(t, ctx, nil, append([]string{"pin"}, allow...)...)
	if r.code != ExitRunFailed || !strings.Contains(r.stderr, "has no manifest for "+repo+":nosuchtag") || read() != missing {
		t.Errorf("pin of a tag the registry lacks: exit %d, want %d and the file unchanged; stderr:\n%s", r.code, ExitRunFailed, r.stderr)
	}
}

// TestPinRefusesUnlistedRegistries: an image in a registry --allow-registry
// does not name is an error naming the image and the flag, and nothing
// is asked or written (Docker Hub, here, is never contacted); a registry
// that cannot be reached is exit 4 naming it, and nothing is written.
func TestPinRefusesUnlistedRegistries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "behaves.yml")
	spec := "version: 1\nprofiles:\n  py: {image: \"python:3.13-slim\", command: [python3]}\n  local: {image: \"127.0.0.1:1/x:1\", command: [sh]}\nprograms: []\n"
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runMain(t, ctx, nil, "pin", "--spec", path, "--allow-registry", "127.0.0.1:1")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `image "python:3.13-slim" is in registry docker.io, which pin may not ask: add --allow-registry docker.io`) ||
		strings.Contains(r.stderr, "127.0.0.1:1/x") {
		t.Errorf("pin with docker.io not allowed: exit %d, want %d; stderr:\n%s", r.code, ExitUsage, r.stderr)
	}

	spec = "version: 1\nprofiles:\n  local: {image: \"127.0.0.1:1/x:1\", command: [sh]}\nprograms: []\n"
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, check := range []bool{false, true} {
		args := []string{"pin", "--spec", path, "--allow-registry", "127.0.0.1:1"}
		if check {
			args = append(args, "--check")
		}
		r = runMain(t, ctx, nil, args...)
		if r.code != ExitRunFailed || !strings.Contains(r.stderr, "registry 127.0.0.1:1 cannot be reached") || !strings.Contains(r.stderr, "(unreachable: 127.0.0.1:1)") {
			t.Errorf("pin (check %v) of an unreachable registry: exit %d, want %d; stderr:\n%s", check, r.code, ExitRunFailed, r.stderr)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != spec {
		t.Errorf("the spec changed:\n%s", b)
	}

	r = runMain(t, ctx, nil, "pin", "--spec", filepath.Join(dir, "nothing.yml"))
	if r.code != ExitUsage || !strings.Contains(r.stderr, "nothing.yml") {
		t.Errorf("pin of a missing spec: exit %d, want %d; stderr:\n%s", r.code, ExitUsage, r.stderr)
	}
}

// TestTodoCommentIsShared: the TODO comment init writes is the one pin
// removes when it pins the image.
func TestTodoCommentIsShared(t *testing.T) {
	t.Parallel()
	if initspec.TodoComment != pin.TodoComment {
		t.Errorf("init writes %q, pin removes %q", initspec.TodoComment, pin.TodoComment)
	}
}

// TestPinReadsDockerCredentials: pin asks the Docker config's credential
// helper for the registry's credentials, as docker pull does (a helper
// docker-credential-<name> named by credHelpers, found on PATH, asked
// "get" with the server on stdin). The loopback registry needs none, so
// pin still pins. Not parallel: it sets DOCKER_CONFIG and PATH.
func TestPinReadsDockerCredentials(t *testing.T) {
	host, _ := loopbackRegistry(t)
	repo := host + "/behaves-test/pin-" + randomName(t)
	digest := pushTag(t, repo+":v1", labelled(t, "credentials"))

	config, bin, dir := t.TempDir(), t.TempDir(), t.TempDir()
	log := filepath.Join(t.TempDir(), "helper.log")
	helper := "#!/bin/sh\nread server\nprintf '%s %s\\n' \"$1\" \"$server\" >> " + log + "\nprintf '{\"ServerURL\":\"%s\",\"Username\":\"behaves\",\"Secret\":\"not-a-secret\"}' \"$server\"\n"
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-behavestest"), []byte(helper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "config.json"), []byte(`{"credHelpers": {"`+host+`": "behavestest"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", config)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	path := filepath.Join(dir, "behaves.yml")
	if err := os.WriteFile(path, []byte("version: 1\nprofiles:\n  a: {image: \""+repo+":v1\", command: [sh]}\nprograms: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runMain(t, context.Background(), nil, "pin", "--spec", path, "--allow-registry", host)
	if r.code != ExitTrue || !strings.Contains(r.stdout, "pinned to "+digest) {
		t.Fatalf("pin: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(got), "get "+host) {
		t.Errorf("the credential helper was not asked for %s: %q, %v", host, got, err)
	}
}
