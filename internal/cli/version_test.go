package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	t.Parallel()
	rev := "3f2a9c1e0b7d5a4c3b2a19080706050403020100"
	stamped := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, tc := range []struct {
		name, release string
		info          *debug.BuildInfo
		want          string
	}{
		{"release file only (a tarball build)", "0.1.0\n", &debug.BuildInfo{}, "0.1.0"},
		{"no build info", "0.1.0", nil, "0.1.0"},
		{"clean checkout", "0.1.0\n", stamped("false"), "0.1.0+3f2a9c1e0b7d"},
		{"uncommitted changes", "0.1.0", stamped("true"), "0.1.0+3f2a9c1e0b7d.dirty"},
		{"empty file", " \n", nil, "unknown"},
	} {
		if got := versionFrom(tc.release, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The version command and the report name the committed version, never the
// placeholder "dev".
func TestVersionIsReal(t *testing.T) {
	t.Parallel()
	r := runMain(t, t.Context(), nil, "version")
	want := "behaves " + strings.TrimSpace(releaseVersion)
	if r.code != ExitTrue || !strings.HasPrefix(r.stdout, want) || strings.Contains(r.stdout, "dev") {
		t.Errorf("version: exit %d, %q; want it to start with %q", r.code, r.stdout, want)
	}
}

// A release stamps its commit; a build without VCS data says it does not
// know it; a build from a work tree names the revision, dirty or not.
func TestCommit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "unknown"},
		{&debug.BuildInfo{}, "unknown"},
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "3f2a9c1e0b7d4c5e"}}}, "3f2a9c1e0b7d4c5e"},
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "3f2a"}, {Key: "vcs.modified", Value: "true"}}}, "3f2a.dirty"},
	} {
		if got := commitFrom(tc.info); got != tc.want {
			t.Errorf("commitFrom(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
	r := runMain(t, t.Context(), nil, "version")
	if !strings.Contains(r.stdout, "(commit ") {
		t.Errorf("version: %q does not name the commit", r.stdout)
	}
}
