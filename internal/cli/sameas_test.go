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

// echoSandbox answers each invocation with exit 0 and stdout the program's
// file content followed by its args, so that programs differ by their
// bytes; it records what ran, in order.
type echoSandbox struct {
	mu  sync.Mutex
	ran []string // "<entry> <args>"
}

func (f *echoSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	for i, r := range batch {
		out[i].Attempt = echoAttempt{f, r.Program}
	}
	return out
}

type echoAttempt struct {
	f *echoSandbox
	p runner.Program
}

func (a echoAttempt) Settings() runner.Settings { return runner.Settings{} }
func (a echoAttempt) Run(ctx context.Context, inv runner.Invocation) (runner.Event, error) {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	a.f.ran = append(a.f.ran, strings.TrimSpace(a.p.Entry+" "+strings.Join(inv.Args, " ")))
	out := strings.TrimSpace(string(a.p.Files[a.p.Entry])) + " " + strings.Join(inv.Args, " ") + "\n"
	code := 0
	return runner.Event{ExitCode: &code, Stdout: runner.Stream{Data: []byte(out), Bytes: int64(len(out))}}, nil
}
func (a echoAttempt) Close(ctx context.Context) error { return nil }

// TestRunSameAs: the reference runs once per distinct invocation of its
// candidates' same_as cases (shared by the samples of a files: entry, as
// many times as their largest repeat), before them; each same_as case is
// judged against those runs and carries them in reference_events.
func TestRunSameAs(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: ref, file: ref.sh, profile: sh, cases: [{name: own}]}
  - name: cands
    files: "c/*.sh"
    profile: sh
    reference: ref
    cases:
      - {name: one, args: ["1"], expect: {same_as: reference}}
      - {name: twice, args: ["2"], repeat: 2, expect: {same_as: reference}}
`,
		"ref.sh":    "same\n",
		"c/good.sh": "same\n",
		"c/bad.sh":  "other\n",
	})
	out := filepath.Join(t.TempDir(), "r.json")
	sb := &echoSandbox{}
	r := runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--report", out, "--parallel", "1")
	if r.code != ExitFalse {
		t.Errorf("exit %d, want %d\n%s", r.code, ExitFalse, r.stderr)
	}
	// The reference's runs (args 1 once, args 2 twice) come first.
	if got := strings.Join(sb.ran[:3], ", "); got != "ref.sh 1, ref.sh 2, ref.sh 2" {
		t.Errorf("first runs: %s (all: %v)", got, sb.ran)
	}
	if len(sb.ran) != 3+1+2*3 {
		t.Errorf("%d invocations, want 3 reference runs + 1 own case + 2 × 3 candidate runs: %v", len(sb.ran), sb.ran)
	}
	rep, err := reporttest.ReadFile(t, out, 1<<20)
	if err != nil {
		t.Fatalf("the report does not read: %v", err)
	}
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			want := map[string]int{"one": 1, "twice": 2, "own": 0}[c.Name]
			if len(c.ReferenceEvents) != want {
				t.Errorf("%s / %s: %d reference events, want %d", p.Name, c.Name, len(c.ReferenceEvents), want)
			}
			ok := p.Name != "cands/bad.sh"
			if (c.Verdict.String() == "true") != ok {
				t.Errorf("%s / %s: %s %q", p.Name, c.Name, c.Verdict, c.Reason)
			}
		}
	}
}

// TestRunSameAsShards: under --shard, each shard runs the references its
// own same_as cases need, wherever the reference sits, so that no
// candidate's case is left without its reference.
func TestRunSameAsShards(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: ref, file: ref.sh, profile: sh, cases: [{name: own}]}
  - name: cands
    files: "c/*.sh"
    profile: sh
    reference: ref
    cases:
      - {name: one, args: ["1"], expect: {same_as: reference}}
`,
		"ref.sh": "same\n",
		"c/a.sh": "same\n",
		"c/b.sh": "same\n",
		"c/c.sh": "same\n",
		"c/d.sh": "same\n",
		"c/e.sh": "same\n",
		"c/f.sh": "same\n",
	})
	seen := 0
	for i := 1; i <= 3; i++ {
		out := filepath.Join(t.TempDir(), "r.json")
		r := runMain(t, context.Background(), fixed(&echoSandbox{}), "run", "--spec", path, "--report", out, "--shard", fmt.Sprintf("%d/3", i))
		if r.code != ExitTrue {
			t.Errorf("shard %d: exit %d\n%s", i, r.code, r.stderr)
		}
		rep, err := reporttest.ReadFile(t, out, 1<<20)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		for _, p := range rep.Programs {
			for _, c := range p.Cases {
				if c.Expect.SameAs != nil {
					seen++
					if c.Verdict.String() != "true" || len(c.ReferenceEvents) != 1 {
						t.Errorf("shard %d: %s / %s: %s %q, %d reference events", i, p.Name, c.Name, c.Verdict, c.Reason, len(c.ReferenceEvents))
					}
				}
			}
		}
	}
	if seen != 6 {
		t.Errorf("%d same_as cases over the shards, want 6", seen)
	}
}

