package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	runengine "github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker/floor"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// sweepTimeout bounds the final removal of what the bench made.
const sweepTimeout = 2 * time.Minute

// oldFloor is the floor with the engine's network sandbox set up, as
// behaves ran every container before it learned to skip it: every ratio
// against the floor is also taken against it, to show what skipping bought.
var oldFloor = variant{ablationOldFloor, floor.Variant{NetworkSandbox: true}}

// bench measures everything cfg asks for; mem is the memory scenario of an
// earlier run (-memory-from), or nil.
//
// Each repetition runs the figures whose ratios have tight targets back
// to back: the floors at the suites' parallelism, the behaves runs at it
// (the suite, the scaling points, the one-case suite, the evaluation
// suite), the floors at 1 and --parallel 1; every other repetition in the
// opposite order (ABBA), so that a drift of the machine's load shifts
// both sides of a ratio alike; ratios are taken per repetition. The first
// long-reps repetitions also run the docker run loop, the parallelism
// table and the cost of each setting; the floods follow.
func Run(ctx context.Context, cfg Options, mem *MemoryResult, logw io.Writer) (res *Results, err error) {
	log := logger{w: logw, start: time.Now()}
	res = newResults(randomHex(8))

	work, done, err := workFolder(log, "behaves-bench-", cfg.Keep)
	if err != nil {
		return nil, err
	}
	defer done()
	bin, rev, err := behavesBinary(ctx, log, cfg.BehavesBin, work)
	if err != nil {
		return nil, err
	}
	r, err := newBenchRun(cfg, log, bin, work, res)
	if err != nil {
		return nil, err
	}
	res.Config = r.config(rev)
	res.Figures = r.newFigures(mem)

	if r.e, err = newSandbox(ctx, res.BenchRunID); err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, r.sweep(ctx)) }()
	if err := r.inspectDocker(ctx); err != nil {
		return nil, err
	}

	reps := max(cfg.Reps, cfg.LongReps)
	for rep := 1; rep <= reps; rep++ {
		if err := r.repetition(ctx, rep, reps); err != nil {
			return nil, err
		}
	}
	r.scalingPointOfTheSuite()
	if err := r.floods(ctx); err != nil {
		return nil, err
	}

	res.derive()
	res.Machine.LoadAverageEnd = loadAverage()
	res.DurationMS = time.Since(res.StartedAt).Milliseconds()
	log.printf("done")
	return res, nil
}

// benchRun is one run of the bench: what its scenarios measure with (the
// behaves binary, the Docker client, the suites and their specs, the
// parallelism) and the results they fill in.
type benchRun struct {
	// cfg is the run's configuration, its parallelism table completed
	// with behaves' default.
	cfg Options
	log logger
	// bin is the behaves binary under measurement.
	bin string
	// e is behaves' Docker sandbox as the floors, the loop and delivery
	// use it.
	e  *sandbox
	ps profiles
	generatedSuites
	// specs are the spec files behaves runs, by suite name (floodName for
	// the floods).
	specs map[string]string
	// parallel is the suites' parallelism, parallelArgs the arguments that
	// ask behaves for it (none when it is behaves' default).
	parallel        int
	parallelArgs    []string
	defaultParallel int
	// floodCeiling is the output limit of the floods' runs, above the
	// largest flood so that all of it is drained.
	floodCeiling int64
	res          *Results
	f            *Figures // &res.Figures
}

// generatedSuites are the suites the bench generates and runs.
type generatedSuites struct {
	base       suite // the suite: programs × cases
	wide       suite // programs of one case, where delivery is paid on every case
	sample     suite // the suite's first invocations, which the floors and the loop run
	eval       suite // the Python evaluation-style suite
	evalSample suite // its first programs, which its floors run
	// scale are the scaling points; the one of the suite's size is base.
	scale []suite
}

// newResults starts the results of a bench run: its ID, its start, the
// machine, and every figure empty.
func newResults(runID string) *Results {
	return &Results{
		Schema:        Schema,
		StartedAt:     time.Now(),
		BehavesRunIDs: []string{},
		BenchRunID:    runID,
		Warnings:      []string{},
		Figures:       EmptyFigures(),
		Machine: Machine{
			CPUs:             runtime.NumCPU(),
			MemoryBytes:      runengine.MemInfo("MemTotal:"),
			GoVersion:        runtime.Version(),
			OSArch:           runtime.GOOS + "/" + runtime.GOARCH,
			LoadAverageStart: loadAverage(),
		},
	}
}

