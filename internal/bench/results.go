package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/behaves-dev/behaves/internal/peakrss"
)

// Schema names the JSON format of the results. A change that removes a
// figure or changes its meaning gets a new version.
const Schema = "behaves.bench/v2"

// Stat is one figure over its repetitions. Values are in the order they
// were measured; every other field is derived from them.
type Stat struct {
	Values []float64 `json:"values"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	// SpreadPct is (max − min) / median, in percent.
	SpreadPct float64 `json:"spread_pct"`
}

func (s *Stat) add(v float64) {
	s.Values = append(s.Values, v)
	s.update()
}

func (s *Stat) addDur(d time.Duration) { s.add(ms(d)) }

func (s *Stat) update() {
	if len(s.Values) == 0 {
		*s = Stat{Values: []float64{}}
		return
	}
	v := slices.Clone(s.Values)
	slices.Sort(v)
	n := len(v)
	s.Min, s.Max = v[0], v[n-1]
	if n%2 == 1 {
		s.Median = v[n/2]
	} else {
		s.Median = (v[n/2-1] + v[n/2]) / 2
	}
	s.SpreadPct = 0
	if s.Median != 0 {
		s.SpreadPct = (s.Max - s.Min) / s.Median * 100
	}
}

func newStat(values ...float64) Stat {
	s := Stat{Values: append([]float64{}, values...)}
	s.update()
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Results is everything one bench run measured. Every field is always
// present in the JSON (zeros and empty lists included).
type Results struct {
	Schema     string    `json:"schema"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	Command    string    `json:"command"`
	Machine    Machine   `json:"machine"`
	Config     Config    `json:"config"`
	Figures    Figures   `json:"figures"`
	Targets    []Target  `json:"targets"`
	// BehavesRunIDs are the run IDs of every behaves run (their containers
	// and volumes carry them as labels).
	BehavesRunIDs []string `json:"behaves_run_ids"`
	// BenchRunID labels the bench's own containers and volumes.
	BenchRunID string `json:"bench_run_id"`
	// Warnings are problems that did not stop the measurement (a behaves
	// run that left a container or volume behind).
	Warnings []string `json:"warnings"`
}

// Machine describes where the figures were measured.
type Machine struct {
	CPUs          int    `json:"cpus"`
	MemoryBytes   int64  `json:"memory_bytes"`
	GoVersion     string `json:"go_version"`
	OSArch        string `json:"os_arch"`
	DockerVersion string `json:"docker_version"`
	StorageDriver string `json:"storage_driver"`
	CgroupVersion string `json:"cgroup_version"`
	// LoadAverage is the 1-minute load average before and after the run
	// (the machine may be shared: a high load makes every figure noisier).
	LoadAverageStart float64 `json:"load_average_start"`
	LoadAverageEnd   float64 `json:"load_average_end"`
}

// Config is what the run was asked to measure.
type Config struct {
	// BehavesRevision is the tree the measured behaves was built from
	// (git describe --always --dirty), or "prebuilt" for -behaves.
	BehavesRevision string `json:"behaves_revision"`
	Short           bool   `json:"short"`
	Reps            int    `json:"reps"`
	LongReps        int    `json:"long_reps"`
	Parallel        int    `json:"parallel"`
	Suite           string `json:"suite"`
	Wide            string `json:"wide"`
	Sample          string `json:"sample"`
	Scale           []int  `json:"scale"`
	// BehavesNetwork is what behaves' own configuration of a program
	// container does with the engine's network sandbox, for the suites'
	// profiles: "skipped" (NetworkDisabled) or "sandbox". The floors set
	// it themselves; this says which of them behaves is like.
	BehavesNetwork string `json:"behaves_network"`
	// DefaultParallel is behaves' own default on this machine
	// (runengine.DefaultParallel for the suites' largest memory limit).
	DefaultParallel int     `json:"default_parallel"`
	Parallels       []int   `json:"parallels"`
	Eval            string  `json:"eval"`
	EvalSample      string  `json:"eval_sample"`
	FloodBytes      []int64 `json:"flood_bytes"`
	MemoryFrom      string  `json:"memory_from"`
	ShellImage      string  `json:"shell_image"`
	PythonImage     string  `json:"python_image"`
}

