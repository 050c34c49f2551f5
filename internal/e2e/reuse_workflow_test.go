package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestReuseWorkflowIsTheSafePattern reads every example workflow and holds
// each one that passes the action a stored report (its reuse input) to the
// one safe pattern (docs/security.md): no trigger that runs a pull
// request's code with write access to a cache scope; the report saved only
// by actions/cache/save, only on a push to the default branch, keyed by the
// commit; never the combined actions/cache (whose post step saves on any
// event); and the stored report read from outside the checkout, where no
// pull request can commit one.
func TestReuseWorkflowIsTheSafePattern(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "..", "examples", "workflows", "*.yml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example workflows: %v", err)
	}
	checked := 0
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On   yaml.Node `yaml:"on"`
			Jobs map[string]struct {
				Steps []struct {
					If   string            `yaml:"if"`
					Uses string            `yaml:"uses"`
					With map[string]string `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		reuses := false
		for _, job := range wf.Jobs {
			for _, st := range job.Steps {
				if strings.Contains(st.Uses, "behaves") && st.With["reuse"] != "" {
					reuses = true
					if !strings.HasPrefix(st.With["reuse"], "${{ runner.temp }}/") {
						t.Errorf("%s: reuse reads %q: a stored report must come from outside the checkout (runner.temp)", path, st.With["reuse"])
					}
				}
			}
		}
		if !reuses {
			continue
		}
		checked++
		var triggers []string
		switch wf.On.Kind {
		case yaml.ScalarNode:
			triggers = []string{wf.On.Value}
		case yaml.SequenceNode:
			for _, n := range wf.On.Content {
				triggers = append(triggers, n.Value)
			}
		case yaml.MappingNode:
			for i := 0; i < len(wf.On.Content); i += 2 {
				triggers = append(triggers, wf.On.Content[i].Value)
			}
		}
		for _, tr := range triggers {
			switch tr {
			case "pull_request_target", "workflow_run", "issue_comment":
				t.Errorf("%s: triggered by %s, which runs with the base branch's cache scope: never in a workflow that keeps reports", path, tr)
			}
		}
		saves := 0
		for _, job := range wf.Jobs {
			for _, st := range job.Steps {
				action, _, _ := strings.Cut(st.Uses, "@")
				switch action {
				case "actions/cache":
					t.Errorf("%s: actions/cache saves in its post step on every event, pull requests too: use actions/cache/restore and actions/cache/save", path)
				case "actions/cache/save":
					saves++
					if !strings.Contains(st.If, "github.event_name == 'push'") || !strings.Contains(st.If, "github.event.repository.default_branch") {
						t.Errorf("%s: actions/cache/save runs if %q: only on a push to the default branch", path, st.If)
					}
					if !strings.Contains(st.With["key"], "${{ github.sha }}") {
						t.Errorf("%s: the saved report's key %q is not the commit's", path, st.With["key"])
					}
				}
			}
		}
		if saves == 0 {
			t.Errorf("%s reuses stored reports but never saves one", path)
		}
	}
	if checked == 0 {
		t.Error("no example workflow shows reuse (examples/workflows/reuse.yml)")
	}
}

// TestReuseWorkflowKeepsOnlyCompletedReports runs the example's keep step
// (its run: script, under bash, with jq as on a GitHub runner) on the
// report of a run that completed (false verdicts included: evidence too),
// of one that was interrupted, of one that failed, and on none: only the
// first is copied for actions/cache/save, whose condition is that step's
// output.
func TestReuseWorkflowKeepsOnlyCompletedReports(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("BEHAVES_REQUIRE_DOCKER") == "1" { // CI: .ci/run's runsc step needs jq too
			t.Fatal("jq is not installed (apt-get install jq)")
		}
		t.Skip("jq is not installed (a GitHub runner has it; apt-get install jq)")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "workflows", "reuse.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID   string `yaml:"id"`
				If   string `yaml:"if"`
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	var keep string
	for _, job := range wf.Jobs {
		for _, st := range job.Steps {
			if st.ID == "keep" {
				keep = st.Run
			}
			if strings.HasPrefix(st.Uses, "actions/cache/save@") && !strings.Contains(st.If, "steps.keep.outputs.completed == 'true'") {
				t.Errorf("actions/cache/save runs if %q: not only when the keep step found a completed run", st.If)
			}
		}
	}
	if keep == "" {
		t.Fatal("reuse.yml has no step with id keep")
	}
	completed := reporttest.Report()
	if completed.Interrupted || completed.Error != "" || completed.Verdict == verdict.True {
		t.Fatalf("the fixture report should be a completed run with a false or undetermined verdict: %v, %q, %s", completed.Interrupted, completed.Error, completed.Verdict)
	}
	interrupted, failed := reporttest.Report(), reporttest.Report()
	interrupted.Interrupted = true
	failed.Error = "the sandbox was lost"
	for _, tc := range []struct {
		name string
		rep  *report.Report
		kept bool
	}{
		{"completed", &completed, true},
		{"interrupted", &interrupted, false},
		{"failed", &failed, false},
		{"no report", nil, false},
	} {
		dir, temp := t.TempDir(), t.TempDir()
		if tc.rep != nil {
			if err := reportwrite.WriteJSON(filepath.Join(dir, "behaves-report.json"), *tc.rep); err != nil {
				t.Fatal(err)
			}
		}
		output := filepath.Join(temp, "output")
		cmd := exec.Command("bash", "-e", "-c", keep)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+output)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: the keep step failed: %v\n%s", tc.name, err, out)
		}
		_, statErr := os.Stat(filepath.Join(temp, "behaves-stored", "behaves-report.json"))
		said, _ := os.ReadFile(output)
		if kept := statErr == nil; kept != tc.kept || strings.Contains(string(said), "completed=true") != tc.kept {
			t.Errorf("%s: kept %v, output %q; want kept %v", tc.name, kept, said, tc.kept)
		}
	}
}
