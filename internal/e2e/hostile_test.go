package e2e

// The hostile-program suite: whole `behaves run`s of programs that
// try to outlast, exhaust, escape or fool the sandbox, each asserting the
// verdict a person reads and the event fields that prove the protection held.
// Every row says in a comment what it guards: removing that protection makes
// the row fail. Rows are grouped into few runs (one spec, many programs and
// cases) to keep the container count low; the harness checks after each run
// that no container or volume of it is left.
//
// Never aim a connection or a DNS lookup at an address outside 127.0.0.0/8
// here, not even from a container that should have no network: the network
// rows only inspect interfaces, routes and the resolver, and connect to
// loopback inside the container.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// hostileRunTimeout bounds one `behaves run` of this suite (the machine is
// shared and loaded; the runs themselves take seconds).
const hostileRunTimeout = 4 * time.Minute

// hostileSpec fills the image placeholders of a spec template.
func hostileSpec(img images, tmpl string) string {
	return strings.NewReplacer(
		"{{busybox}}", strconv.Quote(img.busybox),
		"{{python}}", strconv.Quote(img.python),
	).Replace(tmpl)
}

// hostileRun runs spec with files through `behaves run` (see runBehaves) and
// requires the exit code want and complete evidence for every program: no
// hostile program may turn into a sandbox error.
func hostileRun(t *testing.T, img images, tmpl string, files map[string]string, want int, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileRunTimeout)
	defer cancel()
	start := time.Now()
	o := runBehaves(t, ctx, hostileSpec(img, tmpl), files, args...)
	t.Logf("behaves run: exit %d in %s", o.code, time.Since(start).Round(time.Millisecond))
	if o.code != want {
		t.Errorf("behaves exited %d, want %d\nstdout:\n%s\nstderr:\n%s", o.code, want, indent(o.stdout), indent(o.stderr))
	}
	if o.report.Error != "" || o.report.Interrupted {
		t.Errorf("the run failed: error %q, interrupted %v", o.report.Error, o.report.Interrupted)
	}
	for _, p := range o.report.Programs {
		if p.Acquisition != runner.AcquisitionComplete || len(p.SandboxWarnings) > 0 {
			t.Errorf("%s: acquisition %q %q, sandbox warnings %q", p.Name, p.Acquisition, p.AcquisitionReasons, p.SandboxWarnings)
		}
		for _, c := range p.Cases {
			if c.Event.SandboxError != "" {
				t.Errorf("%s / %s: sandbox error %q", p.Name, c.Name, c.Event.SandboxError)
			}
		}
	}
	return o
}

// hostileCase finds a case in the report.
func hostileCase(t *testing.T, o outcome, program, name string) report.Case {
	t.Helper()
	p := o.program(t, program)
	for _, c := range p.Cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %q in program %q", name, program)
	return report.Case{}
}

// hostileNoExit stands for "no exit code" in hostileWant.exit.
const hostileNoExit = -1

// hostileWant is what one case must show.
type hostileWant struct {
	verdict verdict.Verdict
	// exit is the container's exit code (hostileNoExit: none).
	exit     int
	timedOut bool
	limit    runner.ResourceLimit
	// reason is a prefix of the case's reason ("": the reason must be
	// empty).
	reason string
}

// hostileCheck asserts the verdict and the event fields of a case, and
// returns it for more checks.
func hostileCheck(t *testing.T, o outcome, program, name string, w hostileWant) report.Case {
	t.Helper()
	c := hostileCase(t, o, program, name)
	e := c.Event
	got := hostileNoExit
	if e.ExitCode != nil {
		got = *e.ExitCode
	}
	reasonOK := c.Reason == w.reason
	if w.reason != "" {
		reasonOK = strings.HasPrefix(c.Reason, w.reason)
	}
	if c.Verdict != w.verdict || got != w.exit || e.TimedOut != w.timedOut || e.ResourceLimit != w.limit || !reasonOK {
		t.Errorf("%s / %s: verdict %s, exit %d, timed_out %v, resource_limit %q, reason %q;\n"+
			"want verdict %s, exit %d, timed_out %v, resource_limit %q, reason %q…\nstdout %q\nstderr %q",
			program, name, c.Verdict, got, e.TimedOut, e.ResourceLimit, c.Reason,
			w.verdict, w.exit, w.timedOut, w.limit, w.reason, hostileShort(e.Stdout), hostileShort(e.Stderr))
	}
	return c
}