// BehavesFigure is a `behaves run` over a suite. Per-invocation figures
// are the wall time divided by the invocations.
type BehavesFigure struct {
	Shape           string `json:"shape"`
	Invocations     int    `json:"invocations"`
	Programs        int    `json:"programs"`
	Parallel        int    `json:"parallel"`
	WallMS          Stat   `json:"wall_ms"`
	PerInvocationMS Stat   `json:"per_invocation_ms"`
	// EventRunMS is the mean of the report's per-event duration_ms: the
	// program's own run time, engine StartedAt to FinishedAt.
	EventRunMS Stat `json:"event_run_ms"`
	// CPUMS is the behaves process's user + system time.
	CPUMS Stat `json:"cpu_ms"`
	// MaxRSSKiB is the process's own peak RSS (VmHWM polled while it
	// ran); RusageMaxRSSKiB is ru_maxrss, an upper bound that includes the
	// bench's own peak (see behavesRun).
	MaxRSSKiB       Stat `json:"max_rss_kib"`
	RusageMaxRSSKiB Stat `json:"rusage_max_rss_kib"`
	// FloorEquivalentMS is what the floor (the network sandbox skipped)
	// takes for as many invocations at the same parallelism (per
	// repetition, paired); OldFloorEquivalentMS the same for the old floor
	// (the network sandbox set up).
	FloorEquivalentMS Stat `json:"floor_equivalent_ms"`
	// AdjacentFloorMS is the floor's time per invocation (the sample, at
	// the same parallelism) measured right next to each repetition of
	// this run: the floor equivalent uses it when it is there, so that a
	// run and its floor see the engine in the same state.
	AdjacentFloorMS      *Stat `json:"adjacent_floor_ms,omitempty"`
	OldFloorEquivalentMS Stat  `json:"old_floor_equivalent_ms"`
	// OwnMS is behaves' own time: wall − floor equivalent.
	OwnMS Stat `json:"own_ms"`
	// DeliveryEquivalentMS estimates program delivery: programs × the
	// delivery engine time per program measured by the bench.
	DeliveryEquivalentMS Stat `json:"delivery_equivalent_ms"`
}

// LoopFigure is the sequential `docker run --rm -i` loop.
type LoopFigure struct {
	Shape           string `json:"shape"`
	Invocations     int    `json:"invocations"`
	WallMS          Stat   `json:"wall_ms"`
	PerInvocationMS Stat   `json:"per_invocation_ms"`
}

// PhaseStats are per-invocation means of the floor's phases.
type PhaseStats struct {
	CreateMS  Stat `json:"create_ms"`
	AttachMS  Stat `json:"attach_ms"`
	StartMS   Stat `json:"start_ms"`
	RunMS     Stat `json:"run_ms"`
	InspectMS Stat `json:"inspect_ms"`
	RemoveMS  Stat `json:"remove_ms"`
	TotalMS   Stat `json:"total_ms"`
	// EngineRunMS is the engine's StartedAt to FinishedAt, comparable with
	// behaves' event_run_ms.
	EngineRunMS Stat `json:"engine_run_ms"`
}

// FloorFigure is the bare Engine API lifecycle over a suite. Network says
// whether the engine set up its network sandbox: "skipped" (the floor of
// the targets) or "sandbox" (the old floor).
type FloorFigure struct {
	Network         string     `json:"network"`
	Shape           string     `json:"shape"`
	Invocations     int        `json:"invocations"`
	Parallel        int        `json:"parallel"`
	WallMS          Stat       `json:"wall_ms"`
	PerInvocationMS Stat       `json:"per_invocation_ms"`
	Phases          PhaseStats `json:"phases"`
}

// DeliveryFigure is delivering one program the way behaves does, per
// program (means over the sample's programs).
type DeliveryFigure struct {
	Programs       int  `json:"programs"`
	VolumeCreateMS Stat `json:"volume_create_ms"`
	HelperCreateMS Stat `json:"helper_create_ms"`
	CopyMS         Stat `json:"copy_ms"`
	HelperRemoveMS Stat `json:"helper_remove_ms"`
	VolumeRemoveMS Stat `json:"volume_remove_ms"`
	TotalMS        Stat `json:"total_ms"`
}

// ScalePoint is one point of the scaling series, at the suite's
// parallelism.
type ScalePoint struct {
	Invocations     int    `json:"invocations"`
	Shape           string `json:"shape"`
	WallMS          Stat   `json:"wall_ms"`
	PerInvocationMS Stat   `json:"per_invocation_ms"`
	// FloorRatio is the wall over the floor equivalent (the floor's time
	// per invocation at the same parallelism × the invocations), paired
	// per repetition; OldFloorRatio the same over the old floor.
	FloorRatio    Stat `json:"floor_ratio"`
	OldFloorRatio Stat `json:"old_floor_ratio"`
	// SameAs names the figure this point reuses ("suite"), or "".
	SameAs string `json:"same_as"`
	// AdjacentFloorMS is as BehavesFigure's.
	AdjacentFloorMS *Stat `json:"adjacent_floor_ms,omitempty"`
}

