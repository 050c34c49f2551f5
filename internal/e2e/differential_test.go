package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// differentialSpec is a reference and two candidate samples (one agreeing
// with it, one not) compared on three inputs: words to sort, an input on
// which the reference exits 3, and one on which the reference prints a
// fresh UUID each run, so that its two runs (repeat: 2) always differ.
func differentialSpec(busybox string) (string, map[string]string) {
	spec := `version: 1
profiles:
  sh:
    image: "` + busybox + `"
    command: ["/bin/sh"]
    timeout: 20s
programs:
  - name: ref
    file: ref.sh
    profile: sh
    cases:
      - {name: own, stdin: "b a\n", expect: {stdout: {equals: "a\nb"}}}
  - name: cands
    files: "cands/*.sh"
    profile: sh
    reference: ref
    cases:
      - {name: sorted, stdin: "pear apple fig\n", expect: {same_as: reference}}
      - {name: status, args: [fail], expect: {same_as: reference}}
      - {name: flaky reference, args: [coin], repeat: 2, expect: {same_as: reference}}
`
	files := map[string]string{
		"ref.sh": `case "$1" in
  fail) echo no; exit 3;;
  coin) cat /proc/sys/kernel/random/uuid;;
  *) tr ' ' '\n' | grep -v '^$' | sort;;
esac
`,
		"cands/good.sh": `case "$1" in
  fail) echo no; exit 3;;
  coin) echo same;;
  *) for w in $(cat); do echo "$w"; done | sort;;
esac
`,
		"cands/bad.sh": `case "$1" in
  fail) echo no;;
  coin) echo same;;
  *) tr ' ' '\n' | grep -v '^$';;
esac
`,
	}
	return spec, files
}

