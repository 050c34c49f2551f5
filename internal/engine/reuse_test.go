package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportmerge"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/shard"
	"github.com/behaves-dev/behaves/internal/spec"
)

// runTo runs sp on sb (with the stored reports at reusePaths, if any) and
// writes its report as behaves run does, through the report writer, to a
// file it returns with the report read back.
func runTo(t *testing.T, sp *spec.Spec, sb *scriptSandbox, runID string, reusePaths ...string) (string, report.Report) {
	t.Helper()
	return runPlanTo(t, NewPlan(sp, Selection{}, 2), sb, runID, reusePaths...)
}

// runPlanTo is runTo of a plan.
func runPlanTo(t *testing.T, plan *Plan, sb *scriptSandbox, runID string, reusePaths ...string) (string, report.Report) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	w, err := assemble.NewWriter(path, reportwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	opt := Options{RunID: runID, StartedAt: time.Now(), Cleanup: context.Background()}
	if len(reusePaths) > 0 {
		if opt.Reuse, err = reuse.Load(reusePaths, 64<<20); err != nil {
			t.Fatal(err)
		}
	}
	out := plan.Run(t.Context(), sb, opt, w)
	if out.Err != nil {
		t.Fatalf("run failed: %v", out.Err)
	}
	if _, err := reporttest.Commit(t, w, out.Report); err != nil {
		t.Fatal(err)
	}
	rep, err := reporttest.ReadFile(t, path, 64<<20)
	if err != nil {
		t.Fatalf("the report does not read back: %v", err)
	}
	return path, rep
}

// reused lists each case as "program/case" with where it came from: its
// stored run's ID, or the reason it ran now.
func reused(rep report.Report) []string {
	var out []string
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			switch {
			case c.ReusedFrom != nil:
				out = append(out, p.Name+"/"+c.Name+" from "+c.ReusedFrom.RunID)
			case c.NotReused != nil:
				out = append(out, p.Name+"/"+c.Name+" ran: "+c.NotReused.Reason)
			default:
				out = append(out, p.Name+"/"+c.Name+" ran")
			}
		}
	}
	return out
}

func TestReuseOfAnUnchangedSpecRunsOnlyWhatDidNotSettle(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	first := &scriptSandbox{}
	path, a := runTo(t, sp, first, "first")
	if a.Reuse != nil {
		t.Errorf("a run given no stored reports has a reuse block: %+v", a.Reuse)
	}

	again := &scriptSandbox{}
	second, b := runTo(t, sp, again, "second", path)
	if got, want := verdicts(b), verdicts(a); !slices.Equal(got, want) {
		t.Errorf("verdicts %v, want the first run's %v", got, want)
	}
	// coin/heads was undetermined (its runs disagreed): it runs again, all
	// 4 runs; nothing else runs, not even the reference.
	want := []string{"ref/shout from first", "echo/plain from first", "echo/differs from first", "coin/heads ran: " + reuse.ReasonUndecided}
	if got := reused(b); !slices.Equal(got, want) {
		t.Errorf("reuse %v, want %v", got, want)
	}
	if len(again.ran) != 1 || again.ran["flip"] != 4 || again.prepared != 1 {
		t.Errorf("the second run ran %v in %d attempts, want flip 4 times in 1", again.ran, again.prepared)
	}
	// The reused cases' evidence is the first run's, their execution the
	// first run's program's; every program has a new execution ID.
	for i, p := range b.Programs {
		if p.ExecutionID == "" || p.ExecutionID == a.Programs[i].ExecutionID {
			t.Errorf("%s: execution ID %q, want a new one (the first run's was %q)", p.Name, p.ExecutionID, a.Programs[i].ExecutionID)
		}
		for j, c := range p.Cases {
			if c.ReusedFrom == nil {
				continue
			}
			if c.ReusedFrom.ExecutionID != a.Programs[i].ExecutionID {
				t.Errorf("%s/%s reused from execution %s, want the first run's %s", p.Name, c.Name, c.ReusedFrom.ExecutionID, a.Programs[i].ExecutionID)
			}
			if c.Event.StdoutSHA256 != a.Programs[i].Cases[j].Event.StdoutSHA256 || c.Event.Stdout != a.Programs[i].Cases[j].Event.Stdout {
				t.Errorf("%s/%s: the reused event is not the stored one", p.Name, c.Name)
			}
		}
	}
	if d := b.Programs[1].Cases[1]; len(d.ReferenceEvents) != 1 {
		t.Errorf("echo/differs reused with %d reference events, want the stored 1", len(d.ReferenceEvents))
	}
	if b.Programs[0].Settings.ImageID != scriptImageID {
		t.Errorf("ref (none of whose cases ran) has settings %+v, want the stored attempt's", b.Programs[0].Settings)
	}
	r := b.Reuse
	if r == nil || r.Reused != 3 || r.Ran != 4 || len(r.Sources) != 1 || r.Sources[0].RunID != "first" ||
		!slices.Equal(r.NotReused, []report.ReasonCount{{Reason: reuse.ReasonUndecided, Cases: 1}}) {
		t.Errorf("reuse block %+v, want 3 reused, 4 ran (coin's runs), one undetermined, from run first", r)
	}

	// Reuse of reused evidence points at the run that ran it.
	third := &scriptSandbox{}
	_, c := runTo(t, sp, third, "third", second)
	if got := reused(c)[0]; got != "ref/shout from first" {
		t.Errorf("reuse of a reused case: %s, want it from the first run", got)
	}
}

