package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/spec"
)

const (
	fakeShell  = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	fakePython = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
)

// TestGeneratedSpecLoads checks that behaves reads the generated spec as the
// bench means it: the same programs, invocations and profile values that the
// floor and the docker run loop apply.
func TestGeneratedSpecLoads(t *testing.T) {
	t.Parallel()
	ps := newProfiles(fakeShell, fakePython, 2<<30)
	s := newSuite("suite", 4, 3)
	specPath, err := s.write(t.TempDir(), ps)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Load(specPath, spec.Options{})
	if err != nil {
		t.Fatalf("spec.Load: %v", err)
	}
	if len(sp.Programs) != len(s.programs) {
		t.Fatalf("%d programs, want %d", len(sp.Programs), len(s.programs))
	}
	for i, p := range s.programs {
		job := sp.Job(sp.Programs[i])
		if got := path.Base(job.Program.Entry); got != p.file {
			t.Errorf("program %d: entry %q, want %q", i, got, p.file)
		}
		if !bytes.Equal(job.Program.Files[job.Program.Entry], p.source) {
			t.Errorf("program %d: the file's bytes differ", i)
		}
		want := ps.of(p.kind)
		got := job.Profile
		if got.Image != want.image || !slices.Equal(got.Command, want.command) || got.Timeout != want.timeout ||
			got.Memory != want.memory || got.CPUs != want.cpus || got.Pids != want.pids ||
			got.OutputLimit != want.outputLimit || got.OutputCeiling != want.outputCeiling ||
			got.User != want.user || !maps.Equal(got.Tmpfs, want.tmpfs) || len(got.Env) != 0 || got.Runtime != "" ||
			(got.ProgramName != "" && got.ProgramName != p.file) {
			t.Errorf("program %d: behaves' profile %+v differs from the bench's %+v", i, got, want)
		}
		if len(job.Invocations) != len(p.cases) {
			t.Fatalf("program %d: %d invocations, want %d", i, len(job.Invocations), len(p.cases))
		}
		for c, inv := range p.cases {
			got := job.Invocations[c]
			if !slices.Equal(got.Args, inv.args) || string(got.Stdin) != inv.stdin {
				t.Errorf("program %d case %d: args %q stdin %q, want %q %q", i, c, got.Args, got.Stdin, inv.args, inv.stdin)
			}
		}
	}

	floodPath, err := writeFloodSpec(t.TempDir(), ps, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	fsp, err := spec.Load(floodPath, spec.Options{Ceilings: spec.Ceilings{MaxOutput: 2 << 30}})
	if err != nil {
		t.Fatalf("spec.Load (flood): %v", err)
	}
	if got := fsp.Job(fsp.Programs[0]).Profile.OutputCeiling; got != 2<<30 {
		t.Errorf("flood output ceiling %d, want %d", got, 2<<30)
	}
}

func TestSuites(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s     suite
		shape string
		n     int
	}{
		{newSuite("a", 20, 10), "20×10", 200},
		{newSuite("b", 200, 1), "200×1", 200},
		{newSuiteN("c", 50, 5), "10×5", 50},
		{newSuiteN("d", 25, 10), "2×10+1×5", 25},
	} {
		if got := tc.s.shape(); got != tc.shape {
			t.Errorf("%s: shape %q, want %q", tc.s.name, got, tc.shape)
		}
		if got := tc.s.size(); got != tc.n || len(tc.s.invocations()) != tc.n {
			t.Errorf("%s: size %d, want %d", tc.s.name, got, tc.n)
		}
	}
	// A sample is a subset of the suite: the same program bytes and cases.
	big, sample := newSuite("a", 20, 10), newSuiteN("s", 50, 5)
	for i, p := range sample.programs {
		if !bytes.Equal(p.source, big.programs[i].source) || p.kind != kind(i%2) {
			t.Errorf("sample program %d differs from the suite's", i)
		}
		for c := range p.cases {
			if p.cases[c].want != big.programs[i].cases[c].want {
				t.Errorf("sample program %d case %d differs from the suite's", i, c)
			}
		}
	}
}