// behavesBinary returns the behaves binary to measure and its revision:
// prebuilt (-behaves), or built from the module into work.
func behavesBinary(ctx context.Context, log logger, prebuilt, work string) (bin, rev string, err error) {
	if prebuilt != "" {
		return prebuilt, "prebuilt", nil
	}
	rev = revision(ctx)
	log.printf("building behaves (%s)", rev)
	if bin, err = buildBehaves(ctx, work); err != nil {
		return "", "", err
	}
	return bin, rev, nil
}

// newBenchRun settles the parallelism and writes every suite's spec into
// work, so that the runs measure behaves and not the writing of specs.
func newBenchRun(cfg Options, log logger, bin, work string, res *Results) (*benchRun, error) {
	r := &benchRun{cfg: cfg, log: log, bin: bin, res: res, f: &res.Figures}
	var maxFlood int64
	for _, n := range cfg.Floods {
		maxFlood = max(maxFlood, n)
	}
	r.floodCeiling = max(2*maxFlood, 4<<20)
	r.ps = newProfiles(cfg.ShellImage, cfg.PythonImage, r.floodCeiling)
	r.defaultParallel = runengine.DefaultParallel(r.ps.largestMemory())
	if !slices.Contains(cfg.Parallels, r.defaultParallel) {
		// The table always shows behaves' default against the floor.
		r.cfg.Parallels = append(slices.Clone(cfg.Parallels), r.defaultParallel)
	}
	r.parallel = cfg.Parallel
	if r.parallel == 0 {
		r.parallel = r.defaultParallel // behaves computes the same itself
	} else {
		r.parallelArgs = []string{"--parallel", strconv.Itoa(r.parallel)}
	}
	var err error
	if r.generatedSuites, r.specs, err = writeSuites(cfg, r.ps, work); err != nil {
		return nil, err
	}
	return r, nil
}

// writeSuites generates the suites cfg sizes and writes the spec of each
// one behaves runs, the floods' included, into work.
func writeSuites(cfg Options, ps profiles, work string) (generatedSuites, map[string]string, error) {
	ss := generatedSuites{
		base:       newSuite("suite", cfg.Programs, cfg.Cases),
		wide:       newSuite("wide", cfg.Wide, 1),
		sample:     newSuiteN("sample", cfg.Sample, cfg.Cases),
		eval:       newEvalSuite("eval", cfg.EvalPrograms),
		evalSample: newEvalSuite("eval-sample", cfg.EvalSample),
	}
	specs := map[string]string{}
	var err error
	for _, s := range []suite{ss.base, ss.wide, ss.sample, ss.eval} {
		if specs[s.name], err = s.write(work, ps); err != nil {
			return generatedSuites{}, nil, fmt.Errorf("writing the %s suite: %w", s.name, err)
		}
	}
	for _, n := range cfg.Scale {
		if n == ss.base.size() {
			ss.scale = append(ss.scale, ss.base)
			continue
		}
		s := newSuiteN(fmt.Sprintf("scale-%d", n), n, cfg.Cases)
		if specs[s.name], err = s.write(work, ps); err != nil {
			return generatedSuites{}, nil, fmt.Errorf("writing the %s suite: %w", s.name, err)
		}
		ss.scale = append(ss.scale, s)
	}
	for _, n := range cfg.Floods {
		if specs[floodName(n)], err = writeFloodSpec(work, ps, n); err != nil {
			return generatedSuites{}, nil, fmt.Errorf("writing the flood spec: %w", err)
		}
	}
	return ss, specs, nil
}

// config is what the run measures, as the results record it.
func (r *benchRun) config(rev string) Config {
	cfg := r.cfg
	return Config{
		BehavesRevision: rev, Short: cfg.Short, Reps: cfg.Reps, LongReps: cfg.LongReps, Parallel: r.parallel,
		Suite: r.base.shape(), Wide: r.wide.shape(), Sample: r.sample.shape(), Scale: cfg.Scale,
		DefaultParallel: r.defaultParallel, Parallels: cfg.Parallels, Eval: r.eval.shape(), EvalSample: r.evalSample.shape(),
		FloodBytes: append([]int64{}, cfg.Floods...), MemoryFrom: cfg.MemoryFrom,
		ShellImage: cfg.ShellImage, PythonImage: cfg.PythonImage,
	}
}

