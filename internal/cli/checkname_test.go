package cli

import (
	"strings"
	"testing"
)

// TestCheckName guards the check run's name: the workflow's (--check-name,
// the action's check-name), "behaves / report" when it gives none, never
// the report's; the name the fake GitHub receives is the one given.
func TestCheckName(t *testing.T) {
	t.Parallel()
	ws, _, reportPath := ranAction(t, fakeSpec(1, 1), ExitFalse)
	for _, tt := range []struct {
		name   string
		inputs map[string]string
		args   []string
		want   string
	}{
		{"publish's default", nil, []string{"publish", "--report", reportPath, "--check-run", "--comment", "off"}, "behaves / report"},
		{"--check-name", nil, []string{"publish", "--report", reportPath, "--check-run", "--comment", "off", "--check-name", "behaves: what the report says"}, "behaves: what the report says"},
		{"the action's default", map[string]string{"command": "publish", "report": reportPath, "check-run": "true", "comment": "off"}, []string{"action"}, "behaves / report"},
		{"input check-name", map[string]string{"command": "publish", "report": reportPath, "check-run": "true", "comment": "off", "check-name": "報告 / behaves"}, []string{"action"}, "報告 / behaves"},
	} {
		e := newEmulatedRunner(t, ws, "pull_request")
		r := e.main(t, Env{}, tt.inputs, tt.args...)
		if r.code != ExitFalse {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.name, r.code, ExitFalse, r.stdout, r.stderr)
			continue
		}
		e.gh.mu.Lock()
		if len(e.gh.checkRuns) != 1 || e.gh.checkRuns[0]["name"] != tt.want {
			t.Errorf("%s: check runs %v, want one named %q", tt.name, e.gh.checkRuns, tt.want)
		}
		e.gh.mu.Unlock()
		if !strings.Contains(r.stdout, `check run "`+tt.want+`"`) {
			t.Errorf("%s: the log does not name check run %q:\n%s", tt.name, tt.want, r.stdout)
		}
	}
}

// TestCheckNameRefused guards the name's checks: an empty, overlong or
// unprintable name is a usage error (exit 2) naming the flag or the input,
// and nothing is posted.
func TestCheckNameRefused(t *testing.T) {
	t.Parallel()
	ws, _, reportPath := ranAction(t, fakeSpec(1, 1), ExitFalse)
	for name, tt := range map[string]struct {
		value, want string
	}{
		"empty":          {"", "empty"},
		"overlong":       {strings.Repeat("b", 101), "101 characters, more than 100"},
		"an escape":      {"behaves\x1b[2J", "U+001B"},
		"a line break":   {"behaves\nreport", "U+000A"},
		"a bidi control": {"behaves \u202etroper", "U+202E"},
	} {
		e := newEmulatedRunner(t, ws, "pull_request")
		r := e.main(t, Env{}, nil, "publish", "--report", reportPath, "--check-run", "--check-name", tt.value)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "behaves publish: --check-name: ") || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: --check-name: exit %d, want %d and --check-name: …%s:\n%s", name, r.code, ExitUsage, tt.want, r.stderr)
		}
		// An empty input is an absent one: it takes the default name.
		if tt.value != "" {
			r = e.main(t, Env{}, map[string]string{"command": "publish", "report": reportPath, "check-run": "true", "check-name": tt.value}, "action")
			if r.code != ExitUsage || !strings.Contains(r.stdout, "input check-name: ") || !strings.Contains(r.stdout, tt.want) {
				t.Errorf("%s: input check-name: exit %d, want %d and input check-name: …%s:\n%s", name, r.code, ExitUsage, tt.want, r.stdout)
			}
		}
		if _, writes := e.gh.snapshot(); len(writes) != 0 {
			t.Errorf("%s: published %+v", name, writes)
		}
	}
}
