package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/publish"
)

// actMatrixWorkflow is TestActMatrix's workflow, relative to this package:
// a matrix of 3 shards of the demo and a merge job. Artifact actions
// cannot be fetched here, so its jobs pass the reports through the
// workspace they share under act's --bind (see the file).
const actMatrixWorkflow = "testdata/act-matrix.yml"

// TestActMatrix runs a matrix of 3 shards of the demo and a merge job under
// nektos/act against the real daemon (the action's image built from this
// tree, `uses: ./`), and checks that every job succeeded (the shard steps
// and the merge step fail on the demo's false samples, which
// continue-on-error lets through, and the workflow's own check of the
// merge step's outputs passes); that each shard ran its own slice and
// left nothing behind; and that the merged report has the verdicts of an
// unsharded run of the same demo, made here in-process.
func TestActMatrix(t *testing.T) {
	t.Parallel()
	actBin, runnerImage := requireAct(t)
	cl := dockertest.Client(t)
	action := dockertest.Image(t, "BEHAVES_IMAGE_ACTION")
	python := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	root := repoRoot(t)

	tmpl, err := os.ReadFile(actMatrixWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	workflow := strings.NewReplacer("@PYTHON@", python, "@SHELL@", busybox).Replace(string(tmpl))
	ws, head := copyRepo(t, root)
	// The shards write their reports here; the merge job reads them.
	shards := filepath.Join(ws, "behaves-shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tagForAct(t, cl, action)
	_, stopWatching := watchActObjects(t, cl)
	// Whatever happens, every shard's run is swept when the test ends: a
	// shard's report names its run from the moment the run starts.
	t.Cleanup(func() {
		for i := 1; i <= 3; i++ {
			r, err := readWritten(t, filepath.Join(shards, fmt.Sprintf("shard-%d.json", i)), cli.DefaultMaxReadReport)
			if err == nil {
				sweepRun(t, cl, r.RunID)
			}
		}
	})

	log, objs := runAct(t, actPush(t, actBin, runnerImage, ws, head, "act-matrix.yml", workflow), stopWatching)
	dump := log.dump
	// Four jobs (three shards, the merge), each a success.
	var jobResults []string
	for _, e := range log.entries {
		if e.JobResult != "" {
			jobResults = append(jobResults, e.JobResult)
		}
	}
	if len(jobResults) != 4 || strings.Count(strings.Join(jobResults, " "), "success") != 4 {
		t.Errorf("act's job results %q, want 4 successes\n%s", jobResults, dump())
	}

	// Each shard's report: this commit's shard i/3, nothing left behind,
	// every program in exactly one shard.
	ran := map[string]int{}
	for i := 1; i <= 3; i++ {
		r, err := readWritten(t, filepath.Join(shards, fmt.Sprintf("shard-%d.json", i)), cli.DefaultMaxReadReport)
		if err != nil {
			t.Fatalf("shard %d/3: %v\n%s", i, err, dump())
		}
		if r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 3 {
			t.Errorf("shard %d/3: shard block %+v", i, r.Shard)
		}
		if r.GitHub.SHA != head {
			t.Errorf("shard %d/3 ran %s, want the commit %s", i, r.GitHub.SHA, head)
		}
		dockertest.AssertNothingLeft(t, cl, r.RunID)
		for _, p := range r.Programs {
			ran[p.Name]++
		}
		t.Logf("shard %d/3: %d program(s), verdict %s", i, len(r.Programs), r.Verdict)
	}

	// The unsharded run of the same demo, here.
	whole := filepath.Join(t.TempDir(), "whole.json")
	if code, errOut := mainIn(ctx, "run", "--spec", filepath.Join(ws, "demo", "behaves.yml"), "--report", whole,
		"--image", "python="+python, "--image", "shell="+busybox); code != cli.ExitFalse {
		t.Fatalf("unsharded run: exit %d, want 1\n%s", code, indent(errOut))
	}
	want, err := readWritten(t, whole, cli.DefaultMaxReadReport)
	if err != nil {
		t.Fatal(err)
	}
	dockertest.AssertNothingLeft(t, cl, want.RunID)

	got, err := readWritten(t, filepath.Join(ws, "behaves-merged.json"), cli.DefaultMaxReadReport)
	if err != nil {
		t.Fatalf("the merged report: %v\n%s", err, dump())
	}
	if got.Shard == nil || len(got.Shard.Merged) != 3 || len(got.Shard.Missing) != 0 {
		t.Errorf("merged shard block %+v, want shards 1–3 merged", got.Shard)
	}
	if got.Verdict != want.Verdict || got.Counts != want.Counts || len(got.Programs) != len(want.Programs) {
		t.Fatalf("merged %s %+v (%d programs), unsharded %s %+v (%d)", got.Verdict, got.Counts, len(got.Programs),
			want.Verdict, want.Counts, len(want.Programs))
	}
	for i, w := range want.Programs {
		g := got.Programs[i]
		if ran[w.Name] != 1 {
			t.Errorf("%s ran in %d shards, want 1", w.Name, ran[w.Name])
		}
		if g.ID != w.ID || g.Verdict != w.Verdict || len(g.Cases) != len(w.Cases) {
			t.Errorf("program %d: merged %s %s (%d cases), unsharded %s %s (%d cases)", i, g.Name, g.Verdict, len(g.Cases), w.Name, w.Verdict, len(w.Cases))
			continue
		}
		for k := range w.Cases {
			if g.Cases[k].Verdict != w.Cases[k].Verdict {
				t.Errorf("%s / %s: merged %s, unsharded %s", w.Name, w.Cases[k].Name, g.Cases[k].Verdict, w.Cases[k].Verdict)
			}
		}
	}
	if !reflect.DeepEqual(got.Groups, want.Groups) {
		t.Errorf("merged groups %+v, unsharded %+v", got.Groups, want.Groups)
	}

	// The merge job's behaves step: its outputs and its one job summary,
	// the merged report's.
	merge := jobLog(t, log, "merge")
	if o := merge.outputs(t, "behaves"); o["verdict"] != "false" || o["report"] != "behaves-merged.json" || o["total"] != "5" {
		t.Errorf("the merge step's outputs %v, want verdict false, total 5 and the merged report", o)
	}
	var summaries []string
	for _, e := range merge.stage("behaves", "Main") {
		if e.Command == "summary" {
			summaries = append(summaries, e.Content)
		}
	}
	if len(summaries) != 1 || !strings.Contains(summaries[0], publish.Headline(got)) {
		t.Errorf("the merge step's job summaries %q, want one with the merged headline %q", summaries, publish.Headline(got))
	}
	for _, e := range jobLog(t, log, "shard").entries {
		if e.Command == "summary" {
			t.Errorf("a shard job wrote a job summary (the merge job publishes): %q", e.Content)
		}
	}

	for _, o := range objs {
		if o.name != actToolCache && o.exists(t, cl) {
			t.Errorf("act left its %s %s", o.kind, o.name)
		}
	}
}

// jobLog is the part of act's log that one job wrote (act's jobID field:
// the job's key in the workflow, the same for each job of a matrix).
func jobLog(t *testing.T, l actLog, jobID string) actLog {
	t.Helper()
	var out actLog
	for _, line := range strings.Split(l.text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var e struct {
			JobID string `json:"jobID"`
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.JobID != jobID {
			continue
		}
		one := parseActLog(t, line)
		out.entries = append(out.entries, one.entries...)
		out.text += line + "\n"
	}
	return out
}
