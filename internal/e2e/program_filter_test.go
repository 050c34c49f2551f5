package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	"github.com/behaves-dev/behaves/internal/dockertest"
)

// TestProgramFilter: --program runs only the programs it names (by name,
// by files: entry, by glob), counted from the daemon's live event stream;
// the report lists only them and says it was filtered; a pattern that
// names nothing is a usage error that names it, and nothing runs.
func TestProgramFilter(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	dir := writeTree(t, map[string]string{
		"behaves.yml": fmt.Sprintf(`version: 1
profiles:
  sh: {image: "%s", command: [/bin/sh]}
programs:
  - {name: gate, file: gate.sh, profile: sh, cases: [{name: a}, {name: b}]}
  - {name: samples, files: "samples/*.sh", profile: sh, cases: [{name: a}]}
  - {name: other, file: gate.sh, profile: sh, cases: [{name: a}, {name: b}, {name: c}]}
`, img.busybox),
		"gate.sh":      "exit 0\n",
		"samples/1.sh": "exit 0\n",
		"samples/2.sh": "exit 1\n",
	})
	specPath := filepath.Join(dir, "behaves.yml")
	runID := randomHex(t)[:16]
	var mu sync.Mutex
	started := 0
	stop := followEvents(t, cl, filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "start"),
		filters.Arg("label", "behaves.run-id="+runID)), func(events.Message) {
		mu.Lock()
		started++
		mu.Unlock()
	})
	code, _, stderr, data := runIn(t, specPath, "--program", "gate", "--program", "sam*", "--run-id", runID)
	stop()
	rep := decode(t, data)
	if code != 1 {
		t.Errorf("exit %d, want 1 (samples/2.sh is false)\n%s", code, indent(stderr))
	}
	var names []string
	for _, p := range rep.Programs {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "gate samples/1.sh samples/2.sh" {
		t.Errorf("programs %q, want the two named", got)
	}
	if strings.Join(rep.Filter, " ") != "gate sam*" {
		t.Errorf("filter %q, want the patterns", rep.Filter)
	}
	mu.Lock()
	if started != 4 {
		t.Errorf("%d containers started, want 4: the selected programs' cases", started)
	}
	mu.Unlock()

	code, _, stderr, _ = runIn(t, specPath, "--program", "gat")
	if code != 2 || !strings.Contains(stderr, `--program "gat" names no program`) || !strings.Contains(stderr, `did you mean "gate"`) {
		t.Errorf("a pattern that names nothing: exit %d\n%s", code, indent(stderr))
	}
}