// newFigures lays out every figure the run fills in, each with the shape
// and parallelism it is measured at, so that the results say what each
// figure is even where it stays empty.
func (r *benchRun) newFigures(mem *MemoryResult) Figures {
	f := EmptyFigures()
	f.Memory = MemoryFigure{From: r.cfg.MemoryFrom, Result: mem}
	behavesFig := func(s suite, p int) BehavesFigure {
		return BehavesFigure{Shape: s.shape(), Invocations: s.size(), Programs: len(s.programs), Parallel: p}
	}
	floorFig := func(s suite, p int, network string) FloorFigure {
		return FloorFigure{Network: network, Shape: s.shape(), Invocations: s.size(), Parallel: p}
	}
	parallel := r.parallel
	f.Suite, f.Wide, f.Eval = behavesFig(r.base, parallel), behavesFig(r.wide, parallel), behavesFig(r.eval, parallel)
	f.Eval.Shape = "eval " + f.Eval.Shape
	f.Serial = behavesFig(r.sample, 1)
	f.Floor, f.FloorOld = floorFig(r.sample, parallel, NetworkSkipped), floorFig(r.sample, parallel, NetworkSandbox)
	f.FloorSer, f.FloorOldSer = floorFig(r.sample, 1, NetworkSkipped), floorFig(r.sample, 1, NetworkSandbox)
	f.EvalFloor, f.EvalFloorOld = floorFig(r.evalSample, parallel, NetworkSkipped), floorFig(r.evalSample, parallel, NetworkSandbox)
	f.DockerRun = LoopFigure{Shape: r.sample.shape(), Invocations: r.sample.size()}
	f.Delivery.Programs = len(r.sample.programs) + len(r.evalSample.programs)
	for _, n := range r.cfg.Floods {
		f.Floods = append(f.Floods, FloodFigure{Bytes: n})
	}
	for _, s := range r.scale {
		p := ScalePoint{Invocations: s.size(), Shape: s.shape()}
		if s.name == r.base.name {
			p.SameAs = "suite"
		}
		f.Scaling = append(f.Scaling, p)
	}
	for _, p := range r.cfg.Parallels {
		f.Parallelism = append(f.Parallelism, ParallelPoint{Parallel: p, Default: p == r.defaultParallel})
	}
	for _, v := range ablations {
		f.Ablation = append(f.Ablation, AblationFigure{Name: v.Name, What: v.what(), Adds: v.adds()})
	}
	fillStats(&f)
	return f
}

// sweep removes whatever of the bench is left, also after a failure or an
// interruption (so on a context of its own), and closes the sandbox.
func (r *benchRun) sweep(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sweepTimeout)
	defer cancel()
	n, serr := r.e.sweepAll(sctx)
	if n > 0 {
		r.log.printf("removed %s of the bench", verdict.Count(n, "leftover container or volume", "leftover containers and volumes"))
	}
	return errors.Join(serr, r.e.Close())
}

// inspectDocker records the daemon's version, storage driver and cgroup
// version (when it says) and the time of one image inspect, which behaves
// pays once per image.
func (r *benchRun) inspectDocker(ctx context.Context) error {
	if info, err := r.e.f.Info(ctx); err == nil {
		m := &r.res.Machine
		m.DockerVersion, m.StorageDriver, m.CgroupVersion = info.ServerVersion, info.Driver, info.CgroupVersion
	}
	inspect, err := r.e.inspectImages(ctx, r.ps)
	if err != nil {
		return err
	}
	r.f.ImageInspectMS.addDur(inspect)
	return nil
}

// repetition measures repetition rep of reps on program volumes of its
// own: the paired figures in the first -reps repetitions, the long ones in
// the first -long-reps. After a failure the volumes are left to the sweep.
func (r *benchRun) repetition(ctx context.Context, rep, reps int) error {
	tag := fmt.Sprintf("rep %d/%d", rep, reps)
	abba := rep%2 == 0
	vols, err := r.deliver(ctx, tag)
	if err != nil {
		return err
	}
	if r.res.Config.BehavesNetwork == "" {
		r.res.Config.BehavesNetwork = behavesNetwork(vols)
	}
	sampleVols, evalVols := vols[:len(r.sample.programs)], vols[len(r.sample.programs):]
	if rep <= r.cfg.Reps {
		if err := r.pairedFigures(ctx, tag, abba, sampleVols, evalVols); err != nil {
			return err
		}
		if err := r.startup(ctx); err != nil {
			return err
		}
	}
	if rep <= r.cfg.LongReps {
		if err := r.dockerRunLoop(ctx, tag, sampleVols); err != nil {
			return err
		}
		if err := r.parallelismTable(ctx, tag, rep, sampleVols); err != nil {
			return err
		}
		if err := r.settingCosts(ctx, tag, abba, sampleVols); err != nil {
			return err
		}
	}
	return r.e.removeVolumes(ctx, vols, &r.f.Delivery)
}