// ParallelPoint is behaves and the floor (the network sandbox skipped) on
// the sample at one parallelism.
type ParallelPoint struct {
	Parallel int `json:"parallel"`
	// Default says that this is behaves' default parallelism here.
	Default                bool `json:"default"`
	BehavesWallMS          Stat `json:"behaves_wall_ms"`
	BehavesPerInvocationMS Stat `json:"behaves_per_invocation_ms"`
	FloorWallMS            Stat `json:"floor_wall_ms"`
	FloorPerInvocationMS   Stat `json:"floor_per_invocation_ms"`
	// Ratio is behaves' wall over the floor's, paired per repetition.
	Ratio Stat `json:"ratio"`
}

// AblationFigure is the floor at parallelism 1 with one thing of
// behaves' configuration switched off (or added), against the floor
// measured around it.
type AblationFigure struct {
	Name string `json:"name"`
	What string `json:"what"`
	// Adds is true when the variant adds work to the floor (its cost is
	// variant − floor); otherwise it removes some (floor − variant).
	Adds            bool `json:"adds"`
	PerInvocationMS Stat `json:"per_invocation_ms"`
	FloorMS         Stat `json:"floor_ms"`
	// CostMS is what the thing costs per invocation, paired per
	// repetition.
	CostMS Stat `json:"cost_ms"`
}

// MemoryFigure is the memory scenario (-memory), read from an earlier
// run's JSON with -memory-from; Result is null without it.
type MemoryFigure struct {
	From   string        `json:"from"`
	Result *MemoryResult `json:"result"`
}

// FloodFigure is one program writing Bytes to stdout through behaves.
type FloodFigure struct {
	Bytes       int64 `json:"bytes"`
	StdoutBytes int64 `json:"stdout_bytes"`
	WallMS      Stat  `json:"wall_ms"`
	// MaxRSSKiB and RusageMaxRSSKiB as in BehavesFigure.
	MaxRSSKiB       Stat `json:"max_rss_kib"`
	RusageMaxRSSKiB Stat `json:"rusage_max_rss_kib"`
}

// Figures are all the measurements.
type Figures struct {
	Suite     BehavesFigure `json:"suite"`
	Wide      BehavesFigure `json:"wide"`
	Eval      BehavesFigure `json:"eval"`
	DockerRun LoopFigure    `json:"docker_run"`
	// Floor and FloorSer are the floor of the targets (the network
	// sandbox skipped) on the sample at the suite's parallelism and at 1;
	// FloorOld and FloorOldSer the old floor (the sandbox set up);
	// EvalFloor and EvalFloorOld both on the evaluation sample.
	Floor        FloorFigure      `json:"floor"`
	FloorSer     FloorFigure      `json:"floor_serial"`
	FloorOld     FloorFigure      `json:"floor_old"`
	FloorOldSer  FloorFigure      `json:"floor_old_serial"`
	EvalFloor    FloorFigure      `json:"eval_floor"`
	EvalFloorOld FloorFigure      `json:"eval_floor_old"`
	Serial       BehavesFigure    `json:"serial"`
	Scaling      []ScalePoint     `json:"scaling"`
	Parallelism  []ParallelPoint  `json:"parallelism"`
	Ablation     []AblationFigure `json:"ablation"`
	Floods       []FloodFigure    `json:"floods"`
	Delivery     DeliveryFigure   `json:"delivery"`
	Memory       MemoryFigure     `json:"memory"`
	// StartupMS is `behaves validate` on the suite: process start-up and
	// spec loading, without Docker.
	StartupMS Stat `json:"startup_ms"`
	// ImageInspectMS is one image inspect.
	ImageInspectMS Stat `json:"image_inspect_ms"`
	// FloorVsFloor is the floor against itself: within a repetition,
	// each adjacent floor (the same sample, the same work) over the one
	// measured next to the previous figure's run, minutes apart. It is
	// the noise of a paired ratio on this machine, for reading the
	// targets' margins against.
	FloorVsFloor Stat `json:"floor_vs_floor"`
}

// Target is one of the performance targets (the limit* constants),
// checked against this run.
type Target struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Value Stat   `json:"value"`
	// Limit is the target: Value.Median must be at most Limit.
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"`
	Pass  bool    `json:"pass"`
	// VsOldFloor is the same ratio against the old floor (the network
	// sandbox set up), for the targets measured against the floor.
	VsOldFloor *Stat `json:"vs_old_floor,omitempty"`
}

