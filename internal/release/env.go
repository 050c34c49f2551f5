package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// The build settings a release fixes, whatever the caller's environment,
// `go env -w` or the machine say: they change the bytes of a build.
var pinnedGo = []string{
	"GOENV=off",         // no `go env -w` settings (go env's file)
	"GOTOOLCHAIN=local", // the go on PATH, never a downloaded one (CheckGo says which)
	"GOFLAGS=-mod=readonly",
	"GOWORK=off",
	"CGO_ENABLED=0",
	"GOAMD64=v1", // the defaults: a v3 build runs only on newer processors
	"GOARM64=v8.0",
	"GOEXPERIMENT=", // the toolchain's default experiments
	"GOFIPS140=off",
}

// goLocations are the caller's go settings a release keeps (as `go env`
// resolves them, so `go env -w` counts): where the caches are and where
// modules come from. None of them can change a byte of a build: the
// caches are keyed by content, and with -mod=readonly every module must
// match go.sum, wherever it was fetched from (a proxy, a mirror, off).
var goLocations = []string{"GOCACHE", "GOMODCACHE", "GOPROXY", "GONOPROXY", "GOPRIVATE", "GOSUMDB", "GONOSUMDB", "GOINSECURE", "GOAUTH"}

// baseEnv is what of the caller's environment the release's go and git
// commands see: where to find programs, the home folder (the default
// caches, .netrc) and the temporary folder. Nothing else: no GIT_*, GO*
// or CGO_* variable of the caller's reaches them.
func baseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// gitEnv is the environment of the release's git commands: baseEnv with
// the user's and the system's git configuration ignored (core.autocrlf,
// filters, url rewrites, … cannot change what is checked out) and no
// optional locks (a status does not write the caller's index).
func gitEnv() []string {
	return append(baseEnv(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
}

// git runs git in repo, blind to the caller's git configuration and GIT_*
// variables (gitEnv), and returns its stdout, trimmed.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	cmd.Env = gitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// goEnv is the environment of the release's go commands: baseEnv, the
// caller's goLocations (GOCACHE replaced by gocache when set), and the
// pinned settings. dir is a folder outside any module, where the caller's
// settings are read.
func goEnv(ctx context.Context, dir, gocache string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"env"}, goLocations...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	values := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(values) != len(goLocations) {
		return nil, fmt.Errorf("go env %s printed %d lines, want %d", strings.Join(goLocations, " "), len(values), len(goLocations))
	}
	env := baseEnv()
	for i, k := range goLocations {
		v := values[i]
		if k == "GOCACHE" && gocache != "" {
			v = gocache
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return append(env, pinnedGo...), nil
}

// goVersion is the version of the go command env runs (`go env
// GOVERSION`, e.g. go1.26.8), run in dir.
func goVersion(ctx context.Context, dir string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = dir
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

var (
	goLine        = regexp.MustCompile(`(?m)^go[ \t]+(\S+)[ \t]*(?://.*)?$`)
	toolchainLine = regexp.MustCompile(`(?m)^toolchain[ \t]+(\S+)[ \t]*(?://.*)?$`)
	goRelease     = regexp.MustCompile(`^go1\.\d+\.\d+$`)
)

// WantGo is the Go release go.mod names: its toolchain line, else its go
// line (e.g. go1.26.8). A go line that names a language version only
// (1.26) without a toolchain line names no release, and is an error.
func WantGo(goMod []byte) (string, error) {
	if m := toolchainLine.FindSubmatch(goMod); m != nil && string(m[1]) != "default" {
		return string(m[1]), nil
	}
	m := goLine.FindSubmatch(goMod)
	if m == nil {
		return "", fmt.Errorf("go.mod has no go line")
	}
	want := "go" + string(m[1])
	if !goRelease.MatchString(want) {
		return "", fmt.Errorf("go.mod's go line %q names no Go release (go 1.N.P): add a `toolchain go1.N.P` line", m[1])
	}
	return want, nil
}

// CheckGo refuses a Go other than the release go.mod names, older or
// newer: another Go compiles the same source into other bytes. what says
// which Go has the version ("the go command on PATH"). version is as
// `go env GOVERSION` or runtime.Version says it, so a Go built with
// experiments ("go1.26.8 X:nogreenteagc") is refused too.
func CheckGo(goMod []byte, version, what string) error {
	want, err := WantGo(goMod)
	if err != nil {
		return err
	}
	if version != want {
		return fmt.Errorf("%s is %s, and go.mod asks for %s: a release is built with exactly go.mod's Go, "+
			"since another one (older or newer) builds other bytes: put %s's go first on PATH "+
			"(in a workflow, actions/setup-go with go-version-file: go.mod) and run the release again",
			what, version, want, want)
	}
	return nil
}
