package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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
