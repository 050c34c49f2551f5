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
