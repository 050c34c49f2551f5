package cli

import (
	"strings"
	"testing"
)

// nonGatingSpec is a gate that holds (its case expects the exit 1 the
// exitOne sandbox gives) beside a comparison that is false (it expects 0),
// which says gate: false.
func nonGatingSpec() map[string]string {
	return map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: gatekeeper, file: gen/prog.sh, profile: sh, cases: [{name: exits 1, expect: {exit_code: 1}}]}
  - {name: compare-old, file: gen/prog.sh, profile: sh, gate: false, cases: [{name: exits 0}]}
`,
		"gen/prog.sh": "exit 1\n",
	}
}

// TestActionNonGating: a gate: false program the workflow admits is judged
// false and shown as not gating, but the run is true: exit 0, the verdict
// output true, the check run a success, its annotation a warning. Without
// --allow-non-gating the same spec is refused, naming the flag: the pull
// request cannot take its own program out of the gate.
func TestActionNonGating(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, nonGatingSpec())
	e := newEmulatedRunner(t, ws, "pull_request")
	r := e.main(t, exitOne(), map[string]string{"check-run": "true", "comment": "off", "allow-non-gating": "compare-*"}, "action")
	if r.code != ExitTrue {
		t.Fatalf("exit %d, want %d\n%s\n%s", r.code, ExitTrue, r.stdout, r.stderr)
	}
	if out := e.file(t, "set_output"); !strings.HasPrefix(out, "verdict=true\ntotal=2\ntrue=1\nfalse=1\n") {
		t.Errorf("outputs:\n%s", out)
	}
	if s := e.file(t, "step_summary"); !strings.Contains(s, "false (not gating) | `compare-old`") {
		t.Errorf("the summary does not mark the program not gating:\n%s", s)
	}
	if !strings.Contains(r.stdout+r.stderr, "== compare-old: false (not gating)") {
		t.Errorf("the log does not mark the program not gating:\n%s\n%s", r.stdout, r.stderr)
	}
	cmds := strings.Join(commandsOf(t, r.stdout), "\n")
	if strings.Contains(cmds, "::error") || !strings.Contains(cmds, "::warning") || !strings.Contains(cmds, "(not gating)") {
		t.Errorf("annotations: want a warning marked not gating, no error:\n%s", cmds)
	}
	e.gh.mu.Lock()
	if len(e.gh.checkRuns) != 1 || e.gh.checkRuns[0]["conclusion"] != "success" {
		t.Errorf("check runs %v, want one, a success", e.gh.checkRuns)
	}
	e.gh.mu.Unlock()

	e = newEmulatedRunner(t, workspaceRepo(t, nonGatingSpec()), "pull_request")
	r = e.main(t, exitOne(), map[string]string{"comment": "off"}, "action")
	if r.code != ExitUsage || !strings.Contains(r.stdout+r.stderr, `gate: false on program "compare-old" needs the workflow's --allow-non-gating`) {
		t.Errorf("without allow-non-gating: exit %d, want %d naming the flag\n%s\n%s", r.code, ExitUsage, r.stdout, r.stderr)
	}
}