// hostileShort cuts s for a failure message.
func hostileShort(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// hostileToken returns a random hex string.
func hostileToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// hostileSections splits output written as "@@ name\n…" blocks into a map
// from name to block.
func hostileSections(out string) map[string]string {
	m := map[string]string{}
	for _, part := range strings.Split(out, "@@ ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		m[name] = body
	}
	return m
}

// sectionLines returns the non-blank lines of section name, and fails the
// test when there are none: a check that loops over a section's lines
// would otherwise pass on a section the program never printed.
func sectionLines(t *testing.T, s map[string]string, name string) []string {
	t.Helper()
	var lines []string
	for _, line := range strings.Split(s[name], "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		t.Errorf("section %q is empty or missing: the checks over its lines would prove nothing", name)
	}
	return lines
}

// TestHostileStops: programs that never end, ignore signals, leave children
// behind, kill themselves or exhaust memory. Each is judged by what it did,
// and a limit is reported only when behaves or the engine enforced it.
func TestHostileStops(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := `version: 1
profiles:
  sh:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 3s
    memory: 64MiB
    pids: 32
  sh10:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 10s
    memory: 64MiB
    pids: 32
  py:
    image: {{python}}
    command: ["python3", "-I"]
    timeout: 10s
    memory: 64MiB
programs:
  - name: cpu-loop
    file: cpu_loop.sh
    profile: sh
    cases:
      - {name: ends, expect: {stdout: {equals: "done"}}}
  - name: sleep-forever
    file: sleep_forever.sh
    profile: sh
    cases:
      - {name: ends, expect: {stdout: {equals: "done"}}}
  - name: ignores-signals
    file: ignores_signals.sh
    profile: sh
    cases:
      - {name: ends, expect: {stdout: {equals: "done"}}}
  - name: closes-output
    file: closes_output.sh
    profile: sh
    cases:
      - {name: ends, expect: {stdout: {equals: "done"}}}
  - name: daemonised-child
    file: daemon.sh
    profile: sh10
    cases:
      - {name: main exits 0, expect: {stdout: {equals: "main"}}}
      - {name: main exits 3, args: ["3"], expect: {exit_code: 3, stdout: {equals: "main"}}}
  - name: kill-self
    file: kill_self.sh
    profile: sh10
    cases:
      - {name: expects 0, expect: {stdout: {equals: "before"}}}
      - {name: expects 137, expect: {exit_code: 137, stdout: {equals: "before"}}}
  - name: exit-137
    file: exit_137.sh
    profile: sh10
    cases:
      - {name: expects 0, expect: {stdout: {equals: "before"}}}
      - {name: expects 137, expect: {exit_code: 137, stdout: {equals: "before"}}}
  - name: memory-bomb
    file: memory_bomb.py
    profile: py
    cases:
      - {name: survives, expect: {stdout: {equals: "survived"}}}
  - name: oom-child
    file: oom_child.py
    profile: py
    cases:
      - {name: parent exits 0, expect: {stdout: {contains: "child returncode"}}}
`
	files := map[string]string{
		"cpu_loop.sh":      "echo started\nwhile :; do :; done\necho done\n",
		"sleep_forever.sh": "echo started\nsleep 2147483647\necho done\n",
		// It ignores TERM, INT and HUP, and proves it by sending them to
		// itself before it waits forever.
		"ignores_signals.sh": "trap '' TERM INT HUP\nkill -TERM $$; kill -INT $$; kill -HUP $$\necho survived\nwhile :; do sleep 1; done\necho done\n",
		// Closes stdout, stderr and stdin, then runs on.
		"closes_output.sh": "echo started\nexec >&- 2>&- <&-\nwhile :; do :; done\n",
		// Children that outlive the main process: a background subshell, a
		// new session, a nohup'd one (each writes after 2s, well inside
		// the 10s timeout), and one that holds stdout open for 100s.
		"daemon.sh": `(sleep 2; echo late-subshell) &
setsid sh -c 'sleep 2; echo late-setsid' &
nohup sh -c 'sleep 2; echo late-nohup' &
sleep 100 &
echo main
exit "${1:-0}"
`,
		"kill_self.sh":   "echo before\nkill -9 $$\necho after\n",
		"exit_137.sh":    "echo before\nexit 137\n",
		"memory_bomb.py": memoryBombPy,
		// The child is OOM-killed; the parent ignores its death and exits 0.
		"oom_child.py": `import subprocess, sys
r = subprocess.run([sys.executable, "-I", "-c", "b = bytearray(512 << 20); print('child survived')"])
print("child returncode", r.returncode)
`,
	}
	// Four of these wait out their timeout: more in flight than CPUs lets the
	// waits overlap.
	o := hostileRun(t, img, spec, files, 1, "--parallel", "4")

	// Guards the timeout kill (SIGKILL from behaves after the profile's
	// timeout, counted from start) and the TimedOut flag set only when that
	// kill hit a running container; the container is gone (the harness
	// checks leftovers by run ID).
	timedOut := hostileWant{verdict: verdict.False, exit: 137, timedOut: true, reason: "timed out after 3s"}
	for _, name := range []string{"cpu-loop", "sleep-forever"} {
		c := hostileCheck(t, o, name, "ends", timedOut)
		if string(c.Event.StdoutData()) != "started\n" {
			t.Errorf("%s: stdout %q, want the output before the kill kept", name, string(c.Event.StdoutData()))
		}
	}
	// Guards that the end of the streams is not taken for the end of the
	// program: one that closes its output and runs on is still stopped
	// at the timeout, with what it wrote before.
	if c := hostileCheck(t, o, "closes-output", "ends", timedOut); string(c.Event.StdoutData()) != "started\n" {
		t.Errorf("closes-output: stdout %q", string(c.Event.StdoutData()))
	}
	// Guards that the stop does not rely on the program honouring SIGTERM
	// or SIGINT (a polite stop would leave it running: undetermined, "container
	// still running after kill", instead of timed out).
	if c := hostileCheck(t, o, "ignores-signals", "ends", timedOut); string(c.Event.StdoutData()) != "survived\n" {
		t.Errorf("ignores-signals: stdout %q, want %q (it must have survived its own TERM, INT, HUP)", string(c.Event.StdoutData()), "survived\n")
	}

	// Guards that a run ends with the main process (the container, every
	// child with it): the case is judged on main's exit code and output,
	// nothing a child writes after main exits is kept, and a child holding
	// stdout open neither makes the case time out nor undetermined.
	for _, cs := range []struct {
		name string
		exit int
	}{{"main exits 0", 0}, {"main exits 3", 3}} {
		c := hostileCheck(t, o, "daemonised-child", cs.name, hostileWant{verdict: verdict.True, exit: cs.exit})
		if string(c.Event.StdoutData()) != "main\n" || strings.Contains(string(c.Event.StdoutData())+string(c.Event.StderrData()), "late") {
			t.Errorf("daemonised-child / %s: stdout %q, stderr %q: a child wrote after main exited", cs.name, string(c.Event.StdoutData()), string(c.Event.StderrData()))
		}
	}

	// Guards the rule that exit code 137 is not a timeout or an OOM kill:
	// only behaves' own kill sets timed_out and only the engine's OOMKilled
	// sets resource_limit memory. A program that kills itself with SIGKILL
	// or exits 137 has a plain exit code: false against 0, true against 137.
	for _, prog := range []string{"kill-self", "exit-137"} {
		hostileCheck(t, o, prog, "expects 0", hostileWant{verdict: verdict.False, exit: 137, reason: "exit code 137, expected 0"})
		hostileCheck(t, o, prog, "expects 137", hostileWant{verdict: verdict.True, exit: 137})
	}

	// Guards the memory limit (Memory = MemorySwap) and its report from
	// OOMKilled: a 512 MiB allocation under 64 MiB is killed, never
	// survives.
	c := hostileCheck(t, o, "memory-bomb", "survives", hostileWant{verdict: verdict.False, exit: 137, limit: runner.LimitMemory, reason: "killed: memory limit 64MiB"})
	if strings.Contains(string(c.Event.StdoutData()), "survived") {
		t.Errorf("memory-bomb survived: %q", string(c.Event.StdoutData()))
	}
	// Guards that OOMKilled covers every process of the container: a
	// child killed at the limit makes the case false even though the
	// parent exits 0 (under runsc the same program would see its child
	// exit 137; this rule gives both runtimes the same verdict).
	c = hostileCheck(t, o, "oom-child", "parent exits 0", hostileWant{verdict: verdict.False, exit: 0, limit: runner.LimitMemory, reason: "killed: memory limit 64MiB"})
	if string(c.Event.StdoutData()) != "child returncode -9\n" {
		t.Errorf("oom-child: stdout %q, want the child SIGKILLed and the parent alive", string(c.Event.StdoutData()))
	}
}

// TestHostileSequence runs, one at a time and in order (--parallel 1), the
// rows that need an order: a case that leaves state behind and the case
// after it; fork bombs and a program that starts and passes right after
// them.
func TestHostileSequence(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := `version: 1
profiles:
  sh:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 3s
    memory: 64MiB
    pids: 32
    tmpfs: {/tmp: 1MiB}
  sh10:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 10s
    memory: 64MiB
    pids: 32
    tmpfs: {/tmp: 1MiB}
  py:
    image: {{python}}
    command: ["python3", "-I"]
    timeout: 10s
    memory: 128MiB
    pids: 32
programs:
  - name: state
    file: state.sh
    profile: sh10
    cases:
      - {name: writes, args: [write], expect: {stdout: {equals: "wrote"}}}
      - {name: sees nothing of the case before, args: [check], expect: {stdout: {equals: "tmp: absent\nshm: absent"}}}
  - name: fork-bomb
    file: fork_bomb.sh
    profile: sh
    cases:
      - {name: ends, expect: {stdout: {equals: "done"}}}
  - name: process-spawner
    file: spawner.py
    profile: py
    cases:
      - {name: is refused, expect: {stdout: {contains: "refused=BlockingIOError"}}}
  - name: after-the-bombs
    file: healthy.sh
    profile: sh10
    cases:
      - {name: starts and passes, expect: {stdout: {equals: "alive"}}}
`
	files := map[string]string{
		"state.sh": `case "$1" in
write) echo mark > /tmp/mark && echo mark > /dev/shm/mark && echo wrote ;;
check)
	if [ -e /tmp/mark ]; then echo "tmp: present"; else echo "tmp: absent"; fi
	if [ -e /dev/shm/mark ]; then echo "shm: present"; else echo "shm: absent"; fi ;;
esac
`,
		"fork_bomb.sh": forkBombSh,
		// Forks sleepers until refused (at most 100), then reads the pids
		// cgroup (v1 or v2) and exits 0, which ends them all.
		"spawner.py": spawnerForksPy + `def read(name):
    for d in ("/sys/fs/cgroup/pids/", "/sys/fs/cgroup/"):
        try:
            with open(d + name) as f:
                return f.read().strip()
        except OSError:
            pass
    return "?"
print("forked=%d refused=%s current=%s max=%s" % (kids, refused, read("pids.current"), read("pids.max")))
`,
		"healthy.sh": "echo alive\n",
	}
	o := hostileRun(t, img, spec, files, 1, "--parallel", "1")

	// Guards a fresh container per case and nothing shared between them
	// (no volume, no tmpfs or /dev/shm, no IPC namespace carried over):
	// the second case, run after the first, sees none of its files.
	hostileCheck(t, o, "state", "writes", hostileWant{verdict: verdict.True, exit: 0})
	hostileCheck(t, o, "state", "sees nothing of the case before", hostileWant{verdict: verdict.True, exit: 0})

	// Guards the pids limit: the bomb's forks are refused (EAGAIN), and it
	// is stopped at the timeout like any endless program.
	c := hostileCheck(t, o, "fork-bomb", "ends", hostileWant{verdict: verdict.False, exit: 137, timedOut: true, reason: "timed out after 3s"})
	if !strings.Contains(string(c.Event.StderrData()), "can't fork") {
		t.Errorf("fork-bomb: no refused fork in stderr %q", hostileShort(string(c.Event.StderrData())))
	}
	// Guards the pids limit precisely: forks are refused with EAGAIN
	// before the container holds more than pids (32) processes, and the
	// verdict follows what the program then did (exit 0 with the expected
	// output: true).
	c = hostileCheck(t, o, "process-spawner", "is refused", hostileWant{verdict: verdict.True, exit: 0})
	m := regexp.MustCompile(`^forked=(\d+) refused=BlockingIOError/11 current=(\d+) max=(\d+)\n$`).FindStringSubmatch(string(c.Event.StdoutData()))
	if m == nil {
		t.Errorf("process-spawner: stdout %q", string(c.Event.StdoutData()))
	} else {
		forked, _ := strconv.Atoi(m[1])
		current, _ := strconv.Atoi(m[2])
		if m[3] != "32" || forked >= 32 || current > 32 {
			t.Errorf("process-spawner: forked %d, pids.current %d, pids.max %s: want at most 32 processes", forked, current, m[3])
		}
		if p := o.program(t, "process-spawner"); p.Settings.PidsLimit != 32 || c.Event.Limits.Pids != 32 {
			t.Errorf("process-spawner: settings pids_limit %d, limits.pids %d, want 32", p.Settings.PidsLimit, c.Event.Limits.Pids)
		}
	}
	// Guards that the bombs leave the daemon healthy and their containers
	// gone: the next container starts and passes right afterwards.
	hostileCheck(t, o, "after-the-bombs", "starts and passes", hostileWant{verdict: verdict.True, exit: 0})
}

// TestHostileFilesystem: writes outside the scratch tmpfs, a full tmpfs and
// a file larger than the fsize ulimit all fail inside the container; the
// verdict of each case is the program's own error.
func TestHostileFilesystem(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := `version: 1
profiles:
  sh:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 10s
    memory: 64MiB
    tmpfs: {/tmp: 1MiB}
programs:
  - name: writes
    file: writes.sh
    profile: sh
    cases:
      - {name: root, args: [create, /evil], expect: {exit_code: 1, stderr: {equals: "/program/writes.sh: line 2: can't create /evil: Read-only file system"}}}
      - {name: usr, args: [create, /usr/evil], expect: {exit_code: 1, stderr: {equals: "/program/writes.sh: line 2: can't create /usr/evil: Read-only file system"}}}
      - {name: program dir, args: [create, /program/evil], expect: {exit_code: 1, stderr: {equals: "/program/writes.sh: line 2: can't create /program/evil: Read-only file system"}}}
      - {name: program file, args: [create, /program/writes.sh], expect: {exit_code: 1, stderr: {equals: "/program/writes.sh: line 2: can't create /program/writes.sh: Read-only file system"}}}
      - {name: fills the tmpfs, args: [fill], expect: {exit_code: 1, stdout: {equals: "1048576"}, stderr: {contains: "No space left on device"}}}
      - {name: file larger than fsize, args: [big], expect: {exit_code: 1, stderr: {contains: "File too large"}}}
      - {name: fsize cannot be raised, args: [fsize], expect: {stdout: {equals: "67108864 67108864\ncannot raise"}}}
`
	files := map[string]string{
		"writes.sh": `case "$1" in
create) echo pwned > "$2" ;;
fill) dd if=/dev/zero of=/tmp/fill bs=65536 count=64 2>/dev/null; rc=$?; wc -c < /tmp/fill; dd if=/dev/zero of=/tmp/more bs=1 count=1; exit $rc ;;
big) trap '' XFSZ; dd if=/dev/zero of=/tmp/big bs=1048576 count=1 seek=64 ;;
fsize)
	set -- $(grep '^Max file size' /proc/self/limits)
	echo "$4 $5"
	if ulimit -H -f unlimited 2>/dev/null; then echo raised; else echo "cannot raise"; fi ;;
esac
`,
	}
	o := hostileRun(t, img, spec, files, 0)

	// Guards ReadonlyRootfs (/, /usr) and the read-only program volume
	// (/program, and the program's own file): each write fails inside
	// the container with EROFS, the case's expectation says so.
	for _, name := range []string{"root", "usr", "program dir", "program file"} {
		hostileCheck(t, o, "writes", name, hostileWant{verdict: verdict.True, exit: 1})
	}
	// Guards the tmpfs size: 4 MiB into a 1 MiB /tmp stops at 1 MiB with
	// ENOSPC.
	hostileCheck(t, o, "writes", "fills the tmpfs", hostileWant{verdict: verdict.True, exit: 1})
	// Guards the fsize ulimit: one write past 64 MiB (in a sparse file, so
	// that it costs no memory) is refused with EFBIG (SIGXFSZ ignored);
	// without the ulimit the 1 MiB tmpfs would answer ENOSPC instead.
	c := hostileCheck(t, o, "writes", "file larger than fsize", hostileWant{verdict: verdict.True, exit: 1})
	if c.Event.Limits.FileSize != 64<<20 {
		t.Errorf("limits.fsize = %d, want %d (the floor, above the 1 MiB tmpfs)", c.Event.Limits.FileSize, 64<<20)
	}
	// Guards that the hard fsize limit is what the report says and that
	// the program cannot raise it.
	hostileCheck(t, o, "writes", "fsize cannot be raised", hostileWant{verdict: verdict.True, exit: 0})
	if p := o.program(t, "writes"); !p.Settings.ReadonlyRootfs || p.Settings.Ulimits["fsize"] != 64<<20 || !strings.Contains(p.Settings.ProgramMount, ":/program:ro") {
		t.Errorf("settings: readonly_rootfs %v, ulimits %v, program_mount %q", p.Settings.ReadonlyRootfs, p.Settings.Ulimits, p.Settings.ProgramMount)
	}
}

// TestHostileInspection looks at the sandbox from inside, by inspection only,
// under both network_files modes (the engine's network sandbox skipped, and
// kept): the network (a namespace of its own with nothing but loopback, up,
// no route, no resolver but 127.0.0.1 or none at all, raw and packet
// sockets refused), what of the host is reachable (the Docker socket,
// masked kernel files) and privilege (user, capabilities, setuid, mount,
// namespaces, chown, setuid(0)). One shell and one Python program per mode.
func TestHostileInspection(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	for _, mode := range []runner.NetworkFiles{runner.NetworkFilesNone, runner.NetworkFilesManaged} {
		t.Run("network_files="+string(mode), func(t *testing.T) {
			t.Parallel()
			hostileInspection(t, img, mode)
		})
	}
}

// hostNetNS is the network namespace of this test process (for instance
// "net:[4026531833]"): a program container's must differ.
func hostNetNS(t *testing.T) string {
	t.Helper()
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil || !strings.HasPrefix(ns, "net:[") {
		t.Fatalf("reading this process's network namespace: %q, %v", ns, err)
	}
	return ns
}

// hostileInspection is TestHostileInspection under one network_files mode.
func hostileInspection(t *testing.T, img images, mode runner.NetworkFiles) {
	spec := `version: 1
profiles:
  sh:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 20s
    memory: 64MiB
    tmpfs: {/tmp: 1MiB}
    network_files: ` + string(mode) + `
  py:
    image: {{python}}
    command: ["python3", "-I"]
    timeout: 20s
    memory: 64MiB
    network_files: ` + string(mode) + `
programs:
  - name: inspect-sh
    file: inspect.sh
    profile: sh
    cases:
      - {name: inspects, expect: {stdout: {contains: "@@ end"}}}
  - name: inspect-py
    file: inspect.py
    profile: py
    cases:
      - {name: inspects, expect: {stdout: {contains: "end: ok"}}}
`
	files := map[string]string{
		"inspect.sh": `s() { echo "@@ $1"; }
s netns; readlink /proc/self/ns/net
s links; ip -o link 2>&1
s netdev; cat /proc/net/dev
s route; cat /proc/net/route
s route6; cat /proc/net/ipv6_route
s iproute; ip route 2>&1; ip -6 route 2>&1
s routeget; ip route get 192.0.2.1 2>&1; echo "rc=$?"
s resolv; cat /etc/resolv.conf
s hosts; cat /etc/hosts
s unix; cat /proc/net/unix
s sockets-tcp; cat /proc/net/tcp /proc/net/tcp6
s connect; nc -w 2 127.0.0.1 8080 </dev/null 2>&1; echo "rc=$?"
s linkdown; ip link set lo down 2>&1; echo "rc=$?"
s docker-sock; ls /var/run/docker.sock /run/docker.sock 2>&1; echo "rc=$?"
s socket-files; find / \( -path /proc -o -path /sys \) -prune -o -type s -print 2>/dev/null
s mounts; cat /proc/mounts
s masked
for p in /proc/kcore /proc/keys /proc/timer_list /proc/sched_debug /proc/scsi /proc/acpi /sys/firmware; do
	if [ -e "$p" ]; then
		echo "$p exists bytes=$(head -c 4096 "$p" 2>/dev/null | wc -c) entries=$(if [ -d "$p" ]; then ls -A "$p" | wc -l; else echo 0; fi)"
	else
		echo "$p absent"
	fi
done
s sysrq; if [ -e /proc/sysrq-trigger ]; then echo h > /proc/sysrq-trigger 2>&1; echo "rc=$?"; else echo absent; fi
s pids; for p in /proc/[0-9]*; do echo "$p $(tr '\0' ' ' < "$p/cmdline")"; done
s limits; grep -E '^Max (open files|core file size|file size)' /proc/self/limits
s id; id
s status; grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status
s su; su -c id root </dev/null 2>&1; echo "rc=$?"
s mount; mount -t tmpfs none /tmp 2>&1; echo "rc=$?"
s unshare-r; unshare -r id 2>&1; echo "rc=$?"
s unshare-U; unshare -U id 2>&1; echo "rc=$?"
s chown; touch /tmp/x && chown 0 /tmp/x 2>&1; echo "rc=$?"
s end
`,
		"inspect.py": `import os, socket, subprocess
def attempt(name, f):
    try:
        r = f()
        print("%s: opened %r" % (name, r))
        if hasattr(r, "close"):
            r.close()
    except Exception as e:
        print("%s: %s" % (name, type(e).__name__))
attempt("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("raw6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6))
attempt("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))
attempt("packet-dgram", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, 0))
attempt("icmp-dgram", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP))
attempt("connect", lambda: socket.create_connection(("127.0.0.1", 9), timeout=5))
def loopback(family, addr):
    with socket.socket(family, socket.SOCK_STREAM) as l:
        l.bind((addr, 0))
        l.listen(1)
        with socket.create_connection((addr, l.getsockname()[1]), timeout=5) as c:
            s, _ = l.accept()
            with s:
                c.sendall(b"ping")
                return s.recv(4).decode()
attempt("loopback-tcp", lambda: loopback(socket.AF_INET, "127.0.0.1"))
attempt("loopback-tcp6", lambda: loopback(socket.AF_INET6, "::1"))
attempt("setuid", lambda: os.setuid(0))
attempt("setgid", lambda: os.setgid(0))
attempt("setgroups", lambda: os.setgroups([0]))
attempt("chroot", lambda: os.chroot("/"))
attempt("shadow", lambda: open("/etc/shadow").read())
attempt("nofile", lambda: [open("/dev/null") for _ in range(300)])
def run(*argv):
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return "rc=%d %s" % (r.returncode, r.stdout.decode(errors="replace").replace("\n", " ").strip())
print("suid-files: " + " ".join(sorted(
    os.path.join(d, f) for d in ("/usr/bin", "/usr/sbin", "/bin", "/sbin") if os.path.isdir(d)
    for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)) and os.stat(os.path.join(d, f)).st_mode & 0o4000)))
print("suid-su: " + run("/usr/bin/su", "-c", "id", "root"))
print("suid-mount: " + run("/usr/bin/mount", "-t", "tmpfs", "none", "/mnt"))
print("suid-passwd: " + run("/usr/bin/passwd", "-S"))
print("uid: %d %d %d" % (os.getuid(), os.geteuid(), os.getegid()))
print("end: ok")
`,
	}
	o := hostileRun(t, img, spec, files, 0)
	sh := hostileCheck(t, o, "inspect-sh", "inspects", hostileWant{verdict: verdict.True, exit: 0})
	py := hostileCheck(t, o, "inspect-py", "inspects", hostileWant{verdict: verdict.True, exit: 0})
	if sh.Event.StdoutTruncated || py.Event.StdoutTruncated {
		t.Fatalf("the inspection output was cut: raise output_limit")
	}
	s := hostileSections(string(sh.Event.StdoutData()))
	pyOut := map[string]string{}
	for _, line := range sectionLines(t, map[string]string{"python": string(py.Event.StdoutData())}, "python") {
		k, v, _ := strings.Cut(line, ": ")
		pyOut[k] = v
	}
	t.Logf("python inspection:\n%s", indent(string(py.Event.StdoutData())))

	t.Run("network", func(t *testing.T) {
		// Guards NetworkMode none: a network namespace of the container's
		// own (not the one behaves runs in), with loopback alone, and
		// loopback up whether or not the engine set up its sandbox.
		if ns := strings.TrimSpace(s["netns"]); !strings.HasPrefix(ns, "net:[") || ns == hostNetNS(t) {
			t.Errorf("the container's network namespace is %q, behaves' is %q: want its own", ns, hostNetNS(t))
		}
		var links []string
		for _, line := range sectionLines(t, s, "links") {
			if f := strings.Fields(line); len(f) > 2 {
				links = append(links, strings.TrimSuffix(f[1], ":"))
				if flags := strings.Split(strings.Trim(f[2], "<>"), ","); !slices.Contains(flags, "UP") {
					t.Errorf("%s is not up: %s", links[len(links)-1], line)
				}
			}
		}
		if !slices.Equal(links, []string{"lo"}) {
			t.Errorf("ip -o link shows %q, want only lo:\n%s", links, s["links"])
		}
		// Guards that loopback works: a listener inside the container
		// answers a connection to 127.0.0.1.
		if v := pyOut["loopback-tcp"]; v != "opened 'ping'" {
			t.Errorf("tcp over 127.0.0.1 inside the container: %q, want the listener's answer", v)
		}
		// ::1 exists when the engine set up no sandbox (Engine 20.10's
		// sandbox turns IPv6 off in the namespace): recorded, not
		// asserted, since it is the engine's choice and loopback either way.
		t.Logf("tcp over ::1: %s", pyOut["loopback-tcp6"])
		var ifaces []string
		for _, line := range sectionLines(t, s, "netdev") {
			if name, _, ok := strings.Cut(line, ":"); ok && !strings.Contains(name, "|") {
				ifaces = append(ifaces, strings.TrimSpace(name))
			}
		}
		if !slices.Equal(ifaces, []string{"lo"}) {
			t.Errorf("/proc/net/dev shows %q, want only lo:\n%s", ifaces, s["netdev"])
		}
		// Guards that there is no route anywhere: the IPv4 table holds
		// only its header, the IPv6 table only loopback entries, `ip
		// route` prints nothing, and a route lookup (a netlink query: no
		// packet is sent) for a documentation address is unreachable.
		if lines := strings.Split(strings.TrimSpace(s["route"]), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "Iface") {
			t.Errorf("/proc/net/route has routes:\n%s", s["route"])
		}
		// The table is never empty here: loopback's own entries are in it.
		for _, line := range sectionLines(t, s, "route6") {
			if f := strings.Fields(line); len(f) > 0 && f[len(f)-1] != "lo" {
				t.Errorf("/proc/net/ipv6_route has a route off loopback: %s", line)
			}
		}
		if strings.TrimSpace(s["iproute"]) != "" {
			t.Errorf("ip route prints routes:\n%s", s["iproute"])
		}
		if !strings.Contains(s["routeget"], "Network is unreachable") || strings.Contains(s["routeget"], "rc=0") {
			t.Errorf("ip route get 192.0.2.1: %q, want Network is unreachable", s["routeget"])
		}
		// Guards the resolver: with the engine's sandbox skipped,
		// /etc/resolv.conf and /etc/hosts are the init layer's empty files
		// (nothing of the host's or the image's); with it, DNS: 127.0.0.1
		// (an address inside the empty namespace) is the only resolver and
		// /etc/hosts names only loopback addresses.
		var servers, hosts []string
		for _, line := range strings.Split(s["resolv"], "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "nameserver" {
				servers = append(servers, f[1])
			}
		}
		for _, line := range strings.Split(s["hosts"], "\n") {
			if f := strings.Fields(line); len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
				hosts = append(hosts, f[0]+" "+strings.Join(f[1:], ","))
			}
		}
		st := o.program(t, "inspect-sh").Settings
		switch mode {
		case runner.NetworkFilesNone:
			if strings.TrimSpace(s["resolv"]) != "" || strings.TrimSpace(s["hosts"]) != "" {
				t.Errorf("network_files none: resolv.conf %q, hosts %q; want both empty", s["resolv"], s["hosts"])
			}
			if !st.NetworkDisabled || len(st.DNS) != 0 {
				t.Errorf("settings: network_disabled %v, dns %q; want true, none", st.NetworkDisabled, st.DNS)
			}
		case runner.NetworkFilesManaged:
			if !slices.Equal(servers, []string{"127.0.0.1"}) {
				t.Errorf("resolv.conf names %q, want only 127.0.0.1:\n%s", servers, s["resolv"])
			}
			if !slices.Contains(hosts, "127.0.0.1 localhost") {
				t.Errorf("/etc/hosts does not map localhost to 127.0.0.1:\n%s", s["hosts"])
			}
			for _, h := range hosts {
				if a, _, _ := strings.Cut(h, " "); !strings.HasPrefix(a, "127.") && a != "::1" && !strings.HasPrefix(a, "fe00::") && !strings.HasPrefix(a, "ff0") {
					t.Errorf("/etc/hosts names an address off loopback: %s", h)
				}
			}
			if st.NetworkDisabled || !slices.Equal(st.DNS, []string{"127.0.0.1"}) {
				t.Errorf("settings: network_disabled %v, dns %q; want false, 127.0.0.1", st.NetworkDisabled, st.DNS)
			}
		}
		// Guards the namespace's separation from the host's: no unix
		// socket (the host's abstract sockets, containerd's among them,
		// would be listed here in a shared namespace) and no TCP socket.
		if lines := strings.Split(strings.TrimSpace(s["unix"]), "\n"); len(lines) != 1 {
			t.Errorf("/proc/net/unix lists sockets:\n%s", s["unix"])
		}
		for _, line := range sectionLines(t, s, "sockets-tcp") {
			if f := strings.Fields(line); len(f) > 0 && f[0] != "sl" {
				t.Errorf("a TCP socket exists: %s", line)
			}
		}
		// Guards that nothing listens on loopback inside the container.
		if !strings.Contains(s["connect"], "Connection refused") || !strings.Contains(s["connect"], "rc=1") {
			t.Errorf("nc 127.0.0.1 8080: %q, want Connection refused", s["connect"])
		}
		if pyOut["connect"] != "ConnectionRefusedError" {
			t.Errorf("python connect to 127.0.0.1:9: %q, want ConnectionRefusedError", pyOut["connect"])
		}
		// Guards CapDrop ALL (CAP_NET_RAW, CAP_NET_ADMIN): raw and packet
		// sockets are refused, the interface cannot be changed.
		for _, k := range []string{"raw", "raw6", "packet", "packet-dgram"} {
			if pyOut[k] != "PermissionError" {
				t.Errorf("%s socket: %q, want PermissionError", k, pyOut[k])
			}
		}
		if !strings.Contains(s["linkdown"], "rc=") || strings.Contains(s["linkdown"], "rc=0") {
			t.Errorf("ip link set lo down: %q, want refused", s["linkdown"])
		}
		// An ICMP datagram ("ping") socket needs no capability: the engine
		// sets net.ipv4.ping_group_range in the container's namespace, so
		// it may open. It has no route off loopback (above). Recorded, not
		// asserted: either outcome is safe.
		if v := pyOut["icmp-dgram"]; !strings.HasPrefix(v, "opened") && v != "PermissionError" {
			t.Errorf("icmp datagram socket: %q", v)
		} else {
			t.Logf("ICMP datagram socket: %s (no route: only loopback exists)", v)
		}
		if st.NetworkMode != "none" {
			t.Errorf("settings: network_mode %q", st.NetworkMode)
		}
	})

	t.Run("host reach", func(t *testing.T) {
		// Guards that the Docker socket is never mounted into a program
		// container (the runner's own /var/run/docker.sock included), nor
		// any other socket file.
		if !strings.Contains(s["docker-sock"], "/var/run/docker.sock: No such file or directory") ||
			!strings.Contains(s["docker-sock"], "/run/docker.sock: No such file or directory") {
			t.Errorf("docker socket: %q", s["docker-sock"])
		}
		if strings.TrimSpace(s["socket-files"]) != "" {
			t.Errorf("socket files in the container:\n%s", s["socket-files"])
		}
		// Guards that no host path is mounted: every mount is the engine's
		// own (proc, sysfs, tmpfs, cgroup, devpts, mqueue, the masks), the
		// overlay root, the program volume, docker-init and the engine's
		// resolv.conf, hostname and hosts files.
		for _, line := range sectionLines(t, s, "mounts") {
			f := strings.Fields(line)
			if len(f) < 4 {
				continue
			}
			switch f[2] {
			case "proc", "sysfs", "tmpfs", "cgroup", "cgroup2", "devpts", "mqueue", "fuse.fuse-overlayfs", "overlay":
				continue
			}
			switch f[1] {
			case "/program", "/sbin/docker-init", "/etc/resolv.conf", "/etc/hostname", "/etc/hosts":
				if !strings.HasPrefix(f[3], "ro") {
					t.Errorf("%s is writable: %s", f[1], line)
				}
				continue
			}
			t.Errorf("unexpected mount: %s", line)
		}
		// Guards the engine's masked paths: each one that exists is
		// mounted over and reads as empty.
		mounted := map[string]bool{}
		for _, line := range strings.Split(s["mounts"], "\n") {
			if f := strings.Fields(line); len(f) > 1 {
				mounted[f[1]] = true
			}
		}
		checked := 0
		for _, line := range sectionLines(t, s, "masked") {
			f := strings.Fields(line)
			if len(f) < 2 || f[1] == "absent" {
				continue
			}
			checked++
			if !mounted[f[0]] || !strings.HasSuffix(line, " bytes=0 entries=0") {
				t.Errorf("%s is not masked (mounted over %v): %s", f[0], mounted[f[0]], line)
			}
		}
		if checked == 0 {
			t.Errorf("none of the masked paths exists, so none was checked (/proc/kcore always does):\n%s", s["masked"])
		}
		// Guards the PID namespace: only the container's own processes
		// are visible (in the host's namespace, behaves itself and its
		// environment would be one /proc/<pid>/environ away).
		for _, line := range sectionLines(t, s, "pids") {
			pid, cmd, _ := strings.Cut(line, " ")
			cmd = strings.TrimSpace(cmd)
			if !(pid == "/proc/1" && cmd == "/sbin/docker-init -- /bin/sh /program/inspect.sh") && cmd != "/bin/sh /program/inspect.sh" {
				t.Errorf("a process that is not the program's is visible: %s", line)
			}
		}
		if v := strings.TrimSpace(s["sysrq"]); v != "absent" && !strings.Contains(v, "rc=1") && !strings.Contains(v, "rc=2") {
			t.Errorf("/proc/sysrq-trigger is writable: %q", v)
		}
	})

	t.Run("privilege", func(t *testing.T) {
		// Guards User: the profile's user, 65534, with no extra group.
		if v := strings.TrimSpace(s["id"]); v != "uid=65534(nobody) gid=65534(nobody) groups=65534(nobody)" {
			t.Errorf("id = %q", v)
		}
		// Guards the nofile and core ulimits: 300 open files are refused
		// (EMFILE), and no core file can be written.
		for _, want := range []string{`Max open files\s+256\s+256`, `Max core file size\s+0\s+0`} {
			if !regexp.MustCompile(want).MatchString(s["limits"]) {
				t.Errorf("limits do not match %q:\n%s", want, s["limits"])
			}
		}
		if pyOut["nofile"] != "OSError" {
			t.Errorf("opening 300 files: %q, want OSError (EMFILE)", pyOut["nofile"])
		}
		if pyOut["uid"] != "65534 65534 65534" {
			t.Errorf("python uid, euid, egid = %q", pyOut["uid"])
		}
		// Guards CapDrop ALL (no capability in any set, bounding
		// included), no-new-privileges and the default seccomp profile
		// (mode 2: filter).
		status := map[string]string{}
		for _, line := range sectionLines(t, s, "status") {
			k, v, _ := strings.Cut(line, ":")
			status[k] = strings.TrimSpace(v)
		}
		for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
			if status[k] != "0000000000000000" {
				t.Errorf("%s = %q, want no capability", k, status[k])
			}
		}
		if status["NoNewPrivs"] != "1" || status["Seccomp"] != "2" {
			t.Errorf("NoNewPrivs %q, Seccomp %q: want 1 and 2", status["NoNewPrivs"], status["Seccomp"])
		}
		// Guards that su, mount, unshare (a user namespace would bring
		// capabilities back) and chown fail.
		for _, k := range []string{"su", "mount", "unshare-r", "unshare-U", "chown"} {
			if v := s[k]; !strings.Contains(v, "rc=") || strings.Contains(v, "rc=0") {
				t.Errorf("%s succeeded: %q", k, v)
			}
		}
		if !strings.Contains(s["unshare-r"], "Operation not permitted") || !strings.Contains(s["chown"], "Operation not permitted") {
			t.Errorf("unshare -r: %q; chown: %q", s["unshare-r"], s["chown"])
		}
		for _, k := range []string{"setuid", "setgid", "setgroups", "chroot", "shadow"} {
			if pyOut[k] != "PermissionError" {
				t.Errorf("python %s: %q, want PermissionError", k, pyOut[k])
			}
		}
		// Guards no-new-privileges against the image's setuid-root
		// binaries: they run without privilege. passwd -S is the witness:
		// elevated, it reads /etc/shadow and prints the account's aging
		// fields ("nobody L 2026-11-29 0 99999 7 -1"); unelevated, it
		// cannot ("nobody P").
		if !strings.Contains(pyOut["suid-files"], "/usr/bin/passwd") || !strings.Contains(pyOut["suid-files"], "/usr/bin/su") {
			t.Errorf("the python image's setuid binaries changed (%q): the witnesses below need su and passwd", pyOut["suid-files"])
		}
		if v := pyOut["suid-su"]; !strings.HasPrefix(v, "rc=") || strings.HasPrefix(v, "rc=0") {
			t.Errorf("setuid su: %q", v)
		}
		if v := pyOut["suid-mount"]; !strings.HasPrefix(v, "rc=") || strings.HasPrefix(v, "rc=0") {
			t.Errorf("setuid mount: %q", v)
		}
		if v := pyOut["suid-passwd"]; len(strings.Fields(v)) > 3 {
			t.Errorf("setuid passwd read /etc/shadow: %q", v)
		}
		if st := o.program(t, "inspect-sh").Settings; st.User != "65534:65534" || !slices.Equal(st.CapDrop, []string{"ALL"}) ||
			!slices.Equal(st.SecurityOpt, []string{"no-new-privileges"}) {
			t.Errorf("settings: user %q, cap_drop %q, security_opt %q", st.User, st.CapDrop, st.SecurityOpt)
		}
	})
}