func TestReuseRunsOnlyTheChangedProgram(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	path, _ := runTo(t, sp, &scriptSandbox{}, "first")

	// echo.txt changed (the same script, another file): only echo runs;
	// its same_as case needs the reference's run of its input again.
	files := maps.Clone(testFiles)
	files["echo.txt"] = "echo v2"
	changed := &scriptSandbox{}
	_, b := runTo(t, loadSpec(t, testSpec, files), changed, "second", path)
	want := []string{"ref/shout from first", "echo/plain ran: " + reuse.ReasonChanged + "program",
		"echo/differs ran: " + reuse.ReasonChanged + "program", "coin/heads ran: " + reuse.ReasonUndecided}
	if got := reused(b); !slices.Equal(got, want) {
		t.Errorf("reuse %v, want %v", got, want)
	}
	if changed.ran["echo"] != 2 || changed.ran["upper"] != 1 || changed.prepared != 3 {
		t.Errorf("ran %v in %d attempts, want echo 2, upper 1 (the reference run), flip 4", changed.ran, changed.prepared)
	}
	if d := b.Programs[1].Cases[0].NotReused.Detail; !strings.Contains(d, "changed since the stored run") {
		t.Errorf("echo/plain's detail %q does not say the program changed", d)
	}
}

// TestReuseRunsATimeoutAgain: a stored run that timed out settled its case
// false, but whether a run ends in time depends on the machine's load,
// which its key does not hold: it runs again rather than carry one slow
// moment's verdict from report to report.
func TestReuseRunsATimeoutAgain(t *testing.T) {
	spec := testSpec[:strings.Index(testSpec, "programs:")] + `programs:
  - name: sleeper
    file: slow.txt
    profile: p
    cases:
      - {name: waits, expect: {stdout: {equals: ""}}}
`
	sp := loadSpec(t, spec, testFiles)
	path, a := runTo(t, sp, &scriptSandbox{}, "first")
	if c := a.Programs[0].Cases[0]; c.Verdict.String() != "false" || !strings.Contains(c.Reason, "timed out") {
		t.Fatalf("first run: %s (%s), want false by the timeout", c.Verdict, c.Reason)
	}
	sb := &scriptSandbox{}
	_, b := runTo(t, sp, sb, "second", path)
	if got, want := reused(b), []string{"sleeper/waits ran: " + reuse.ReasonTimedOut}; !slices.Equal(got, want) {
		t.Errorf("reuse %v, want %v", got, want)
	}
	if sb.ran["slow"] != 1 {
		t.Errorf("the timed-out case ran %d times, want once again", sb.ran["slow"])
	}
	if d := b.Programs[0].Cases[0].NotReused; d == nil || !strings.Contains(d.Detail, "the stored run timed out") {
		t.Errorf("not reused %+v: the detail does not say the stored run timed out", d)
	}
}

// buildSpec is a spec of one program with a build stage, file file.
func buildSpec(file string) string {
	return testSpec[:strings.Index(testSpec, "programs:")] + `  c: {image: ` + pin + `, command: ["/build/main"], timeout: 1s, memory: 16MiB,
      build: {command: ["cc", "-o", "/build/main"], timeout: 1s, memory: 16MiB}}
programs:
  - name: compiled
    file: ` + file + `
    profile: c
    cases:
      - {name: one, expect: {stdout: {equals: ""}}}
      - {name: two, args: ["2"], expect: {stdout: {equals: ""}}}
`
}

