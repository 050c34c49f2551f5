package release

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/behaves-dev/behaves/internal/dockertest"
)

// loopbackRegistry is the registry scripts/registry.sh started on
// 127.0.0.1, from the reference it wrote (BEHAVES_IMAGE_REGISTRY_DIGEST).
func loopbackRegistry(t *testing.T) string {
	t.Helper()
	ref := dockertest.RegistryDigest(t)
	host, _, _ := strings.Cut(ref, "/")
	if !strings.HasPrefix(host, "127.") {
		t.Fatalf("the test registry %q is not on a loopback address", host)
	}
	return host
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(t.Context(), dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRelease releases this checkout's HEAD twice, from two clones in
// different folders, seconds apart, to the loopback registry. The second
// is made as a workflow makes it, by scripts/release.sh, and from a machine
// set up to build otherwise: an empty Go build cache, GOAMD64=v3,
// GOEXPERIMENT=nogreenteagc, a `go env -w` file with
// GOFLAGS=-gcflags=all=-N (each of these changes behaves' binary when it
// reaches the build), a global git config with core.autocrlf=true (which
// would check the embedded HTML templates out with CRLF), and a tag on
// HEAD. Both give one image digest and byte-identical binaries, checksums,
// action.yml and bills of materials. A dirty tree is then refused by
// scripts/release.sh, with a change to cmd/release that would not even
// compile (the script builds cmd/release from HEAD, not the work tree).
// The release's action.yml names the pushed index by digest, the registry
// holds it, the binary names its commit, the bills of materials describe
// the Linux builds reproducibly, and the image holds what the Dockerfile's
// image holds (BEHAVES_IMAGE_ACTION), with the same configuration.
func TestRelease(t *testing.T) {
	registry := loopbackRegistry(t)
	dockerfileImage := dockertest.Image(t, "BEHAVES_IMAGE_ACTION")
	root := gitOut(t, ".", "rev-parse", "--show-toplevel")
	head := gitOut(t, root, "rev-parse", "HEAD")
	ctx := t.Context()

	var rels []*Release
	var outs []string
	for i, where := range []string{"one", filepath.Join("two", "deeper")} {
		clone := filepath.Join(t.TempDir(), where, "behaves")
		if err := cloneHEAD(ctx, root, clone, head); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "dist")
		if i == 0 {
			rel, err := Build(ctx, Options{Registry: registry, Out: out, Name: "behaves-test/release", Repo: clone, Log: t.Logf})
			if err != nil {
				t.Fatalf("release 1: %v", err)
			}
			rels, outs = append(rels, rel), append(outs, out)
			continue
		}
		// The second as a workflow makes it, on a machine set up to build
		// something else, a second later.
		time.Sleep(1100 * time.Millisecond)
		gitOut(t, clone, "tag", "v0.0.1")
		cmd := exec.CommandContext(ctx, "bash", filepath.Join(clone, "scripts", "release.sh"),
			"--registry", registry, "--out", out, "--name", "behaves-test/release")
		gocache := t.TempDir()
		cmd.Env = hostileEnv(t, gocache)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
		last := lines[len(lines)-1]
		_, digest, ok := strings.Cut(last, "@")
		if err != nil || !ok || !strings.HasPrefix(last, registry+"/behaves-test/release@sha256:") {
			t.Fatalf("scripts/release.sh: %v; its last line %q is not the pushed reference\n%s", err, last, stderr.String())
		}
		rels, outs = append(rels, &Release{Reference: last, Digest: digest, Commit: head}), append(outs, out)

		// A dirty tree is refused, and scripts/release.sh runs cmd/release
		// as committed: this change does not compile.
		f, err := os.OpenFile(filepath.Join(clone, "cmd", "release", "main.go"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(f, "this is not Go")
		f.Close()
		dirtyOut := filepath.Join(t.TempDir(), "dirty")
		cmd = exec.CommandContext(ctx, "bash", filepath.Join(clone, "scripts", "release.sh"),
			"--registry", registry, "--out", dirtyOut, "--name", "behaves-test/release")
		cmd.Env = append(os.Environ(), "GOCACHE="+gocache)
		stderr.Reset()
		cmd.Stderr = &stderr
		stdout, err = cmd.Output()
		if err == nil || len(stdout) > 0 || !strings.Contains(stderr.String(), "--allow-dirty") || strings.Contains(stderr.String(), "this is not Go") {
			t.Errorf("scripts/release.sh in a dirty tree: %v, stdout %q; want a refusal naming --allow-dirty from HEAD's cmd/release\n%s", err, stdout, stderr.String())
		}
		if _, err := os.Stat(dirtyOut); !os.IsNotExist(err) {
			t.Errorf("the refused release made %s (%v)", dirtyOut, err)
		}
	}
	if rels[0].Digest != rels[1].Digest || rels[0].Commit != head {
		t.Errorf("one commit gave digests %s and %s (commit %s, HEAD %s)", rels[0].Digest, rels[1].Digest, rels[0].Commit, head)
	}
	for _, f := range []string{"behaves-linux-amd64", "behaves-linux-arm64", "SHA256SUMS", "action.yml", SBOMName("amd64"), SBOMName("arm64")} {
		a, err1 := os.ReadFile(filepath.Join(outs[0], f))
		b, err2 := os.ReadFile(filepath.Join(outs[1], f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s: the two releases differ (%v, %v)", f, err1, err2)
		}
	}

	// action.yml: the repository's, its image the pushed index by digest.
	rel := rels[0]
	action, _ := os.ReadFile(filepath.Join(outs[0], "action.yml"))
	want := "  image: docker://" + rel.Reference + "\n"
	if !strings.Contains(string(action), want) || strings.Contains(string(action), "image: Dockerfile") {
		t.Errorf("the release's action.yml does not say %q:\n%s", want, action)
	}
	ref, err := name.NewDigest(rel.Reference, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref, remote.WithContext(ctx))
	if err != nil {
		t.Fatalf("the registry does not hold %s: %v", rel.Reference, err)
	}
	im, _ := idx.IndexManifest()
	var platforms []string
	for _, m := range im.Manifests {
		platforms = append(platforms, m.Platform.OS+"/"+m.Platform.Architecture)
	}
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("the index holds %v, want linux/amd64 and linux/arm64", platforms)
	}

	// The binary names its version and commit.
	out, err := exec.CommandContext(ctx, filepath.Join(outs[0], "behaves-linux-amd64"), "version").Output()
	if wantV := "behaves " + rel.Version + " (commit " + head + ")\n"; err != nil || string(out) != wantV {
		t.Errorf("behaves version: %q (%v), want %q", out, err, wantV)
	}
	// The bills of materials, by cyclonedx-gomod: of the Linux builds,
	// behaves' modules and the standard library, nothing of the machine or
	// the moment (no serial number, the commit's time, the main module's
	// version the commit's, whatever the tags).
	goMod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	wantGo, err := WantGo(goMod)
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range Arches {
		checkSBOM(t, filepath.Join(outs[0], SBOMName(arch)), arch, wantGo, rel.Time, head)
	}

	// The image holds what the Dockerfile's image holds.
	released, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	built := dockerImage(t, dockerfileImage)
	gotFiles, wantFiles := files(t, released), files(t, built)
	if !slices.Equal(gotFiles, wantFiles) {
		t.Errorf("the released image holds\n  %s\nthe Dockerfile's\n  %s", strings.Join(gotFiles, "\n  "), strings.Join(wantFiles, "\n  "))
	}
	gc, _ := released.ConfigFile()
	wc, _ := built.ConfigFile()
	if !slices.Equal(gc.Config.Entrypoint, wc.Config.Entrypoint) || !slices.Equal(gc.Config.Env, wc.Config.Env) ||
		gc.Config.User != wc.Config.User || gc.Config.WorkingDir != wc.Config.WorkingDir || gc.Architecture != "amd64" {
		t.Errorf("the released image's config %+v is not the Dockerfile's %+v", gc.Config, wc.Config)
	}
	for k, v := range wc.Config.Labels {
		// The Dockerfile's own labels (scripts/action-image.sh adds a
		// cache key of its own to the image it builds).
		if !strings.HasPrefix(k, "org.opencontainers.image.") {
			continue
		}
		if gc.Config.Labels[k] != v {
			t.Errorf("label %s is %q, the Dockerfile's image has %q", k, gc.Config.Labels[k], v)
		}
	}
	if !gc.Created.Time.Equal(rel.Time) {
		t.Errorf("the image was created %v, want the commit's time %v", gc.Created.Time, rel.Time)
	}
}

// checkSBOM checks the bill of materials of behaves-linux-arch.
func checkSBOM(t *testing.T, file, arch, goVersion string, at time.Time, commit string) {
	t.Helper()
	type property struct{ Name, Value string }
	var bom struct {
		BOMFormat    string `json:"bomFormat"`
		SerialNumber *string
		Metadata     struct {
			Timestamp string
			Tools     []map[string]any
			Component struct {
				Version    string
				Properties []property
			}
		}
		Components []struct{ Name, Version string }
	}
	b, err := os.ReadFile(file)
	if err != nil || json.Unmarshal(b, &bom) != nil || bom.BOMFormat != "CycloneDX" {
		t.Fatalf("%s is not a CycloneDX bill of materials (%v)", file, err)
	}
	if bom.SerialNumber != nil || bom.Metadata.Timestamp != at.Format(time.RFC3339) {
		t.Errorf("%s: serial number %v, timestamp %q; want none and the commit's time %s", file, bom.SerialNumber, bom.Metadata.Timestamp, at.Format(time.RFC3339))
	}
	for _, tool := range bom.Metadata.Tools {
		if _, ok := tool["hashes"]; ok || tool["name"] != "cyclonedx-gomod" {
			t.Errorf("%s: tool %v; want cyclonedx-gomod without the hashes of this host's build", file, tool)
		}
	}
	if v := bom.Metadata.Component.Version; !strings.HasPrefix(v, "v0.0.0-") || !strings.HasSuffix(v, "-"+commit[:12]) {
		t.Errorf("%s: the main module's version is %q, want the commit's pseudo-version", file, v)
	}
	for _, p := range []property{{"cdx:gomod:build:env:GOOS", "linux"}, {"cdx:gomod:build:env:GOARCH", arch}, {"cdx:gomod:build:env:GOVERSION", goVersion}, {"cdx:gomod:build:env:CGO_ENABLED", "0"}} {
		if !slices.Contains(bom.Metadata.Component.Properties, p) {
			t.Errorf("%s: no property %s=%s in %v", file, p.Name, p.Value, bom.Metadata.Component.Properties)
		}
	}
	var names []string
	for _, c := range bom.Components {
		names = append(names, c.Name+"@"+c.Version)
	}
	if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "github.com/docker/docker@") }) || !slices.Contains(names, "std@"+goVersion) {
		t.Errorf("%s lists %v, want github.com/docker/docker and std@%s among them", file, names, goVersion)
	}
}

