package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/distribution/reference"
)

// NormalizeRegistry returns host, a registry as --allow-registry names it
// (host or host:port), in the form the registry of an image reference takes
// under Docker's normalisation (github.com/distribution/reference):
// lowercase, and index.docker.io as docker.io, so that "docker.io" allows
// "python@sha256:…". It fails on anything that is not a bare host[:port]
// (a scheme, a path, a name with no dot, port or "localhost" would be read
// as a repository, not a registry).
func NormalizeRegistry(host string) (string, error) {
	if host == "" || strings.ContainsAny(host, "/@ ") {
		return "", fmt.Errorf("registry %q is not a host or host:port (like docker.io, ghcr.io or 127.0.0.1:5000)", host)
	}
	named, err := reference.ParseNormalizedNamed(host + "/x")
	if err != nil {
		return "", fmt.Errorf("registry %q is not a host or host:port (like docker.io, ghcr.io or 127.0.0.1:5000): %v", host, err)
	}
	got := strings.ToLower(reference.Domain(named))
	if want := strings.ToLower(host); got != want && !(want == "index.docker.io" && got == "docker.io") {
		// reference took host for a repository path (no dot, no port).
		return "", fmt.Errorf("registry %q is not a host or host:port: Docker would read it as a repository on %s; write the registry's full host name", host, got)
	}
	return got, nil
}

// registryOf is the registry an image reference fetches from, normalised
// as NormalizeRegistry's result ("" for a local image ID).
func registryOf(ref string) string {
	if strings.HasPrefix(ref, "sha256:") {
		return ""
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ""
	}
	return strings.ToLower(reference.Domain(named))
}

// checkRegistry returns why a pinned image may not be pulled, or "": when
// the run pulls (Options.Pull), a registry-digest image must come from a
// registry in Options.AllowRegistries. A local image ID is never pulled, so
// it needs no registry.
func (l *loader) checkRegistry(ref string) string {
	if !l.opt.Pull {
		return ""
	}
	reg := registryOf(ref)
	if reg == "" || slices.Contains(l.opt.AllowRegistries, reg) {
		return ""
	}
	return fmt.Sprintf("image %q is in registry %s, which pulling may not fetch from: add --allow-registry %s if the workflow trusts it (allowed: %s)",
		short(ref), short(reg), short(reg), allowedList(l.opt.AllowRegistries))
}

// allowedList is the allowed registries for a message.
func allowedList(regs []string) string {
	if len(regs) == 0 {
		return "none"
	}
	return strings.Join(regs, ", ")
}
