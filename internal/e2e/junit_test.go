package e2e

// JUnit from a real run: programs in real containers print what
// XML 1.0 cannot carry, and the JUnit file behaves writes from the report
// must still be well-formed, read by a JUnit consumer's parser with the
// verdicts mapped (true passes, false fails, undetermined is an error) and
// the output shown as behaves meant it.

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	gojunit "github.com/joshdk/go-junit"

	"github.com/behaves-dev/behaves/internal/junit"
	"github.com/behaves-dev/behaves/internal/junit/junittest"
)

func TestJUnitFromARealRun(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	long := strings.Repeat("a", 2048)
	spec := `version: 1
profiles:
  py:
    image: {{python}}
    command: ["python3", "-I"]
    timeout: 20s
    memory: 64MiB
    output_limit: 1KiB
programs:
  - name: "hostile </testsuite> ]]>"
    file: hostile.py
    profile: py
    cases:
      - {name: passes, args: [ok], expect: {stdout: {equals: ok}}}
      - {name: "controls ]]>", args: [controls], expect: {stdout: {equals: ok}}}
      - {name: invalid UTF-8, args: [invalid], expect: {stdout: {equals: ok}}}
      - {name: cut at the limit, args: [long], expect: {stdout: {equals: "` + long + `"}}}
`
	spec = strings.NewReplacer("{{python}}", img.python).Replace(spec)
	files := map[string]string{"hostile.py": `import sys
out = sys.stdout.buffer
arg = sys.argv[1]
if arg == "ok":
    out.write(b"ok\n")
elif arg == "controls":
    out.write(bytes(range(32)) + b"\x7f ]]> ]]]]> </testcase></testsuites> &#x1; \xef\xbf\xbe\n")
    sys.stderr.buffer.write(b"<![CDATA[ \x1b[31mred\r\n")
elif arg == "invalid":
    out.write(b"\xff\xfe ]]> </testcase> \xed\xa0\x80\n")
else:
    out.write(b"a" * 2048)
`}
	junitPath := filepath.Join(t.TempDir(), "junit.xml")
	o := runBehaves(t, context.Background(), spec, files, "--junit", junitPath)
	if o.code != 1 {
		t.Fatalf("exit %d, want 1 (false)\nstderr:\n%s", o.code, indent(o.stderr))
	}
	data, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	suites := junittest.Check(t, data)
	if len(suites) != 1 {
		t.Fatalf("%d suites, want 1", len(suites))
	}
	if want := "hostile </testsuite> ]]>"; suites[0].Name != want {
		t.Errorf("suite %q, want %q", suites[0].Name, want)
	}
	tests := map[string]gojunit.Test{}
	for _, tc := range suites[0].Tests {
		tests[tc.Name] = tc
	}
	for name, st := range map[string]gojunit.Status{
		"passes": gojunit.StatusPassed, "controls ]]>": gojunit.StatusFailed,
		"invalid UTF-8": gojunit.StatusFailed, "cut at the limit": gojunit.StatusError,
	} {
		if tests[name].Status != st {
			t.Errorf("%s: status %q, want %q (%s)", name, tests[name].Status, st, tests[name].Message)
		}
	}
	controls := string(rangeBytes(32)) + "\x7f ]]> ]]]]> </testcase></testsuites> &#x1; \ufffe\n"
	if got, want := tests["controls ]]>"].SystemOut, junit.Text(controls); got != want {
		t.Errorf("system-out %q,\nwant %q", got, want)
	}
	if got := tests["controls ]]>"].SystemErr; got != `<![CDATA[ \x1b[31mred\x0d`+"\n" {
		t.Errorf("system-err %q", got)
	}
	m := regexp.MustCompile(`(?s)base64:\]\n(.*)$`).FindStringSubmatch(tests["invalid UTF-8"].SystemOut)
	if m == nil {
		t.Fatalf("no base64 in %q", tests["invalid UTF-8"].SystemOut)
	}
	if raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(m[1], "\n", "")); err != nil || string(raw) != "\xff\xfe ]]> </testcase> \xed\xa0\x80\n" {
		t.Errorf("base64 decodes to %q (%v)", raw, err)
	}
	if cut := tests["cut at the limit"]; !strings.Contains(cut.Message, "cut at") || !strings.Contains(cut.SystemOut, "the program wrote 2048 bytes, cut at output_limit") {
		t.Errorf("cut case: message %q, system-out ends %q", cut.Message, cut.SystemOut[max(0, len(cut.SystemOut)-120):])
	}
}

func rangeBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}