// hostileEnv is this process's environment with everything that would
// change a release if it reached the build: a fresh Go build cache, the
// GOAMD64 level and an experiment, a `go env -w` file with GOFLAGS, and
// a global git config with core.autocrlf=true.
func hostileEnv(t *testing.T, gocache string) []string {
	t.Helper()
	dir := t.TempDir()
	goenv, gitconfig := filepath.Join(dir, "goenv"), filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(goenv, []byte("GOFLAGS=-gcflags=all=-N\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gitconfig, []byte("[core]\n\tautocrlf = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") { // the go env -w file's would not count
			env = append(env, kv)
		}
	}
	return append(env, "GOCACHE="+gocache, "GOAMD64=v3", "GOEXPERIMENT=nogreenteagc", "GOENV="+goenv, "GIT_CONFIG_GLOBAL="+gitconfig)
}

// dockerImage reads an image of the local daemon (docker save).
func dockerImage(t *testing.T, id string) v1.Image {
	t.Helper()
	cl := dockertest.Client(t)
	rc, err := cl.ImageSave(context.Background(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	saved := filepath.Join(t.TempDir(), "image.tar")
	f, err := os.Create(saved)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, rc); err != nil {
		t.Fatal(err)
	}
	f.Close()
	img, err := tarball.ImageFromPath(saved, nil)
	if err != nil {
		t.Fatalf("reading the saved image %s: %v", id, err)
	}
	return img
}

// files lists what an image's flattened filesystem holds: each path with
// its type, permission bits, owner and link target (not the bytes: the two
// images' binaries are built with different flags, their CA bundles from
// different sources).
func files(t *testing.T, img v1.Image) []string {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	var out []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/"), "/")
		out = append(out, fmt.Sprintf("%s type %c mode %04o owner %d:%d link %q", p, h.Typeflag, h.Mode&0o7777, h.Uid, h.Gid, h.Linkname))
	}
	slices.Sort(out)
	return out
}