// TestReuseOfAFailedBuild: a case that never ran because its program did
// not compile is settled false by the build alone, whatever its input: it
// is reused while the program's part of the key holds (a changed case
// input too), and runs again when the build changes.
func TestReuseOfAFailedBuild(t *testing.T) {
	spec := buildSpec("badbuild.txt")
	path, a := runTo(t, loadSpec(t, spec, testFiles), &scriptSandbox{}, "first")
	if n, _ := a.Programs[0].BuildFailed(); n != 2 {
		t.Fatalf("first run: %d cases false by the build, want both", n)
	}
	for _, tc := range []struct {
		name, from, to, reason string
	}{
		{"unchanged", "", "", ""},
		{"other input", `args: ["2"]`, `args: ["3"], stdin: "x"`, ""},
		{"build command", `["cc", "-o"`, `["cc", "-O2", "-o"`, reuse.ReasonChanged + "build.command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(spec, tc.from, tc.to, 1)
			sb := &scriptSandbox{}
			_, b := runTo(t, loadSpec(t, edited, testFiles), sb, "second", path)
			for _, c := range b.Programs[0].Cases {
				switch {
				case tc.reason == "" && (c.ReusedFrom == nil || c.ReusedFrom.RunID != "first" || c.Verdict.String() != "false"):
					t.Errorf("%s: reused %v (%+v), %s; want reused from the first run, false", c.Name, c.ReusedFrom, c.NotReused, c.Verdict)
				case tc.reason != "" && (c.NotReused == nil || c.NotReused.Reason != tc.reason):
					t.Errorf("%s: not reused %+v, want it run for %q", c.Name, c.NotReused, tc.reason)
				}
			}
			if want := map[bool]int{true: 0, false: 1}[tc.reason == ""]; sb.builds != want {
				t.Errorf("built %d times, want %d", sb.builds, want)
			}
			if n, why := b.Programs[0].BuildFailed(); n != 2 || !strings.Contains(why, "exit 1") {
				t.Errorf("%d cases false by the build (%q), want both, by its exit 1", n, why)
			}
		})
	}
}

// TestReuseRunsATimedOutBuildAgain: a program whose build timed out is
// false on every case, but a build's time depends on the machine's load
// as a run's does: it is built again.
func TestReuseRunsATimedOutBuildAgain(t *testing.T) {
	spec := buildSpec("slowbuild.txt")
	sp := loadSpec(t, spec, testFiles)
	path, a := runTo(t, sp, &scriptSandbox{}, "first")
	if n, why := a.Programs[0].BuildFailed(); n != 2 || !strings.Contains(why, "timed out") {
		t.Fatalf("first run: %d cases false by the build (%q), want both, by its timeout", n, why)
	}
	sb := &scriptSandbox{}
	_, b := runTo(t, sp, sb, "second", path)
	want := []string{"compiled/one ran: " + reuse.ReasonTimedOut, "compiled/two ran: " + reuse.ReasonTimedOut}
	if got := reused(b); !slices.Equal(got, want) {
		t.Errorf("reuse %v, want %v", got, want)
	}
	if d := b.Programs[0].Cases[0].NotReused; d == nil || !strings.Contains(d.Detail, "the stored build timed out") {
		t.Errorf("not reused %+v: the detail does not say the stored build timed out", d)
	}
	if sb.prepared != 1 {
		t.Errorf("the program was prepared %d times, want once, to build it again", sb.prepared)
	}
}

// TestReuseRefusesAnotherEvidenceFormat: evidence recorded under another
// evidence format (a behaves whose sandbox runs programs otherwise), or
// under none (an earlier behaves), is never reused.
func TestReuseRefusesAnotherEvidenceFormat(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	path, _ := runTo(t, sp, &scriptSandbox{}, "first")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	current := fmt.Sprintf(`"evidence_format": %d,`, report.EvidenceFormat)
	for _, tc := range []struct{ format, reason string }{
		{fmt.Sprintf(`"evidence_format": %d,`, report.EvidenceFormat+1), reuse.ReasonChanged + "format"},
		{"", reuse.ReasonUnrecorded + "format"}, // the key left out, as an earlier behaves wrote it
	} {
		if bytes.Count(data, []byte(current)) != 3 {
			t.Fatalf("the report does not record %s for each of its 3 programs", current)
		}
		stored := filepath.Join(t.TempDir(), "stored.json")
		if err := os.WriteFile(stored, bytes.ReplaceAll(data, []byte(current), []byte(tc.format)), 0o644); err != nil {
			t.Fatal(err)
		}
		sb := &scriptSandbox{}
		_, b := runTo(t, sp, sb, "second", stored)
		for _, got := range reused(b)[:3] { // coin's undetermined case runs again anyway
			if !strings.HasSuffix(got, " ran: "+tc.reason) {
				t.Errorf("%q: %s, want it run for %q", tc.format, got, tc.reason)
			}
		}
		if sb.ran["echo"] != 2 {
			t.Errorf("%q: echo ran %d times, want both its cases again", tc.format, sb.ran["echo"])
		}
	}
}