// deliver fills the volumes of the sample and the eval sample, the
// programs the floors and the loop run, and records what delivery took;
// the volumes come back in that order.
func (r *benchRun) deliver(ctx context.Context, tag string) ([]runner.Attempt, error) {
	r.log.printf("%s: delivering the %d sample programs", tag, len(r.sample.programs)+len(r.evalSample.programs))
	return r.e.deliverAll(ctx, r.ps, []suite{r.sample, r.evalSample}, &r.f.Delivery)
}

// pairedFigures measures the figures whose ratios have tight targets, each
// behaves run next to the floor it is compared with, in ABBA order when
// abba is set. The floors at the suites' parallelism are measured before
// and after the long stretch of suites, and count as one.
func (r *benchRun) pairedFigures(ctx context.Context, tag string, abba bool, sampleVols, evalVols []runner.Attempt) error {
	floorBoth, oldBoth := bracket(&r.f.Floor), bracket(&r.f.FloorOld)
	steps := slices.Concat(
		r.evalVsFloor(ctx, tag, evalVols),
		[]step{
			r.floorStep(ctx, tag, nil, r.sample, sampleVols, r.parallel, variant{}, floorBoth),
			r.floorStep(ctx, tag, nil, r.sample, sampleVols, r.parallel, oldFloor, oldBoth),
		},
		r.suitesVsAdjacentFloor(ctx, tag, sampleVols),
		[]step{
			r.floorStep(ctx, tag, nil, r.sample, sampleVols, r.parallel, oldFloor, oldBoth),
			r.floorStep(ctx, tag, nil, r.sample, sampleVols, r.parallel, variant{}, floorBoth),
		},
		r.serialVsFloor(ctx, tag, sampleVols),
	)
	return runSteps(steps, abba)
}

// evalVsFloor is (8): the floor and the old floor of the eval sample, and
// behaves on the eval suite.
func (r *benchRun) evalVsFloor(ctx context.Context, tag string, evalVols []runner.Attempt) []step {
	return []step{
		r.floorStep(ctx, tag, &r.f.EvalFloor, r.evalSample, evalVols, r.parallel, variant{}, nil),
		r.floorStep(ctx, tag, &r.f.EvalFloorOld, r.evalSample, evalVols, r.parallel, oldFloor, nil),
		r.behavesStep(ctx, tag, "eval", &r.f.Eval, nil, r.parallelArgs...),
	}
}

// suitesVsAdjacentFloor is (1) and (5): the suite, each scaling point that
// is not the suite and the one-case suite, each next to a floor of the
// sample at the suites' parallelism that its own ratio is taken against:
// over the long stretch of suites the engine's pace drifts, and a floor
// from before and after it pairs a run with an engine in another state.
func (r *benchRun) suitesVsAdjacentFloor(ctx context.Context, tag string, sampleVols []runner.Attempt) []step {
	adjacent := func(st **Stat) step {
		return r.floorStep(ctx, tag, nil, r.sample, sampleVols, r.parallel, variant{}, func(fr floorResult) {
			if *st == nil {
				*st = &Stat{}
			}
			(*st).add(ms(fr.Wall) / float64(max(fr.N, 1)))
		})
	}
	steps := []step{
		adjacent(&r.f.Suite.AdjacentFloorMS),
		r.behavesStep(ctx, tag, "suite", &r.f.Suite, nil, r.parallelArgs...),
	}
	for i, s := range r.scale {
		if r.f.Scaling[i].SameAs == "" {
			p := &r.f.Scaling[i]
			steps = append(steps, adjacent(&p.AdjacentFloorMS),
				r.behavesStep(ctx, tag, s.name, nil, func(br behavesRun) { p.WallMS.addDur(br.Wall) }, r.parallelArgs...))
		}
	}
	return append(steps,
		adjacent(&r.f.Wide.AdjacentFloorMS),
		r.behavesStep(ctx, tag, "wide", &r.f.Wide, nil, r.parallelArgs...),
	)
}

// serialVsFloor is (4): the floor and the old floor of the sample at
// parallelism 1, and behaves --parallel 1 on it.
func (r *benchRun) serialVsFloor(ctx context.Context, tag string, sampleVols []runner.Attempt) []step {
	return []step{
		r.floorStep(ctx, tag, &r.f.FloorSer, r.sample, sampleVols, 1, variant{}, nil),
		r.floorStep(ctx, tag, &r.f.FloorOldSer, r.sample, sampleVols, 1, oldFloor, nil),
		r.behavesStep(ctx, tag, "sample", &r.f.Serial, nil, "--parallel", "1"),
	}
}

