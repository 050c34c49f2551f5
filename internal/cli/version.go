package cli

import (
	_ "embed"
	"runtime/debug"
	"strings"
)

// Version overrides behaves' version when set at build time
// (-ldflags "-X github.com/behaves-dev/behaves/internal/cli.Version=v1.2.3"),
// as a release build does. Empty: see version.
var Version = ""

// Commit is the commit a release was built from, set at build time with
// Version (-X github.com/behaves-dev/behaves/internal/cli.Commit=<sha>).
// Empty: the VCS revision the toolchain stamped, else unknown (see commit).
var Commit = ""

// releaseVersion is the committed version file: what a build from a source
// tarball (the runner's `image: Dockerfile` build, which has no VCS
// information) still knows.
//
//go:embed VERSION
var releaseVersion string

// version is the version behaves reports (`behaves version`, the report's
// tool.version): Version when set, else the committed version with the VCS
// revision the Go toolchain stamped into the binary ("0.1.0+3f2a9c1e0b7d",
// "+….dirty" for uncommitted changes), when there is one.
func version() string {
	if Version != "" {
		return Version
	}
	info, _ := debug.ReadBuildInfo()
	return versionFrom(releaseVersion, info)
}

func versionFrom(release string, info *debug.BuildInfo) string {
	v := strings.TrimSpace(release)
	if v == "" {
		v = "unknown"
	}
	rev, dirty := vcsRevision(info)
	if rev == "" {
		return v
	}
	v += "+" + rev[:min(len(rev), 12)]
	if dirty {
		v += ".dirty"
	}
	return v
}

// commit is the commit behaves was built from: Commit when set, else the
// VCS revision the Go toolchain stamped (with ".dirty" for uncommitted
// changes), else "unknown" (a build without VCS data, such as the runner's
// `image: Dockerfile` build).
func commit() string {
	if Commit != "" {
		return Commit
	}
	info, _ := debug.ReadBuildInfo()
	return commitFrom(info)
}

func commitFrom(info *debug.BuildInfo) string {
	rev, dirty := vcsRevision(info)
	switch {
	case rev == "":
		return "unknown"
	case dirty:
		return rev + ".dirty"
	}
	return rev
}

// vcsRevision is the VCS revision the Go toolchain stamped into the binary
// and whether the work tree had uncommitted changes ("" without VCS data).
func vcsRevision(info *debug.BuildInfo) (rev string, dirty bool) {
	if info == nil {
		return "", false
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, dirty
}
