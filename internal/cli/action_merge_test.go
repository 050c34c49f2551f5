package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/reporttest"
)

// matrixSpec is three programs of one case each: with exitOne, "ok" (exit
// 1 expected) is true and "bad" false.
var matrixSpec = map[string]string{
	"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: ok1, file: ok1.sh, profile: sh, cases: [{name: c, expect: {exit_code: 1}}]}
  - {name: ok2, file: ok2.sh, profile: sh, cases: [{name: c, expect: {exit_code: 1}}, {name: d, expect: {exit_code: 1}}]}
  - {name: bad, file: bad.sh, profile: sh, cases: [{name: c}]}
`,
	"ok1.sh": "exit 1\n", "ok2.sh": "exit 1\n", "bad.sh": "exit 1\n",
}

// TestActionShardsThenMerge runs the action as a matrix would: one step
// per shard (input shard, no comment), then one step with command merge
// that publishes one summary, one comment and one check run for the whole.
func TestActionShardsThenMerge(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, matrixSpec)
	e := newEmulatedRunner(t, ws, "pull_request")
	if err := os.Mkdir(filepath.Join(ws, "shards"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, i := range []string{"1", "2"} {
		r := e.main(t, exitOne(), map[string]string{"shard": i + "/2", "report": "shards/shard-" + i + ".json", "check-run": "true"}, "action")
		if r.code != ExitTrue && r.code != ExitFalse {
			t.Fatalf("shard %s/2: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
		if e.file(t, "step_summary") != "" || !strings.Contains(e.file(t, "set_output"), "verdict=") {
			t.Errorf("shard %s/2: a summary, or no outputs: the merge job publishes the summary, a shard sets its outputs", i)
		}
		rep, err := reporttest.ReadFile(t, filepath.Join(ws, "shards", "shard-"+i+".json"), DefaultMaxReadReport)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Shard == nil || rep.Shard.Count != 2 || len(rep.Programs) == 3 {
			t.Fatalf("shard %s/2 report: %d programs, shard %+v", i, len(rep.Programs), rep.Shard)
		}
	}
	e.gh.mu.Lock()
	shardRuns := len(e.gh.checkRuns)
	e.gh.mu.Unlock()
	if comments, writes := e.gh.snapshot(); len(comments) != 0 || len(writes) != 0 || shardRuns != 0 {
		t.Fatalf("the shard steps wrote to GitHub (comment: update and check-run: true are the merge job's): %+v", writes)
	}

	// merge publishes, so it takes the check run's name too.
	r := e.main(t, Env{}, map[string]string{"command": "merge", "reports": "shards", "check-run": "true", "report": "merged.json",
		"check-name": "behaves / matrix"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("merge: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	checkOutputs(t, e.file(t, "set_output"), "false", "total=3\ntrue=2\nfalse=1\nundetermined=0\n", "merged.json")
	if sum := e.file(t, "step_summary"); !strings.Contains(sum, "bad") || !strings.Contains(sum, "ok2") {
		t.Errorf("the summary does not name every shard's programs:\n%s", sum)
	}
	comments, writes := e.gh.snapshot()
	if len(comments) != 1 {
		t.Errorf("%d comments, want 1 (%+v)", len(comments), writes)
	}
	e.gh.mu.Lock()
	if len(e.gh.checkRuns) != 1 || e.gh.checkRuns[0]["name"] != "behaves / matrix" {
		t.Errorf("check runs %v, want one named by input check-name", e.gh.checkRuns)
	}
	e.gh.mu.Unlock()

	// Shard 2 lost: refused without allow-missing, nothing published.
	if err := os.Remove(filepath.Join(ws, "shards", "shard-2.json")); err != nil {
		t.Fatal(err)
	}
	r = e.main(t, Env{}, map[string]string{"command": "merge", "reports": "shards", "report": "merged-2.json"}, "action")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "shard 2/2 missing") {
		t.Errorf("missing shard: exit %d, want 2 naming it\n%s%s", r.code, r.stdout, r.stderr)
	}
	if e.file(t, "step_summary") != "" {
		t.Error("a refused merge published a summary")
	}
	// With allow-missing: published, undetermined, never a pass. (Shard
	// 1 holds ok2 alone, the longest: the merge judges nothing false.)
	r = e.main(t, Env{}, map[string]string{"command": "merge", "reports": "shards", "allow-missing": "true", "report": "merged-2.json"}, "action")
	if r.code != ExitUndetermined {
		t.Errorf("allow-missing: exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
	}
	checkOutputs(t, e.file(t, "set_output"), "undetermined", "total=3\ntrue=1\nfalse=0\nundetermined=2\n", "merged-2.json")
	if !strings.Contains(e.file(t, "step_summary"), "missing") {
		t.Errorf("the summary does not say a shard is missing:\n%s", e.file(t, "step_summary"))
	}
}