// adjacentOr is the floor measured next to a run when there is one for
// every repetition, else the run-wide floor.
func adjacentOr(adjacent *Stat, floor Stat) Stat {
	if adjacent != nil && len(adjacent.Values) > 0 && len(adjacent.Values) == len(floor.Values) {
		return *adjacent
	}
	return floor
}

// pairedRatio is num[i]/den[i] per repetition when both have the same
// number of values, else each num value over den's median.
func pairedRatio(num, den Stat) Stat {
	return paired(num, den, func(n, d float64) (float64, bool) { return n / d, d > 0 })
}

// pairedDiff is num[i] − den[i] per repetition (den's median when the
// counts differ).
func pairedDiff(num, den Stat) Stat {
	return paired(num, den, func(n, d float64) (float64, bool) { return n - d, true })
}

// paired applies op to each num value and its den value of the same
// repetition (den's median when the counts differ), keeping the results op
// accepts.
func paired(num, den Stat, op func(n, d float64) (float64, bool)) Stat {
	var s Stat
	for i, v := range num.Values {
		d := den.Median
		if len(num.Values) == len(den.Values) {
			d = den.Values[i]
		}
		if r, ok := op(v, d); ok {
			s.Values = append(s.Values, r)
		}
	}
	s.update()
	return s
}

// scaled is s with every value multiplied by f.
func scaled(s Stat, f float64) Stat {
	out := Stat{Values: []float64{}}
	for _, v := range s.Values {
		out.Values = append(out.Values, v*f)
	}
	out.update()
	return out
}

// The performance targets behaves holds itself to (docs/performance.md):
// each a ratio against the alternative measured in the same run.
const (
	limitSuite     = 1.10 // (1) N×10 / floor, and (4) --parallel 1 / floor at 1
	limitDockerRun = 0.45 // (1) N×10 per invocation / the docker run loop
	limitWide      = 1.2  // (1) 200×1 / floor
	limitScaling   = 2.1  // (5) 2N / N
	limitFloodMiB  = 64   // (6)
	limitEval      = 1.2  // (8)
)