// startup times `behaves validate` on the suite: process start-up and
// spec loading, without Docker, the part of a run no container explains.
func (r *benchRun) startup(ctx context.Context) error {
	st, err := validateBehaves(ctx, r.bin, r.specs["suite"])
	if err != nil {
		return err
	}
	r.f.StartupMS.addDur(st)
	return nil
}

// dockerRunLoop is (2): the sample as the sequential `docker run` loop a
// user would write instead.
func (r *benchRun) dockerRunLoop(ctx context.Context, tag string, sampleVols []runner.Attempt) error {
	r.log.printf("%s: docker run loop %s", tag, r.sample.shape())
	loop, err := r.e.cliLoop(ctx, r.cfg.DockerBin, r.sample, sampleVols)
	if err != nil {
		return err
	}
	r.f.DockerRun.WallMS.addDur(loop)
	r.f.DockerRun.PerInvocationMS.add(ms(loop) / float64(r.sample.size()))
	r.log.printf("%s: docker run loop took %s", tag, loop.Round(time.Millisecond))
	return nil
}

// parallelismTable measures behaves and the floor on the sample at each
// parallelism of the table, back to back, the pair's order alternating
// with the point and the repetition.
func (r *benchRun) parallelismTable(ctx context.Context, tag string, rep int, sampleVols []runner.Attempt) error {
	var steps []step
	for i, p := range r.cfg.Parallels {
		pt := &r.f.Parallelism[i]
		fs := r.floorStep(ctx, tag, nil, r.sample, sampleVols, p, variant{}, func(fr floorResult) {
			pt.FloorWallMS.addDur(fr.Wall)
			pt.FloorPerInvocationMS.add(ms(fr.Wall) / float64(max(fr.N, 1)))
		})
		bs := r.behavesStep(ctx, tag, "sample", nil, func(br behavesRun) {
			pt.BehavesWallMS.addDur(br.Wall)
			pt.BehavesPerInvocationMS.add(ms(br.Wall) / float64(r.sample.size()))
		}, "--parallel", strconv.Itoa(p))
		if (i+rep)%2 == 0 {
			steps = append(steps, fs, bs)
		} else {
			steps = append(steps, bs, fs)
		}
	}
	return runSteps(steps, false)
}

// settingCosts measures what each setting costs: the floor at parallelism
// 1 with each variant, between a floor at 1 before and one after them
// whose mean each is compared with. The variants run in the opposite
// order when abba is set, so that a drift weighs on none of them alone.
func (r *benchRun) settingCosts(ctx context.Context, tag string, abba bool, sampleVols []runner.Attempt) error {
	var before, after floorResult
	steps := []step{r.floorStep(ctx, tag, nil, r.sample, sampleVols, 1, variant{}, func(fr floorResult) { before = fr })}
	results := make([]floorResult, len(ablations))
	order := make([]int, len(ablations))
	for i := range order {
		order[i] = i
	}
	if abba {
		slices.Reverse(order)
	}
	for _, i := range order {
		steps = append(steps, r.floorStep(ctx, tag, nil, r.sample, sampleVols, 1, ablations[i], func(fr floorResult) { results[i] = fr }))
	}
	steps = append(steps, r.floorStep(ctx, tag, nil, r.sample, sampleVols, 1, variant{}, func(fr floorResult) { after = fr }))
	if err := runSteps(steps, false); err != nil {
		return err
	}
	floorMS := (ms(before.Wall)/float64(max(before.N, 1)) + ms(after.Wall)/float64(max(after.N, 1))) / 2
	for i, fr := range results {
		a := &r.f.Ablation[i]
		a.FloorMS.add(floorMS)
		a.PerInvocationMS.add(ms(fr.Wall) / float64(max(fr.N, 1)))
	}
	return nil
}

// scalingPointOfTheSuite gives the scaling point of the suite's size the
// suite's wall times: it is the suite, which is not run twice.
func (r *benchRun) scalingPointOfTheSuite() {
	for i := range r.f.Scaling {
		if p := &r.f.Scaling[i]; p.SameAs != "" {
			p.WallMS = newStat(r.f.Suite.WallMS.Values...)
		}
	}
}

