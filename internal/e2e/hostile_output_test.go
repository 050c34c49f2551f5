package e2e

// The hostile-output rows: output floods and bytes that are not
// text, behaves' own environment as a secret the program must not see, and
// output that imitates the GitHub Actions runner's workflow commands.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/behaves-dev/behaves/internal/actionstest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestHostileOutput: floods on stdout and stderr, random bytes, invalid
// UTF-8 and one 100 MiB line, under an explicit output_ceiling above them
// (128 MiB) and one below them (1 MiB).
func TestHostileOutput(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := `version: 1
profiles:
  sh:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 60s
    memory: 64MiB
    output_limit: 64KiB
    output_ceiling: 128MiB
  py:
    image: {{python}}
    command: ["python3", "-I"]
    timeout: 60s
    memory: 64MiB
    output_limit: 64KiB
    output_ceiling: 128MiB
  sh-ceiling:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 60s
    memory: 64MiB
    output_limit: 64KiB
    output_ceiling: 1MiB
programs:
  - name: floods
    file: floods.sh
    profile: sh
    cases:
      - {name: 8 MiB on stdout, args: [stdout], expect: {stdout: {contains: "y\ny\n"}}}
      - {name: 8 MiB on stderr, args: [stderr], expect: {stderr: {contains: "y\ny\n"}}}
      - {name: 1 MiB of random bytes on stderr, args: [random]}
  - name: bytes
    file: bytes.py
    profile: py
    cases:
      - {name: one 100 MiB line, args: [line], expect: {stdout: {contains: "aaaa"}}}
      - {name: invalid UTF-8 and every byte, args: [binary]}
  - name: over-the-ceiling
    file: floods.sh
    profile: sh-ceiling
    cases:
      - {name: endless stdout, args: ["yes"]}
      - {name: endless stderr, args: [yes-stderr]}
      - {name: one 100 MiB line, args: [line]}
`
	files := map[string]string{
		"floods.sh": `case "$1" in
stdout) yes | head -c 8388608 ;;
stderr) yes | head -c 8388608 >&2 ;;
random) head -c 1048576 /dev/urandom >&2 ;;
yes) yes ;;
yes-stderr) yes >&2 ;;
line) head -c 104857600 /dev/zero | tr '\0' a ;;
esac
`,
		"bytes.py": `import sys
out = sys.stdout.buffer
if sys.argv[1] == "line":
    chunk = b"a" * (1 << 20)
    for _ in range(100):
        out.write(chunk)
    out.write(b"\n")
else:
    out.write(b"\xff\xfeabc\x80\n")
    out.write(bytes(range(256)) * 4096)
`,
	}
	o := hostileRun(t, img, spec, files, 1, "--max-output", "128MiB")
	const limit = 64 << 10

	// Guards the retention bound (output_limit per stream, counted past
	// it while draining) and that a flood under the ceiling is not a
	// resource limit.
	c := hostileCheck(t, o, "floods", "8 MiB on stdout", hostileWant{verdict: verdict.True, exit: 0})
	if len(string(c.Event.StdoutData())) != limit || !c.Event.StdoutTruncated || c.Event.StdoutBytes != 8<<20 {
		t.Errorf("stdout flood: kept %d, truncated %v, stdout_bytes %d", len(string(c.Event.StdoutData())), c.Event.StdoutTruncated, c.Event.StdoutBytes)
	}
	c = hostileCheck(t, o, "floods", "8 MiB on stderr", hostileWant{verdict: verdict.True, exit: 0})
	if len(string(c.Event.StderrData())) != limit || !c.Event.StderrTruncated || c.Event.StderrBytes != 8<<20 || c.Event.StdoutBytes != 0 {
		t.Errorf("stderr flood: kept %d, truncated %v, stderr_bytes %d, stdout_bytes %d", len(string(c.Event.StderrData())), c.Event.StderrTruncated, c.Event.StderrBytes, c.Event.StdoutBytes)
	}
	// Guards binary output on stderr: bounded, counted, and kept exactly
	// (stderr_base64 holds the bytes that are not valid UTF-8).
	c = hostileCheck(t, o, "floods", "1 MiB of random bytes on stderr", hostileWant{verdict: verdict.True, exit: 0})
	if raw, err := base64.StdEncoding.DecodeString(c.Event.StderrBase64); err != nil || len(raw) != limit || c.Event.StderrBytes != 1<<20 {
		t.Errorf("random bytes: stderr_base64 decodes to %d bytes (%v), stderr_bytes %d", len(raw), err, c.Event.StderrBytes)
	}
	// Guards one 100 MiB line under a ceiling above it: no line buffering
	// in behaves (retention stays at the limit), every byte counted, no
	// resource limit, and a contains on the kept part settles it.
	c = hostileCheck(t, o, "bytes", "one 100 MiB line", hostileWant{verdict: verdict.True, exit: 0})
	if string(c.Event.StdoutData()) != strings.Repeat("a", limit) || c.Event.StdoutBytes != 100<<20+1 || !c.Event.StdoutTruncated {
		t.Errorf("100 MiB line: kept %d, stdout_bytes %d, truncated %v", len(string(c.Event.StdoutData())), c.Event.StdoutBytes, c.Event.StdoutTruncated)
	}
	// Guards lossless bytes: invalid UTF-8 and every byte value come back
	// exactly from stdout_base64, the only form they are stored in.
	c = hostileCheck(t, o, "bytes", "invalid UTF-8 and every byte", hostileWant{verdict: verdict.True, exit: 0})
	printed := append([]byte("\xff\xfeabc\x80\n"), bytes.Repeat(func() []byte {
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}(), 4096)...)
	raw, err := base64.StdEncoding.DecodeString(c.Event.StdoutBase64)
	if err != nil || !bytes.Equal(raw, printed[:limit]) {
		t.Errorf("stdout_base64 (%v) does not hold the first %d bytes printed: got %d bytes, starting %q", err, limit, len(raw), raw[:min(len(raw), 16)])
	}
	if c.Event.Stdout != "" || c.Event.StdoutBytes != int64(len(printed)) {
		t.Errorf("stdout text %d bytes (want none: the bytes are in stdout_base64 only), stdout_bytes %d (want %d)", len(c.Event.Stdout), c.Event.StdoutBytes, len(printed))
	}

	// Guards the output ceiling: past it on either stream the container is
	// killed (resource limit output, false, never a timeout), and what was
	// kept stays bounded.
	for _, cs := range []struct{ name, stream string }{
		{"endless stdout", "stdout"}, {"endless stderr", "stderr"}, {"one 100 MiB line", "stdout"},
	} {
		c := hostileCheck(t, o, "over-the-ceiling", cs.name, hostileWant{verdict: verdict.False, exit: 137, limit: runner.LimitOutput,
			reason: "killed: " + cs.stream + " over the ceiling of 1MiB"})
		n, kept := c.Event.StdoutBytes, len(string(c.Event.StdoutData()))
		if cs.stream == "stderr" {
			n, kept = c.Event.StderrBytes, len(string(c.Event.StderrData()))
		}
		if n <= 1<<20 || kept != limit || c.Event.Limits.OutputCeiling != 1<<20 {
			t.Errorf("%s: %s_bytes %d, kept %d, limits.output_ceiling %d", cs.name, cs.stream, n, kept, c.Event.Limits.OutputCeiling)
		}
	}

	// Guards LogConfig none: the engine keeps no copy of the output on the
	// host's disk (the default json-file driver would store every byte of
	// these floods).
	for _, p := range o.report.Programs {
		if p.Settings.LogDriver != "none" {
			t.Errorf("%s: log_driver %q, want none", p.Name, p.Settings.LogDriver)
		}
	}
}