// derive fills the figures computed from others and the targets.
func (r *Results) derive() {
	f := &r.Figures
	type floors struct{ cur, old FloorFigure }
	floorsOf := func(b *BehavesFigure) floors {
		switch b {
		case &f.Serial:
			return floors{f.FloorSer, f.FloorOldSer}
		case &f.Eval:
			return floors{f.EvalFloor, f.EvalFloorOld}
		}
		return floors{f.Floor, f.FloorOld}
	}
	for _, b := range []*BehavesFigure{&f.Suite, &f.Wide, &f.Serial, &f.Eval} {
		fl := floorsOf(b)
		b.PerInvocationMS = scaled(b.WallMS, 1/float64(max(b.Invocations, 1)))
		b.FloorEquivalentMS = scaled(adjacentOr(b.AdjacentFloorMS, fl.cur.PerInvocationMS), float64(b.Invocations))
		b.OldFloorEquivalentMS = scaled(fl.old.PerInvocationMS, float64(b.Invocations))
		b.OwnMS = pairedDiff(b.WallMS, b.FloorEquivalentMS)
		b.DeliveryEquivalentMS = scaled(f.Delivery.TotalMS, float64(b.Programs))
	}
	for i := range f.Scaling {
		p := &f.Scaling[i]
		p.PerInvocationMS = scaled(p.WallMS, 1/float64(max(p.Invocations, 1)))
		p.FloorRatio = pairedRatio(p.PerInvocationMS, adjacentOr(p.AdjacentFloorMS, f.Floor.PerInvocationMS))
		p.OldFloorRatio = pairedRatio(p.PerInvocationMS, f.FloorOld.PerInvocationMS)
	}
	for i := range f.Parallelism {
		p := &f.Parallelism[i]
		p.Ratio = pairedRatio(p.BehavesWallMS, p.FloorWallMS)
	}
	for i := range f.Ablation {
		a := &f.Ablation[i]
		if a.Adds {
			a.CostMS = pairedDiff(a.PerInvocationMS, a.FloorMS)
		} else {
			a.CostMS = pairedDiff(a.FloorMS, a.PerInvocationMS)
		}
	}

	f.FloorVsFloor = floorVsFloor(f)

	vsFloor := func(id, name string, b BehavesFigure, limit float64) Target {
		t := target(id, name, pairedRatio(b.WallMS, b.FloorEquivalentMS), limit, "×")
		old := pairedRatio(b.WallMS, b.OldFloorEquivalentMS)
		t.VsOldFloor = &old
		return t
	}
	r.Targets = []Target{
		vsFloor("suite_vs_floor", fmt.Sprintf("(1) %s, parallel %d: wall / floor", f.Suite.Shape, f.Suite.Parallel), f.Suite, limitSuite),
	}
	for _, p := range f.Scaling {
		if p.SameAs != "" {
			continue
		}
		t := target(fmt.Sprintf("suite_%d_vs_floor", p.Invocations), fmt.Sprintf("(1) %s, parallel %d: wall / floor", p.Shape, f.Suite.Parallel), p.FloorRatio, limitSuite, "×")
		old := p.OldFloorRatio
		t.VsOldFloor = &old
		r.Targets = append(r.Targets, t)
	}
	for _, p := range f.Parallelism {
		if p.Default && p.Parallel != f.Suite.Parallel {
			r.Targets = append(r.Targets, target("default_parallel_vs_floor",
				fmt.Sprintf("(1) %s at behaves' default, parallel %d: wall / floor", f.Floor.Shape, p.Parallel), p.Ratio, limitSuite, "×"))
		}
	}
	r.Targets = append(r.Targets,
		target("suite_vs_docker_run", fmt.Sprintf("(1) %s per invocation / docker run loop", f.Suite.Shape), pairedRatio(f.Suite.PerInvocationMS, f.DockerRun.PerInvocationMS), limitDockerRun, "×"),
		vsFloor("wide_vs_floor", fmt.Sprintf("(1) %s, parallel %d: wall / floor", f.Wide.Shape, f.Wide.Parallel), f.Wide, limitWide),
		vsFloor("serial_vs_floor", fmt.Sprintf("(4) --parallel 1, %s: wall / floor at parallel 1", f.Serial.Shape), f.Serial, limitSuite),
		target("scaling_2n_vs_n", scalingName(f.Scaling), scalingRatio(f.Scaling), limitScaling, "×"),
	)
	for _, fl := range f.Floods {
		r.Targets = append(r.Targets, target(fmt.Sprintf("flood_rss_%d", fl.Bytes), fmt.Sprintf("(6) peak RSS, %s to stdout", humanBytes(fl.Bytes)), scaled(fl.MaxRSSKiB, 1.0/1024), limitFloodMiB, "MiB"))
	}
	rssBound, reportBound := newStat(), newStat()
	memName := "(7) the memory scenario (-memory-from FILE)"
	if m := f.Memory.Result; m != nil {
		rssBound = newStat(float64(m.PeakRSSKiB<<10) / float64(max(m.MemoryBound, 1)))
		reportBound = newStat(float64(m.ReportBytes) / float64(max(m.ReportBound, 1)))
		memName = fmt.Sprintf("(7) %d invocations", m.Invocations)
	}
	r.Targets = append(r.Targets,
		target("memory_rss_vs_bound", memName+": peak RSS / engine.MemoryBound", rssBound, 1, "×"),
		target("memory_report_vs_bound", memName+": report size / engine.ReportBound", reportBound, 1, "×"),
		vsFloor("eval_vs_floor", fmt.Sprintf("(8) Python %s, parallel %d: ms per program / floor", f.Eval.Shape, f.Eval.Parallel), f.Eval, limitEval),
	)
}

// floorVsFloor pairs the adjacent floors of each repetition in the order
// of their figures (the suite, the scaling points, the one-case suite):
// each over the one before it. Those floors run the same sample at the
// same parallelism, so their ratios are what a paired ratio reads when
// both sides do the same work.
func floorVsFloor(f *Figures) Stat {
	adj := []*Stat{f.Suite.AdjacentFloorMS}
	for _, p := range f.Scaling {
		if p.SameAs == "" {
			adj = append(adj, p.AdjacentFloorMS)
		}
	}
	adj = append(adj, f.Wide.AdjacentFloorMS)
	var ratios []float64
	var prev *Stat
	for _, a := range adj {
		if a == nil || len(a.Values) == 0 {
			continue
		}
		if prev != nil && len(prev.Values) == len(a.Values) {
			for i, v := range a.Values {
				if prev.Values[i] > 0 {
					ratios = append(ratios, v/prev.Values[i])
				}
			}
		}
		prev = a
	}
	return newStat(ratios...)
}

// beyond counts the ratios farther than margin from 1.
func beyond(s Stat, margin float64) int {
	n := 0
	for _, v := range s.Values {
		if v > 1+margin || v < 1-margin {
			n++
		}
	}
	return n
}