// floods is (6): behaves' memory while one program writes each flood size
// to stdout, with an output limit above it, so that all of it is drained;
// a flood that was not drained in full measured nothing.
func (r *benchRun) floods(ctx context.Context) error {
	for i, n := range r.cfg.Floods {
		fl := &r.f.Floods[i]
		for rep := 1; rep <= r.cfg.LongReps; rep++ {
			r.log.printf("flood %d/%d: behaves run, %s to stdout", rep, r.cfg.LongReps, humanBytes(n))
			br, err := r.runSpec(ctx, floodName(n), "--max-output", specSize(r.floodCeiling))
			if err != nil {
				return err
			}
			ev := br.Report.Programs[0].Cases[0].Event
			if ev.StdoutBytes != n || ev.ResourceLimit != "" {
				return fmt.Errorf("the flood drained %d of %d bytes (resource limit %q)", ev.StdoutBytes, n, ev.ResourceLimit)
			}
			fl.StdoutBytes = ev.StdoutBytes
			fl.WallMS.addDur(br.Wall)
			fl.MaxRSSKiB.add(float64(br.MaxRSSKiB))
			fl.RusageMaxRSSKiB.add(float64(br.RusageMaxRSSKiB))
		}
	}
	return nil
}

// runSpec runs behaves on the spec of that name, then checks it for
// leftovers.
func (r *benchRun) runSpec(ctx context.Context, specName string, args ...string) (behavesRun, error) {
	br, err := runBehaves(ctx, r.bin, r.specs[specName], args...)
	if br.Report.RunID != "" {
		r.checkLeftovers(ctx, br.Report.RunID)
	}
	return br, err
}

// checkLeftovers records a behaves run's ID, and a warning (in the results
// and the log) when the run left containers or volumes behind, which a run
// must never do; the bench removes them, so that they do not weigh on the
// runs after it.
func (r *benchRun) checkLeftovers(ctx context.Context, runID string) {
	r.res.BehavesRunIDs = append(r.res.BehavesRunIDs, runID)
	if w := r.e.leftovers(ctx, runID); w != "" {
		r.res.Warnings = append(r.res.Warnings, w)
		r.log.printf("warning: %s", w)
	}
}

// step is one measurement of a scenario's sequence; runSteps runs them.
type step = func() error

// floorStep runs the floor (variant v) over s at parallelism p and
// records it in fl (if not nil); the result is also passed to then.
func (r *benchRun) floorStep(ctx context.Context, tag string, fl *FloorFigure, s suite, vols []runner.Attempt, p int, v variant, then func(floorResult)) step {
	return func() error {
		what := "floor"
		if v.NetworkSandbox {
			what = "old floor"
		}
		if v.Name != "" && v.Name != ablationOldFloor {
			what = "floor, " + v.what()
		}
		r.log.printf("%s: %s %s, parallel %d", tag, what, s.shape(), p)
		fr, err := r.e.floor(ctx, s, vols, p, v)
		if err != nil {
			return err
		}
		if fl != nil {
			recordFloor(fl, fr)
		}
		if then != nil {
			then(fr)
		}
		r.log.printf("%s: %s took %s", tag, what, fr.Wall.Round(time.Millisecond))
		return nil
	}
}

// behavesStep runs behaves on the spec of that name with args and records
// it in b (if not nil); the run is also passed to then.
func (r *benchRun) behavesStep(ctx context.Context, tag, specName string, b *BehavesFigure, then func(behavesRun), args ...string) step {
	return func() error {
		r.log.printf("%s: behaves run %s %s", tag, specName, strings.Join(args, " "))
		br, err := r.runSpec(ctx, specName, args...)
		if err != nil {
			return err
		}
		if b != nil {
			recordBehaves(b, br)
		}
		if then != nil {
			then(br)
		}
		r.log.printf("%s: behaves took %s", tag, br.Wall.Round(time.Millisecond))
		return nil
	}
}

// runSteps runs steps in order, or in the opposite order when reverse is
// set, and stops at the first error.
func runSteps(steps []step, reverse bool) error {
	if reverse {
		steps = slices.Clone(steps)
		slices.Reverse(steps)
	}
	for _, st := range steps {
		if err := st(); err != nil {
			return err
		}
	}
	return nil
}

// recordBehaves adds one behaves run to b.
func recordBehaves(b *BehavesFigure, br behavesRun) {
	b.WallMS.addDur(br.Wall)
	b.EventRunMS.add(meanEventMS(br.Report))
	b.CPUMS.addDur(br.CPU)
	b.MaxRSSKiB.add(float64(br.MaxRSSKiB))
	b.RusageMaxRSSKiB.add(float64(br.RusageMaxRSSKiB))
}

