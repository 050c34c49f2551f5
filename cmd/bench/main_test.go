package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/bench"
	"github.com/behaves-dev/behaves/internal/dockertest"
)

// TestShortBench runs the short mode against the real daemon and checks
// that the JSON holds every figure, measured, and that nothing is left.
func TestShortBench(t *testing.T) {
	cl := dockertest.Client(t)
	shell := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	python := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	for _, tool := range []string{"docker", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			if dockertest.Required() {
				t.Fatalf("BEHAVES_REQUIRE_DOCKER=1: %s not found: %v", tool, err)
			}
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	// (7) comes from an earlier -memory run: a tiny one here.
	memPath := filepath.Join(t.TempDir(), "memory.json")
	var stdout, stderr bytes.Buffer
	if code := realMain(t.Context(), []string{"-memory", "3", "-json", memPath, "-image-shell", shell, "-image-python", python}, &stdout, &stderr); code != 0 {
		t.Fatalf("-memory 3: exit %d\nstderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "peak RSS within its bound") {
		t.Errorf("-memory 3 printed no verdict on its bound:\n%s", stdout.String())
	}
	// The reuse scenario, tiny: one program changed of 3 reruns 1.
	reusePath := filepath.Join(t.TempDir(), "reuse.json")
	stdout.Reset()
	stderr.Reset()
	if code := realMain(t.Context(), []string{"-reuse", "3", "-programs", "2", "-cases", "2", "-reuse-big", "4", "-json", reusePath,
		"-image-shell", shell, "-image-python", python}, &stdout, &stderr); code != 0 {
		t.Fatalf("-reuse 3: exit %d\nstderr:\n%s", code, stderr.String())
	}
	var ru bench.ReuseResult
	if b, err := os.ReadFile(reusePath); err != nil || json.Unmarshal(b, &ru) != nil {
		t.Fatalf("-reuse 3 wrote no results: %v", err)
	}
	if ru.Eval.Reused != 2 || ru.Eval.Ran != 1 || ru.Eval.Containers != ru.AloneContainers || ru.AloneContainers == 0 ||
		ru.Suite.Reused != 4 || ru.Suite.Ran != 0 || ru.Suite.Containers != 0 || ru.Big.ReportBytes == 0 {
		t.Errorf("-reuse 3: %+v; want 2 reused and the changed program's containers only, then the unchanged suite all reused with none\n%s", ru, stdout.String())
	}
	// The folders scenario, tiny: 3 folder programs, a folder of 20 files.
	foldersPath := filepath.Join(t.TempDir(), "folders.json")
	stdout.Reset()
	stderr.Reset()
	if code := realMain(t.Context(), []string{"-folders", "3", "-folder-size", "64KiB", "-folder-files", "20", "-reps", "2", "-json", foldersPath,
		"-image-shell", shell, "-image-python", python}, &stdout, &stderr); code != 0 {
		t.Fatalf("-folders 3: exit %d\nstderr:\n%s", code, stderr.String())
	}
	var fr bench.FoldersResult
	if b, err := os.ReadFile(foldersPath); err != nil || json.Unmarshal(b, &fr) != nil {
		t.Fatalf("-folders 3 wrote no results: %v", err)
	}
	if m, d := fr.Memory, fr.Delivery; m.Counts.True != 3 || m.Volumes != 3 || m.PeakRSSKiB == 0 || d.Files != 20 || d.Bytes != 64<<10 ||
		len(d.FolderMS.Values) != 2 || len(d.CaseRatio.Values) != 2 || d.ExtractMS.Median <= 0 || d.ArchiveMS.Median <= 0 || d.RunMS <= 0 {
		t.Errorf("-folders 3: %+v; want 3 true cases in 3 program volumes, a 20-file folder of 64 KiB, every figure measured twice\n%s", fr, stdout.String())
	}
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	stdout.Reset()
	stderr.Reset()
	code := realMain(t.Context(), []string{"-short", "-json", jsonPath, "-memory-from", memPath, "-image-shell", shell, "-image-python", python}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	t.Logf("go run ./cmd/bench -short:\n%s", stdout.String())
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var res bench.Results
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("decoding the JSON: %v", err)
	}
	for _, id := range append([]string{res.BenchRunID}, res.BehavesRunIDs...) {
		dockertest.AssertNothingLeft(t, cl, id)
	}
	// The suite, the one scaling point that is not the suite, the
	// one-case suite, the eval suite, the sample at --parallel 1, the
	// sample at each parallelism of the table, the flood.
	if want := 6 + len(res.Config.Parallels); len(res.BehavesRunIDs) != want {
		t.Errorf("%d behaves runs, want %d: %v", len(res.BehavesRunIDs), want, res.BehavesRunIDs)
	}

	// Every key of the full schema is present...
	var got any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	full := bench.Results{Figures: bench.EmptyFigures(), Targets: []bench.Target{{}}}
	full.Figures.Scaling = []bench.ScalePoint{{}}
	full.Figures.Parallelism = []bench.ParallelPoint{{}}
	full.Figures.Ablation = []bench.AblationFigure{{}}
	full.Figures.Floods = []bench.FloodFigure{{}}
	full.Figures.Memory.Result = &bench.MemoryResult{}
	want, _ := json.Marshal(full)
	var wantTree any
	_ = json.Unmarshal(want, &wantTree)
	gotKeys, wantKeys := map[string]bool{}, map[string]bool{}
	keyPaths(got, "", gotKeys)
	keyPaths(wantTree, "", wantKeys)
	var missing []string
	for k := range wantKeys {
		if !gotKeys[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the JSON lacks %v", missing)
	}
	// ... and every figure was measured.
	var empty []string
	statPaths(got, "", &empty)
	if len(empty) > 0 {
		t.Errorf("figures without values: %v", empty)
	}
	wantTargets := []string{"suite_vs_floor", "suite_1_vs_floor", "suite_vs_docker_run", "wide_vs_floor", "serial_vs_floor", "scaling_2n_vs_n",
		"flood_rss_1048576", "memory_rss_vs_bound", "memory_report_vs_bound", "eval_vs_floor"}
	if n := res.Config.BehavesNetwork; n != bench.NetworkSkipped && n != bench.NetworkSandbox {
		t.Errorf("behaves' network %q, want %q or %q", n, bench.NetworkSkipped, bench.NetworkSandbox)
	}
	if !slices.Contains(res.Config.Parallels, res.Config.DefaultParallel) {
		t.Errorf("the parallelism table %v lacks behaves' default %d", res.Config.Parallels, res.Config.DefaultParallel)
	}
	if d := res.Config.DefaultParallel; d != res.Config.Parallel {
		wantTargets = append(wantTargets, "default_parallel_vs_floor")
	}
	var gotTargets []string
	for _, tg := range res.Targets {
		gotTargets = append(gotTargets, tg.ID)
	}
	slices.Sort(wantTargets)
	slices.Sort(gotTargets)
	if !slices.Equal(gotTargets, wantTargets) {
		t.Errorf("targets %v, want %v", gotTargets, wantTargets)
	}
	if n := len(res.Figures.Ablation); n != len(bench.AblationNames()) {
		t.Errorf("%d settings' costs, want %d", n, len(bench.AblationNames()))
	}
	for _, tg := range res.Targets {
		if len(tg.Value.Values) == 0 || tg.Value.Median <= 0 {
			t.Errorf("target %s has no value: %+v", tg.ID, tg.Value)
		}
	}
	if len(res.Figures.Floods) != 1 || res.Figures.Floods[0].StdoutBytes != 1<<20 {
		t.Errorf("the floods %+v, want one that drained %d bytes", res.Figures.Floods, 1<<20)
	}
	for _, s := range []string{"(1) behaves run", "(2) docker run", "(3) floor", "(3) old floor (network sandbox)", "(4) behaves run --parallel 1",
		"(5) behaves run", "(6) behaves run", "(8) behaves run, eval", "(7) the memory scenario", "what each setting costs", "parallelism:", "targets", "PASS"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, stdout.String())
		}
	}
}

// keyPaths collects the key paths of a decoded JSON tree ("[]" for list
// elements).
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := prefix + "." + k
			out[p] = true
			keyPaths(c, p, out)
		}
	case []any:
		for _, c := range x {
			keyPaths(c, prefix+"[]", out)
		}
	}
}

// statPaths lists the Stats (objects with "values") that have no value.
func statPaths(v any, prefix string, empty *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if vals, ok := x["values"].([]any); ok && len(vals) == 0 {
			*empty = append(*empty, prefix)
		}
		for k, c := range x {
			statPaths(c, prefix+"."+k, empty)
		}
	case []any:
		for i, c := range x {
			statPaths(c, prefix+"["+strconv.Itoa(i)+"]", empty)
		}
	}
}