func target(id, name string, v Stat, limit float64, unit string) Target {
	return Target{ID: id, Name: name, Value: v, Limit: limit, Unit: unit, Pass: len(v.Values) > 0 && v.Median <= limit}
}

// scalingEnds are the two largest points: the target compares the largest
// with the one of half its size (400 with 200 by default).
func scalingEnds(pts []ScalePoint) (half, full *ScalePoint) {
	if len(pts) == 0 {
		return nil, nil
	}
	full = &pts[len(pts)-1]
	for i := range pts {
		if pts[i].Invocations*2 == full.Invocations {
			half = &pts[i]
		}
	}
	return half, full
}

func scalingName(pts []ScalePoint) string {
	half, full := scalingEnds(pts)
	if half == nil {
		return "(5) scaling: no pair n, 2n"
	}
	return fmt.Sprintf("(5) wall of %d / wall of %d invocations", full.Invocations, half.Invocations)
}

// scalingRatio is the largest point's wall over the one of half its
// size, paired per repetition (every point runs in every repetition).
func scalingRatio(pts []ScalePoint) Stat {
	half, full := scalingEnds(pts)
	if half == nil {
		return newStat()
	}
	return pairedRatio(full.WallMS, half.WallMS)
}

// WriteJSON writes the results atomically.
func WriteJSON(path string, r *Results) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bench-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadJSON reads the results an earlier run wrote.
func ReadJSON(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%s has schema %q, want %q", path, r.Schema, Schema)
	}
	// Files written before the figure existed hold what it is made of.
	r.Figures.FloorVsFloor = floorVsFloor(&r.Figures)
	return &r, nil
}

