package cli

import (
	"path/filepath"
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

// TestPublishRefusesFilteredCheckRun: a report of a run filtered with
// --program answers for part of the spec: publish posts no check run from
// it (exit 2, saying why) unless told --allow-filtered.
func TestPublishRefusesFilteredCheckRun(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, nonGatingSpec())
	e := newEmulatedRunner(t, ws, "pull_request")
	rep := filepath.Join(ws, "r.json")
	if r := e.main(t, exitOne(), nil, "run", "--spec", filepath.Join(ws, "behaves.yml"), "--report", rep, "--program", "gatekeeper", "--allow-non-gating", "compare-*"); r.code != ExitTrue {
		t.Fatalf("run --program gatekeeper: exit %d\n%s", r.code, r.stderr)
	}
	r := e.main(t, Env{}, nil, "publish", "--report", rep, "--check-run", "--comment", "off")
	if r.code != ExitUsage || !strings.Contains(r.stdout+r.stderr, "filtered with --program gatekeeper: a check run from it would pass the gate on part of the spec") {
		t.Errorf("publish --check-run of a filtered report: exit %d, want %d\n%s\n%s", r.code, ExitUsage, r.stdout, r.stderr)
	}
	e.gh.mu.Lock()
	if len(e.gh.checkRuns) != 0 {
		t.Errorf("%d check runs posted from a filtered report", len(e.gh.checkRuns))
	}
	e.gh.mu.Unlock()
	r = e.main(t, Env{}, nil, "publish", "--report", rep, "--check-run", "--comment", "off", "--allow-filtered")
	e.gh.mu.Lock()
	defer e.gh.mu.Unlock()
	if r.code != ExitTrue || len(e.gh.checkRuns) != 1 {
		t.Errorf("with --allow-filtered: exit %d, %d check runs; want 0 and one\n%s", r.code, len(e.gh.checkRuns), r.stdout)
	}
}