// TestDifferential runs same_as cases on the real daemon: the agreeing
// candidate is true on the inputs where the reference answers, the
// differing one false (its output unsorted, its exit code 0 where the
// reference's is 3); on the input where the reference's own two runs
// differ, both candidates are undetermined with a reason naming the
// reference. Each case carries the reference's runs in reference_events,
// the reference runs once per distinct input (twice for repeat: 2), shared
// by both samples, and nothing is left on the daemon.
func TestDifferential(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec, files := differentialSpec(img.busybox)
	o := runBehaves(t, context.Background(), spec, files)
	if o.code != cli.ExitFalse {
		t.Errorf("exit %d, want %d (a candidate is false)\n%s\n%s", o.code, cli.ExitFalse, indent(o.stdout), indent(o.stderr))
	}
	if p := o.program(t, "ref"); p.Verdict != verdict.True || len(p.Cases[0].ReferenceEvents) != 0 {
		t.Errorf("ref: %s (%s)", p.Verdict, p.Reason)
	}

	type want struct {
		v      verdict.Verdict
		reason string
		refs   int
	}
	check := func(prog string, wants map[string]want) {
		t.Helper()
		p := o.program(t, prog)
		for _, c := range p.Cases {
			w := wants[c.Name]
			if c.Verdict != w.v || !strings.Contains(c.Reason, w.reason) {
				t.Errorf("%s / %s: %s %q, want %s with %q", prog, c.Name, c.Verdict, c.Reason, w.v, w.reason)
			}
			if len(c.ReferenceEvents) != w.refs {
				t.Errorf("%s / %s: %d reference events, want %d", prog, c.Name, len(c.ReferenceEvents), w.refs)
			}
			if c.Expect.SameAs == nil || c.Expect.SameAs.Reference != "ref" {
				t.Errorf("%s / %s: expect.same_as %+v", prog, c.Name, c.Expect.SameAs)
			}
		}
	}
	flaky := want{verdict.Undetermined, `reference "ref" is nondeterministic for this input: run 2 of 2 differs from run 1`, 2}
	check("cands/good.sh", map[string]want{
		"sorted":          {verdict.True, "", 1},
		"status":          {verdict.True, "", 1},
		"flaky reference": flaky,
	})
	check("cands/bad.sh", map[string]want{
		"sorted":          {verdict.False, `not the same as reference "ref": stdout`, 1},
		"status":          {verdict.False, "exit code 0, expected 3", 1},
		"flaky reference": flaky,
	})
	if v := o.program(t, "cands/good.sh").Verdict; v != verdict.Undetermined {
		t.Errorf("cands/good.sh: %s, want undetermined (its reference could not answer one input)", v)
	}

	// The report holds what was compared: the reference's output as the
	// expectation, and its event with the output it kept.
	bad := o.program(t, "cands/bad.sh").Cases[0]
	if e := bad.Expect.Stdout; e == nil || e.Value != "apple\nfig\npear\n" || e.Verdict != verdict.False {
		t.Errorf("bad / sorted: expect.stdout %+v", e)
	}
	if r := bad.ReferenceEvents[0]; r.Stdout != "apple\nfig\npear\n" || r.ExitCode == nil || *r.ExitCode != 0 ||
		!strings.HasSuffix(strings.Join(r.Command, " "), "/program/ref.sh") {
		t.Errorf("bad / sorted: reference event %+v", r)
	}
	status := o.program(t, "cands/good.sh").Cases[1]
	if status.Expect.ExitCode != 3 || status.ReferenceEvents[0].ExitCode == nil || *status.ReferenceEvents[0].ExitCode != 3 {
		t.Errorf("good / status: expect.exit_code %d, reference event %+v", status.Expect.ExitCode, status.ReferenceEvents[0])
	}
	if !strings.Contains(o.stdout, "expected:\n       | apple\n       | fig\n       | pear\n") ||
		!strings.Contains(o.stdout, `same as reference "ref"`) {
		t.Errorf("the terminal does not show the reference's output for the differing case:\n%s", indent(o.stdout))
	}

	// The reference ran once per distinct input, shared by both samples:
	// its two runs on the flaky input printed two UUIDs, and both samples'
	// cases hold the same two (a reference run per candidate would have
	// printed others). The engine's event log is not used to count
	// containers: it keeps the last 256 events, fewer than a busy daemon
	// makes while the run lasts.
	goodRefs := o.program(t, "cands/good.sh").Cases[2].ReferenceEvents
	badRefs := o.program(t, "cands/bad.sh").Cases[2].ReferenceEvents
	if len(goodRefs) != 2 || len(badRefs) != 2 || goodRefs[0].Stdout == goodRefs[1].Stdout || len(goodRefs[0].Stdout) != 37 {
		t.Fatalf("flaky reference runs: %+v", goodRefs)
	}
	for k := range goodRefs {
		if goodRefs[k].Stdout != badRefs[k].Stdout {
			t.Errorf("reference run %d differs between the samples (%q, %q): the reference ran once per candidate", k+1, goodRefs[k].Stdout, badRefs[k].Stdout)
		}
	}
}

