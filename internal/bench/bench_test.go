package bench

import (
	"bytes"
	"context"
	"maps"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"slices"
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
		if got, err := job.Program.Files[job.Program.Entry].ReadAll(); err != nil || !bytes.Equal(got, p.source) {
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
// setting of behaves' container configuration (a prepared program's).
func TestDockerRunArgs(t *testing.T) {
	cl := dockertest.Client(t)
	python := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	ps := newProfiles(fakeShell, python, 4<<20)
	e, err := newSandbox(t.Context(), randomHex(8))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
		dockertest.AssertNothingLeft(t, cl, e.runID)
	}()
	p := newProgram(1, 1)
	atts, _, err := e.deliver(t.Context(), ps, []program{p})
	if err != nil {
		t.Fatal(err)
	}
	defer atts[0].Close(context.WithoutCancel(t.Context()))
	cfg, hc, err := e.loopConfig(atts[0], p, p.cases[0])
	if err != nil {
		t.Fatal(err)
	}
	vol := atts[0].Settings().Container.ProgramMount
	vol = strings.Split(vol, ":")[1]
	got := strings.Join(dockerRunArgs("c1", cfg, hc), " ")
	for _, want := range []string{
		"run --rm -i --name c1 ",
		"--hostname behaves ", "--user 65534:65534 ", "--workdir /program ",
		"--network none ", "--ipc private ", "--shm-size 67108864 ", "--log-driver none ",
		"--memory 67108864 ", "--memory-swap 67108864 ", "--cpus 1 ", "--pids-limit 64 ",
		"--read-only ", "--init ", "--no-healthcheck ", "--dns 127.0.0.1 ", "--cap-drop ALL ", "--security-opt no-new-privileges ",
		"--ulimit nofile=256:256 ", "--ulimit fsize=67108864:67108864 ", "--ulimit core=0:0 ",
		"--tmpfs /tmp:rw,nosuid,nodev,noexec,size=16777216 ",
		"--mount type=volume,src=" + vol + ",dst=/program,readonly,volume-nocopy ",
		"--label behaves.role=cli ", "--label behaves.run-id=" + e.runID + " ",
		"--entrypoint python3 " + python + " -I /program/p001.py p001-c00",
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

// TestAblations checks that every setting's cost has a name of its own
// and a description (what each variant changes is runner/docker's
// TestFloorVariants).
func TestAblations(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, v := range ablations {
		if v.Name == "" || names[v.Name] || v.what() == "the floor" || v.Variant == (variant{}).Variant {
			t.Errorf("ablation %+v: no name, a duplicate name, no description or no change", v)
		}
		names[v.Name] = true
	}
	if got := AblationNames(); len(got) != len(ablations) {
		t.Errorf("AblationNames() = %v", got)
	}
}

// TestEvalPrograms runs the evaluation programs with the host's python3:
// they pass as generated and fail when the function they check is wrong.
func TestEvalPrograms(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	for _, i := range []int{0, 7, 99} {
		p := newEvalProgram(i)
		if len(p.cases) != 1 || p.cases[0].want != "" || len(p.cases[0].args) != 0 || p.cases[0].stdin != "" {
			t.Errorf("eval program %d: cases %+v, want one without input or output", i, p.cases)
		}
		out, err := exec.Command(py, "-I", "-c", string(p.source)).CombinedOutput()
		if err != nil || len(out) != 0 {
			t.Errorf("eval program %d: %v, output %q; want exit 0 and no output", i, err, out)
		}
		wrong := strings.Replace(string(p.source), "reverse=True", "reverse=False", 1)
		if wrong == string(p.source) {
			t.Fatalf("eval program %d: no function to break", i)
		}
		if out, err := exec.Command(py, "-I", "-c", wrong).CombinedOutput(); err == nil || !strings.Contains(string(out), "AssertionError") {
			t.Errorf("eval program %d with a wrong function: %v, output %q; want an AssertionError", i, err, out)
		}
	}
	sp, err := spec.Load(mustWrite(t, newEvalSuite("eval", 3)), spec.Options{})
	if err != nil {
		t.Fatalf("spec.Load (eval): %v", err)
	}
	if len(sp.Programs) != 3 {
		t.Errorf("%d eval programs, want 3", len(sp.Programs))
	}
}

func mustWrite(t *testing.T, s suite) string {
	t.Helper()
	path, err := s.write(t.TempDir(), newProfiles(fakeShell, fakePython, 4<<20))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDerive checks the targets' arithmetic on made-up figures: paired
// ratios against the floor and the old floor, the limits, the costs'
// signs, and (7) only with a memory result.
func TestDerive(t *testing.T) {
	t.Parallel()
	r := Results{Figures: EmptyFigures()}
	f := &r.Figures
	floor := func(perInv ...float64) FloorFigure {
		return FloorFigure{PerInvocationMS: newStat(perInv...)}
	}
	f.Floor, f.FloorOld = floor(100, 110), floor(200, 220)
	f.FloorSer, f.FloorOldSer = floor(150, 150), floor(300, 300)
	f.EvalFloor, f.EvalFloorOld = floor(100, 100), floor(180, 180)
	f.Suite = BehavesFigure{Shape: "20×10", Invocations: 200, Programs: 20, Parallel: 2, WallMS: newStat(21000, 24200)} // 1.05, 1.10
	f.Wide = BehavesFigure{Shape: "200×1", Invocations: 200, Programs: 200, Parallel: 2, WallMS: newStat(26000, 26400)} // 1.30, 1.20
	f.Serial = BehavesFigure{Shape: "6×10", Invocations: 60, Programs: 6, Parallel: 1, WallMS: newStat(9000, 9000)}     // 1.00
	f.Eval = BehavesFigure{Shape: "100×1", Invocations: 100, Programs: 100, Parallel: 2, WallMS: newStat(11000, 12500)} // 1.10, 1.25
	f.DockerRun.PerInvocationMS = newStat(250, 250)
	f.Scaling = []ScalePoint{
		{Invocations: 200, Shape: "20×10", WallMS: newStat(21000, 24200), SameAs: "suite"},
		{Invocations: 400, Shape: "40×10", WallMS: newStat(42000, 53240)}, // 2.0, 2.2 → median 2.1
	}
	f.Floods = []FloodFigure{{Bytes: 1 << 30, MaxRSSKiB: newStat(20 << 10)}}
	f.Ablation = []AblationFigure{
		{Name: "no_init", PerInvocationMS: newStat(140), FloorMS: newStat(150)},
		{Name: "oom_watch", Adds: true, PerInvocationMS: newStat(155), FloorMS: newStat(150)},
	}
	r.derive()
	got := map[string]Target{}
	for _, tg := range r.Targets {
		got[tg.ID] = tg
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, w := range []struct {
		id     string
		median float64
		pass   bool
		old    float64 // 0: no ratio against the old floor
	}{
		{"suite_vs_floor", 1.075, true, 0.5375},
		{"wide_vs_floor", 1.25, false, 0.625},
		{"serial_vs_floor", 1, true, 0.5},
		{"eval_vs_floor", 1.175, true, 1.175 * 100 / 180},
		{"suite_vs_docker_run", (105 + 121) / 2.0 / 250, false, 0},
		{"scaling_2n_vs_n", 2.1, true, 0},
		{"flood_rss_1073741824", 20, true, 0},
	} {
		tg, ok := got[w.id]
		if !ok {
			t.Errorf("no target %s", w.id)
			continue
		}
		if !near(tg.Value.Median, w.median) || tg.Pass != w.pass {
			t.Errorf("%s: %v (pass %v), want %v (pass %v)", w.id, tg.Value.Median, tg.Pass, w.median, w.pass)
		}
		switch {
		case w.old == 0 && tg.VsOldFloor != nil:
			t.Errorf("%s: a ratio against the old floor", w.id)
		case w.old != 0 && (tg.VsOldFloor == nil || !near(tg.VsOldFloor.Median, w.old)):
			t.Errorf("%s: against the old floor %+v, want %v", w.id, tg.VsOldFloor, w.old)
		}
	}
	if tg := got["memory_rss_vs_bound"]; len(tg.Value.Values) != 0 || tg.Pass {
		t.Errorf("(7) without a memory result: %+v, want not measured", tg)
	}
	if c := f.Ablation[0].CostMS.Median; c != 10 {
		t.Errorf("the cost of Init: %v, want 10 (floor − variant)", c)
	}
	if c := f.Ablation[1].CostMS.Median; c != 5 {
		t.Errorf("the cost of the OOM subscription: %v, want 5 (variant − floor)", c)
	}

	f.Memory.Result = &MemoryResult{Invocations: 10000, PeakRSSKiB: 100 << 10, MemoryBound: 200 << 20, ReportBytes: 300 << 20, ReportBound: 250 << 20}
	r.derive()
	for _, tg := range r.Targets {
		switch tg.ID {
		case "memory_rss_vs_bound":
			if tg.Value.Median != 0.5 || !tg.Pass {
				t.Errorf("(7) peak RSS: %+v, want 0.5 and a pass", tg)
			}
		case "memory_report_vs_bound":
			if tg.Value.Median != 1.2 || tg.Pass {
				t.Errorf("(7) report: %+v, want 1.2 and a miss", tg)
			}
		}
	}
}

// TestFloorVsFloor pairs the adjacent floors of one repetition in the
// order of their figures, skipping a point that reuses the suite's run
// and a figure without adjacent floors, and prints the figure.
func TestFloorVsFloor(t *testing.T) {
	t.Parallel()
	st := func(v ...float64) *Stat { s := newStat(v...); return &s }
	f := EmptyFigures()
	f.Floor.Invocations = 60
	f.Suite.AdjacentFloorMS = st(100, 200)
	f.Scaling = []ScalePoint{
		{Invocations: 60, AdjacentFloorMS: st(120, 150)},
		{Invocations: 200, SameAs: "suite", AdjacentFloorMS: st(1, 1)},
		{Invocations: 400},
	}
	f.Wide.AdjacentFloorMS = st(129, 156)
	got := floorVsFloor(&f)
	want := []float64{1.2, 0.75, 1.075, 1.04}
	if len(got.Values) != len(want) {
		t.Fatalf("ratios %v, want %v", got.Values, want)
	}
	for i, w := range want {
		if math.Abs(got.Values[i]-w) > 1e-9 {
			t.Fatalf("ratios %v, want %v", got.Values, want)
		}
	}
	if n := beyond(got, 0.10); n != 2 {
		t.Errorf("%d ratios beyond ±10 %%, want 2 (1.2 and 0.75)", n)
	}
	r := Results{Figures: f}
	r.derive()
	if len(r.Figures.FloorVsFloor.Values) != 4 {
		t.Errorf("derive kept %v, want the four ratios", r.Figures.FloorVsFloor.Values)
	}
	line := "the same 60 invocations measured next to consecutive runs of one repetition: 0.75–1.20×, median 1.06×; 2 of 4 pairs beyond ±10 %"
	var out strings.Builder
	r.Print(&out)
	if !strings.Contains(out.String(), line) {
		t.Errorf("the table lacks %q:\n%s", line, out.String())
	}

	// A file written before the figure existed: -from derives it.
	r.Schema = Schema
	r.Figures.FloorVsFloor = Stat{}
	path := filepath.Join(t.TempDir(), "old.json")
	if err := WriteJSON(path, &r); err != nil {
		t.Fatal(err)
	}
	old, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	old.Print(&out)
	if !strings.Contains(out.String(), line) {
		t.Errorf("the table of an older file lacks %q:\n%s", line, out.String())
	}
}

// TestReadMemoryJSON reads what -memory writes and refuses what it does
// not.
func TestReadMemoryJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := &MemoryResult{Schema: MemorySchema, Invocations: 10, PeakRSSKiB: 1 << 10, MemoryBound: 1 << 20, ReportBytes: 1 << 10, ReportBound: 1 << 20}
	path := filepath.Join(dir, "m.json")
	if err := WriteMemoryJSON(path, good); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadMemoryJSON(path); err != nil || !reflect.DeepEqual(got, good) {
		t.Errorf("ReadMemoryJSON = %+v, %v; want %+v", got, err, good)
	}
	// A file of the main run, or of another schema, is refused.
	for name, content := range map[string]string{
		"main.json":   `{"schema": "behaves.bench/v2", "figures": {}}`,
		"schema.json": `{"schema": "behaves.bench-memory/v0", "invocations": 10, "peak_rss_kib": 1, "memory_bound": 1, "report_bytes": 1, "report_bound": 1}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadMemoryJSON(p); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

// TestFloodSpecsApart guards that each flood size has its own spec and
// program: with one folder for all, the last written (1 GiB) ran as every
// flood.
func TestFloodSpecsApart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ps := newProfiles("sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64), 4<<30)
	small, err := writeFloodSpec(root, ps, 256<<20)
	if err != nil {
		t.Fatal(err)
	}
	big, err := writeFloodSpec(root, ps, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if small == big {
		t.Fatalf("both floods wrote %s", small)
	}
	for path, want := range map[string]string{small: "head -c 268435456 ", big: "head -c 1073741824 "} {
		src, err := os.ReadFile(filepath.Join(filepath.Dir(path), "flood.sh"))
		if err != nil || !strings.HasPrefix(string(src), want) {
			t.Errorf("%s: flood.sh = %q, %v; want it to start %q", path, src, err, want)
		}
	}
}
