package docker

// Integration tests against the real Docker daemon. They skip when the daemon
// is unreachable or an image variable is unset, unless BEHAVES_REQUIRE_DOCKER=1
// (CI), in which case they fail. Images come from BEHAVES_IMAGE_BUSYBOX,
// BEHAVES_IMAGE_PYTHON and BEHAVES_IMAGE_ENTRYPOINT (full sha256: IDs, as
// written by scripts/images.sh). Each test uses its own run ID and checks, by
// label, that none of its containers or volumes is left.
//
// Never aim a connection at anything outside 127.0.0.0/8 here: the network
// checks only inspect the container's interfaces, routes and resolver.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/runner"
)

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newTestSandbox returns a sandbox with a run ID of its own, and registers
// the check that nothing labelled with it is left (it runs after the
// cleanups registered later, such as Attempt.Close).
func newTestSandbox(tb testing.TB) *Sandbox {
	tb.Helper()
	cli := dockertest.Client(tb)
	runID := "test-" + randomHex(8)
	sb, err := New(context.Background(), Options{RunID: runID})
	tb.Cleanup(func() {
		if sb != nil {
			sb.Close()
		}
		dockertest.AssertNothingLeft(tb, cli, runID)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return sb
}

func shProfile(img string) runner.Profile {
	return runner.Profile{
		Name:          "sh",
		Image:         img,
		Command:       []string{"/bin/sh"},
		ProgramName:   "main.sh",
		Timeout:       20 * time.Second,
		Memory:        64 << 20,
		CPUs:          1,
		Pids:          64,
		OutputLimit:   64 << 10,
		OutputCeiling: 4 << 20,
		User:          "65534:65534",
		Tmpfs:         map[string]int64{"/tmp": 16 << 20},
		Env:           map[string]string{"LANG": "C.UTF-8", "BEHAVES_PROFILE_ENV": "from-profile"},
	}
}

func shProgram(script string) runner.Program {
	return runner.Program{Files: runner.FilesOf(map[string][]byte{"prog.sh": []byte(script)}), Entry: "prog.sh"}
}

// prepare prepares prog and registers the attempt's Close before checking
// the error.
func prepare(tb testing.TB, sb *Sandbox, prog runner.Program, prof runner.Profile) runner.Attempt {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	att, err := prepareOne(ctx, sb, prog, prof)
	tb.Cleanup(func() {
		if att != nil {
			if err := att.Close(context.Background()); err != nil {
				tb.Errorf("closing the attempt: %v", err)
			}
		}
	})
	if err != nil {
		tb.Fatalf("Prepare: %v", err)
	}
	return att
}

// run runs inv and fails the test on a cleanup error.
func run(tb testing.TB, att runner.Attempt, inv runner.Invocation) runner.Event {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ev, err := att.Run(ctx, inv)
	if err != nil {
		tb.Fatalf("Run: cleanup error: %v", err)
	}
	return ev
}

// runOK runs inv and requires complete evidence.
func runOK(tb testing.TB, att runner.Attempt, inv runner.Invocation) runner.Event {
	tb.Helper()
	ev := run(tb, att, inv)
	if ev.SandboxError != "" {
		tb.Fatalf("sandbox error: %s (stderr %q)", ev.SandboxError, ev.Stderr.Data)
	}
	return ev
}

func exitCode(ev runner.Event) string {
	if ev.ExitCode == nil {
		return "nil"
	}
	return fmt.Sprint(*ev.ExitCode)
}

func TestIntegrationArgsAndStdin(t *testing.T) {
	t.Parallel()
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	sb := newTestSandbox(t)
	script := "printf 'argc=%s\\n' \"$#\"; for a in \"$@\"; do printf '[%s]\\n' \"$a\"; done; cat\n"
	prof := shProfile(img)
	att := prepare(t, sb, shProgram(script), prof)

	// Two invocations share the attempt's volume, each in its own container.
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"a b", "c"}, "hello\nworld\n", "argc=2\n[a b]\n[c]\nhello\nworld\n"},
		{nil, "", "argc=0\n"},
	} {
		ev := runOK(t, att, runner.Invocation{Args: tc.args, Stdin: []byte(tc.stdin)})
		if exitCode(ev) != "0" || string(ev.Stdout.Data) != tc.want || len(ev.Stderr.Data) != 0 {
			t.Errorf("args %q: exit %s, stdout %q, stderr %q; want stdout %q", tc.args, exitCode(ev), ev.Stdout.Data, ev.Stderr.Data, tc.want)
		}
		if ev.StdinBytes != int64(len(tc.stdin)) || ev.StdinSHA256 != sha256Hex([]byte(tc.stdin)) {
			t.Errorf("stdin bytes %d sha %s", ev.StdinBytes, ev.StdinSHA256)
		}
		wantCmd := append([]string{"/bin/sh", "/program/main.sh"}, tc.args...)
		if !slices.Equal(ev.Command, wantCmd) {
			t.Errorf("command = %q, want %q", ev.Command, wantCmd)
		}
		if ev.ImageDigest != img || ev.ProgramSHA256 != sha256Hex([]byte(script)) || ev.TimedOut || ev.ResourceLimit != "" {
			t.Errorf("event = %+v", ev)
		}
		if ev.Duration <= 0 || ev.Limits.TimeoutMS != 20000 || ev.Limits.Pids != 64 || ev.Limits.NoFile != 256 || ev.Limits.FileSize != 64<<20 {
			t.Errorf("duration %s, limits %+v", ev.Duration, ev.Limits)
		}
	}
	st := att.Settings()
	if st.ImageID != img || st.NetworkMode != "none" || st.LogDriver != "none" || !st.ReadonlyRootfs || st.User != "65534:65534" {
		t.Errorf("settings = %+v", st)
	}
}

