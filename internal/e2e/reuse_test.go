package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reuse"
)

// TestReuse runs a spec on the real daemon, then again with --reuse of its
// report, and reads the engine's own event log for the containers each
// rerun made: none for the unchanged spec (same verdicts), the changed
// program's only when one program changes, none when only an expectation
// changes (new verdict), and the undetermined case's again.
func TestReuse(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	spec := func(plainWant, extra string) string {
		return fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %q
    command: ["/bin/sh"]
    timeout: 20s
    output_limit: 16B
programs:
  - name: ref
    file: ref.sh
    profile: sh
    cases:
      - {name: upper, stdin: "a b\n", expect: {stdout: {equals: "A B"}}}
  - name: cand
    file: cand.sh
    profile: sh
    reference: ref
    cases:
      - {name: plain, args: ["x"], expect: {stdout: {equals: %q}}}
      - {name: same, stdin: "q r\n", expect: {same_as: reference}}
%s`, img.busybox, plainWant, extra)
	}
	// long prints past output_limit, and what its expectation looks for
	// may be in the part cut off: undetermined, never settled.
	const long = `  - name: long
    file: long.sh
    profile: sh
    cases:
      - {name: cut, expect: {stdout: {contains: "y"}}}
`
	files := map[string]string{
		"ref.sh":  "tr a-z A-Z\n",
		"cand.sh": "if [ -n \"$1\" ]; then echo \"$1\"; else tr a-z A-Z; fi\n",
		"long.sh": "i=0; while [ $i -lt 100 ]; do echo xxxxxxxx; i=$((i+1)); done\n",
	}
	first := runBehaves(t, context.Background(), spec("x", ""), files)
	if first.code != 0 {
		t.Fatalf("first run: exit %d, want 0\n%s", first.code, indent(first.stderr))
	}
	stored := saveReport(t, first)

	// Unchanged: nothing runs, the verdicts are the first run's.
	again := reuseRun(t, cl, spec("x", ""), files, stored)
	if again.containers != 0 || again.code != 0 {
		t.Errorf("unchanged spec with --reuse: exit %d, %d containers; want 0 and none\n%s", again.code, again.containers, indent(again.stderr))
	}
	if got, want := caseVerdicts(again.report), caseVerdicts(first.report); !slices.Equal(got, want) {
		t.Errorf("verdicts %v, want the first run's %v", got, want)
	}
	for _, p := range again.report.Programs {
		for _, c := range p.Cases {
			if c.ReusedFrom == nil || c.ReusedFrom.RunID != first.report.RunID {
				t.Errorf("%s/%s: reused_from %+v, want the first run %s (not reused: %+v)", p.Name, c.Name, c.ReusedFrom, first.report.RunID, c.NotReused)
			}
		}
	}
	if r := again.report.Reuse; r == nil || r.Reused != 3 || r.Ran != 0 {
		t.Errorf("reuse block %+v, want 3 reused and none run", r)
	}
	if !strings.Contains(again.stdout, "reused") {
		t.Errorf("the terminal summary does not say what was reused:\n%s", indent(again.stdout))
	}

	// The report being reused is the one the run writes over: it is read
	// first. A report that is not there is a usage error naming it.
	dir := writeTree(t, maps.Clone(files))
	if err := os.WriteFile(filepath.Join(dir, "behaves.yml"), []byte(spec("x", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(dir, "behaves-report.json")
	if b, err := os.ReadFile(stored); err != nil || os.WriteFile(same, b, 0o644) != nil {
		t.Fatal(err)
	}
	runHere := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := cli.Main(context.Background(), append([]string{"run", "--spec", filepath.Join(dir, "behaves.yml"), "--report", same}, args...),
			cli.Env{Stdout: &out, Stderr: &out, Getenv: os.Getenv, NewSandbox: cli.DockerSandbox(context.Background())})
		return code, out.String()
	}
	if code, out := runHere("--reuse", same); code != 0 {
		t.Errorf("--reuse of the report being replaced: exit %d, want 0\n%s", code, indent(out))
	} else if r, err := reportread.File(same, 64<<20); err != nil || r.Reuse == nil || r.Reuse.Reused != 3 {
		t.Errorf("the replaced report: %v, reuse %+v; want all 3 reused", err, r.Reuse)
	}
	missing := filepath.Join(dir, "missing.json")
	if code, out := runHere("--reuse", missing); code != 2 || !strings.Contains(out, missing) {
		t.Errorf("--reuse of a missing report: exit %d, want 2 naming it\n%s", code, indent(out))
	} else if r, err := reportread.File(same, 64<<20); err != nil || !strings.Contains(r.Error, "nothing ran") || len(r.Programs) != 0 {
		t.Errorf("after a refused --reuse the report is %v / %q with %d programs; want one that says nothing ran", err, r.Error, len(r.Programs))
	}

	// One program changed: only its containers. Each attempt makes one
	// container that fills its program volume, then one per invocation:
	// cand's attempt (1 + its 2 cases) and the reference job of ref that
	// its same_as case is compared with (1 + 1 run).
	changed := maps.Clone(files)
	changed["cand.sh"] = "# v2\n" + files["cand.sh"]
	one := reuseRun(t, cl, spec("x", ""), changed, stored)
	if one.containers != 5 {
		t.Errorf("one program changed: %d containers, want 5 (cand's attempt of two cases, ref's reference run of cand/same's input)", one.containers)
	}
	for _, p := range one.report.Programs {
		for _, c := range p.Cases {
			if reusedNow := c.ReusedFrom != nil; reusedNow != (p.Name == "ref") {
				t.Errorf("%s/%s: reused %v (not reused: %+v); want only ref's reused", p.Name, c.Name, reusedNow, c.NotReused)
			}
			if p.Name == "cand" && (c.NotReused == nil || c.NotReused.Reason != reuse.ReasonChanged+"program") {
				t.Errorf("cand/%s ran for %+v, want %q", c.Name, c.NotReused, reuse.ReasonChanged+"program")
			}
		}
	}

	// One expectation changed: nothing runs, the stored run is judged
	// against the new expectation.
	edited := reuseRun(t, cl, spec("y", ""), files, stored)
	if edited.containers != 0 {
		t.Errorf("one expectation changed: %d containers, want none", edited.containers)
	}
	if c := edited.report.Programs[1].Cases[0]; c.Verdict.String() != "false" || c.ReusedFrom == nil {
		t.Errorf("cand/plain expecting y: %s, reused %+v; want false from the stored run", c.Verdict, c.ReusedFrom)
	}

	// An undetermined case is never reused: it runs each time.
	withLong := reuseRun(t, cl, spec("x", long), files, stored)
	if withLong.containers != 2 {
		t.Errorf("a new program: %d containers, want its 2 (its volume's, its case's)", withLong.containers)
	}
	if p := withLong.program(t, "long"); p.Cases[0].Verdict.String() != "undetermined" || p.Cases[0].NotReused == nil || p.Cases[0].NotReused.Reason != reuse.ReasonNoStoredRun {
		t.Fatalf("long/cut: %s, not reused %+v; want undetermined, with no stored run", p.Cases[0].Verdict, p.Cases[0].NotReused)
	}
	rerun := reuseRun(t, cl, spec("x", long), files, saveReport(t, withLong.outcome))
	if rerun.containers != 2 {
		t.Errorf("the undetermined case: %d containers, want its 2 again", rerun.containers)
	}
	if c := rerun.program(t, "long").Cases[0]; c.NotReused == nil || c.NotReused.Reason != reuse.ReasonUndecided {
		t.Errorf("long/cut ran for %+v, want %q", c.NotReused, reuse.ReasonUndecided)
	}
}

// reused is a run given stored reports, with the containers the engine
// logged under its run ID.
type reused struct {
	outcome
	containers int
}

// reuseRun runs the spec with --reuse of each stored report and counts the
// containers the daemon created with the run's label (watchCreates).
func reuseRun(t *testing.T, cl *client.Client, specText string, files map[string]string, stored ...string) reused {
	t.Helper()
	var args []string
	for _, s := range stored {
		args = append(args, "--reuse", s)
	}
	creates := watchCreates(t, cl)
	o := runBehaves(t, context.Background(), specText, maps.Clone(files), args...)
	return reused{outcome: o, containers: len(creates()[o.report.RunID])}
}

// saveReport writes a run's report to a file, as the run wrote it, and
// returns its path.
func saveReport(t *testing.T, o outcome) string {
	t.Helper()
	b, err := json.Marshal(o.report)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stored.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reportread.File(path, 64<<20); err != nil {
		t.Fatalf("the stored report does not read back: %v", err)
	}
	return path
}

func caseVerdicts(r report.Report) []string {
	var out []string
	for _, p := range r.Programs {
		for _, c := range p.Cases {
			out = append(out, p.Name+"/"+c.Name+"="+c.Verdict.String())
		}
	}
	return out
}

// TestReuseOfARegistryDigestIsTheImageRunHere: a profile pinned by
// registry digest (which may name an index, one image per platform) is
// resolved on the run's own engine: a stored run of the image this engine
// runs for the pin is reused; one that recorded another image for the
// same pin (as a run on another platform records) runs again, saying why.
func TestReuseOfARegistryDigestIsTheImageRunHere(t *testing.T) {
	t.Parallel()
	ref := dockertest.RegistryDigest(t)
	cl := dockertest.Client(t)
	specText := fmt.Sprintf(`version: 1
profiles:
  sh: {image: %q, command: ["/bin/sh"], timeout: 20s}
programs:
  - name: hi
    file: hi.sh
    profile: sh
    cases:
      - {name: says, expect: {stdout: {equals: "hi"}}}
`, ref)
	files := map[string]string{"hi.sh": "echo hi\n"}
	first := runBehaves(t, context.Background(), specText, files)
	if first.code != 0 {
		t.Fatalf("first run: exit %d\n%s", first.code, indent(first.stderr))
	}
	again := reuseRun(t, cl, specText, files, saveReport(t, first))
	if c := again.report.Programs[0].Cases[0]; c.ReusedFrom == nil || again.containers != 0 {
		t.Errorf("the same image for the pin: reused %+v (%+v), %d containers; want it reused, none made", c.ReusedFrom, c.NotReused, again.containers)
	}

	// The same pin, another image: as a report made on another platform.
	other := first
	other.report.Programs = slices.Clone(first.report.Programs)
	p := &other.report.Programs[0]
	p.Cases = slices.Clone(p.Cases)
	elsewhere := "sha256:" + strings.Repeat("f", 64)
	p.Settings.ImageID = elsewhere
	p.Cases[0].Event.ImageDigest = elsewhere
	ran := reuseRun(t, cl, specText, files, saveReport(t, other))
	c := ran.report.Programs[0].Cases[0]
	if c.ReusedFrom != nil || c.NotReused == nil || c.NotReused.Reason != reuse.ReasonChanged+"image" || !strings.Contains(c.NotReused.Detail, "on this engine") {
		t.Errorf("another image for the pin: reused %+v, not reused %+v; want it run for %q, naming this engine's image", c.ReusedFrom, c.NotReused, reuse.ReasonChanged+"image")
	}
	if c.Verdict.String() != "true" {
		t.Errorf("run again: %s, want true", c.Verdict)
	}
}
