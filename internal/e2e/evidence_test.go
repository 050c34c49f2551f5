package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/evidence"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/spec"
)

// TestEvidenceKeyOfARealRun runs programs on the real daemon (a plain
// case with args and stdin, a repeated case, a same_as case against a
// reference, a compiled program) and computes each stored run's key from
// the report: it is the spec's key exactly, with no part unrecorded (the
// reference runs' settings are their program's attempt's, which the report
// holds). A report that left out
// anything else an outcome depends on would show here as an unrecorded
// part, and its evidence could never be reused.
func TestEvidenceKeyOfARealRun(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	gcc := dockertest.Image(t, "BEHAVES_IMAGE_GCC")
	specText := fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %[1]q
    command: ["/bin/sh"]
    timeout: 20s
    memory: 32MiB
    tmpfs: {/tmp: 2MiB}
    env: {GREETING: hi}
  c:
    image: %[2]q
    command: ["/build/main"]
    timeout: 20s
    build:
      command: ["gcc", "-o", "/build/main"]
      timeout: 120s
      memory: 512MiB
programs:
  - name: ref
    file: ref.sh
    profile: sh
    cases:
      - {name: upper, stdin: "b a\n", expect: {stdout: {equals: "B A"}}}
  - name: cand
    file: cand.sh
    profile: sh
    reference: ref
    cases:
      - {name: args, args: ["2", "x"], stdin: "in\n", expect: {stdout: {contains: "2"}}}
      - {name: twice, repeat: 2, expect: {exit_code: 0}}
      - {name: same, stdin: "q r\n", expect: {same_as: reference}}
  - name: built
    file: main.c
    profile: c
    cases:
      - {name: five, args: ["5"], expect: {stdout: {equals: "5"}}}
`, img.busybox, gcc)
	files := map[string]string{
		"ref.sh":  "tr a-z A-Z\n",
		"cand.sh": "echo \"$1 $GREETING\"; cat\n",
		"main.c":  "#include <stdio.h>\nint main(int c, char **v) { puts(c > 1 ? v[1] : \"\"); return 0; }\n",
	}
	run := runBehaves(t, context.Background(), specText, files)
	if run.code != 0 && run.code != 1 {
		t.Fatalf("run: exit %d\n%s", run.code, indent(run.stderr))
	}
	files["behaves.yml"] = specText
	sp, err := spec.Load(filepath.Join(writeTree(t, files), "behaves.yml"), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inputs, inputOf := sp.References(nil)
	byName := map[string]spec.Program{}
	for _, p := range sp.Programs {
		byName[p.Name] = p
	}
	checked := 0
	for i, p := range sp.Programs {
		op := run.program(t, p.Name)
		prof := sp.Job(p).Profile
		for k, c := range p.Cases {
			var oc *report.Case
			for j := range op.Cases {
				if op.Cases[j].Name == c.Name {
					oc = &op.Cases[j]
				}
			}
			if oc == nil {
				t.Fatalf("%s/%s: not in the report", p.Name, c.Name)
			}
			var ref *evidence.Key
			refRuns := 0
			if sa := c.Expect.SameAs; sa != nil {
				r := byName[sa.Reference]
				rk := evidence.Want(sp.Job(r).Profile, r.Program, c.Invocation, nil, 0)
				ref, refRuns = &rk, max(inputs[inputOf[i][k]].Repeat, 1)
			}
			want := evidence.Want(prof, p.Program, c.Invocation, ref, refRuns)
			events := []report.Event{oc.Event}
			for _, r := range oc.Runs {
				events = append(events, r.Event)
			}
			for r, e := range events {
				for _, d := range evidence.Diff(want, evidence.Stored(&op, oc, e)) {
					t.Errorf("%s/%s, event %d: the stored key is not the spec's: %+v", p.Name, c.Name, r, d)
				}
				checked++
			}
		}
	}
	// upper, args, twice (its event and 2 runs), same, five.
	if checked != 7 {
		t.Errorf("checked %d stored events, want 7", checked)
	}
}