// TestDifferentialInputsFile runs an inputs_file on the real daemon: each
// line is a case #N at that line, compared with the reference on exit
// code, stdout and stderr. The candidate agrees on lines 1 and 3 (line 3
// only after trailing-space normalisation), writes a different stderr on
// line 4 and a different stdout on line 5; line 2 is blank and makes no
// case. Nothing is left on the daemon.
func TestDifferentialInputsFile(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := `version: 1
profiles:
  sh:
    image: "` + img.busybox + `"
    command: ["/bin/sh"]
    timeout: 20s
programs:
  - name: ref
    file: ref.sh
    profile: sh
    cases:
      - {name: own, args: [x], expect: {stdout: {equals: "x"}}}
  - name: cand
    file: cand.sh
    profile: sh
    reference: ref
    inputs_file: tests/inputs.jsonl
`
	files := map[string]string{
		"ref.sh": `echo "$@"; cat; echo warn >&2
`,
		"cand.sh": `case "$1" in
  trail) echo "$@   "; cat; echo warn >&2;;
  err) echo "$@"; cat; echo other >&2;;
  out) echo nope; echo warn >&2;;
  *) echo "$@"; cat; echo warn >&2;;
esac
`,
		"tests/inputs.jsonl": `{"args": ["a", "b"], "stdin": "in\n"}

{"args": ["trail"]}
{"args": ["err"]}
{"args": ["out"], "stdin": "x"}
`,
	}
	o := runBehaves(t, context.Background(), spec, files)
	if o.code != cli.ExitFalse {
		t.Errorf("exit %d, want %d\n%s", o.code, cli.ExitFalse, indent(o.stderr))
	}
	p := o.program(t, "cand")
	want := []struct {
		name   string
		line   int
		v      verdict.Verdict
		reason string
	}{
		{"#1", 1, verdict.True, ""},
		{"#3", 3, verdict.True, ""},
		{"#4", 4, verdict.False, `not the same as reference "ref": stderr`},
		{"#5", 5, verdict.False, `not the same as reference "ref": stdout`},
	}
	if len(p.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(p.Cases), len(want))
	}
	for i, w := range want {
		c := p.Cases[i]
		if c.Name != w.name || c.File != "tests/inputs.jsonl" || c.Line != w.line || c.Col != 1 ||
			c.Verdict != w.v || !strings.Contains(c.Reason, w.reason) {
			t.Errorf("case %d: %s at %s:%d:%d %s %q, want %s at line %d %s with %q",
				i, c.Name, c.File, c.Line, c.Col, c.Verdict, c.Reason, w.name, w.line, w.v, w.reason)
		}
		if len(c.ReferenceEvents) != 1 || c.Expect.SameAs == nil || strings.Join(c.Expect.SameAs.Streams, ",") != "stdout,stderr" {
			t.Errorf("case %s: %d reference events, same_as %+v", c.Name, len(c.ReferenceEvents), c.Expect.SameAs)
		}
	}
	if r := p.Cases[0].ReferenceEvents[0]; r.Stdout != "a b\nin\n" || r.Stderr != "warn\n" {
		t.Errorf("#1: the reference's event %+v", r)
	}
}

// TestDifferentialRescore rescores a report with same_as cases without
// running anything: against its stored reference runs the verdicts come
// back, an option changed after the fact (ignore_case) judges again, and a
// reference edited since the run is refused at the case's position, naming
// the reference.
func TestDifferentialRescore(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := func(ignoreCase bool) string {
		return fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %q
    command: ["/bin/sh"]
    timeout: 20s
programs:
  - name: ref
    file: ref.sh
    profile: sh
    cases:
      - {name: own, args: [x], expect: {stdout: {equals: "x"}}}
  - name: cand
    file: cand.sh
    profile: sh
    reference: ref
    cases:
      - {name: shout, args: [hi], expect: {same_as: reference, ignore_case: %v}}
`, img.busybox, ignoreCase)
	}
	files := map[string]string{"ref.sh": "echo \"$1\"\n", "cand.sh": "echo \"$1\" | tr a-z A-Z\n"}
	run := runBehaves(t, context.Background(), spec(false), files)
	if run.code != cli.ExitFalse {
		t.Fatalf("run: exit %d, want %d\n%s", run.code, cli.ExitFalse, indent(run.stderr))
	}
	dir, rescore := rescorer(t, run, files)
	if code, out, rep := rescore(spec(false)); code != cli.ExitFalse || rep.Programs[1].Cases[0].Verdict != verdict.False ||
		len(rep.Programs[1].Cases[0].ReferenceEvents) != 1 {
		t.Errorf("rescore with the stored spec: exit %d\n%s", code, indent(out))
	}
	if code, out, rep := rescore(spec(true)); code != cli.ExitTrue || rep.Programs[1].Cases[0].Verdict != verdict.True {
		t.Errorf("rescore with ignore_case: exit %d\n%s", code, indent(out))
	}
	if err := os.WriteFile(filepath.Join(dir, "ref.sh"), []byte("echo \"$1\" # edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := rescore(spec(true))
	if code != cli.ExitUsage || !strings.Contains(out, "behaves.yml:18:") ||
		!strings.Contains(out, `case "shout" of program "cand": reference "ref": ref.sh changed since the stored run`) {
		t.Errorf("rescore with an edited reference: exit %d, want 2 and the case's position\n%s", code, indent(out))
	}
}