// print writes the table.
func (r *Results) Print(w io.Writer) {
	f := r.Figures
	m := r.Machine
	fmt.Fprintf(w, "behaves bench · %s · %d CPUs · %.1f GiB · Docker %s (%s, cgroup v%s) · %s %s\n",
		r.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), m.CPUs, float64(m.MemoryBytes)/(1<<30),
		m.DockerVersion, m.StorageDriver, m.CgroupVersion, m.GoVersion, m.OSArch)
	fmt.Fprintf(w, "%s · behaves %s · took %s · load average %.1f at start, %.1f at end\n", r.Command, r.Config.BehavesRevision,
		(time.Duration(r.DurationMS) * time.Millisecond).Round(time.Second), m.LoadAverageStart, m.LoadAverageEnd)
	fmt.Fprintf(w, "programs: half busybox sh echoing a stdin line, half python3 printing its argument; the eval suite: python3 defining a function and asserting on it; fresh hardened container per invocation\n")
	fmt.Fprintf(w, "floor: the bare Engine API lifecycle with behaves' container settings and the network sandbox skipped (NetworkDisabled, no DNS); old floor: the same with the sandbox set up (DNS 127.0.0.1), as behaves did before it skipped the sandbox; behaves' own program containers: network %s\n", r.Config.BehavesNetwork)
	fmt.Fprintf(w, "repetitions: %d of the suites, the floors and --parallel 1 (ABBA order); %d of the docker run loop, the parallelism table, the cost of each setting and the floods\n", r.Config.Reps, r.Config.LongReps)
	fmt.Fprintf(w, "wall: median, min–max, spread = (max−min)/median; per invocation = median wall / n\n\n")

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tn\twall median\tmin–max\tspread\tper invocation\t")
	row := func(name string, n int, wall Stat) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s–%s\t%.0f%%\t%s\t\n", name, n, dur(wall.Median), dur(wall.Min), dur(wall.Max), wall.SpreadPct, dur(wall.Median/float64(max(n, 1))))
	}
	row(fmt.Sprintf("(1) behaves run %s, parallel %d", f.Suite.Shape, f.Suite.Parallel), f.Suite.Invocations, f.Suite.WallMS)
	row(fmt.Sprintf("(1) behaves run %s, parallel %d", f.Wide.Shape, f.Wide.Parallel), f.Wide.Invocations, f.Wide.WallMS)
	row(fmt.Sprintf("(2) docker run --rm -i loop, %s", f.DockerRun.Shape), f.DockerRun.Invocations, f.DockerRun.WallMS)
	for _, fl := range []FloorFigure{f.Floor, f.FloorOld, f.FloorSer, f.FloorOldSer} {
		row(fmt.Sprintf("(3) %s %s, parallel %d", floorName(fl), fl.Shape, fl.Parallel), fl.Invocations, fl.WallMS)
	}
	row(fmt.Sprintf("(4) behaves run --parallel 1, %s", f.Serial.Shape), f.Serial.Invocations, f.Serial.WallMS)
	for _, p := range f.Scaling {
		name := fmt.Sprintf("(5) behaves run %s, parallel %d", p.Shape, f.Suite.Parallel)
		if p.SameAs != "" {
			name += " (= (1))"
		}
		row(name, p.Invocations, p.WallMS)
	}
	for _, fl := range f.Floods {
		row(fmt.Sprintf("(6) behaves run, %s to stdout", humanBytes(fl.Bytes)), 1, fl.WallMS)
	}
	row(fmt.Sprintf("(8) behaves run, %s, parallel %d", f.Eval.Shape, f.Eval.Parallel), f.Eval.Invocations, f.Eval.WallMS)
	for _, fl := range []FloorFigure{f.EvalFloor, f.EvalFloorOld} {
		row(fmt.Sprintf("(8) %s, eval %s, parallel %d", floorName(fl), fl.Shape, fl.Parallel), fl.Invocations, fl.WallMS)
	}
	tw.Flush()

	fmt.Fprintf(w, "\nfloor phases, ms per invocation (create · attach+wait · start · run (engine StartedAt→FinishedAt) · inspect · remove = total)\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "floor\tparallel\tcreate\tattach+wait\tstart\trun\t(engine)\tinspect\tremove\ttotal\t")
	for _, fl := range []FloorFigure{f.FloorSer, f.FloorOldSer, f.Floor, f.FloorOld} {
		ph := fl.Phases
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t(%s)\t%s\t%s\t%s\t\n", floorName(fl), fl.Parallel,
			msf(ph.CreateMS), msf(ph.AttachMS), msf(ph.StartMS), msf(ph.RunMS), msf(ph.EngineRunMS), msf(ph.InspectMS), msf(ph.RemoveMS), msf(ph.TotalMS))
	}
	tw.Flush()
	fmt.Fprintf(w, "floor / old floor, per invocation: %.2f× at parallel %d, %.2f× at parallel 1, %.2f× for the eval programs (what skipping the network sandbox bought)\n",
		pairedRatio(f.Floor.PerInvocationMS, f.FloorOld.PerInvocationMS).Median, f.Floor.Parallel,
		pairedRatio(f.FloorSer.PerInvocationMS, f.FloorOldSer.PerInvocationMS).Median,
		pairedRatio(f.EvalFloor.PerInvocationMS, f.EvalFloorOld.PerInvocationMS).Median)
	d := f.Delivery
	fmt.Fprintf(w, "program delivery, ms per program (as behaves does it): volume create %s · helper create %s · copy %s · helper remove %s · volume remove %s = %s\n",
		msf(d.VolumeCreateMS), msf(d.HelperCreateMS), msf(d.CopyMS), msf(d.HelperRemoveMS), msf(d.VolumeRemoveMS), msf(d.TotalMS))
	fmt.Fprintf(w, "image inspect %s ms · behaves start-up and spec load (behaves validate, %s) %s ms\n", msf(f.ImageInspectMS), f.Suite.Shape, msf(f.StartupMS))

	if len(f.Ablation) > 0 {
		fmt.Fprintf(w, "\nwhat each setting costs: the floor at parallel 1 on %s with one thing switched off (or added), in the bench's floor only; cost = ms per invocation, paired with the floor measured around it\n", f.FloorSer.Shape)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "variant\tms per invocation\tfloor\tcost\tmin–max\t")
		for _, a := range f.Ablation {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s–%s\t\n", a.What, msf(a.PerInvocationMS), msf(a.FloorMS), msf(a.CostMS), msv(a.CostMS.Min), msv(a.CostMS.Max))
		}
		tw.Flush()
	}

	if len(f.Parallelism) > 0 {
		fmt.Fprintf(w, "\nparallelism: behaves and the floor on %s (ms per invocation; ratio paired per repetition)\n", f.Floor.Shape)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "parallel\tbehaves\tfloor\tbehaves / floor\tmin–max\t")
		for _, p := range f.Parallelism {
			name := strconv.Itoa(p.Parallel)
			if p.Default {
				name += " (behaves' default)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f×\t%.2f–%.2f\t\n", name, msf(p.BehavesPerInvocationMS), msf(p.FloorPerInvocationMS), p.Ratio.Median, p.Ratio.Min, p.Ratio.Max)
		}
		tw.Flush()
	}

	fmt.Fprintf(w, "\nwhere behaves' time goes (medians; ms per invocation; own = wall − floor at the same parallelism, paired per repetition)\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\twall\tfloor\town\tdelivery est.\tprogram run (behaves | floor)\tbehaves CPU\tpeak RSS\t")
	for _, x := range []struct {
		b     BehavesFigure
		floor FloorFigure
	}{{f.Suite, f.Floor}, {f.Wide, f.Floor}, {f.Serial, f.FloorSer}, {f.Eval, f.EvalFloor}} {
		b, floorRun := x.b, x.floor.Phases.EngineRunMS
		n := float64(max(b.Invocations, 1))
		fmt.Fprintf(tw, "%s, parallel %d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f | %.0f\t%.1f\t%.1f MiB\t\n", b.Shape, b.Parallel,
			b.WallMS.Median/n, b.FloorEquivalentMS.Median/n, b.OwnMS.Median/n, b.DeliveryEquivalentMS.Median/n,
			b.EventRunMS.Median, floorRun.Median, b.CPUMS.Median/n, b.MaxRSSKiB.Median/1024)
	}
	tw.Flush()
	fmt.Fprintf(w, "delivery est. = programs × the delivery above, per invocation (engine time, not divided by the parallelism)\n")
	if len(f.Floods) > 0 {
		last := f.Floods[len(f.Floods)-1]
		fmt.Fprintf(w, "peak RSS = the behaves process's VmHWM, polled every %s (wait4's ru_maxrss, %.1f MiB for the %s flood, also counts the bench's own memory)\n",
			peakrss.Interval, last.RusageMaxRSSKiB.Median/1024, humanBytes(last.Bytes))
	}

	if mr := f.Memory.Result; mr != nil {
		fmt.Fprintf(w, "\n(7) the memory scenario, from %s (measured %s at behaves %s):\n", f.Memory.From, mr.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), mr.Revision)
		mr.Print(w)
	}

	fmt.Fprintf(w, "\ntargets (median of the per-repetition ratios; min–max; the same ratio against the old floor)\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range r.Targets {
		res := "MISS"
		if t.Pass {
			res = "PASS"
		}
		if len(t.Value.Values) == 0 {
			res = "not measured"
		}
		val := fmt.Sprintf("%.2f×", t.Value.Median)
		rng := fmt.Sprintf("%.2f–%.2f", t.Value.Min, t.Value.Max)
		limit := fmt.Sprintf("≤ %.2f×", t.Limit)
		if t.Unit != "×" {
			val = fmt.Sprintf("%.1f %s", t.Value.Median, t.Unit)
			rng = fmt.Sprintf("%.1f–%.1f", t.Value.Min, t.Value.Max)
			limit = fmt.Sprintf("≤ %g %s", t.Limit, t.Unit)
		}
		if len(t.Value.Values) == 0 {
			val, rng = "–", ""
		}
		old := ""
		if t.VsOldFloor != nil && len(t.VsOldFloor.Values) > 0 {
			old = fmt.Sprintf("old floor: %.2f×", t.VsOldFloor.Median)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Name, val, rng, limit, res, old)
	}
	tw.Flush()
	fmt.Fprintf(w, "(floor / docker run loop per invocation: %.2f at parallel %d; old floor: %.2f; the floor at parallel 1: %.2f)\n",
		pairedRatio(f.Floor.PerInvocationMS, f.DockerRun.PerInvocationMS).Median, f.Floor.Parallel,
		pairedRatio(f.FloorOld.PerInvocationMS, f.DockerRun.PerInvocationMS).Median,
		pairedRatio(f.FloorSer.PerInvocationMS, f.DockerRun.PerInvocationMS).Median)
	if aa := f.FloorVsFloor; len(aa.Values) > 0 {
		fmt.Fprintf(w, "(the floor against itself, the same %d invocations measured next to consecutive runs of one repetition: %.2f–%.2f×, median %.2f×; %d of %d pairs beyond ±10 %%: the noise of a paired ratio here)\n",
			f.Floor.Invocations, aa.Min, aa.Max, aa.Median, beyond(aa, 0.10), len(aa.Values))
	}
}

// floorName says which floor fl is.
func floorName(fl FloorFigure) string {
	if fl.Network == NetworkSandbox {
		return "old floor (network sandbox)"
	}
	return "floor"
}

// The floors' Network values.
const (
	NetworkSkipped = "skipped"
	NetworkSandbox = "sandbox"
)

// dur formats milliseconds for the table.
func dur(msv float64) string {
	d := time.Duration(msv * float64(time.Millisecond))
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	default:
		return fmt.Sprintf("%.0fms", msv)
	}
}

func msf(s Stat) string { return msv(s.Median) }

func msv(v float64) string {
	if math.Abs(v) < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