// TestHostileStdin: stdin read to its end, ignored, closed, or left unread
// while the program writes first. None deadlocks the runner or turns into an
// undetermined case.
func TestHostileStdin(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := `version: 1
profiles:
  sh:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 10s
    memory: 64MiB
programs:
  - name: stdin
    file: stdin.sh
    profile: sh
    cases:
      - {name: reads to EOF, args: [cat], stdin: "abc\n", expect: {stdout: {equals: "abc\n<eof>"}}}
      - {name: ignores 10 MB, args: [ignore], stdin_file: big.txt, expect: {stdout: {equals: "ignored"}}}
      - {name: closes it, args: [close], stdin_file: big.txt, expect: {stdout: {equals: "closed"}}}
      - {name: writes 1 MiB first, args: [first], stdin_file: big.txt, expect: {stderr: {equals: "10485760"}}}
`
	const big = 10 << 20
	files := map[string]string{
		"stdin.sh": `case "$1" in
cat) cat; echo "<eof>" ;;
ignore) sleep 1; echo ignored ;;
close) exec 0<&-; sleep 1; echo closed ;;
first) head -c 1048576 /dev/zero; wc -c >&2 ;;
esac
`,
		"big.txt": strings.Repeat(strings.Repeat("x", 63)+"\n", big/64),
	}
	o := hostileRun(t, img, spec, files, 0)

	// Guards the stdin close (CloseWrite after the input): a program that
	// reads to EOF gets EOF and ends.
	if c := hostileCheck(t, o, "stdin", "reads to EOF", hostileWant{verdict: verdict.True, exit: 0}); c.Event.StdinBytes != 4 {
		t.Errorf("reads to EOF: stdin_bytes %d, want 4", c.Event.StdinBytes)
	}
	// Guards the concurrent pump: a blocked stdin write (the program reads
	// none of 10 MB) does not stall the output or the wait, and counts
	// only what was accepted.
	for _, name := range []string{"ignores 10 MB", "closes it"} {
		if c := hostileCheck(t, o, "stdin", name, hostileWant{verdict: verdict.True, exit: 0}); c.Event.StdinBytes >= big {
			t.Errorf("%s: stdin_bytes %d: all of it counted as accepted", name, c.Event.StdinBytes)
		}
	}
	// Guards against the classic pipe deadlock: the program fills its
	// stdout before reading any stdin; both streams still flow.
	c := hostileCheck(t, o, "stdin", "writes 1 MiB first", hostileWant{verdict: verdict.True, exit: 0})
	if c.Event.StdoutBytes != 1<<20 || c.Event.StdinBytes != big {
		t.Errorf("writes 1 MiB first: stdout_bytes %d, stdin_bytes %d", c.Event.StdoutBytes, c.Event.StdinBytes)
	}
}
