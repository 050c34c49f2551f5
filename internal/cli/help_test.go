package cli

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

// flagLine is a flag's first line in PrintDefaults' listing.
var flagLine = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)

// TestHelpEveryCommand walks the command table: for each command,
// `behaves CMD --help` and `behaves help CMD` print the same help to
// stdout, nothing to stderr, and exit 0, without running anything; the
// help says what the command takes and does, its exit codes and its flags,
// each flag with one default at most; and behaves' usage lists it.
func TestHelpEveryCommand(t *testing.T) {
	t.Parallel()
	top := runMain(t, context.Background(), nil, "help")
	if top.code != ExitTrue || top.stderr != "" || !strings.HasPrefix(top.stdout, "usage: behaves <command>") {
		t.Fatalf("behaves help: exit %d\n%s%s", top.code, top.stdout, top.stderr)
	}
	for _, c := range commandTable() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sb := &recordingSandbox{}
			asked := runMain(t, context.Background(), fixed(sb), c.name, "--help")
			viaHelp := runMain(t, context.Background(), fixed(sb), "help", c.name)
			if asked.code != ExitTrue || viaHelp.code != ExitTrue {
				t.Errorf("exit %d and %d, want %d", asked.code, viaHelp.code, ExitTrue)
			}
			if asked.stdout != viaHelp.stdout || asked.stderr != "" || viaHelp.stderr != "" {
				t.Errorf("%s --help and help %s differ, or wrote to stderr:\n%s%s\n---\n%s%s", c.name, c.name,
					asked.stdout, asked.stderr, viaHelp.stdout, viaHelp.stderr)
			}
			if len(sb.seen) > 0 {
				t.Errorf("--help ran something: %v", sb.seen)
			}
			h := asked.stdout
			if !strings.HasPrefix(h, "usage: behaves "+c.name) {
				t.Errorf("the help does not start with its usage line:\n%s", h)
			}
			if c.summary == "" || len(strings.TrimSpace(c.help.about)) < 20 || !strings.Contains(h, c.help.about) {
				t.Errorf("no description of what %s does:\n%s", c.name, h)
			}
			if c.help.exits == "" || !strings.Contains(h, "\nexit codes: "+c.help.exits+"\n") {
				t.Errorf("no exit codes:\n%s", h)
			}
			_, list, ok := strings.Cut(h, "\nflags:")
			if !ok {
				t.Fatalf("no flags section:\n%s", h)
			}
			if strings.TrimSpace(list) != "none" && len(flagLine.FindAllString(list, -1)) == 0 {
				t.Errorf("a flags section that lists no flag and does not say none:\n%s", h)
			}
			// One entry per flag, each with one default at most.
			for _, entry := range flagLine.Split(list, -1)[1:] {
				if n := strings.Count(entry, "(default"); n > 1 {
					t.Errorf("a flag with %d defaults:\n%s", n, entry)
				}
			}
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c.name) + `  +` + regexp.QuoteMeta(c.summary) + `$`).MatchString(top.stdout) {
				t.Errorf("behaves help does not list %s with its summary:\n%s", c.name, top.stdout)
			}
		})
	}
	if r := runMain(t, context.Background(), nil, "help", "nosuch"); r.code != ExitUsage || !strings.Contains(r.stderr, `unknown command "nosuch"`) {
		t.Errorf("help nosuch: exit %d\n%s", r.code, r.stderr)
	}
}

// TestActionPostHelpRunsNothing: action-post --help prints its help and
// removes nothing, even with a run ID saved and a sweeper at hand.
func TestActionPostHelpRunsNothing(t *testing.T) {
	t.Parallel()
	opened := false
	env := Env{
		Getenv: func(k string) string {
			if k == "STATE_run-id" {
				return "0123456789abcdef"
			}
			return ""
		},
		NewSweeper: func() (runner.Sweeper, error) { opened = true; return nil, errors.New("no sweeper here") },
	}
	var out, errOut strings.Builder
	env.Stdout, env.Stderr = &out, &errOut
	if code := Main(context.Background(), []string{"action-post", "--help"}, env); code != ExitTrue || opened {
		t.Errorf("action-post --help: exit %d, sweeper opened %v\n%s%s", code, opened, out.String(), errOut.String())
	}
	if !strings.HasPrefix(out.String(), "usage: behaves action-post") {
		t.Errorf("action-post --help did not print its help:\n%s", out.String())
	}
}