func TestIntegrationExitCode(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	att := prepare(t, sb, shProgram("echo bye >&2; exit 3\n"), shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")))
	ev := runOK(t, att, runner.Invocation{})
	if exitCode(ev) != "3" || string(ev.Stderr.Data) != "bye\n" || ev.TimedOut {
		t.Errorf("exit %s, stderr %q, timed out %v", exitCode(ev), ev.Stderr.Data, ev.TimedOut)
	}
}

func TestIntegrationTimeout(t *testing.T) {
	t.Parallel()
	cli := dockertest.Client(t)
	sb := newTestSandbox(t)
	prof := shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX"))
	prof.Timeout = time.Second
	att := prepare(t, sb, shProgram("echo started; while :; do :; done\n"), prof)
	ev := runOK(t, att, runner.Invocation{})
	// The rule: TimedOut because the kill hit a running container; the
	// container exited (SIGKILL), so its exit code is reported: 137.
	if !ev.TimedOut || exitCode(ev) != "137" || ev.ResourceLimit != "" || string(ev.Stdout.Data) != "started\n" {
		t.Errorf("timed out %v, exit %s, limit %q, stdout %q", ev.TimedOut, exitCode(ev), ev.ResourceLimit, ev.Stdout.Data)
	}
	if ev.Duration < time.Second {
		t.Errorf("duration %s is shorter than the timeout", ev.Duration)
	}
	if cs, _ := dockertest.Leftovers(t, cli, sb.opt.RunID); len(cs) > 0 {
		t.Errorf("containers left after Run: %v", cs)
	}
}

func TestIntegrationLargeOutputBeforeReadingStdin(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	prof := shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX"))
	// 1 MiB to stdout before reading any stdin, then count the stdin.
	att := prepare(t, sb, shProgram("head -c 1048576 /dev/zero\nwc -c >&2\n"), prof)
	ev := runOK(t, att, runner.Invocation{Stdin: bytes.Repeat([]byte("x"), 1<<20)})
	if exitCode(ev) != "0" || ev.Stdout.Bytes != 1<<20 || strings.TrimSpace(string(ev.Stderr.Data)) != "1048576" {
		t.Errorf("exit %s, stdout bytes %d, stderr %q", exitCode(ev), ev.Stdout.Bytes, ev.Stderr.Data)
	}
	if ev.StdinBytes != 1<<20 {
		t.Errorf("stdin bytes = %d, want %d", ev.StdinBytes, 1<<20)
	}
	if !ev.Stdout.Truncated || int64(len(ev.Stdout.Data)) != prof.OutputLimit {
		t.Errorf("stdout truncated %v, kept %d", ev.Stdout.Truncated, len(ev.Stdout.Data))
	}
}

func TestIntegrationStdinNotRead(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	att := prepare(t, sb, shProgram("echo done\n"), shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")))
	ev := runOK(t, att, runner.Invocation{Stdin: bytes.Repeat([]byte("x"), 8<<20)})
	if exitCode(ev) != "0" || string(ev.Stdout.Data) != "done\n" {
		t.Errorf("exit %s, stdout %q", exitCode(ev), ev.Stdout.Data)
	}
	if ev.StdinBytes >= 8<<20 {
		t.Errorf("stdin bytes = %d: all of it was counted as delivered to a program that read none", ev.StdinBytes)
	}
}

func TestIntegrationOutputLimitAndCeiling(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	prof := shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX"))
	prof.OutputLimit = 1000
	prof.OutputCeiling = 1 << 20
	att := prepare(t, sb, shProgram("if [ \"$1\" = flood ]; then yes; else head -c 100000 /dev/zero | tr '\\0' a; fi\n"), prof)

	ev := runOK(t, att, runner.Invocation{})
	if exitCode(ev) != "0" || !ev.Stdout.Truncated || ev.Stdout.Bytes != 100000 || string(ev.Stdout.Data) != strings.Repeat("a", 1000) || ev.ResourceLimit != "" {
		t.Errorf("over the limit: exit %s, truncated %v, bytes %d, kept %d, limit %q",
			exitCode(ev), ev.Stdout.Truncated, ev.Stdout.Bytes, len(ev.Stdout.Data), ev.ResourceLimit)
	}

	ev = runOK(t, att, runner.Invocation{Args: []string{"flood"}})
	if ev.ResourceLimit != runner.LimitOutput || ev.TimedOut || ev.Stdout.Bytes <= prof.OutputCeiling || len(ev.Stdout.Data) != 1000 {
		t.Errorf("over the ceiling: limit %q, timed out %v, bytes %d, kept %d, exit %s",
			ev.ResourceLimit, ev.TimedOut, ev.Stdout.Bytes, len(ev.Stdout.Data), exitCode(ev))
	}
}

func TestIntegrationMemoryLimit(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	prof := runner.Profile{
		Name: "python", Image: dockertest.Image(t, "BEHAVES_IMAGE_PYTHON"), Command: []string{"python3", "-I"}, ProgramName: "main.py",
		Timeout: 30 * time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20,
		User: "65534:65534",
	}
	att := prepare(t, sb, runner.Program{Files: runner.FilesOf(map[string][]byte{"bomb.py": []byte("b = bytearray(512*1024*1024)\nprint('survived')\n")}), Entry: "bomb.py"}, prof)
	ev := runOK(t, att, runner.Invocation{})
	if ev.ResourceLimit != runner.LimitMemory || ev.TimedOut || strings.Contains(string(ev.Stdout.Data), "survived") {
		t.Errorf("limit %q, timed out %v, exit %s, stdout %q, stderr %q", ev.ResourceLimit, ev.TimedOut, exitCode(ev), ev.Stdout.Data, ev.Stderr.Data)
	}
}

func TestIntegrationReadOnlyRoot(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	att := prepare(t, sb, shProgram("touch /program/evil 2>&1\ntouch /evil\n"), shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")))
	ev := runOK(t, att, runner.Invocation{})
	if exitCode(ev) == "0" || !strings.Contains(string(ev.Stderr.Data), "Read-only file system") {
		t.Errorf("write to /: exit %s, stderr %q", exitCode(ev), ev.Stderr.Data)
	}
	if !strings.Contains(string(ev.Stdout.Data), "/program/evil: Read-only file system") {
		t.Errorf("write to /program: %q", ev.Stdout.Data)
	}
}

// TestIntegrationIsolation inspects, from inside one container, under both
// network_files modes: the network (a namespace of its own, only lo, up, no
// route), the resolver (none at all, or 127.0.0.1 only), the user, the
// hostname, the scratch tmpfs and the ulimits.
func TestIntegrationIsolation(t *testing.T) {
	t.Parallel()
	for _, mode := range []runner.NetworkFiles{runner.NetworkFilesNone, runner.NetworkFilesManaged} {
		t.Run("network_files="+string(mode), func(t *testing.T) {
			t.Parallel()
			integrationIsolation(t, mode)
		})
	}
}

func integrationIsolation(t *testing.T, mode runner.NetworkFiles) {
	sb := newTestSandbox(t)
	script := `id; echo @@
hostname; echo @@
cat /proc/net/dev; echo @@
cat /proc/net/route; echo @@
cat /etc/resolv.conf; echo @@
grep -E ' /tmp | /program ' /proc/mounts; echo @@
grep -E '^Max (open files|file size|core file size|processes)' /proc/self/limits; echo @@
ls -lan /program; ls -ldn /program/lib; cat lib/data.txt; echo @@
pwd; echo @@
readlink /proc/self/ns/net; echo @@
ip -o link show; echo @@
cat /etc/hosts
`
	prog := shProgram(script)
	prog.Files["lib/data.txt"] = runner.BytesFile([]byte("payload\n"))
	prof := shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX"))
	prof.NetworkFiles = mode
	att := prepare(t, sb, prog, prof)
	ev := runOK(t, att, runner.Invocation{})
	parts := strings.Split(string(ev.Stdout.Data), "@@\n")
	if exitCode(ev) != "0" || len(parts) != 12 {
		t.Fatalf("exit %s, stdout %q, stderr %q", exitCode(ev), ev.Stdout.Data, ev.Stderr.Data)
	}
	id, host, netdev, route, resolv, mounts, limits, listing, pwd := parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7], parts[8]
	netns, links, hosts := strings.TrimSpace(parts[9]), parts[10], parts[11]

	// A network namespace of the container's own, whose only link, lo, is
	// up, with or without the engine's network sandbox.
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil || !strings.HasPrefix(netns, "net:[") || netns == own {
		t.Errorf("the container's network namespace is %q, this process's %q (%v): want its own", netns, own, err)
	}
	if lines := strings.Split(strings.TrimSpace(links), "\n"); len(lines) != 1 || !regexpMatch(`^1: lo: <[A-Z_,]*\bUP\b`, lines[0]) {
		t.Errorf("links: want only lo, up:\n%s", links)
	}

	if !strings.HasPrefix(id, "uid=65534") || !strings.Contains(id, "gid=65534") {
		t.Errorf("id = %q", id)
	}
	if host != "behaves\n" {
		t.Errorf("hostname = %q", host)
	}
	var ifaces []string
	for _, line := range strings.Split(netdev, "\n")[2:] {
		if name, _, ok := strings.Cut(line, ":"); ok {
			ifaces = append(ifaces, strings.TrimSpace(name))
		}
	}
	if !slices.Equal(ifaces, []string{"lo"}) {
		t.Errorf("interfaces = %q, want only lo\n%s", ifaces, netdev)
	}
	if lines := strings.Split(strings.TrimSpace(route), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "Iface") {
		t.Errorf("routes present:\n%s", route)
	}
	var servers []string
	for _, line := range strings.Split(resolv, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "nameserver" {
			servers = append(servers, f[1])
		}
	}
	st := att.Settings()
	switch mode {
	case runner.NetworkFilesNone:
		// The engine's sandbox skipped: its init layer's empty files.
		if strings.TrimSpace(resolv) != "" || strings.TrimSpace(hosts) != "" {
			t.Errorf("resolv.conf %q, hosts %q: want both empty", resolv, hosts)
		}
		if !st.NetworkDisabled || len(st.DNS) != 0 {
			t.Errorf("settings: network_disabled %v, dns %q; want true, none", st.NetworkDisabled, st.DNS)
		}
	case runner.NetworkFilesManaged:
		if !slices.Equal(servers, []string{"127.0.0.1"}) {
			t.Errorf("resolv.conf names %q, want only 127.0.0.1:\n%s", servers, resolv)
		}
		if !regexpMatch(`(?m)^127\.0\.0\.1\s+localhost$`, hosts) {
			t.Errorf("/etc/hosts does not map localhost to 127.0.0.1:\n%s", hosts)
		}
		if st.NetworkDisabled || !slices.Equal(st.DNS, []string{"127.0.0.1"}) {
			t.Errorf("settings: network_disabled %v, dns %q; want false, 127.0.0.1", st.NetworkDisabled, st.DNS)
		}
	}
	if !strings.Contains(mounts, "tmpfs /tmp tmpfs rw,nosuid,nodev,noexec") || !strings.Contains(mounts, " /program ") || !strings.Contains(mounts, " /program ") {
		t.Errorf("mounts:\n%s", mounts)
	}
	for _, line := range strings.Split(mounts, "\n") {
		if f := strings.Fields(line); len(f) >= 4 && f[1] == "/program" && !strings.HasPrefix(f[3], "ro,") {
			t.Errorf("/program is not read-only: %s", line)
		}
	}
	for _, want := range []string{`Max file size\s+67108864\s+67108864`, `Max core file size\s+0\s+0`, `Max open files\s+256\s+256`} {
		if !regexpMatch(want, limits) {
			t.Errorf("limits do not match %q:\n%s", want, limits)
		}
	}
	t.Logf("ls -lan /program:\n%s", listing)
	if !regexpMatch(`(?m)^-r--r--r--\s+1 0\s+0\s.* main\.sh$`, listing) {
		t.Errorf("the program file is not root-owned 0444:\n%s", listing)
	}
	// Other files of the program: a root-owned 0555 directory, read through
	// a path relative to the working directory.
	if !regexpMatch(`(?m)^dr-xr-xr-x\s+2 0\s+0\s.* /program/lib$`, listing) || !strings.HasSuffix(listing, "payload\n") {
		t.Errorf("the program's other files:\n%s", listing)
	}
	if pwd != "/program\n" {
		t.Errorf("working directory = %q", pwd)
	}
}

// TestIntegrationEnvironment may not run in parallel: it sets the test
// process's environment.
func TestIntegrationEnvironment(t *testing.T) {
	canary := "canary-" + randomHex(8)
	t.Setenv("GITHUB_TOKEN", canary)
	t.Setenv("BEHAVES_SECRET_CANARY", canary)
	sb := newTestSandbox(t)
	att := prepare(t, sb, shProgram("env\n"), shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")))
	ev := runOK(t, att, runner.Invocation{})
	out := string(ev.Stdout.Data)
	if strings.Contains(out, canary) || strings.Contains(out, "GITHUB_TOKEN") {
		t.Errorf("behaves' environment reached the program:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	for _, want := range []string{"BEHAVES_PROFILE_ENV=from-profile", "LANG=C.UTF-8", "HOSTNAME=behaves"} {
		if !slices.Contains(lines, want) {
			t.Errorf("env lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "PATH=/usr/local/sbin") {
		t.Errorf("env lacks the image's PATH:\n%s", out)
	}
}

func TestIntegrationImageEntrypointEnvAndVolume(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	script := "echo ran-by-profile\necho \"image-env=$BEHAVES_IMAGE_ENV\"\ngrep ' /data ' /proc/mounts\n"
	att := prepare(t, sb, shProgram(script), shProfile(dockertest.Image(t, "BEHAVES_IMAGE_ENTRYPOINT")))
	ev := runOK(t, att, runner.Invocation{})
	out := string(ev.Stdout.Data)
	// Under the image's ENTRYPOINT ["/bin/false"] this would exit 1 silently.
	if exitCode(ev) != "0" || !strings.Contains(out, "ran-by-profile\n") || !strings.Contains(out, "image-env=from-image\n") {
		t.Errorf("exit %s, stdout %q, stderr %q", exitCode(ev), out, ev.Stderr.Data)
	}
	if !strings.Contains(out, "tmpfs /data tmpfs rw,nosuid,nodev,noexec") {
		t.Errorf("VOLUME /data is not a sized tmpfs:\n%s", out)
	}
	st := att.Settings()
	if !slices.Contains(st.ImageEnv, "BEHAVES_IMAGE_ENV=from-image") || st.Tmpfs["/data"] == "" {
		t.Errorf("settings: image env %q, tmpfs %v", st.ImageEnv, st.Tmpfs)
	}
}

func TestIntegrationMissingImage(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	for _, ref := range []string{
		"sha256:" + randomHex(32),
		"behaves-test/busybox@sha256:" + randomHex(32),
	} {
		att, err := prepareOne(context.Background(), sb, shProgram("true\n"), func() runner.Profile { p := shProfile(busybox); p.Image = ref; return p }())
		if att != nil {
			att.Close(context.Background())
		}
		want := "image not present: pull it before scoring (" + ref + "): docker pull it by digest, or run with --pull-images --allow-registry docker.io"
		if strings.HasPrefix(ref, "sha256:") {
			want = "image not present: " + ref + " is a local image ID, which cannot be pulled: build or load the image on this engine, or give the profile another with --image PROFILE=REF"
		}
		if err == nil || err.Error() != want {
			t.Errorf("Prepare(%s): err = %v", ref, err)
		}
	}
}

func TestIntegrationEngineFaults(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")

	// An unknown runtime: Prepare fails, naming it, before anything is
	// made (the engine's registered runtimes are asked first).
	prof := shProfile(img)
	prof.Runtime = "behaves-no-such-runtime"
	att := prepare(t, sb, shProgram("true\n"), shProfile(img))
	if a, err := prepareOne(context.Background(), sb, shProgram("true\n"), prof); err == nil || !strings.Contains(err.Error(), `no runtime "behaves-no-such-runtime"`) {
		if a != nil {
			a.Close(context.Background())
		}
		t.Errorf("Prepare under an unknown runtime: %v", err)
	}

	// Create fails: a CPU quota above the engine's CPUs, which the engine
	// refuses at create (the CLI checks it before; the sandbox does not).
	prof = shProfile(img)
	prof.CPUs = 1024
	bad := prepare(t, sb, shProgram("true\n"), prof)
	ev := run(t, bad, runner.Invocation{})
	if !strings.HasPrefix(ev.SandboxError, "creating container: ") || !strings.Contains(ev.SandboxError, "CPU") || ev.ExitCode != nil {
		t.Errorf("create failure: %+v", ev)
	}
	t.Logf("create failure: %s", ev.SandboxError)

	// Start fails: a tmpfs cannot be mounted over a file.
	prof = shProfile(img)
	prof.Tmpfs = map[string]int64{"/etc/passwd": 1 << 20}
	bad = prepare(t, sb, shProgram("true\n"), prof)
	ev = run(t, bad, runner.Invocation{})
	if !strings.HasPrefix(ev.SandboxError, "starting container: ") || ev.ExitCode != nil || ev.TimedOut {
		t.Errorf("start failure: %+v", ev)
	}

	// A command that does not exist is not a sandbox fault: the init
	// process reports it and exits 127, which is the program's evidence.
	prof = shProfile(img)
	prof.Command = []string{"/nonexistent"}
	bad = prepare(t, sb, shProgram("true\n"), prof)
	ev = runOK(t, bad, runner.Invocation{})
	if exitCode(ev) != "127" || !strings.Contains(string(ev.Stderr.Data), "/nonexistent") {
		t.Errorf("missing command: exit %s, stderr %q", exitCode(ev), ev.Stderr.Data)
	}

	// The same sandbox still runs a good program.
	if ev := runOK(t, att, runner.Invocation{}); exitCode(ev) != "0" {
		t.Errorf("after faults: exit %s", exitCode(ev))
	}
}

func TestIntegrationInterrupted(t *testing.T) {
	t.Parallel()
	cli := dockertest.Client(t)
	sb := newTestSandbox(t)
	att := prepare(t, sb, shProgram("while :; do :; done\n"), shProfile(dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	begin := time.Now()
	ev, err := att.Run(ctx, runner.Invocation{})
	if err != nil {
		t.Fatalf("cleanup after interruption: %v", err)
	}
	if ev.SandboxError != "interrupted" || ev.TimedOut || ev.ExitCode != nil {
		t.Errorf("event = %+v", ev)
	}
	if d := time.Since(begin); d > 15*time.Second {
		t.Errorf("interruption took %s", d)
	}
	if cs, _ := dockertest.Leftovers(t, cli, sb.opt.RunID); len(cs) > 0 {
		t.Errorf("containers left after an interrupted Run: %v", cs)
	}
}

// BenchmarkIntegrationTrivialRun measures one invocation's wall time (create
// → remove) for a program that does nothing.
func BenchmarkIntegrationTrivialRun(b *testing.B) {
	sb := newTestSandbox(b)
	att := prepare(b, sb, shProgram("true\n"), shProfile(dockertest.Image(b, "BEHAVES_IMAGE_BUSYBOX")))
	for b.Loop() {
		if ev := runOK(b, att, runner.Invocation{}); exitCode(ev) != "0" {
			b.Fatalf("exit %s", exitCode(ev))
		}
	}
}

func regexpMatch(pattern, s string) bool {
	return regexp.MustCompile(pattern).MatchString(s)
}

// TestIntegrationRegistryDigest runs a program from an image pinned by its
// registry digest (name@sha256:…), as pushed to a local registry by
// scripts/registry.sh. It needs BEHAVES_IMAGE_REGISTRY_DIGEST to name such an
// image: without it the test skips, or fails when BEHAVES_REQUIRE_DOCKER=1
// (CI, whose .ci/run runs scripts/registry.sh). The registry is not needed at
// run time: the image is never pulled.
func TestIntegrationRegistryDigest(t *testing.T) {
	t.Parallel()
	ref := dockertest.RegistryDigest(t)
	sb := newTestSandbox(t)
	prof := shProfile(ref)
	att := prepare(t, sb, shProgram("echo pinned\n"), prof)
	ev := runOK(t, att, runner.Invocation{})
	if exitCode(ev) != "0" || string(ev.Stdout.Data) != "pinned\n" {
		t.Errorf("exit %s, stdout %q", exitCode(ev), ev.Stdout.Data)
	}
	// The repo digest is recorded without a tag the reference may carry.
	name, digest, _ := strings.Cut(ref, "@")
	if slash, colon := strings.LastIndex(name, "/"), strings.LastIndex(name, ":"); colon > slash {
		name = name[:colon]
	}
	if ev.RepoDigest != name+"@"+digest || !strings.HasPrefix(ev.ImageDigest, "sha256:") || ev.ImageDigest == digest {
		t.Errorf("repo digest %q, image digest %q", ev.RepoDigest, ev.ImageDigest)
	}

	// The same name with another digest is not present (never pulled).
	other := name + "@sha256:" + randomHex(32)
	prof.Image = other
	if _, err := prepareOne(context.Background(), sb, shProgram("true\n"), prof); err == nil || !strings.Contains(err.Error(), "image not present") {
		t.Errorf("Prepare(%s): %v", other, err)
	}
}
