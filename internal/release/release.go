// Package release builds a release of behaves from a git work tree's
// commit and pushes its action image (cmd/release and scripts/release.sh
// are its command line; scripts/release.sh is the way to run it):
//
//	bash scripts/release.sh --registry HOST[:PORT] --out DIR [--name behaves] [--allow-dirty]
//
// A release is a function of its commit alone: the same commit gives the
// same binaries, bills of materials, action.yml and image digest on any
// machine with go.mod's Go, whatever the machine's settings. So:
//
//   - It builds from a clone of HEAD without tags, so a dirty tree,
//     untracked files, tags or the checkout's path cannot reach the
//     release, and refuses a work tree with changes or untracked files
//     unless Options.AllowDirty (then the version ends in +dirty; the
//     changes are still not released).
//   - Every git command ignores the user's and the system's git
//     configuration and GIT_* variables (core.autocrlf would check the
//     embedded templates out with CRLF, and so change the binary).
//   - Every go command runs in a cleared environment: PATH, HOME, TMPDIR,
//     the caller's caches and module sources (goLocations: none of them
//     can change a byte, since -mod=readonly holds every module to go.sum),
//     and pinned settings (pinnedGo: GOENV=off against `go env -w`,
//     GOTOOLCHAIN=local, GOFLAGS=-mod=readonly, CGO_ENABLED=0, GOAMD64=v1,
//     GOARM64=v8.0, no GOEXPERIMENT, GOFIPS140=off).
//   - It refuses a Go other than go.mod's toolchain (or go) line, older or
//     newer, both the go command on PATH and the Go this program was built
//     with (it compresses the image's layers), with an error naming both.
//   - Binaries: -trimpath, -buildvcs=false and the version and commit
//     stamped with -X; the CA bundle from the Go module
//     golang.org/x/crypto/x509roots/fallback at the version go.sum pins;
//     every file time and the image's created time the commit's time.
//   - Bills of materials: one per Linux build, by cyclonedx-gomod (the
//     go.mod tool, built for the host, run with GOOS=linux and the build's
//     GOARCH), without a serial number, with the commit's time as its
//     timestamp, without the hashes of the host's build of the tool.
//
// TestRelease releases one commit twice, the second by scripts/release.sh
// under GOAMD64=v3, a GOEXPERIMENT, a `go env -w` GOFLAGS and a global
// core.autocrlf=true, and compares everything byte for byte.
//
// The image is built from the binaries directly (go-containerregistry),
// not by a Docker build: one layer holding what the Dockerfile's final
// stage holds (/usr/local/bin/behaves, the behaves-post link, /tmp with
// mode 1777, the CA bundle), its PATH, SSL_CERT_FILE and entry point, in
// an index for linux/amd64 and linux/arm64. It is pushed as NAME:<version>
// (+ written _, which a tag cannot hold; credentials from the Docker
// config, as docker login writes them; a loopback registry is spoken to
// over plain HTTP), after every file is written: the digest is computed
// before the push.
//
// Into DIR it writes behaves-linux-amd64, behaves-linux-arm64, SHA256SUMS
// over them, their CycloneDX bills of materials behaves-linux-amd64.cdx.json
// and behaves-linux-arm64.cdx.json (the modules and the standard library
// linked into each), and the release's action.yml (the repository's, with
// `image: docker://HOST[:PORT]/NAME@sha256:DIGEST`). The pushed reference
// is the last line of stdout; logs go to stderr.
package release

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// Arches are the platforms a release builds, in the index's order.
var Arches = []string{"amd64", "arm64"}

// The module path behaves' version and commit are stamped into.
const cliPackage = "github.com/behaves-dev/behaves/internal/cli"

// Options are what Build releases and where.
type Options struct {
	Registry, Out, Name, Repo string
	// AllowDirty releases HEAD although the work tree has changes or
	// untracked files (they are not released either way); the version
	// then ends in +dirty. Without it such a tree is refused.
	AllowDirty bool
	// GoCache, when set, is the Go build cache the builds use (a fresh
	// one shows that nothing cached on this machine reaches the release).
	GoCache string
	Log     func(format string, a ...any)
}

// Release is what Build made.
type Release struct {
	// Reference is HOST[:PORT]/NAME@sha256:DIGEST, the pushed index.
	Reference string
	Digest    string
	Commit    string
	// Version is internal/cli/VERSION's, with +dirty for a release of a
	// work tree with changes (Options.AllowDirty).
	Version string
	// Time is the commit's time: every file's and the image's.
	Time time.Time
	// Out is the folder the release's files are in (Options.Out).
	Out string
}

// Tag is the image's tag: the version, with + (not allowed in a tag) as _.
func (r *Release) Tag() string { return strings.ReplaceAll(r.Version, "+", "_") }

