package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// shardSuite is a small suite of every verdict on busybox: a reference
// program, a files: entry of four samples (two true, one false, one
// undetermined: its output is cut before what contains looks for), and a
// program that times out.
func shardSuite(busybox string) (string, map[string]string) {
	spec := fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %q
    command: ["/bin/sh"]
    timeout: 3s
    output_limit: 1KiB
programs:
  - name: reference
    file: ref.sh
    profile: sh
    cases:
      - {name: one, args: ["1"], expect: {stdout: {equals: "2"}}}
      - {name: two, args: ["2"], expect: {stdout: {equals: "4"}}}
      - {name: three, args: ["3"], expect: {stdout: {equals: "6"}}}
  - name: double
    files: "samples/*.sh"
    profile: sh
    cases:
      - {name: two, args: ["2"], expect: {stdout: {contains: "4"}}}
      - {name: five, args: ["5"], expect: {stdout: {contains: "10"}}}
  - name: sleeper
    file: sleep.sh
    profile: sh
    cases:
      - {name: forever, expect: {exit_code: 0}}
`, busybox)
	files := map[string]string{
		"ref.sh":             "echo $(($1 * 2))\n",
		"sleep.sh":           "sleep 60\n",
		"samples/a_right.sh": "echo $(($1 * 2))\n",
		"samples/b_right.sh": "echo $(($1 + $1))\n",
		"samples/c_wrong.sh": "echo $(($1 * $1))\n",
		"samples/d_flood.sh": "head -c 4096 /dev/zero | tr '\\0' x\necho $(($1 * 2))\n",
	}
	return spec, files
}

// mainIn runs cli.Main with the Docker sandbox and returns its exit code
// and stderr.
func mainIn(ctx context.Context, args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(ctx, args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" },
		NewSandbox: cli.DockerSandbox(context.Background())})
	return code, stderr.String()
}

// TestShardsMergeOnTheRealDaemon runs a suite whole and as 3 shards on the
// real daemon, merges the shards, and checks that the merged report has the
// unsharded run's verdicts (run, programs, cases, reasons) and groups; that
// each shard ran only its own programs and left nothing behind; and that
// a merge without a shard refuses, or with --allow-missing is undetermined.
func TestShardsMergeOnTheRealDaemon(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	spec, files := shardSuite(img.busybox)
	files["behaves.yml"] = spec
	dir := writeTree(t, files)
	specPath := filepath.Join(dir, "behaves.yml")
	out := t.TempDir()
	ctx := context.Background()

	read := func(path string) report.Report {
		t.Helper()
		r, err := readWritten(t, path, cli.DefaultMaxReadReport)
		if err != nil {
			t.Fatal(err)
		}
		dockertest.AssertNothingLeft(t, cl, r.RunID)
		return r
	}

	whole := filepath.Join(out, "whole.json")
	if code, stderr := mainIn(ctx, "run", "--spec", specPath, "--report", whole, "--pass-at", "1,2", "--parallel", "2"); code != cli.ExitFalse {
		t.Fatalf("unsharded run: exit %d, want 1\n%s", code, indent(stderr))
	}
	want := read(whole)

	shards := filepath.Join(out, "shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for i := 1; i <= 3; i++ {
		path := filepath.Join(shards, fmt.Sprintf("shard-%d.json", i))
		code, stderr := mainIn(ctx, "run", "--spec", specPath, "--report", path, "--shard", fmt.Sprintf("%d/3", i), "--parallel", "2")
		if code != cli.ExitTrue && code != cli.ExitFalse && code != cli.ExitUndetermined {
			t.Fatalf("shard %d/3: exit %d\n%s", i, code, indent(stderr))
		}
		r := read(path)
		if r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 3 || len(r.Shard.Programs) != len(want.Programs) {
			t.Fatalf("shard %d/3: shard block %+v", i, r.Shard)
		}
		cases := 0
		for _, p := range r.Programs {
			ran[p.ID]++
			cases += len(p.Cases)
		}
		t.Logf("shard %d/3: %d programs, %d cases", i, len(r.Programs), cases)
	}
	for _, p := range want.Programs {
		if ran[p.ID] != 1 {
			t.Errorf("program %s ran in %d shards, want 1", p.Name, ran[p.ID])
		}
	}

	merged := filepath.Join(out, "merged.json")
	if code, stderr := mainIn(ctx, "merge", "--report", merged, "--pass-at", "1,2", shards); code != cli.ExitFalse {
		t.Fatalf("merge: exit %d, want 1 (the unsharded run's)\n%s", code, indent(stderr))
	}
	got, err := readWritten(t, merged, cli.DefaultMaxReadReport)
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != want.Verdict || got.Counts != want.Counts {
		t.Errorf("merged %s %+v, unsharded %s %+v", got.Verdict, got.Counts, want.Verdict, want.Counts)
	}
	if !reflect.DeepEqual(got.Groups, want.Groups) {
		t.Errorf("merged groups %+v, unsharded %+v", got.Groups, want.Groups)
	}
	if len(got.Programs) != len(want.Programs) {
		t.Fatalf("merged %d programs, unsharded %d", len(got.Programs), len(want.Programs))
	}
	for i, w := range want.Programs {
		g := got.Programs[i]
		if g.ID != w.ID || g.Verdict != w.Verdict || g.Reason != w.Reason || len(g.Cases) != len(w.Cases) {
			t.Errorf("program %d: merged %s %s %q (%d cases), unsharded %s %s %q (%d cases)",
				i, g.Name, g.Verdict, g.Reason, len(g.Cases), w.Name, w.Verdict, w.Reason, len(w.Cases))
			continue
		}
		for k := range w.Cases {
			if g.Cases[k].Verdict != w.Cases[k].Verdict || g.Cases[k].Reason != w.Cases[k].Reason {
				t.Errorf("%s / %s: merged %s %q, unsharded %s %q", w.Name, w.Cases[k].Name,
					g.Cases[k].Verdict, g.Cases[k].Reason, w.Cases[k].Verdict, w.Cases[k].Reason)
			}
		}
	}
	// The suite has every verdict, so the comparison above means something.
	if want.Counts.Programs.True == 0 || want.Counts.Programs.False == 0 || want.Counts.Programs.Undetermined == 0 {
		t.Errorf("the unsharded run's counts %+v lack a verdict", want.Counts.Programs)
	}

	// Without shard 2: refused; with --allow-missing, its programs are
	// undetermined and named.
	lost := filepath.Join(out, "lost")
	if err := os.Mkdir(lost, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 3} {
		name := fmt.Sprintf("shard-%d.json", i)
		b, err := os.ReadFile(filepath.Join(shards, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lost, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, stderr := mainIn(ctx, "merge", "--report", filepath.Join(out, "m2.json"), lost); code != cli.ExitUsage || !strings.Contains(stderr, "shard 2/3 missing") {
		t.Errorf("merge without shard 2: exit %d, want 2 naming it\n%s", code, indent(stderr))
	}
	partial := filepath.Join(out, "partial.json")
	code, stderr := mainIn(ctx, "merge", "--report", partial, "--allow-missing", lost)
	if code != cli.ExitFalse && code != cli.ExitUndetermined {
		t.Fatalf("merge --allow-missing: exit %d\n%s", code, indent(stderr))
	}
	p, err := readWritten(t, partial, cli.DefaultMaxReadReport)
	if err != nil {
		t.Fatal(err)
	}
	if p.Verdict == verdict.True || len(p.Programs) != len(want.Programs) {
		t.Errorf("merge --allow-missing: %s with %d programs", p.Verdict, len(p.Programs))
	}
	for _, prog := range p.Programs {
		if prog.Reason == "shard 2/3 missing" && prog.Verdict != verdict.Undetermined {
			t.Errorf("%s: %s, want undetermined", prog.Name, prog.Verdict)
		}
	}
}
