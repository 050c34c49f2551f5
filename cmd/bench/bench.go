package main

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

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"

	runengine "github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
)

// sweepTimeout bounds the final removal of what the bench made.
const sweepTimeout = 2 * time.Minute

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
func bench(ctx context.Context, cfg config, mem *MemoryResult, logw io.Writer) (res *Results, err error) {
	log := logger{w: logw, start: time.Now()}
	runID := randomHex(8)
	res = &Results{
		Schema:        Schema,
		StartedAt:     time.Now(),
		BehavesRunIDs: []string{},
		BenchRunID:    runID,
		Warnings:      []string{},
		Figures:       emptyFigures(),
	}
	res.Machine = Machine{
		CPUs:             runtime.NumCPU(),
		MemoryBytes:      runengine.MemInfo("MemTotal:"),
		GoVersion:        runtime.Version(),
		OSArch:           runtime.GOOS + "/" + runtime.GOARCH,
		LoadAverageStart: loadAverage(),
	}

	work, done, err := workFolder(log, "behaves-bench-", cfg.keep)
	if err != nil {
		return nil, err
	}
	defer done()

	bin, rev := cfg.behavesBin, "prebuilt"
	if bin == "" {
		rev = revision(ctx)
		log.printf("building behaves (%s)", rev)
		if bin, err = buildBehaves(ctx, work); err != nil {
			return nil, err
		}
	}

	var maxFlood int64
	for _, n := range cfg.floods {
		maxFlood = max(maxFlood, n)
	}
	floodCeiling := max(2*maxFlood, 4<<20)
	ps := newProfiles(cfg.shellImage, cfg.pythonImage, floodCeiling)
	defaultParallel := runengine.DefaultParallel(ps.largestMemory())
	if !slices.Contains(cfg.parallels, defaultParallel) {
		// The table always shows behaves' default against the floor.
		cfg.parallels = append(slices.Clone(cfg.parallels), defaultParallel)
	}
	parallel := cfg.parallel
	var parallelArgs []string
	if parallel == 0 {
		parallel = defaultParallel // behaves computes the same itself
	} else {
		parallelArgs = []string{"--parallel", strconv.Itoa(parallel)}
	}

	base := newSuite("suite", cfg.programs, cfg.cases)
	wide := newSuite("wide", cfg.wide, 1)
	sample := newSuiteN("sample", cfg.sample, cfg.cases)
	evalSuite := newEvalSuite("eval", cfg.evalPrograms)
	evalSample := newEvalSuite("eval-sample", cfg.evalSample)
	specs := map[string]string{}
	for _, s := range []suite{base, wide, sample, evalSuite} {
		if specs[s.name], err = s.write(work, ps); err != nil {
			return nil, fmt.Errorf("writing the %s suite: %w", s.name, err)
		}
	}
	var scaleSuites []suite
	for _, n := range cfg.scale {
		if n == base.size() {
			scaleSuites = append(scaleSuites, base)
			continue
		}
		s := newSuiteN(fmt.Sprintf("scale-%d", n), n, cfg.cases)
		if specs[s.name], err = s.write(work, ps); err != nil {
			return nil, fmt.Errorf("writing the %s suite: %w", s.name, err)
		}
		scaleSuites = append(scaleSuites, s)
	}
	for _, n := range cfg.floods {
		if specs[floodName(n)], err = writeFloodSpec(work, ps, n); err != nil {
			return nil, fmt.Errorf("writing the flood spec: %w", err)
		}
	}

	res.Config = Config{
		BehavesRevision: rev, Short: cfg.short, Reps: cfg.reps, LongReps: cfg.longReps, Parallel: parallel,
		Suite: base.shape(), Wide: wide.shape(), Sample: sample.shape(), Scale: cfg.scale,
		BehavesNetwork: behavesNetwork(ps), DefaultParallel: defaultParallel, Parallels: cfg.parallels, Eval: evalSuite.shape(), EvalSample: evalSample.shape(),
		FloodBytes: append([]int64{}, cfg.floods...), MemoryFrom: cfg.memoryFrom,
		ShellImage: cfg.shellImage, PythonImage: cfg.pythonImage,
	}
	f := &res.Figures
	f.Memory = MemoryFigure{From: cfg.memoryFrom, Result: mem}
	behavesFig := func(s suite, p int) BehavesFigure {
		return BehavesFigure{Shape: s.shape(), Invocations: s.size(), Programs: len(s.programs), Parallel: p}
	}
	floorFig := func(s suite, p int, network string) FloorFigure {
		return FloorFigure{Network: network, Shape: s.shape(), Invocations: s.size(), Parallel: p}
	}
	f.Suite, f.Wide, f.Eval = behavesFig(base, parallel), behavesFig(wide, parallel), behavesFig(evalSuite, parallel)
	f.Eval.Shape = "eval " + f.Eval.Shape
	f.Serial = behavesFig(sample, 1)
	f.Floor, f.FloorOld = floorFig(sample, parallel, networkSkipped), floorFig(sample, parallel, networkSandbox)
	f.FloorSer, f.FloorOldSer = floorFig(sample, 1, networkSkipped), floorFig(sample, 1, networkSandbox)
	f.EvalFloor, f.EvalFloorOld = floorFig(evalSample, parallel, networkSkipped), floorFig(evalSample, parallel, networkSandbox)
	f.DockerRun = LoopFigure{Shape: sample.shape(), Invocations: sample.size()}
	f.Delivery.Programs = len(sample.programs) + len(evalSample.programs)
	for _, n := range cfg.floods {
		f.Floods = append(f.Floods, FloodFigure{Bytes: n})
	}
	for _, s := range scaleSuites {
		p := ScalePoint{Invocations: s.size(), Shape: s.shape()}
		if s.name == base.name {
			p.SameAs = "suite"
		}
		f.Scaling = append(f.Scaling, p)
	}
	for _, p := range cfg.parallels {
		f.Parallelism = append(f.Parallelism, ParallelPoint{Parallel: p, Default: p == defaultParallel})
	}
	for _, v := range ablations {
		f.Ablation = append(f.Ablation, AblationFigure{Name: v.Name, What: v.what(), Adds: v.adds()})
	}
	fillStats(f)

	e, err := newEngine(ctx, runID)
	if err != nil {
		return nil, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sweepTimeout)
		defer cancel()
		n, serr := e.sweep(sctx)
		if n > 0 {
			log.printf("removed %d leftover container(s) and volume(s) of the bench", n)
		}
		err = errors.Join(err, serr, e.cli.Close())
	}()
	if info, err := e.cli.Info(ctx); err == nil {
		res.Machine.DockerVersion, res.Machine.StorageDriver, res.Machine.CgroupVersion = info.ServerVersion, info.Driver, info.CgroupVersion
	}
	inspect, err := e.inspectImages(ctx, ps)
	if err != nil {
		return nil, err
	}
	f.ImageInspectMS.addDur(inspect)

	// runB runs behaves, records its run ID and checks it left nothing.
	runB := func(s string, args ...string) (behavesRun, error) {
		r, err := runBehaves(ctx, bin, specs[s], args...)
		if r.Report.RunID != "" {
			res.BehavesRunIDs = append(res.BehavesRunIDs, r.Report.RunID)
			if w := e.leftovers(ctx, r.Report.RunID); w != "" {
				res.Warnings = append(res.Warnings, w)
				log.printf("warning: %s", w)
			}
		}
		return r, err
	}
	recordB := func(b *BehavesFigure, r behavesRun) {
		b.WallMS.addDur(r.Wall)
		b.EventRunMS.add(meanEventMS(r.Report))
		b.CPUMS.addDur(r.CPU)
		b.MaxRSSKiB.add(float64(r.MaxRSSKiB))
		b.RusageMaxRSSKiB.add(float64(r.RusageMaxRSSKiB))
	}
	recordFloor := func(fl *FloorFigure, r floorResult) {
		n := float64(max(r.N, 1))
		per := func(d time.Duration) float64 { return ms(d) / n }
		fl.WallMS.addDur(r.Wall)
		fl.PerInvocationMS.add(ms(r.Wall) / n)
		fl.Phases.CreateMS.add(per(r.Phases.Create))
		fl.Phases.AttachMS.add(per(r.Phases.Attach))
		fl.Phases.StartMS.add(per(r.Phases.Start))
		fl.Phases.RunMS.add(per(r.Phases.Run))
		fl.Phases.InspectMS.add(per(r.Phases.Inspect))
		fl.Phases.RemoveMS.add(per(r.Phases.Remove))
		fl.Phases.TotalMS.add(per(r.Phases.total()))
		fl.Phases.EngineRunMS.add(per(r.Phases.EngineRun))
	}
	// bracket returns the callback of two floor runs (of the same
	// invocations) that make one figure: the second to finish records
	// their mean as one pass.
	bracket := func(fl *FloorFigure) func(floorResult) {
		var first *floorResult
		rec := func(r floorResult) {
			if first == nil {
				first = &r
				return
			}
			sum := addPhases(first.Phases, r.Phases)
			recordFloor(fl, floorResult{Wall: (first.Wall + r.Wall) / 2, N: r.N, Phases: lifecyclePhases{
				Create: sum.Create / 2, Attach: sum.Attach / 2, Start: sum.Start / 2, Run: sum.Run / 2,
				Inspect: sum.Inspect / 2, Remove: sum.Remove / 2, EngineRun: sum.EngineRun / 2,
			}})
		}
		return rec
	}
	type step = func() error
	// floorStep runs the floor (variant v) over s at parallelism p and
	// records it in fl (if not nil); the result is also passed to then.
	floorStep := func(tag string, fl *FloorFigure, s suite, vols *[]string, p int, v variant, then func(floorResult)) step {
		return func() error {
			what := "floor"
			if v.NetworkSandbox {
				what = "old floor"
			}
			if v.Name != "" && v.Name != ablationOldFloor {
				what = "floor, " + v.what()
			}
			log.printf("%s: %s %s, parallel %d", tag, what, s.shape(), p)
			r, err := e.floor(ctx, ps, s, *vols, p, v)
			if err != nil {
				return err
			}
			if fl != nil {
				recordFloor(fl, r)
			}
			if then != nil {
				then(r)
			}
			log.printf("%s: %s took %s", tag, what, r.Wall.Round(time.Millisecond))
			return nil
		}
	}
	behavesStep := func(tag, specName string, b *BehavesFigure, then func(behavesRun), args ...string) step {
		return func() error {
			log.printf("%s: behaves run %s %s", tag, specName, strings.Join(args, " "))
			r, err := runB(specName, args...)
			if err != nil {
				return err
			}
			if b != nil {
				recordB(b, r)
			}
			if then != nil {
				then(r)
			}
			log.printf("%s: behaves took %s", tag, r.Wall.Round(time.Millisecond))
			return nil
		}
	}
	runSteps := func(steps []step, reverse bool) error {
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
	old := variant{Name: ablationOldFloor, NetworkSandbox: true}

	reps := max(cfg.reps, cfg.longReps)
	for rep := 1; rep <= reps; rep++ {
		tag := fmt.Sprintf("rep %d/%d", rep, reps)
		abba := rep%2 == 0
		log.printf("%s: delivering the %d sample programs", tag, len(sample.programs)+len(evalSample.programs))
		vols, err := e.deliverAll(ctx, ps, []suite{sample, evalSample}, &f.Delivery)
		if err != nil {
			return nil, err
		}
		sampleVols, evalVols := vols[:len(sample.programs)], vols[len(sample.programs):]
		if rep <= cfg.reps {
			// Each floor sits next to the runs compared with it; the
			// floors at the suites' parallelism are measured before and
			// after the long stretch of suites, and count as one.
			floorBoth, oldBoth := bracket(&f.Floor), bracket(&f.FloorOld)
			// adjacent measures the floor (the sample, at the suites'
			// parallelism) right next to one behaves run, for that run's
			// ratio: over the long stretch of suites the engine's pace
			// drifts, and a floor from before and after it pairs a run
			// with an engine in another state.
			adjacent := func(st **Stat) step {
				return floorStep(tag, nil, sample, &sampleVols, parallel, variant{}, func(r floorResult) {
					if *st == nil {
						*st = &Stat{}
					}
					(*st).add(ms(r.Wall) / float64(max(r.N, 1)))
				})
			}
			steps := []step{
				floorStep(tag, &f.EvalFloor, evalSample, &evalVols, parallel, variant{}, nil),
				floorStep(tag, &f.EvalFloorOld, evalSample, &evalVols, parallel, old, nil),
				behavesStep(tag, "eval", &f.Eval, nil, parallelArgs...),
				floorStep(tag, nil, sample, &sampleVols, parallel, variant{}, floorBoth),
				floorStep(tag, nil, sample, &sampleVols, parallel, old, oldBoth),
				adjacent(&f.Suite.AdjacentFloorMS),
				behavesStep(tag, "suite", &f.Suite, nil, parallelArgs...),
			}
			for i, s := range scaleSuites {
				if f.Scaling[i].SameAs == "" {
					p := &f.Scaling[i]
					steps = append(steps, adjacent(&p.AdjacentFloorMS),
						behavesStep(tag, s.name, nil, func(r behavesRun) { p.WallMS.addDur(r.Wall) }, parallelArgs...))
				}
			}
			steps = append(steps,
				adjacent(&f.Wide.AdjacentFloorMS),
				behavesStep(tag, "wide", &f.Wide, nil, parallelArgs...),
				floorStep(tag, nil, sample, &sampleVols, parallel, old, oldBoth),
				floorStep(tag, nil, sample, &sampleVols, parallel, variant{}, floorBoth),
				floorStep(tag, &f.FloorSer, sample, &sampleVols, 1, variant{}, nil),
				floorStep(tag, &f.FloorOldSer, sample, &sampleVols, 1, old, nil),
				behavesStep(tag, "sample", &f.Serial, nil, "--parallel", "1"),
			)
			if err := runSteps(steps, abba); err != nil {
				return nil, err
			}
			st, err := validateBehaves(ctx, bin, specs["suite"])
			if err != nil {
				return nil, err
			}
			f.StartupMS.addDur(st)
		}
		if rep <= cfg.longReps {
			log.printf("%s: docker run loop %s", tag, sample.shape())
			loop, err := e.cliLoop(ctx, cfg.dockerBin, ps, sample, sampleVols)
			if err != nil {
				return nil, err
			}
			f.DockerRun.WallMS.addDur(loop)
			f.DockerRun.PerInvocationMS.add(ms(loop) / float64(sample.size()))
			log.printf("%s: docker run loop took %s", tag, loop.Round(time.Millisecond))

			// The parallelism table: behaves and the floor at each
			// parallelism, back to back, the pair's order alternating.
			var steps []step
			for i, p := range cfg.parallels {
				pt := &f.Parallelism[i]
				fs := floorStep(tag, nil, sample, &sampleVols, p, variant{}, func(r floorResult) {
					pt.FloorWallMS.addDur(r.Wall)
					pt.FloorPerInvocationMS.add(ms(r.Wall) / float64(max(r.N, 1)))
				})
				bs := behavesStep(tag, "sample", nil, func(r behavesRun) {
					pt.BehavesWallMS.addDur(r.Wall)
					pt.BehavesPerInvocationMS.add(ms(r.Wall) / float64(sample.size()))
				}, "--parallel", strconv.Itoa(p))
				if (i+rep)%2 == 0 {
					steps = append(steps, fs, bs)
				} else {
					steps = append(steps, bs, fs)
				}
			}
			if err := runSteps(steps, false); err != nil {
				return nil, err
			}

			// The cost of each setting: the floor at 1 before and after
			// the variants, which run in the opposite order every other
			// repetition.
			var before, after floorResult
			steps = []step{floorStep(tag, nil, sample, &sampleVols, 1, variant{}, func(r floorResult) { before = r })}
			results := make([]floorResult, len(ablations))
			order := make([]int, len(ablations))
			for i := range order {
				order[i] = i
			}
			if abba {
				slices.Reverse(order)
			}
			for _, i := range order {
				steps = append(steps, floorStep(tag, nil, sample, &sampleVols, 1, ablations[i], func(r floorResult) { results[i] = r }))
			}
			steps = append(steps, floorStep(tag, nil, sample, &sampleVols, 1, variant{}, func(r floorResult) { after = r }))
			if err := runSteps(steps, false); err != nil {
				return nil, err
			}
			base := (ms(before.Wall)/float64(max(before.N, 1)) + ms(after.Wall)/float64(max(after.N, 1))) / 2
			for i, r := range results {
				a := &f.Ablation[i]
				a.FloorMS.add(base)
				a.PerInvocationMS.add(ms(r.Wall) / float64(max(r.N, 1)))
			}
		}
		if err := e.removeVolumes(ctx, vols, &f.Delivery); err != nil {
			return nil, err
		}
	}

	for i := range f.Scaling {
		if p := &f.Scaling[i]; p.SameAs != "" {
			p.WallMS = newStat(f.Suite.WallMS.Values...)
		}
	}

	for i, n := range cfg.floods {
		fl := &f.Floods[i]
		for rep := 1; rep <= cfg.longReps; rep++ {
			log.printf("flood %d/%d: behaves run, %s to stdout", rep, cfg.longReps, humanBytes(n))
			r, err := runB(floodName(n), "--max-output", specSize(floodCeiling))
			if err != nil {
				return nil, err
			}
			ev := r.Report.Programs[0].Cases[0].Event
			if ev.StdoutBytes != n || ev.ResourceLimit != "" {
				return nil, fmt.Errorf("the flood drained %d of %d bytes (resource limit %q)", ev.StdoutBytes, n, ev.ResourceLimit)
			}
			fl.StdoutBytes = ev.StdoutBytes
			fl.WallMS.addDur(r.Wall)
			fl.MaxRSSKiB.add(float64(r.MaxRSSKiB))
			fl.RusageMaxRSSKiB.add(float64(r.RusageMaxRSSKiB))
		}
	}

	res.derive()
	res.Machine.LoadAverageEnd = loadAverage()
	res.DurationMS = time.Since(res.StartedAt).Milliseconds()
	log.printf("done")
	return res, nil
}

