package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// shardSpec is five programs, of 3, 2, 1, 1 and 1 cases; every event the
// recording sandbox gives exits 0 with no output, so "quiet" programs are
// true and "loud" ones (expecting output) false.
func shardSpec(t *testing.T, extra string) string {
	t.Helper()
	return writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: a, file: a.sh, profile: sh, cases: [{name: c1}, {name: c2}, {name: c3}]}
  - {name: b, file: b.sh, profile: sh, cases: [{name: c1}, {name: c2, expect: {stdout: {equals: "loud"}}}]}
  - {name: s, files: "s*.sh", profile: sh, cases: [{name: c1}]}
` + extra,
		"a.sh": "a\n", "b.sh": "b\n", "s1.sh": "s1\n", "s2.sh": "s2\n", "s3.sh": "s3\n",
	})
}

func okSandbox() (*recordingSandbox, func(context.Context, string) (runner.Sandbox, io.Closer, error)) {
	sb := &recordingSandbox{ev: runner.Event{ExitCode: new(int), Command: []string{"/bin/sh"}}}
	return sb, func(context.Context, string) (runner.Sandbox, io.Closer, error) { return sb, io.NopCloser(nil), nil }
}

// runShards runs the spec as n shards into dir/shard-i.json.
func runShards(t *testing.T, specPath, dir string, n int) []*recordingSandbox {
	t.Helper()
	var sbs []*recordingSandbox
	for i := 1; i <= n; i++ {
		sb, f := okSandbox()
		sbs = append(sbs, sb)
		out := filepath.Join(dir, "shard-"+string(rune('0'+i))+".json")
		r := runMain(t, context.Background(), f, "run", "--spec", specPath, "--report", out, "--shard", string(rune('0'+i))+"/"+string(rune('0'+n)))
		if r.code != ExitTrue && r.code != ExitFalse {
			t.Fatalf("shard %d/%d exit %d: %s", i, n, r.code, r.stderr)
		}
	}
	return sbs
}

func verdicts(t *testing.T, path string) map[string]string {
	t.Helper()
	r, err := reporttest.ReadFile(t, path, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, p := range r.Programs {
		m[p.Name] = p.Verdict.String()
	}
	return m
}

func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	t.Parallel()
	specPath := shardSpec(t, "")
	dir := t.TempDir()
	sbs := runShards(t, specPath, dir, 3)
	// Each program file reached exactly one shard's sandbox.
	for _, file := range []string{"a\n", "b\n", "s1\n", "s2\n", "s3\n"} {
		n := 0
		for _, sb := range sbs {
			for _, s := range sb.seen {
				if s == file {
					n++
					break
				}
			}
		}
		if n != 1 {
			t.Errorf("program %q ran in %d shards, want 1", file, n)
		}
	}
	_, f := okSandbox()
	whole := filepath.Join(t.TempDir(), "whole.json")
	if r := runMain(t, context.Background(), f, "run", "--spec", specPath, "--report", whole); r.code != ExitFalse {
		t.Fatalf("unsharded run exit %d: %s", r.code, r.stderr)
	}
	merged := filepath.Join(t.TempDir(), "merged.json")
	r := runMain(t, context.Background(), nil, "merge", "--report", merged, "--pass-at", "1,2", dir+"/shard-1.json", dir+"/shard-2.json", dir+"/shard-3.json")
	if r.code != ExitFalse {
		t.Fatalf("merge exit %d, want 1 (b is false): %s", r.code, r.stderr)
	}
	got, want := verdicts(t, merged), verdicts(t, whole)
	if len(got) != 5 || len(got) != len(want) {
		t.Fatalf("merged %v, unsharded %v", got, want)
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: merged %s, unsharded %s", name, got[name], v)
		}
	}
	rep, _ := reporttest.ReadFile(t, merged, 1<<30)
	if len(rep.Groups) != 1 || rep.Groups[0].N != 3 || len(rep.Groups[0].PassAt) != 2 {
		t.Errorf("groups %+v, want one of 3 samples with pass@1 and pass@2", rep.Groups)
	}
	// A folder stands for the reports under it, the merged report's own
	// path left out (a second merge into the folder reads the shards only).
	into := filepath.Join(dir, "merged.json")
	for range 2 {
		if r := runMain(t, context.Background(), nil, "merge", "--report", into, dir); r.code != ExitFalse {
			t.Errorf("merge of the folder: exit %d: %s", r.code, r.stderr)
		}
	}
}

func TestMergeRefusals(t *testing.T) {
	t.Parallel()
	specPath := shardSpec(t, "")
	dir := t.TempDir()
	runShards(t, specPath, dir, 3)
	s1, s2, s3 := filepath.Join(dir, "shard-1.json"), filepath.Join(dir, "shard-2.json"), filepath.Join(dir, "shard-3.json")

	copyOf := filepath.Join(t.TempDir(), "copy.json")
	b, _ := os.ReadFile(s2)
	if err := os.WriteFile(copyOf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), `"verdict": "false"`, `"verdict": "true"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Shard 2 of an edited spec: another digest.
	otherDir := t.TempDir()
	runShards(t, shardSpec(t, "# edited\n"), otherDir, 3)

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"overlap", []string{s1, s2, s3, copyOf}, "overlap: both are shard 2/3"},
		{"digest", []string{s1, filepath.Join(otherDir, "shard-2.json"), s3}, "different specs"},
		{"invalid", []string{s1, bad, s3}, "refusing to merge: reading report"},
		{"missing", []string{s1, s3}, "shard 2/3 missing"},
		{"flag after files", []string{s1, s2, s3, "--allow-missing"}, "flags come before the files"},
		{"no files", nil, "name the shard reports"},
		{"pass-at", []string{"--pass-at", "0", s1}, "--pass-at"},
	} {
		out := filepath.Join(t.TempDir(), "m.json")
		r := runMain(t, context.Background(), nil, append([]string{"merge", "--report", out}, tt.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tt.name, r.code, r.stderr, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a refused merge wrote a report", tt.name)
		}
	}
}

