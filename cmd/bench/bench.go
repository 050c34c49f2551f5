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
	"strconv"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
)

// sweepTimeout bounds the final removal of what the bench made.
const sweepTimeout = 2 * time.Minute

// bench measures everything cfg asks for. Each repetition runs the pairs
// whose ratios have tight targets back to back (floor and suite, floor at 1
// and --parallel 1), in ABBA order across repetitions, so that a drift of
// the machine's load shifts both sides alike; ratios are taken per
// repetition. The first long-reps repetitions also run the docker run loop
// and the one-case suite; the scaling points and the flood follow.
func bench(ctx context.Context, cfg config, logw io.Writer) (res *Results, err error) {
	log := logger{w: logw, start: time.Now()}
	runID := randomHex(8)
	res = &Results{
		Schema:        Schema,
		StartedAt:     time.Now(),
		BenchRunID:    runID,
		BehavesRunIDs: []string{},
		Warnings:      []string{},
		Figures:       emptyFigures(),
	}
	res.Machine = Machine{
		CPUs:             runtime.NumCPU(),
		MemoryBytes:      cli.MemInfo("MemTotal:"),
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

	floodCeiling := max(2*cfg.floodBytes, 4<<20)
	ps := newProfiles(cfg.shellImage, cfg.pythonImage, floodCeiling)
	parallel := cfg.parallel
	if parallel == 0 {
		parallel = cli.DefaultParallel(ps.largestMemory())
	}
	var parallelArgs []string
	if cfg.explicitParallel {
		parallelArgs = []string{"--parallel", strconv.Itoa(parallel)}
	}

	base := newSuite("suite", cfg.programs, cfg.cases)
	wide := newSuite("wide", cfg.wide, 1)
	sample := newSuiteN("sample", cfg.sample, max(1, cfg.cases/2))
	specs := map[string]string{}
	for _, s := range []suite{base, wide, sample} {
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
	if cfg.floodBytes > 0 {
		if specs["flood"], err = writeFloodSpec(work, ps, cfg.floodBytes); err != nil {
			return nil, fmt.Errorf("writing the flood spec: %w", err)
		}
	}

	res.Config = Config{
		BehavesRevision: rev, Short: cfg.short, Reps: cfg.reps, LongReps: cfg.longReps, Parallel: parallel,
		Suite: base.shape(), Wide: wide.shape(), Sample: sample.shape(), Scale: cfg.scale,
		FloodBytes: cfg.floodBytes, ShellImage: cfg.shellImage, PythonImage: cfg.pythonImage,
	}
	f := &res.Figures
	f.Suite = BehavesFigure{Shape: base.shape(), Invocations: base.size(), Programs: len(base.programs), Parallel: parallel}
	f.Wide = BehavesFigure{Shape: wide.shape(), Invocations: wide.size(), Programs: len(wide.programs), Parallel: parallel}
	f.Serial = BehavesFigure{Shape: sample.shape(), Invocations: sample.size(), Programs: len(sample.programs), Parallel: 1}
	f.Floor = FloorFigure{Shape: sample.shape(), Invocations: sample.size(), Parallel: parallel}
	f.FloorSer = FloorFigure{Shape: sample.shape(), Invocations: sample.size(), Parallel: 1}
	f.DockerRun = LoopFigure{Shape: sample.shape(), Invocations: sample.size()}
	f.Delivery.Programs = len(sample.programs)
	f.Flood.Bytes = cfg.floodBytes
	for _, s := range scaleSuites {
		p := ScalePoint{Invocations: s.size(), Shape: s.shape()}
		if s.name == base.name {
			p.SameAs = "suite"
		}
		f.Scaling = append(f.Scaling, p)
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

	// scaleRuns runs every scaling point but the suite's own once.
	scaleRuns := func() error {
		for i, s := range scaleSuites {
			p := &f.Scaling[i]
			if p.SameAs != "" {
				continue
			}
			log.printf("scaling: behaves run %s", s.shape())
			r, err := runB(s.name, parallelArgs...)
			if err != nil {
				return err
			}
			p.WallMS.addDur(r.Wall)
		}
		return nil
	}

	reps := max(cfg.reps, cfg.longReps)
	for rep := 1; rep <= reps; rep++ {
		tag := fmt.Sprintf("rep %d/%d", rep, reps)
		log.printf("%s: delivering the %d sample programs", tag, len(sample.programs))
		vols, err := e.deliverAll(ctx, ps, sample, &f.Delivery)
		if err != nil {
			return nil, err
		}
		if rep <= cfg.reps {
			// Each pair runs back to back, in the opposite order on every
			// other repetition (ABBA), so that a drift of the machine's
			// load does not favour one side of a ratio.
			floorP := func() error {
				log.printf("%s: floor %s, parallel %d", tag, sample.shape(), parallel)
				fl, err := e.floor(ctx, ps, sample, vols, parallel)
				if err == nil {
					recordFloor(&f.Floor, fl)
					log.printf("%s: floor took %s", tag, fl.Wall.Round(time.Millisecond))
				}
				return err
			}
			suiteRun := func() error {
				log.printf("%s: behaves run %s", tag, base.shape())
				r, err := runB("suite", parallelArgs...)
				if err == nil {
					recordB(&f.Suite, r)
					log.printf("%s: behaves took %s", tag, r.Wall.Round(time.Millisecond))
				}
				return err
			}
			floor1 := func() error {
				log.printf("%s: floor %s, parallel 1", tag, sample.shape())
				fl, err := e.floor(ctx, ps, sample, vols, 1)
				if err == nil {
					recordFloor(&f.FloorSer, fl)
					log.printf("%s: floor took %s", tag, fl.Wall.Round(time.Millisecond))
				}
				return err
			}
			serialRun := func() error {
				log.printf("%s: behaves run --parallel 1 %s", tag, sample.shape())
				r, err := runB("sample", "--parallel", "1")
				if err == nil {
					recordB(&f.Serial, r)
					log.printf("%s: behaves took %s", tag, r.Wall.Round(time.Millisecond))
				}
				return err
			}
			// The scaling points run right after the suite run they are
			// compared with, for the same reason.
			scale := func() error { return nil }
			if rep <= cfg.longReps {
				scale = scaleRuns
			}
			steps := []func() error{floorP, suiteRun, scale, floor1, serialRun}
			if rep%2 == 0 {
				steps = []func() error{scale, suiteRun, floorP, serialRun, floor1}
			}
			for _, step := range steps {
				if err := step(); err != nil {
					return nil, err
				}
			}
			st, err := validateBehaves(ctx, bin, specs["suite"])
			if err != nil {
				return nil, err
			}
			f.StartupMS.addDur(st)
		}
		if rep <= cfg.longReps {
			log.printf("%s: docker run loop %s", tag, sample.shape())
			loop, err := e.cliLoop(ctx, cfg.dockerBin, ps, sample, vols)
			if err != nil {
				return nil, err
			}
			f.DockerRun.WallMS.addDur(loop)
			f.DockerRun.PerInvocationMS.add(ms(loop) / float64(sample.size()))
			log.printf("%s: docker run loop took %s", tag, loop.Round(time.Millisecond))
			if rep > cfg.reps { // no suite run in this repetition to sit next to
				if err := scaleRuns(); err != nil {
					return nil, err
				}
			}
		}
		if err := e.removeVolumes(ctx, vols, &f.Delivery); err != nil {
			return nil, err
		}
		if rep <= cfg.longReps {
			log.printf("%s: behaves run %s", tag, wide.shape())
			r, err := runB("wide", parallelArgs...)
			if err != nil {
				return nil, err
			}
			recordB(&f.Wide, r)
			log.printf("%s: behaves took %s", tag, r.Wall.Round(time.Millisecond))
		}
	}

	for i := range f.Scaling {
		if p := &f.Scaling[i]; p.SameAs != "" {
			p.WallMS = newStat(f.Suite.WallMS.Values...)
		}
	}

	if cfg.floodBytes > 0 {
		for rep := 1; rep <= cfg.longReps; rep++ {
			log.printf("flood %d/%d: behaves run, %s to stdout", rep, cfg.longReps, humanBytes(cfg.floodBytes))
			r, err := runB("flood", "--max-output", specSize(floodCeiling))
			if err != nil {
				return nil, err
			}
			ev := r.Report.Programs[0].Cases[0].Event
			if ev.StdoutBytes != cfg.floodBytes || ev.ResourceLimit != "" {
				return nil, fmt.Errorf("the flood drained %d of %d bytes (resource limit %q)", ev.StdoutBytes, cfg.floodBytes, ev.ResourceLimit)
			}
			f.Flood.StdoutBytes = ev.StdoutBytes
			f.Flood.WallMS.addDur(r.Wall)
			f.Flood.MaxRSSKiB.add(float64(r.MaxRSSKiB))
			f.Flood.RusageMaxRSSKiB.add(float64(r.RusageMaxRSSKiB))
		}
	}

	res.derive()
	res.Machine.LoadAverageEnd = loadAverage()
	res.DurationMS = time.Since(res.StartedAt).Milliseconds()
	log.printf("done")
	return res, nil
}

// emptyFigures has every Stat's Values as an empty list, so that the JSON
// never holds null.
func emptyFigures() Figures {
	var f Figures
	fillStats(&f)
	f.Scaling = []ScalePoint{}
	return f
}

// fillStats sets every unset Stat to an empty one.
func fillStats(f *Figures) {
	for _, b := range []*BehavesFigure{&f.Suite, &f.Wide, &f.Serial} {
		for _, s := range []*Stat{&b.WallMS, &b.PerInvocationMS, &b.EventRunMS, &b.CPUMS, &b.MaxRSSKiB, &b.RusageMaxRSSKiB, &b.FloorEquivalentMS, &b.OwnMS, &b.DeliveryEquivalentMS} {
			s.update()
		}
	}
	for _, fl := range []*FloorFigure{&f.Floor, &f.FloorSer} {
		ph := &fl.Phases
		for _, s := range []*Stat{&fl.WallMS, &fl.PerInvocationMS, &ph.CreateMS, &ph.AttachMS, &ph.StartMS, &ph.RunMS, &ph.InspectMS, &ph.RemoveMS, &ph.TotalMS, &ph.EngineRunMS} {
			s.update()
		}
	}
	d := &f.Delivery
	for _, s := range []*Stat{&f.DockerRun.WallMS, &f.DockerRun.PerInvocationMS, &d.VolumeCreateMS, &d.HelperCreateMS, &d.CopyMS, &d.HelperRemoveMS, &d.VolumeRemoveMS, &d.TotalMS,
		&f.Flood.WallMS, &f.Flood.MaxRSSKiB, &f.Flood.RusageMaxRSSKiB, &f.StartupMS, &f.ImageInspectMS} {
		s.update()
	}
	for i := range f.Scaling {
		f.Scaling[i].WallMS.update()
		f.Scaling[i].PerInvocationMS.update()
	}
}

// deliverAll fills one volume per program of s, in batches of one kind of
// up to runner.MaxBatch programs (behaves' largest), and records the mean
// delivery phases per program (volume removal is recorded by
// removeVolumes). The volumes are returned in the programs' order.
func (e *engine) deliverAll(ctx context.Context, ps profiles, s suite, d *DeliveryFigure) ([]string, error) {
	vols := make([]string, len(s.programs))
	var made []string
	var sum deliveryPhases
	for _, k := range []kind{kindShell, kindPython} {
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