// behavesNetwork says what behaves' own configuration of the suites'
// program containers does with the network sandbox: "skipped", "sandbox",
// or "mixed" when the profiles differ.
func behavesNetwork(ps profiles) string {
	seen := map[string]bool{}
	for _, k := range kinds {
		p := newProgram(int(k), 1)
		cfg, _ := containerConfig(ps.of(k), imageInfo{ID: ps.of(k).image}, "v", p.file, p.cases[0], nil)
		if cfg.NetworkDisabled {
			seen[networkSkipped] = true
		} else {
			seen[networkSandbox] = true
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

// emptyFigures has every Stat's Values as an empty list, so that the JSON
// never holds null.
func emptyFigures() Figures {
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
func (e *engine) deliverAll(ctx context.Context, ps profiles, suites []suite, d *DeliveryFigure) ([]string, error) {
	var s suite
	for _, x := range suites {
		s.programs = append(s.programs, x.programs...)
	}
	vols := make([]string, len(s.programs))
	var made []string
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
func (e *engine) removeVolumesQuietly(ctx context.Context, vols []string) {
	for _, v := range vols {
		e.removeVolume(ctx, v)
	}
}

// removeVolumes removes the program volumes and records the mean removal
// time and the delivery total of this repetition.
func (e *engine) removeVolumes(ctx context.Context, vols []string, d *DeliveryFigure) error {
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
func (e *engine) leftovers(ctx context.Context, runID string) string {
	f := filters.NewArgs(filters.Arg("label", docker.LabelRunID+"="+runID))
	cs, err1 := e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	vs, err2 := e.cli.VolumeList(ctx, volume.ListOptions{Filters: f})
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Sprintf("could not check behaves run %s for leftovers: %v", runID, err)
	}
	if len(cs) == 0 && len(vs.Volumes) == 0 {
		return ""
	}
	for _, c := range cs {
		_ = e.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}
	for _, v := range vs.Volumes {
		_ = e.cli.VolumeRemove(ctx, v.Name, true)
	}
	return fmt.Sprintf("behaves run %s left %d container(s) and %d volume(s) (removed by the bench)", runID, len(cs), len(vs.Volumes))
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