// TestMergeAllowMissingCLI: with --allow-missing the missing shard's
// programs are undetermined and named, and a merge of only true programs
// still exits 3, never 0.
func TestMergeAllowMissingCLI(t *testing.T) {
	t.Parallel()
	specPath := shardSpec(t, "")
	dir := t.TempDir()
	runShards(t, specPath, dir, 3)
	// Find the shards without b (the only false program).
	var keep []string
	missing := ""
	for i := 1; i <= 3; i++ {
		p := filepath.Join(dir, "shard-"+string(rune('0'+i))+".json")
		if _, ok := verdicts(t, p)["b"]; ok {
			missing = string(rune('0' + i))
			continue
		}
		keep = append(keep, p)
	}
	merged := filepath.Join(t.TempDir(), "merged.json")
	r := runMain(t, context.Background(), nil, append([]string{"merge", "--report", merged, "--allow-missing"}, keep...)...)
	if r.code != ExitUndetermined {
		t.Fatalf("exit %d, want 3: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "shard "+missing+"/3 missing") {
		t.Errorf("stderr %q does not name the missing shard", r.stderr)
	}
	rep, err := reporttest.ReadFile(t, merged, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verdict.Undetermined || len(rep.Programs) != 5 {
		t.Fatalf("merged %s with %d programs", rep.Verdict, len(rep.Programs))
	}
	for _, p := range rep.Programs {
		if p.Name == "b" && (p.Verdict != verdict.Undetermined || p.Reason != "shard "+missing+"/3 missing") {
			t.Errorf("b: %s %q", p.Verdict, p.Reason)
		}
	}
	// A missing shard is never a pass: --fail-on false, which lets other
	// undetermined results through, does not let this one.
	if r := runMain(t, context.Background(), nil, append([]string{"merge", "--report", merged, "--allow-missing", "--fail-on", "false"}, keep...)...); r.code != ExitUndetermined {
		t.Errorf("--fail-on false: exit %d, want %d", r.code, ExitUndetermined)
	}
}

func TestRunShardFlag(t *testing.T) {
	t.Parallel()
	specPath := shardSpec(t, "")
	for _, bad := range []string{"0/3", "4/3", "x", "1/300"} {
		r := runMain(t, context.Background(), nil, "run", "--spec", specPath, "--report", filepath.Join(t.TempDir(), "r.json"), "--shard", bad)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "-shard") {
			t.Errorf("--shard %s: exit %d %q", bad, r.code, r.stderr)
		}
	}
	// Six shards of five programs: one is empty, and true.
	dir := t.TempDir()
	total := 0
	for i := 1; i <= 6; i++ {
		_, f := okSandbox()
		out := filepath.Join(dir, "r.json")
		r := runMain(t, context.Background(), f, "run", "--spec", specPath, "--report", out, "--shard", string(rune('0'+i))+"/6")
		rep, err := reporttest.ReadFile(t, out, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		total += len(rep.Programs)
		if len(rep.Programs) == 0 && r.code != ExitTrue {
			t.Errorf("empty shard %d/6: exit %d", i, r.code)
		}
		if rep.Shard == nil || rep.Shard.Index != i || rep.Shard.Count != 6 || len(rep.Shard.Programs) != 5 {
			t.Errorf("shard %d/6: shard block %+v", i, rep.Shard)
		}
	}
	if total != 5 {
		t.Errorf("six shards hold %d programs, want 5", total)
	}
}
