// Package release builds a release of behaves from a git work tree's
// commit and pushes its action image (cmd/release and scripts/release.sh
// are its command line):
//
//	go run ./cmd/release --registry HOST[:PORT] --out DIR [--name behaves]
//
// It builds from a clone of HEAD (so a dirty tree, untracked files or the
// checkout's path cannot reach the release), with every input pinned:
// the Go toolchain of go.mod (GOTOOLCHAIN=local: a machine with another Go
// fails instead of building something else), -trimpath, -buildvcs=false
// and the commit stamped with -X, the CA bundle from the Go module
// golang.org/x/crypto/x509roots/fallback at the version go.sum pins, and
// every file time and the image's created time set to the commit's time.
// The same commit therefore gives the same binaries and the same image
// digest on any machine (TestReleaseIsReproducible builds one twice).
//
// The image is built from the binaries directly (go-containerregistry),
// not by a Docker build: one layer holding what the Dockerfile's final
// stage holds (/usr/local/bin/behaves, the behaves-post link, /tmp with
// mode 1777, the CA bundle), its PATH, SSL_CERT_FILE and entry point, in
// an index for linux/amd64 and linux/arm64. It is pushed as NAME:<version>
// (credentials from the Docker config, as docker login writes them; a
// loopback registry is spoken to over plain HTTP).
//
// Into DIR it writes the release's action.yml (the repository's, with
// `image: docker://HOST[:PORT]/NAME@sha256:DIGEST`), behaves-linux-amd64,
// behaves-linux-arm64, SHA256SUMS over them, and sbom.cdx.json, the
// CycloneDX bill of materials of the modules linked into behaves (by
// cyclonedx-gomod, the go.mod tool). The pushed reference is the last line
// of stdout; logs go to stderr.
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
	Version   string
	// Time is the commit's time: every file's and the image's.
	Time time.Time
	// Out is the folder the release's files are in (Options.Out).
	Out string
}

// Build releases opt.Repo's HEAD (see the package comment).
func Build(ctx context.Context, opt Options) (*Release, error) {
	if opt.Log == nil {
		opt.Log = func(string, ...any) {}
	}
	if !repoName.MatchString(opt.Name) {
		return nil, fmt.Errorf("--name %q: a registry repository name is lower case letters, digits and . _ - /", opt.Name)
	}
	rel := &Release{Out: opt.Out}
	var err error
	if rel.Commit, err = git(ctx, opt.Repo, "rev-parse", "HEAD"); err != nil {
		return nil, err
	}
	ct, err := git(ctx, opt.Repo, "show", "-s", "--format=%ct", "HEAD")
	if err != nil {
		return nil, err
	}
	secs, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("the commit's time %q: %w", ct, err)
	}
	rel.Time = time.Unix(secs, 0).UTC()
	if rel.Version, err = git(ctx, opt.Repo, "show", "HEAD:internal/cli/VERSION"); err != nil {
		return nil, err
	}
	if dirty, _ := git(ctx, opt.Repo, "status", "--porcelain"); dirty != "" {
		opt.Log("the work tree has changes: they are not released (the release is HEAD's, %s)", rel.Commit[:12])
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "behaves-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
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
		if err := buildBinary(ctx, src, out, arch, rel, opt.GoCache); err != nil {
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

	idx, err := Index(bins, CABundle(), rel)
	if err != nil {
		return nil, err
	}
	d, err := idx.Digest()
	if err != nil {
		return nil, err
	}
	rel.Digest = d.String()
	repo := opt.Registry + "/" + opt.Name
	tag, err := name.NewTag(repo+":"+rel.Version, nameOptions(opt.Registry)...)
	if err != nil {
		return nil, fmt.Errorf("--registry %q, --name %q: %w", opt.Registry, opt.Name, err)
	}
	opt.Log("pushing %s (%s)", tag, rel.Digest)
	if err := remote.WriteIndex(tag, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return nil, fmt.Errorf("pushing %s: %w", tag, err)
	}
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
	opt.Log("writing sbom.cdx.json")
	if err := sbom(ctx, src, filepath.Join(opt.Out, "sbom.cdx.json"), opt.GoCache); err != nil {
		return nil, err
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

// git runs git in repo and returns its stdout, trimmed.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// cloneHEAD clones repo into dir at commit: the committed files only, with
// the history the bill of materials names the main module's version from.
func cloneHEAD(ctx context.Context, repo, dir, commit string) error {
	if _, err := git(ctx, ".", "clone", "--quiet", "--no-checkout", repo, dir); err != nil {
		return err
	}
	_, err := git(ctx, dir, "checkout", "--quiet", "--detach", commit)
	return err
}

// buildEnv is the environment of the release's go commands: this
// process's, with the build's own settings last (they win).
func buildEnv(extra ...string) []string {
	env := os.Environ()
	env = append(env, "CGO_ENABLED=0", "GOOS=linux", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly", "GOWORK=off")
	return append(env, extra...)
}

// buildBinary builds behaves for linux/arch from src into out.
func buildBinary(ctx context.Context, src, out, arch string, rel *Release, gocache string) error {
	ldflags := fmt.Sprintf("-s -w -buildid= -X %s.Version=%s -X %s.Commit=%s", cliPackage, rel.Version, cliPackage, rel.Commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, ".")
	cmd.Dir = src
	extra := []string{"GOARCH=" + arch}
	if gocache != "" {
		extra = append(extra, "GOCACHE="+gocache)
	}
	cmd.Env = buildEnv(extra...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build (linux/%s): %v\n%s", arch, err, b)
	}
	return nil
}

// sbom writes the CycloneDX bill of materials of the modules linked into
// behaves (cyclonedx-gomod app, the version go.mod's tool line pins).
func sbom(ctx context.Context, src, out, gocache string) error {
	cmd := exec.CommandContext(ctx, "go", "tool", "cyclonedx-gomod", "app", "-json", "-licenses=false", "-output", out, "-main", ".", ".")
	cmd.Dir = src
	var extra []string
	if gocache != "" {
		extra = append(extra, "GOCACHE="+gocache)
	}
	cmd.Env = buildEnv(extra...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("cyclonedx-gomod: %v\n%s", err, b)
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
