package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestCoreVerdicts runs one spec through the whole of `behaves run` against
// the real daemon and checks the verdict a person reads for each behaviour
// the core promises. It does not run in parallel: it sets GITHUB_TOKEN in
// behaves' own environment (as a runner does) to prove programs never see it.
func TestCoreVerdicts(t *testing.T) {
	img := testImages(t)
	canary := "canary-" + randomHex(t)
	t.Setenv("GITHUB_TOKEN", canary)
	missing := "sha256:" + strings.Repeat("0", 63) + "1"

	spec := fmt.Sprintf(`version: 1
profiles:
  python:
    image: %[1]q
    command: ["python3", "-I"]
    timeout: 20s
    memory: 64MiB
    env: {BEHAVES_PROFILE_VAR: from-profile}
  python_short:
    image: %[1]q
    command: ["python3", "-I"]
    timeout: 2s
  sh:
    image: %[2]q
    command: ["/bin/sh"]
    timeout: 20s
    memory: 32MiB
    tmpfs: {/tmp: 1MiB}
  sh_small_output:
    image: %[2]q
    command: ["/bin/sh"]
    timeout: 20s
    output_limit: 1KiB
    output_ceiling: 1MiB
  missing:
    image: %[3]q
    command: ["/bin/sh"]
programs:
  # A correct program is true.
  - name: correct
    file: correct.py
    profile: python
    cases:
      - {name: sums, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
  # Wrong output is false; the reason says expected and got.
  - name: wrong
    file: wrong.py
    profile: python
    cases:
      - {name: sums, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
  # A syntax error is the program's evidence: false, not undetermined.
  - name: syntax
    file: syntax.py
    profile: python
    cases:
      - {name: runs, expect: {stdout: {equals: "ok"}}}
  # An infinite loop is timed out: false.
  - name: loop
    file: loop.py
    profile: python_short
    cases:
      - {name: ends, expect: {stdout: {equals: "done"}}}
  # A memory bomb is killed at the memory limit: false.
  - name: memory
    file: memory.py
    profile: python
    cases:
      - {name: allocates, expect: {stdout: {equals: "allocated"}}}
  # No network: only lo, no route, no resolver (network_files none, the
  # default: resolv.conf is empty), and a raw socket is refused. Inspection
  # only: nothing is sent anywhere.
  - name: network
    file: network.sh
    profile: sh
    cases:
      - {name: isolated, expect: {stdout: {equals: "lo\nno route\nnameservers: none"}}}
  - name: raw-socket
    file: raw_socket.py
    profile: python
    cases:
      - {name: refused, expect: {stdout: {equals: "raw socket refused\npacket socket refused"}}}
  # The root and /program are read-only.
  - name: write-root
    file: write_root.sh
    profile: sh
    cases:
      - {name: refused, expect: {stdout: {equals: "/ refused\n/usr refused\n/program refused\n/tmp written"}}}
  # Args and stdin reach the program.
  - name: echo
    file: echo.sh
    profile: sh
    cases:
      - {name: args and stdin, args: ["a b", "c"], stdin: "line 1\nline 2\n", expect: {stdout: {equals: "[a b] [c]\nline 1\nline 2\n", normalize: exact}, stderr: {equals: ""}}}
      - {name: exit code, args: ["--exit", "7"], expect: {exit_code: 7}}
  # Writing 1 MiB before reading a 1 MiB stdin does not deadlock the runner.
  - name: write-before-read
    file: write_before_read.sh
    profile: sh
    cases:
      - {name: no deadlock, stdin_file: one-mib.txt, expect: {stdout: {equals: "1048576"}}}
  # Output over output_limit: contains found in the kept part is true; equals
  # whose kept part agrees is undetermined; whose kept part differs is false.
  - name: big-output
    file: big_output.sh
    profile: sh_small_output
    cases:
      - {name: contains found, expect: {stdout: {contains: "needle"}}}
      - {name: equals kept part agrees, expect: {stdout: {equals: "needle\n%[4]s"}}}
      - {name: equals kept part differs, expect: {stdout: {equals: "haystack\n%[4]s"}}}
  # behaves' own environment never reaches a program; the profile's env does.
  - name: environment
    file: environment.py
    profile: python
    cases:
      - {name: profile env only, expect: {stdout: {contains: "BEHAVES_PROFILE_VAR=from-profile"}}}
  # A missing image is undetermined, never pulled.
  - name: missing-image
    file: echo.sh
    profile: missing
    cases:
      - {name: runs, expect: {stdout: {equals: ""}}}
`, img.python, img.busybox, missing, strings.Repeat("x", 4000))

	files := map[string]string{
		"correct.py": "import sys\nprint(int(sys.argv[1]) + int(sys.argv[2]))\n",
		"wrong.py":   "import sys\nprint(int(sys.argv[1]) * int(sys.argv[2]))\n",
		"syntax.py":  "print('ok'\n",
		"loop.py":    "while True:\n    pass\n",
		"memory.py":  "b = bytearray(512 * 1024 * 1024)\nprint('allocated')\n",
		"network.sh": `ls /sys/class/net
[ -z "$(ip route)" ] && [ ! -s /proc/net/route -o "$(wc -l < /proc/net/route)" -le 1 ] && echo "no route"
ns="$(sed -n 's/^nameserver[ \t]*//p' /etc/resolv.conf | tr '\n' ' ')"
echo "nameservers: ${ns:-none}"
`,
		"raw_socket.py": rawSocketPy,
		"write_root.sh": `for d in / /usr /program; do
  if echo x > "$d/pwned" 2>/dev/null; then echo "$d written"; else echo "$d refused"; fi
done
echo x > /tmp/scratch && echo "/tmp written"
`,
		"echo.sh": `if [ "$1" = --exit ]; then exit "$2"; fi
echo "[$1] [$2]"
cat
`,
		"write_before_read.sh": "head -c 1048576 /dev/zero >&2\nwc -c | tr -d ' '\n",
		"one-mib.txt":          strings.Repeat("y", 1<<20),
		"big_output.sh":        "echo needle\nhead -c 200000 /dev/zero | tr '\\0' x\n",
		"environment.py":       "import os\nfor k, v in sorted(os.environ.items()):\n    print(k + '=' + v)\nprint(open('/proc/1/environ').read().replace('\\0', '\\n'))\n",
	}

	o := runBehaves(t, context.Background(), spec, files)

	want := map[string][]verdict.Verdict{
		"correct":           {verdict.True},
		"wrong":             {verdict.False},
		"syntax":            {verdict.False},
		"loop":              {verdict.False},
		"memory":            {verdict.False},
		"network":           {verdict.True},
		"raw-socket":        {verdict.True},
		"write-root":        {verdict.True},
		"echo":              {verdict.True, verdict.True},
		"write-before-read": {verdict.True},
		"big-output":        {verdict.True, verdict.Undetermined, verdict.False},
		"environment":       {verdict.True},
		"missing-image":     {verdict.Undetermined},
	}
	for name, verdicts := range want {
		p := o.program(t, name)
		for i, v := range verdicts {
			c := p.Cases[i]
			if c.Verdict != v {
				t.Errorf("%s / %s: verdict %v, want %v (reason %q)\n  stdout:\n%s\n  stderr:\n%s", name, c.Name, c.Verdict, v, c.Reason, indent(string(c.Event.StdoutData())), indent(string(c.Event.StderrData())))
			}
		}
	}
	if o.code != 1 {
		t.Errorf("exit code %d, want 1 (some program false)\nstderr:\n%s", o.code, indent(o.stderr))
	}

	// The evidence behind the verdicts, as the report records it.
	if ev := o.program(t, "wrong").Cases[0]; !strings.Contains(ev.Reason, `expected "5", got "6"`) {
		t.Errorf("wrong: reason %q does not show expected next to actual", ev.Reason)
	}
	if ev := o.program(t, "syntax").Cases[0].Event; ev.ExitCode == nil || *ev.ExitCode == 0 || !strings.Contains(ev.Stderr, "SyntaxError") {
		t.Errorf("syntax: exit code %v, stderr %q", ev.ExitCode, ev.Stderr)
	}
	if c := o.program(t, "loop").Cases[0]; !c.Event.TimedOut || c.Event.ResourceLimit != "" || !strings.Contains(c.Reason, "timed out after 2s") {
		t.Errorf("loop: timed_out %v, resource_limit %q, reason %q", c.Event.TimedOut, c.Event.ResourceLimit, c.Reason)
	}
	if c := o.program(t, "memory").Cases[0]; c.Event.ResourceLimit != "memory" || c.Event.TimedOut || !strings.Contains(c.Reason, "memory limit 64MiB") {
		t.Errorf("memory: resource_limit %q, timed_out %v, reason %q", c.Event.ResourceLimit, c.Event.TimedOut, c.Reason)
	}
	big := o.program(t, "big-output").Cases[0].Event
	if !big.StdoutTruncated || len(big.Stdout) != 1024 || big.StdoutBytes != 200007 || big.ResourceLimit != "" {
		t.Errorf("big-output: truncated %v, kept %d bytes, counted %d, limit %q; want true, 1024, 200007, none", big.StdoutTruncated, len(big.Stdout), big.StdoutBytes, big.ResourceLimit)
	}
	if ev := o.program(t, "write-before-read").Cases[0].Event; ev.StdinBytes != 1<<20 || ev.StderrBytes != 1<<20 {
		t.Errorf("write-before-read: stdin_bytes %d, stderr_bytes %d; want 1 MiB each", ev.StdinBytes, ev.StderrBytes)
	}
	env := o.program(t, "environment").Cases[0].Event
	if strings.Contains(env.Stdout, canary) || strings.Contains(env.Stdout, "GITHUB_TOKEN") {
		t.Errorf("behaves' own GITHUB_TOKEN reached the program:\n%s", indent(env.Stdout))
	}
	m := o.program(t, "missing-image")
	if m.Acquisition != "error" || !strings.Contains(m.Cases[0].Reason, "image not present") {
		t.Errorf("missing-image: acquisition %q, reason %q", m.Acquisition, m.Cases[0].Reason)
	}
	for _, p := range o.report.Programs {
		if p.Name == "missing-image" {
			continue
		}
		if p.Acquisition != "complete" || len(p.SandboxWarnings) != 0 {
			t.Errorf("%s: acquisition %q, warnings %q", p.Name, p.Acquisition, p.SandboxWarnings)
		}
		if p.Settings.NetworkMode != "none" || !p.Settings.ReadonlyRootfs || p.Settings.LogDriver != "none" {
			t.Errorf("%s: settings %+v", p.Name, p.Settings)
		}
	}
}

func randomHex(tb testing.TB) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(b)
}