// recordFloor adds one floor pass to fl, its phases per invocation.
func recordFloor(fl *FloorFigure, fr floorResult) {
	n := float64(max(fr.N, 1))
	per := func(d time.Duration) float64 { return ms(d) / n }
	fl.WallMS.addDur(fr.Wall)
	fl.PerInvocationMS.add(ms(fr.Wall) / n)
	fl.Phases.CreateMS.add(per(fr.Phases.Create))
	fl.Phases.AttachMS.add(per(fr.Phases.Attach))
	fl.Phases.StartMS.add(per(fr.Phases.Start))
	fl.Phases.RunMS.add(per(fr.Phases.Run))
	fl.Phases.InspectMS.add(per(fr.Phases.Inspect))
	fl.Phases.RemoveMS.add(per(fr.Phases.Remove))
	fl.Phases.TotalMS.add(per(fr.Phases.total()))
	fl.Phases.EngineRunMS.add(per(fr.Phases.EngineRun))
}

// bracket returns the callback of two floor runs (of the same
// invocations) that make one figure: the second to finish records their
// mean as one pass.
func bracket(fl *FloorFigure) func(floorResult) {
	var first *floorResult
	return func(fr floorResult) {
		if first == nil {
			first = &fr
			return
		}
		sum := addPhases(first.Phases, fr.Phases)
		recordFloor(fl, floorResult{Wall: (first.Wall + fr.Wall) / 2, N: fr.N, Phases: lifecyclePhases{
			Create: sum.Create / 2, Attach: sum.Attach / 2, Start: sum.Start / 2, Run: sum.Run / 2,
			Inspect: sum.Inspect / 2, Remove: sum.Remove / 2, EngineRun: sum.EngineRun / 2,
		}})
	}
}

// behavesNetwork says what behaves' own configuration of the prepared
// programs' containers does with the network sandbox: "skipped",
// "sandbox", or "mixed" when the profiles differ.
func behavesNetwork(atts []runner.Attempt) string {
	seen := map[string]bool{}
	for _, a := range atts {
		if a.Settings().Container.NetworkDisabled {
			seen[NetworkSkipped] = true
		} else {
			seen[NetworkSandbox] = true
		}
	}
	if len(seen) > 1 {
		return "mixed"
	}
	for k := range seen {
		return k
	}
	return ""
}

// floodName is the spec name of the flood of n bytes.
func floodName(n int64) string { return fmt.Sprintf("flood-%d", n) }

// EmptyFigures has every Stat's Values as an empty list, so that the JSON
// never holds null.
func EmptyFigures() Figures {
	var f Figures
	fillStats(&f)
	f.Scaling = []ScalePoint{}
	f.Parallelism = []ParallelPoint{}
	f.Ablation = []AblationFigure{}
	f.Floods = []FloodFigure{}
	return f
}

// fillStats sets every unset Stat to an empty one, and computes the
// adjacent floors' medians (measured only for some figures).
func fillStats(f *Figures) {
	for _, st := range []*Stat{f.Suite.AdjacentFloorMS, f.Wide.AdjacentFloorMS} {
		if st != nil {
			st.update()
		}
	}
	for i := range f.Scaling {
		if st := f.Scaling[i].AdjacentFloorMS; st != nil {
			st.update()
		}
	}
	for _, b := range []*BehavesFigure{&f.Suite, &f.Wide, &f.Serial, &f.Eval} {
		for _, s := range []*Stat{&b.WallMS, &b.PerInvocationMS, &b.EventRunMS, &b.CPUMS, &b.MaxRSSKiB, &b.RusageMaxRSSKiB, &b.FloorEquivalentMS, &b.OldFloorEquivalentMS, &b.OwnMS, &b.DeliveryEquivalentMS} {
			s.update()
		}
	}
	for _, fl := range []*FloorFigure{&f.Floor, &f.FloorSer, &f.FloorOld, &f.FloorOldSer, &f.EvalFloor, &f.EvalFloorOld} {
		ph := &fl.Phases
		for _, s := range []*Stat{&fl.WallMS, &fl.PerInvocationMS, &ph.CreateMS, &ph.AttachMS, &ph.StartMS, &ph.RunMS, &ph.InspectMS, &ph.RemoveMS, &ph.TotalMS, &ph.EngineRunMS} {
			s.update()
		}
	}
	d := &f.Delivery
	for _, s := range []*Stat{&f.DockerRun.WallMS, &f.DockerRun.PerInvocationMS, &d.VolumeCreateMS, &d.HelperCreateMS, &d.CopyMS, &d.HelperRemoveMS, &d.VolumeRemoveMS, &d.TotalMS,
		&f.StartupMS, &f.ImageInspectMS} {
		s.update()
	}
	for i := range f.Floods {
		fl := &f.Floods[i]
		for _, s := range []*Stat{&fl.WallMS, &fl.MaxRSSKiB, &fl.RusageMaxRSSKiB} {
			s.update()
		}
	}
	for i := range f.Scaling {
		p := &f.Scaling[i]
		for _, s := range []*Stat{&p.WallMS, &p.PerInvocationMS, &p.FloorRatio, &p.OldFloorRatio} {
			s.update()
		}
	}
	for i := range f.Parallelism {
		p := &f.Parallelism[i]
		for _, s := range []*Stat{&p.BehavesWallMS, &p.BehavesPerInvocationMS, &p.FloorWallMS, &p.FloorPerInvocationMS, &p.Ratio} {
			s.update()
		}
	}
	for i := range f.Ablation {
		a := &f.Ablation[i]
		for _, s := range []*Stat{&a.PerInvocationMS, &a.FloorMS, &a.CostMS} {
			s.update()
		}
	}
}