// describe is what a release of repo's HEAD is: its commit, the commit's
// time and the version. A work tree with changes or untracked files is
// refused unless allowDirty, and then marked +dirty in the version.
func describe(ctx context.Context, repo string, allowDirty bool) (*Release, error) {
	rel := &Release{}
	var err error
	if rel.Commit, err = git(ctx, repo, "rev-parse", "HEAD"); err != nil {
		return nil, err
	}
	ct, err := git(ctx, repo, "show", "-s", "--format=%ct", "HEAD")
	if err != nil {
		return nil, err
	}
	secs, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("the commit's time %q: %w", ct, err)
	}
	rel.Time = time.Unix(secs, 0).UTC()
	if rel.Version, err = git(ctx, repo, "show", "HEAD:internal/cli/VERSION"); err != nil {
		return nil, err
	}
	dirty, err := git(ctx, repo, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return nil, err
	}
	if dirty != "" {
		if !allowDirty {
			return nil, fmt.Errorf("the work tree %s has changes or untracked files, which a release of its HEAD (%s) would not hold; "+
				"commit or remove them, or release HEAD anyway, marked %s+dirty, with --allow-dirty:\n%s", repo, rel.Commit[:12], rel.Version, dirty)
		}
		rel.Version += "+dirty"
	}
	return rel, nil
}

// Build releases opt.Repo's HEAD (see the package comment). Every file is
// written into opt.Out before anything is pushed.
func Build(ctx context.Context, opt Options) (*Release, error) {
	if opt.Log == nil {
		opt.Log = func(string, ...any) {}
	}
	if !repoName.MatchString(opt.Name) {
		return nil, fmt.Errorf("--name %q: a registry repository name is lower case letters, digits and . _ - /", opt.Name)
	}
	rel, err := describe(ctx, opt.Repo, opt.AllowDirty)
	if err != nil {
		return nil, err
	}
	rel.Out = opt.Out
	if strings.HasSuffix(rel.Version, "+dirty") {
		opt.Log("the work tree has changes: they are not released (the release is HEAD's, %s, as %s)", rel.Commit[:12], rel.Version)
	}
	repo := opt.Registry + "/" + opt.Name
	tag, err := name.NewTag(repo+":"+rel.Tag(), nameOptions(opt.Registry)...)
	if err != nil {
		return nil, fmt.Errorf("--registry %q, --name %q, version %q: %w", opt.Registry, opt.Name, rel.Version, err)
	}
	goMod, err := git(ctx, opt.Repo, "show", "HEAD:go.mod")
	if err != nil {
		return nil, err
	}
	// This program compresses the image's layers: its Go must be go.mod's
	// too (and built without experiments).
	if err := CheckGo([]byte(goMod), runtime.Version(), "the Go this release program was built with"); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "behaves-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	env, err := goEnv(ctx, work, opt.GoCache)
	if err != nil {
		return nil, err
	}
	v, err := goVersion(ctx, work, env)
	if err != nil {
		return nil, err
	}
	if err := CheckGo([]byte(goMod), v, "the go command on PATH"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	src := filepath.Join(work, "src")
	opt.Log("%s (%s, %s): cloning it", rel.Commit[:12], rel.Version, rel.Time.Format(time.RFC3339))
	if err := cloneHEAD(ctx, opt.Repo, src, rel.Commit); err != nil {
		return nil, err
	}

	bins := map[string][]byte{}
	var sums strings.Builder
	for _, arch := range Arches {
		out := filepath.Join(opt.Out, "behaves-linux-"+arch)
		opt.Log("building %s", filepath.Base(out))
		if err := buildBinary(ctx, src, out, arch, rel, env); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		bins[arch] = b
		sum := sha256.Sum256(b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.Base(out))
	}
	if err := os.WriteFile(filepath.Join(opt.Out, "SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
		return nil, err
	}
	tool, err := buildSBOMTool(ctx, src, work, env)
	if err != nil {
		return nil, err
	}
	for _, arch := range Arches {
		opt.Log("writing %s", SBOMName(arch))
		if err := sbom(ctx, tool, src, filepath.Join(opt.Out, SBOMName(arch)), arch, env, rel.Time); err != nil {
			return nil, err
		}
	}

	idx, err := Index(bins, CABundle(), rel)
	if err != nil {
		return nil, err
	}
	d, err := idx.Digest()
	if err != nil {
		return nil, err
	}
	rel.Digest = d.String()
	rel.Reference = repo + "@" + rel.Digest
	action, err := git(ctx, opt.Repo, "show", "HEAD:action.yml")
	if err != nil {
		return nil, err
	}
	released, err := ActionYAML(action+"\n", rel.Reference)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(opt.Out, "action.yml"), []byte(released), 0o644); err != nil {
		return nil, err
	}

	opt.Log("pushing %s (%s)", tag, rel.Digest)
	if err := remote.WriteIndex(tag, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return nil, fmt.Errorf("pushing %s: %w", tag, err)
	}
	return rel, nil
}

// nameOptions are how a registry is spoken to: over plain HTTP only on a
// loopback address (the tests' registry), else HTTPS.
func nameOptions(registry string) []name.Option {
	host := registry
	if h, _, err := net.SplitHostPort(registry); err == nil {
		host = h
	}
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
		return []name.Option{name.Insecure}
	}
	return nil
}