// TestDockerRunArgs checks that the docker run loop gets every hardening
// setting of the container configuration.
func TestDockerRunArgs(t *testing.T) {
	t.Parallel()
	ps := newProfiles(fakeShell, fakePython, 4<<20)
	p := newProgram(1, 1)
	cfg, hc := containerConfig(ps.of(p.kind), imageInfo{ID: fakePython, Volumes: []string{"/data"}}, "vol1", p.file, p.cases[0], map[string]string{"behaves.role": "cli"})
	got := strings.Join(dockerRunArgs("c1", cfg, hc), " ")
	for _, want := range []string{
		"run --rm -i --name c1 ",
		"--hostname behaves ", "--user 65534:65534 ", "--workdir /program ",
		"--network none ", "--ipc private ", "--shm-size 67108864 ", "--log-driver none ",
		"--memory 67108864 ", "--memory-swap 67108864 ", "--cpus 1 ", "--pids-limit 64 ",
		"--read-only ", "--init ", "--no-healthcheck ", "--cap-drop ALL ", "--security-opt no-new-privileges ",
		"--ulimit nofile=256:256 ", "--ulimit fsize=67108864:67108864 ", "--ulimit core=0:0 ",
		"--tmpfs /data:rw,nosuid,nodev,noexec,size=67108864 ",
		"--tmpfs /tmp:rw,nosuid,nodev,noexec,size=16777216 ",
		"--mount type=volume,src=vol1,dst=/program,readonly,volume-nocopy ",
		"--label behaves.role=cli ",
		"--entrypoint python3 " + fakePython + " -I /program/p001.py p001-c00",
	} {
		if !strings.Contains(got+" ", want) {
			t.Errorf("docker run args lack %q:\n%s", want, got)
		}
	}
}

func TestStat(t *testing.T) {
	t.Parallel()
	s := newStat(3, 1, 2)
	if s.Median != 2 || s.Min != 1 || s.Max != 3 || s.SpreadPct != 100 {
		t.Errorf("newStat(3, 1, 2) = %+v", s)
	}
	if s := newStat(4, 1, 2, 3); s.Median != 2.5 {
		t.Errorf("median of 1..4 = %v, want 2.5", s.Median)
	}
	if s := newStat(); s.Values == nil || s.Median != 0 {
		t.Errorf("newStat() = %+v, want empty values", s)
	}
	if r := pairedRatio(newStat(10, 30), newStat(5, 10)); !slices.Equal(r.Values, []float64{2, 3}) {
		t.Errorf("paired ratio %v, want [2 3]", r.Values)
	}
	if r := pairedRatio(newStat(10, 30), newStat(5)); !slices.Equal(r.Values, []float64{2, 6}) {
		t.Errorf("ratio over the median %v, want [2 6]", r.Values)
	}
}

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
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr bytes.Buffer
	code := realMain(t.Context(), []string{"-short", "-json", jsonPath, "-image-shell", shell, "-image-python", python}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	t.Logf("go run ./cmd/bench -short:\n%s", stdout.String())
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("decoding the JSON: %v", err)
	}
	for _, id := range append([]string{res.BenchRunID}, res.BehavesRunIDs...) {
		dockertest.AssertNothingLeft(t, cl, id)
	}
	// The suite, the sample at --parallel 1, the one-case suite, the one
	// scaling point that is not the suite, the flood.
	if len(res.BehavesRunIDs) != 5 {
		t.Errorf("%d behaves runs, want 5: %v", len(res.BehavesRunIDs), res.BehavesRunIDs)
	}

	// Every key of the full schema is present...
	var got any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	full := Results{Figures: emptyFigures(), Targets: []Target{{}}}
	full.Figures.Scaling = []ScalePoint{{}}
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
	if len(res.Targets) != 6 {
		t.Errorf("%d targets, want 6", len(res.Targets))
	}
	for _, tg := range res.Targets {
		if len(tg.Value.Values) == 0 || tg.Value.Median <= 0 {
			t.Errorf("target %s has no value: %+v", tg.ID, tg.Value)
		}
	}
	if res.Figures.Flood.StdoutBytes != 1<<20 {
		t.Errorf("the flood drained %d bytes, want %d", res.Figures.Flood.StdoutBytes, 1<<20)
	}
	for _, s := range []string{"(1) behaves run", "(2) docker run", "(3) floor", "(4) behaves run --parallel 1", "(5) behaves run", "(6) behaves run", "targets", "PASS"} {
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