// deliverAll fills one volume per program of the suites, in batches of
// one kind of up to runner.MaxBatch programs (behaves' largest), and
// records the mean delivery phases per program (volume removal is recorded
// by removeVolumes). The volumes are returned in the programs' order, the
// suites' one after the other.
func (e *sandbox) deliverAll(ctx context.Context, ps profiles, suites []suite, d *DeliveryFigure) ([]runner.Attempt, error) {
	var s suite
	for _, x := range suites {
		s.programs = append(s.programs, x.programs...)
	}
	vols := make([]runner.Attempt, len(s.programs))
	var made []runner.Attempt
	var sum deliveryPhases
	for _, k := range kinds {
		var idx []int
		for i, p := range s.programs {
			if p.kind == k {
				idx = append(idx, i)
			}
		}
		for len(idx) > 0 {
			n := min(len(idx), runner.MaxBatch)
			batch := make([]program, n)
			for j, i := range idx[:n] {
				batch[j] = s.programs[i]
			}
			got, ph, err := e.deliver(ctx, ps, batch)
			made = append(made, got...)
			if err != nil {
				e.removeVolumesQuietly(ctx, made)
				return nil, err
			}
			for j, i := range idx[:n] {
				vols[i] = got[j]
			}
			sum.VolumeCreate += ph.VolumeCreate
			sum.HelperCreate += ph.HelperCreate
			sum.Copy += ph.Copy
			sum.HelperRemove += ph.HelperRemove
			idx = idx[n:]
		}
	}
	n := float64(len(s.programs))
	d.VolumeCreateMS.add(ms(sum.VolumeCreate) / n)
	d.HelperCreateMS.add(ms(sum.HelperCreate) / n)
	d.CopyMS.add(ms(sum.Copy) / n)
	d.HelperRemoveMS.add(ms(sum.HelperRemove) / n)
	return vols, nil
}

// removeVolumesQuietly removes volumes after a failure; the sweep at the
// end reports whatever is left.
func (e *sandbox) removeVolumesQuietly(ctx context.Context, vols []runner.Attempt) {
	for _, v := range vols {
		e.removeVolume(ctx, v)
	}
}

// removeVolumes removes the program volumes and records the mean removal
// time and the delivery total of this repetition.
func (e *sandbox) removeVolumes(ctx context.Context, vols []runner.Attempt, d *DeliveryFigure) error {
	var sum time.Duration
	for _, v := range vols {
		dt, err := e.removeVolume(ctx, v)
		if err != nil {
			return err
		}
		sum += dt
	}
	rm := ms(sum) / float64(max(len(vols), 1))
	d.VolumeRemoveMS.add(rm)
	last := func(s Stat) float64 { return s.Values[len(s.Values)-1] }
	d.TotalMS.add(last(d.VolumeCreateMS) + last(d.HelperCreateMS) + last(d.CopyMS) + last(d.HelperRemoveMS) + rm)
	return nil
}

// leftovers reports the containers and volumes a behaves run left (its
// run-ID label), and removes them; "" when there are none.
func (e *sandbox) leftovers(ctx context.Context, runID string) string {
	cs, vs, err := e.removeRun(ctx, runID)
	if cs == 0 && vs == 0 && err != nil {
		return fmt.Sprintf("could not check behaves run %s for leftovers: %v", runID, err)
	}
	if cs == 0 && vs == 0 {
		return ""
	}
	return fmt.Sprintf("behaves run %s left %s and %s (removed by the bench)", runID, verdict.Count(cs, "container", "containers"), verdict.Count(vs, "volume", "volumes"))
}

// workFolder makes the bench's temporary folder; done removes it unless
// keep is set.
func workFolder(log logger, prefix string, keep bool) (dir string, done func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	if keep {
		log.printf("work folder %s (kept)", dir)
		return dir, func() {}, nil
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