// cloneHEAD clones repo into dir at commit: the committed files only (as
// committed: git's configuration is ignored), without tags (so the bill
// of materials names the main module by the commit's pseudo-version,
// whatever tags the repository has by then).
func cloneHEAD(ctx context.Context, repo, dir, commit string) error {
	if _, err := git(ctx, ".", "clone", "--quiet", "--no-checkout", "--no-tags", repo, dir); err != nil {
		return err
	}
	_, err := git(ctx, dir, "checkout", "--quiet", "--detach", commit)
	return err
}

// buildBinary builds behaves for linux/arch from src into out, in env
// (goEnv's).
func buildBinary(ctx context.Context, src, out, arch string, rel *Release, env []string) error {
	ldflags := fmt.Sprintf("-s -w -buildid= -X %s.Version=%s -X %s.Commit=%s", cliPackage, rel.Version, cliPackage, rel.Commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(env, "GOOS=linux", "GOARCH="+arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build (linux/%s): %v\n%s", arch, err, b)
	}
	return nil
}

// CABundle is the PEM bundle of the NSS roots the pinned x509roots module
// holds, in its order. A root with a constraint PEM cannot carry (a
// distrust-after date) is left out: an image without it trusts less, never
// more.
func CABundle() []byte {
	var b bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate})
	}
	return b.Bytes()
}

// imageLabels are the Dockerfile's, with the version and the commit.
func imageLabels(rel *Release) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "behaves",
		"org.opencontainers.image.description": "Judges untrusted programs in hardened Docker containers: the behaves GitHub Action",
		"org.opencontainers.image.source":      "https://github.com/behaves-dev/behaves",
		"org.opencontainers.image.version":     rel.Version,
		"org.opencontainers.image.revision":    rel.Commit,
		"org.opencontainers.image.created":     rel.Time.Format(time.RFC3339),
	}
}

// Index is the release's image index: one image per arch of bins, each of
// one layer (Layer) and the Dockerfile's configuration.
func Index(bins map[string][]byte, ca []byte, rel *Release) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range Arches {
		img, err := Image(bins[arch], ca, arch, rel)
		if err != nil {
			return nil, err
		}
		platform := &v1.Platform{OS: "linux", Architecture: arch}
		if arch == "arm64" {
			platform.Variant = "v8"
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform}})
	}
	return idx, nil
}

// Image is the action image of one arch.
func Image(bin, ca []byte, arch string, rel *Release) (v1.Image, error) {
	layerTar, err := Layer(bin, ca, rel.Time)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created:   v1.Time{Time: rel.Time},
		CreatedBy: "behaves release " + rel.Version + " (" + rel.Commit + ")",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	if arch == "arm64" {
		cf.Variant = "v8"
	}
	cf.Created = v1.Time{Time: rel.Time}
	cf.Config.Entrypoint = []string{"/usr/local/bin/behaves"}
	cf.Config.Env = []string{"PATH=/usr/local/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cf.Config.Labels = imageLabels(rel)
	return mutate.ConfigFile(img, cf)
}

// Layer is the image's one layer, as the Dockerfile's final stage holds
// it: the binary, its behaves-post link, the CA bundle and /tmp, owned by
// root, every time the commit's.
func Layer(bin, ca []byte, at time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, ModTime: at, Format: tar.FormatUSTAR}
	}
	file := func(name string, mode int64, size int) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(size), ModTime: at, Format: tar.FormatUSTAR}
	}
	entries := []struct {
		h    *tar.Header
		body []byte
	}{
		{dir("etc/", 0o755), nil},
		{dir("etc/ssl/", 0o755), nil},
		{dir("etc/ssl/certs/", 0o755), nil},
		{file("etc/ssl/certs/ca-certificates.crt", 0o644, len(ca)), ca},
		{&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: at, Format: tar.FormatUSTAR}, nil},
		{dir("usr/", 0o755), nil},
		{dir("usr/local/", 0o755), nil},
		{dir("usr/local/bin/", 0o755), nil},
		{file("usr/local/bin/behaves", 0o755, len(bin)), bin},
		{&tar.Header{Typeflag: tar.TypeSymlink, Name: "usr/local/bin/behaves-post", Linkname: "behaves", Mode: 0o777, ModTime: at, Format: tar.FormatUSTAR}, nil},
	}
	for _, e := range entries {
		if err := tw.WriteHeader(e.h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// repoName is a registry repository name.
var repoName = regexp.MustCompile(`^[a-z0-9]+([._/-][a-z0-9]+)*$`)

// imageLine is action.yml's `image:` under runs.
var imageLine = regexp.MustCompile(`(?m)^(\s+image:\s*)['"]?Dockerfile['"]?\s*$`)

// ActionYAML is the repository's action.yml with its image pointed at ref
// (a docker:// reference by digest instead of the Dockerfile).
func ActionYAML(action, ref string) (string, error) {
	if n := len(imageLine.FindAllStringIndex(action, -1)); n != 1 {
		return "", fmt.Errorf("action.yml has %d `image: Dockerfile` lines, want 1", n)
	}
	return imageLine.ReplaceAllString(action, "${1}docker://"+ref), nil
}