// stderrSandbox answers each invocation with exit 0, its args on stdout
// and the program file's content on stderr: programs that agree on stdout
// and differ on stderr, as a traceback naming its own path does.
type stderrSandbox struct{}

func (f stderrSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	for i, r := range batch {
		out[i].Attempt = stderrAttempt{r.Program}
	}
	return out
}

type stderrAttempt struct{ p runner.Program }

func (a stderrAttempt) Settings() runner.Settings { return runner.Settings{} }
func (a stderrAttempt) Run(ctx context.Context, inv runner.Invocation) (runner.Event, error) {
	code := 0
	out, errOut := strings.Join(inv.Args, " ")+"\n", string(a.p.Files[a.p.Entry])
	return runner.Event{ExitCode: &code, Stdout: runner.Stream{Data: []byte(out), Bytes: int64(len(out))},
		Stderr: runner.Stream{Data: []byte(errOut), Bytes: int64(len(errOut))}}, nil
}
func (a stderrAttempt) Close(ctx context.Context) error { return nil }

// TestRunInputsFileStreams: an inputs_file's cases compare stdout and
// stderr with the reference unless the entry's inputs_file mapping says
// which streams; the cases of one file named by two entries each take
// their entry's comparison.
func TestRunInputsFileStreams(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: ref, file: ref.sh, profile: sh, cases: [{name: own}]}
  - {name: both, file: cand.sh, profile: sh, reference: ref, inputs_file: in.jsonl}
  - {name: stdout, file: cand.sh, profile: sh, reference: ref, inputs_file: {path: in.jsonl, streams: [stdout]}}
`,
		"ref.sh":   "Traceback: /program/ref.sh\n",
		"cand.sh":  "Traceback: /program/cand.sh\n",
		"in.jsonl": "{\"args\": [\"1\"]}\n{\"args\": [\"2\"]}\n",
	})
	out := filepath.Join(t.TempDir(), "r.json")
	r := runMain(t, context.Background(), fixed(stderrSandbox{}), "run", "--spec", path, "--report", out)
	if r.code != ExitFalse {
		t.Errorf("exit %d, want %d (both false)\n%s", r.code, ExitFalse, r.stderr)
	}
	rep, err := reporttest.ReadFile(t, out, 1<<20)
	if err != nil {
		t.Fatalf("the report does not read: %v", err)
	}
	got := map[string]string{}
	for _, p := range rep.Programs {
		got[p.Name] = p.Verdict.String()
		for _, c := range p.Cases {
			if p.Name == "stdout" && strings.Join(c.Expect.SameAs.Streams, ",") != "stdout" {
				t.Errorf("stdout / %s compared %v", c.Name, c.Expect.SameAs.Streams)
			}
		}
	}
	if want := map[string]string{"ref": "true", "both": "false", "stdout": "true"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
}