func TestReuseJudgesStoredEvidenceAgainstTheNewExpectation(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	path, _ := runTo(t, sp, &scriptSandbox{}, "first")

	// echo/plain now expects something else; same program, same input:
	// it is judged again on the stored run, and is false.
	edited := strings.Replace(testSpec, `expect: {stdout: {equals: "same"}}`, `expect: {stdout: {equals: "other"}}`, 1)
	sb := &scriptSandbox{}
	_, b := runTo(t, loadSpec(t, edited, testFiles), sb, "second", path)
	if c := b.Programs[1].Cases[0]; c.ReusedFrom == nil || c.Verdict.String() != "false" {
		t.Errorf("echo/plain: reused %v, verdict %s; want reused and false", c.ReusedFrom, c.Verdict)
	}
	if sb.ran["echo"] != 0 {
		t.Errorf("echo ran %d times, want none", sb.ran["echo"])
	}
}

func TestReuseRefusesWhatTheKeyDoesNotHold(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	path, _ := runTo(t, sp, &scriptSandbox{}, "first")
	for _, tc := range []struct {
		name, from, to, reason string
	}{
		{"stdin", `stdin: "same"`, `stdin: "Same"`, reuse.ReasonChanged + "stdin"},
		{"new case", `{name: plain, stdin: "same"`, `{name: new, stdin: "Same"`, reuse.ReasonNoStoredRun},
		// A case renamed on the same input is the same invocation.
		{"renamed", `{name: plain, stdin: "same"`, `{name: renamed, stdin: "same"`, ""},
		{"limits", `timeout: 1s`, `timeout: 2s`, reuse.ReasonChanged + "limits.timeout_ms"},
		{"env", `memory: 16MiB}`, `memory: 16MiB, env: {A: "1"}}`, reuse.ReasonChanged + "env"},
		{"repeat", `{name: plain, stdin: "same",`, `{name: plain, repeat: 2, stdin: "same",`, reuse.ReasonRepeat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(testSpec, tc.from, tc.to, 1)
			if edited == testSpec {
				t.Fatalf("%q is not in the spec", tc.from)
			}
			_, b := runTo(t, loadSpec(t, edited, testFiles), &scriptSandbox{}, "second", path)
			c := b.Programs[1].Cases[0]
			if tc.reason == "" {
				if c.ReusedFrom == nil {
					t.Errorf("echo/%s ran (%+v), want it reused", c.Name, c.NotReused)
				}
				return
			}
			if c.ReusedFrom != nil || c.NotReused == nil || c.NotReused.Reason != tc.reason {
				t.Errorf("echo/plain: reused %v, not reused %+v; want it run for %q", c.ReusedFrom, c.NotReused, tc.reason)
			}
		})
	}
}

// TestReuseOfEverythingNeedsNoSandbox: when stored evidence answers every
// case, nothing runs, so a sandbox that could not be had fails nothing.
func TestReuseOfEverythingNeedsNoSandbox(t *testing.T) {
	spec := testSpec[:strings.Index(testSpec, "  - name: coin")]
	sp := loadSpec(t, spec, testFiles)
	path, a := runTo(t, sp, &scriptSandbox{}, "first")
	store, err := reuse.Load([]string{path}, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	out := NewPlan(sp, Selection{}, 2).Run(t.Context(), nil, Options{RunID: "second", StartedAt: time.Now(), Cleanup: context.Background(),
		SandboxErr: errors.New("no daemon"), Reuse: store}, &recordSink{})
	if out.Err != nil || out.Report.Verdict != a.Verdict {
		t.Errorf("every case reused, no sandbox: error %v, verdict %s; want none and the first run's %s", out.Err, out.Report.Verdict, a.Verdict)
	}
}

// TestReusePerShard: each shard reuses what the whole run's report holds of
// its programs, and the merge of the shards keeps every mark.
func TestReusePerShard(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	path, _ := runTo(t, sp, &scriptSandbox{}, "first")
	var in []reportmerge.Input
	ran := map[string]int{}
	for i := 1; i <= 2; i++ {
		sb := &scriptSandbox{}
		_, r := runPlanTo(t, NewPlan(sp, Selection{Shard: &shard.Ref{Index: i, Count: 2}}, 2), sb, fmt.Sprintf("shard%d", i), path)
		in = append(in, reportmerge.Input{Path: fmt.Sprintf("shard-%d.json", i), Report: r})
		for k, n := range sb.ran {
			ran[k] += n
		}
	}
	if len(ran) != 1 || ran["flip"] != 4 {
		t.Errorf("the shards ran %v, want only coin's 4 runs (undetermined before)", ran)
	}
	merged, err := reportmerge.Merge(in, reportmerge.Options{RunID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ref/shout from first", "echo/plain from first", "echo/differs from first", "coin/heads ran: " + reuse.ReasonUndecided}
	if got := reused(merged); !slices.Equal(got, want) {
		t.Errorf("merged reuse %v, want %v", got, want)
	}
	if merged.Reuse == nil || merged.Reuse.Reused != 3 || len(merged.Reuse.Sources) != 1 {
		t.Errorf("merged reuse block %+v, want 3 reused from one source", merged.Reuse)
	}
}
