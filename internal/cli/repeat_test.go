package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// flipSandbox answers each invocation with exit 0 and, for the args
// "coin", "0" and "1" in turn; "0" for anything else.
type flipSandbox struct {
	mu    sync.Mutex
	coins int
	runs  int
}

func (f *flipSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	for i := range out {
		out[i].Attempt = flipAttempt{f}
	}
	return out
}

type flipAttempt struct{ f *flipSandbox }

func (a flipAttempt) Settings() runner.Settings { return runner.Settings{} }
func (a flipAttempt) Run(ctx context.Context, inv runner.Invocation) (runner.Event, error) {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	a.f.runs++
	out := "0\n"
	if len(inv.Args) > 0 && inv.Args[0] == "coin" {
		out = fmt.Sprintf("%d\n", a.f.coins%2)
		a.f.coins++
	}
	code := 0
	return runner.Event{ExitCode: &code, Stdout: runner.Stream{Data: []byte(out), Bytes: int64(len(out))}}, nil
}
func (a flipAttempt) Close(ctx context.Context) error { return nil }

// TestRunRepeat: each run of a repeated case is an invocation; runs that
// disagree make the case undetermined and nondeterministic with every
// run's event in the report, runs that agree give their verdict, and
// --fail-on false does not pass a nondeterministic case.
func TestRunRepeat(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: coin, args: [coin], repeat: 4, expect: {stdout: {equals: "0"}}},
    {name: steady, args: [steady], repeat: 3, expect: {stdout: {equals: "0"}}},
    {name: once, expect: {stdout: {equals: "0"}}}]`)
	for _, failOn := range []string{"false", "undetermined"} {
		out := filepath.Join(t.TempDir(), "r.json")
		sb := &flipSandbox{}
		r := runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--report", out, "--fail-on", failOn, "--parallel", "3")
		if r.code != ExitUndetermined {
			t.Errorf("--fail-on %s: exit %d, want %d\n%s", failOn, r.code, ExitUndetermined, r.stderr)
		}
		if sb.runs != 8 {
			t.Errorf("%d invocations, want 4 + 3 + 1", sb.runs)
		}
		rep, err := reporttest.ReadFile(t, out, 1<<20)
		if err != nil {
			t.Fatalf("the report does not read: %v", err)
		}
		cs := rep.Programs[0].Cases
		coin := cs[0]
		if coin.Verdict.String() != "undetermined" || !coin.Nondeterministic || len(coin.Runs) != 4 ||
			!strings.HasPrefix(coin.Reason, "nondeterministic: 2 of 4 runs true") {
			t.Errorf("coin: %s nondeterministic=%v %d runs, reason %q", coin.Verdict, coin.Nondeterministic, len(coin.Runs), coin.Reason)
		}
		seen := map[string]int{}
		for _, run := range coin.Runs {
			seen[run.Event.Stdout+"/"+run.Verdict.String()]++
		}
		if seen["0\n/true"] != 2 || seen["1\n/false"] != 2 || coin.Event.Stdout != coin.Runs[0].Event.Stdout {
			t.Errorf("coin runs: %v, event stdout %q", seen, coin.Event.Stdout)
		}
		if s := cs[1]; s.Verdict.String() != "true" || s.Nondeterministic || len(s.Runs) != 3 {
			t.Errorf("steady: %s %d runs", s.Verdict, len(s.Runs))
		}
		if o := cs[2]; o.Verdict.String() != "true" || len(o.Runs) != 0 {
			t.Errorf("once: %s %d runs", o.Verdict, len(o.Runs))
		}
		if rep.Counts.Cases.Nondeterministic != 1 || rep.Counts.Programs.Nondeterministic != 1 {
			t.Errorf("counts %+v", rep.Counts)
		}
		if !strings.Contains(r.stdout, "nondeterministic") {
			t.Errorf("the terminal does not say nondeterministic:\n%s", r.stdout)
		}
	}
}

// TestRunRepeatLost: a case whose runs did not all come in (the engine was
// lost after its first run) keeps the run that did and says why the others
// did not run.
func TestRunRepeatLost(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c, repeat: 3}]`)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runMain(t, context.Background(), fixed(&losingSandbox{}), "run", "--spec", path, "--report", out, "--parallel", "1")
	if r.code != ExitRunFailed {
		t.Errorf("exit %d, want %d", r.code, ExitRunFailed)
	}
	rep, err := reporttest.ReadFile(t, out, 1<<20)
	if err != nil {
		t.Fatalf("the report does not read: %v", err)
	}
	c := rep.Programs[0].Cases[0]
	if c.Verdict.String() != "undetermined" || len(c.Runs) != 3 || c.Runs[0].Verdict.String() != "true" ||
		!strings.Contains(c.Runs[2].Reason, "became unreachable") || !strings.HasPrefix(c.Reason, "run 2 of 3: ") {
		t.Errorf("case: %s %q, %d runs %+v", c.Verdict, c.Reason, len(c.Runs), c.Runs)
	}
}
