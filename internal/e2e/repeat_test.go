package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestRepeat runs a genuinely nondeterministic program on the real daemon:
// it reads a byte of /dev/urandom and prints its parity, and its case
// expects "0" with the profile's repeat: 16. Each run is true or false with
// probability 1/2, independently, so all 16 agree with probability
// 2 × 2^-16 = 2^-15 (about 1 in 33,000): then this test fails, by chance.
// The case must come out undetermined and nondeterministic, with every
// run's event in the report; a deterministic case of the same program with
// repeat: 3 is true with 3 runs. Every run is a container of its own (the
// engine started 19), --fail-on false does not pass the run (exit 3), the
// report reads back through reportread.Read, and nothing is left on the daemon.
// Rescoring the report judges all 16 stored runs again, and refuses a
// spec whose repeat no longer matches the stored runs.
func TestRepeat(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	spec := `version: 1
profiles:
  sh:
    image: "` + img.busybox + `"
    command: ["/bin/sh"]
    timeout: 20s
    repeat: 16
programs:
  - name: coin
    file: coin.sh
    profile: sh
    cases:
      - {name: parity, args: [parity], expect: {stdout: {equals: "0"}}}
      - {name: steady, args: [steady], repeat: 3, expect: {stdout: {equals: "ok"}}}
`
	files := map[string]string{"coin.sh": `if [ "$1" = parity ]; then
  n=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
  echo $((n % 2))
else
  echo ok
fi
`}
	// The engine's own log, followed live from before the run (the
	// daemon keeps only its last 256 events for a later query, which a
	// busy daemon overruns): the run's ID is chosen here so that the
	// subscription can filter on its label.
	runID := randomHex(t)[:16]
	var mu sync.Mutex
	started, destroyed := map[string]bool{}, map[string]bool{}
	stopEvents := followEvents(t, cl, filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "start"), filters.Arg("event", "destroy"),
		filters.Arg("label", "behaves.run-id="+runID)), func(m events.Message) {
		mu.Lock()
		if m.Action == "start" {
			started[m.Actor.ID] = true
		} else {
			destroyed[m.Actor.ID] = true
		}
		mu.Unlock()
	})
	// 16 runs, above --max-repeat's default of 10: the ceiling is the
	// workflow's to raise.
	o := runBehaves(t, context.Background(), spec, files, "--fail-on", "false", "--max-repeat", "16", "--run-id", runID)
	if o.code != cli.ExitUndetermined {
		t.Errorf("exit %d, want %d (a nondeterministic case fails --fail-on false)\n%s", o.code, cli.ExitUndetermined, indent(o.stderr))
	}
	p := o.program(t, "coin")
	parity, steady := p.Cases[0], p.Cases[1]

	trues := 0
	for k, run := range parity.Runs {
		out := run.Event.Stdout
		switch {
		case run.Event.SandboxError != "" || run.Event.ExitCode == nil || *run.Event.ExitCode != 0:
			t.Errorf("parity run %d did not run to exit 0: %+v", k+1, run.Event)
		case out == "0\n" && run.Verdict == verdict.True:
			trues++
		case out == "1\n" && run.Verdict == verdict.False:
		default:
			t.Errorf("parity run %d: stdout %q judged %s", k+1, out, run.Verdict)
		}
	}
	if len(parity.Runs) != 16 || parity.Verdict != verdict.Undetermined || !parity.Nondeterministic ||
		parity.Reason == "" || !strings.HasPrefix(parity.Reason, "nondeterministic: "+strconv.Itoa(trues)+" of 16 runs true (run ") {
		t.Errorf("parity: %d runs (%d true), %s, nondeterministic=%v, reason %q; want 16 runs, undetermined, nondeterministic",
			len(parity.Runs), trues, parity.Verdict, parity.Nondeterministic, parity.Reason)
	}
	if len(parity.Runs) > 0 && parity.Event.Stdout != parity.Runs[0].Event.Stdout {
		t.Errorf("event stdout %q, want the first run's %q", parity.Event.Stdout, parity.Runs[0].Event.Stdout)
	}
	if steady.Verdict != verdict.True || steady.Nondeterministic || len(steady.Runs) != 3 {
		t.Errorf("steady: %s, nondeterministic=%v, %d runs; want true with 3 runs", steady.Verdict, steady.Nondeterministic, len(steady.Runs))
	}
	for k, run := range steady.Runs {
		if run.Verdict != verdict.True || run.Event.Stdout != "ok\n" {
			t.Errorf("steady run %d: %s, stdout %q", k+1, run.Verdict, run.Event.Stdout)
		}
	}
	if c := o.report.Counts.Cases; c.Nondeterministic != 1 || c.Undetermined != 1 || c.True != 1 {
		t.Errorf("case counts %+v, want 1 true, 1 undetermined (nondeterministic)", c)
	}
	if !strings.Contains(o.stdout, "1 undetermined (1 nondeterministic)") {
		t.Errorf("the terminal does not count the nondeterministic case apart:\n%s", indent(o.stdout))
	}
	b, err := json.Marshal(o.report)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reportread.Read(bytes.NewReader(b), 64<<20); err != nil {
		t.Errorf("reportread.Read refuses the report: %v", err)
	}

	// The engine's own log: one container started for every run. The run
	// removed every container before it returned; wait until the log has
	// caught up with their removal (or a generous deadline).
	if o.report.RunID != runID {
		t.Fatalf("the report's run ID %q is not the one asked for, %q", o.report.RunID, runID)
	}
	caughtUp := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if len(started) < 19 {
			return false
		}
		for id := range started {
			if !destroyed[id] {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(30 * time.Second); !caughtUp() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	stopEvents()
	mu.Lock()
	n := len(started)
	mu.Unlock()
	if n != 19 {
		t.Errorf("the engine started %d containers for the run, want 19 (16 + 3 runs, each in a fresh container)", n)
	}

	// Rescoring judges every stored run again, and refuses a case whose
	// stored runs are not the spec's repeat now.
	dir := writeTree(t, files)
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rescore := func(specText string) (int, string, report.Report) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "behaves.yml"), []byte(specText), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "new.json")
		var stdout, stderr bytes.Buffer
		code := cli.Main(context.Background(), []string{"rescore", "--spec", filepath.Join(dir, "behaves.yml"), "--report", old, "--report-out", out, "--max-repeat", "16"},
			cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv})
		var rep report.Report
		if code != cli.ExitUsage {
			var err error
			if rep, err = readWritten(t, out, 64<<20); err != nil {
				t.Fatalf("the rescored report does not read: %v", err)
			}
		}
		return code, stdout.String() + stderr.String(), rep
	}
	// Expecting "1" instead: the runs that were false are true now.
	code, out, rep := rescore(strings.Replace(spec, `equals: "0"`, `equals: "1"`, 1))
	if rp := rep.Programs; code != cli.ExitUndetermined || len(rp) != 1 || !rp[0].Cases[0].Nondeterministic ||
		!strings.HasPrefix(rp[0].Cases[0].Reason, "nondeterministic: "+strconv.Itoa(16-trues)+" of 16 runs true") {
		t.Errorf("rescore expecting 1: exit %d\n%s", code, indent(out))
	}
	code, out, _ = rescore(strings.Replace(spec, "repeat: 3", "repeat: 2", 1))
	if code != cli.ExitUsage || !strings.Contains(out, "behaves.yml:14:") ||
		!strings.Contains(out, `case "steady" of program "coin": repeat is 2, the stored case ran 3 times`) {
		t.Errorf("rescore with repeat 2: exit %d, want 2 and the case's position\n%s", code, indent(out))
	}
}