// TestHostileSecretsAndWorkflowCommands may not run in parallel: it sets
// behaves' own environment (the test process's) as a runner does: a secret
// GITHUB_TOKEN, another canary, and GITHUB_ACTIONS=true.
func TestHostileSecretsAndWorkflowCommands(t *testing.T) {
	img := testImages(t)
	canary := "canary-" + hostileToken(t)
	t.Setenv("GITHUB_TOKEN", canary)
	t.Setenv("BEHAVES_CANARY", canary)
	t.Setenv("GITHUB_ACTIONS", "true")
	spec := `version: 1
profiles:
  sh:
    image: {{busybox}}
    command: ["/bin/sh"]
    timeout: 10s
    memory: 64MiB
    env: {LANG: C.UTF-8, PROFILE_VAR: from-profile}
programs:
  - name: environment
    file: env.sh
    profile: sh
    cases:
      - {name: dumps it, expect: {stdout: {equals: "nothing"}}}
  - name: imitates-the-runner
    file: imitate.sh
    profile: sh
    cases:
      - {name: prints commands, expect: {stdout: {equals: "quiet"}}}
`
	files := map[string]string{
		"env.sh": `echo "@@ env"; env
echo "@@ init"; tr '\0' '\n' < /proc/1/environ
echo "@@ self"; tr '\0' '\n' < /proc/$$/environ
echo "@@ all"; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f"; done 2>/dev/null
echo "@@ end"
`,
		// Workflow commands, the legacy form, a fake stop-commands region,
		// and the same hidden behind CR, tab, NEL, U+2028 and terminal
		// escapes; the last stderr line ends up in the case's reason.
		"imitate.sh": `echo '::error::pwned'
echo '::set-output name=x::y'
echo '::add-mask::secret'
echo '::set-env name=X::y'
echo '::stop-commands::abc'
echo '::error::inside-fake-region'
echo '::abc::'
echo '  ::warning::x'
echo 'text ##[error]x'
echo '##[set-output name=x;]y'
printf '\t::error::tab\n'
printf 'abc\r::error::cr\n'
printf '\302\205::error::nel\n'
printf '\342\200\250::error::ls\n'
printf '\033[2K\r::error::ansi\n'
printf '\033]0;title\007::group::osc\n'
echo '::endgroup::'
echo '::debug::d'
echo '::error file=behaves.yml,line=1::stderr' >&2
echo '##[warning]stderr' >&2
echo '::error::reason-injection' >&2
exit 1
`,
	}
	o := hostileRun(t, img, spec, files, 1)

	// Guards the environment allowlist: behaves' own environment (a
	// GITHUB_TOKEN, another canary, GITHUB_ACTIONS) reaches no program;
	// the report, behaves' stdout and stderr never hold the canary.
	js, err := json.Marshal(o.report)
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"report": string(js), "stdout": o.stdout, "stderr": o.stderr} {
		if strings.Contains(text, canary) {
			t.Errorf("the canary from behaves' environment is in its %s", where)
		}
	}
	c := hostileCheck(t, o, "environment", "dumps it", hostileWant{verdict: verdict.False, exit: 0, reason: "stdout"})
	sec := hostileSections(string(c.Event.StdoutData()))
	p := o.program(t, "environment")
	allowed := map[string]bool{"PATH": true, "HOSTNAME": true, "HOME": true, "LANG": true, "PROFILE_VAR": true}
	for _, kv := range p.Settings.ImageEnv {
		k, _, _ := strings.Cut(kv, "=")
		allowed[k] = true
	}
	// The environment the engine gave: PID 1 (docker-init) and the
	// program's shell as started. A shell adds its own (PWD, SHLVL) to
	// what `env` prints; those are checked for the canary only.
	for _, name := range []string{"init", "self", "all"} {
		if strings.TrimSpace(sec[name]) == "" {
			t.Errorf("%s: no environment read", name)
		}
		for _, kv := range strings.Split(strings.TrimSpace(sec[name]), "\n") {
			k, _, _ := strings.Cut(kv, "=")
			if !allowed[k] {
				t.Errorf("%s environment has %q: only the profile's env, the image's ENV, PATH, HOSTNAME and HOME may be there", name, kv)
			}
		}
	}
	for _, kv := range []string{"HOSTNAME=behaves", "PROFILE_VAR=from-profile", "LANG=C.UTF-8"} {
		if !slices.Contains(strings.Split(sec["init"], "\n"), kv) {
			t.Errorf("init environment lacks %s:\n%s", kv, sec["init"])
		}
	}
	for _, k := range []string{"GITHUB_TOKEN", "BEHAVES_CANARY", "GITHUB_ACTIONS"} {
		if strings.Contains(string(c.Event.StdoutData()), k) {
			t.Errorf("the program sees %s", k)
		}
	}

	// Guards the stop-commands wrapping under GITHUB_ACTIONS=true and the
	// escaping of program output: read as the runner reads it, behaves'
	// stdout holds no command but its own stop-commands and the matching
	// resume, and its stderr none at all.
	hostileCheck(t, o, "imitates-the-runner", "prints commands", hostileWant{verdict: verdict.False, exit: 1, reason: "exit code 1, expected 0"})
	if !strings.Contains(o.stdout, "::error::pwned") || !strings.Contains(o.stdout, "##[error]x") {
		t.Fatalf("the program's output is not in behaves' stdout; the check below would prove nothing:\n%s", indent(o.stdout))
	}
	cmds := actionstest.Commands(o.stdout)
	if err := actionstest.CheckInert(o.stdout); err != nil || len(cmds) != 2 {
		t.Errorf("%v in behaves' stdout (%d commands); want only its own stop-commands and resume\n%s", err, len(cmds), indent(o.stdout))
	} else if !strings.HasSuffix(strings.TrimRight(o.stdout, "\n"), "\n"+cmds[1].Text) {
		t.Errorf("behaves writes more after it resumes commands with %q:\n%s", cmds[1].Text, indent(o.stdout))
	}
	if err := actionstest.CheckInert(o.stderr); err != nil {
		t.Errorf("%v in behaves' stderr", err)
	}
	// Guards the escaping of control bytes: nothing the program printed
	// reaches behaves' output as a raw control character (ESC, BEL, CR, a
	// C1 control, a line separator), only as visible escapes.
	for i, r := range o.stdout {
		if r != '\n' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			t.Errorf("behaves' stdout holds raw %U at byte %d", r, i)
			break
		}
	}
}
