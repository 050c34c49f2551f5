package bench

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	runengine "github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// The folders scenario (-folders N): what folder programs (dir:) cost,
// held to issue 37's targets.
//
//   - Memory: N folder programs of -folder-size each (two data files of
//     half that, pseudo-random bytes), one case each that reads both, run
//     by the behaves binary at its default parallelism: its peak RSS
//     (VmHWM) against 256 MiB, and the program volumes the engine made,
//     counted from its live events (one per program).
//   - Delivery: a folder program of -folder-files files, -folder-size in
//     all, beside a single-file program, each with folderCases cases. Each
//     is delivered alone by behaves' own sandbox (docker.Floor.Prepare),
//     -reps times: the delivery's wall time against 1 s, its engine calls,
//     and behaves' side of the copy (its files read and hashed; the same
//     and the archive written, to nowhere). Then both programs' cases run
//     through the floor's lifecycle at parallelism 1, one of each in turn:
//     the folder program's median per case against the single-file
//     program's, within 1.05×.
//   - The real path: behaves run --parallel 1 on both programs.

// FoldersSchema names the JSON format of the folders scenario's results.
const FoldersSchema = "behaves.bench-folders/v1"

// The folders scenario's shape and targets.
const (
	// folderCases are the cases of the delivery scenario's two programs.
	folderCases = 10
	// FoldersMemoryTarget, FoldersDeliveryTarget and FoldersCaseTarget
	// are issue 37's: peak RSS with N folder programs, the delivery of one
	// folder program of 2,000 files and 20 MiB, and its per-case cost
	// against a single-file program's.
	FoldersMemoryTarget   = 256 << 20
	FoldersDeliveryTarget = 1000.0 // ms
	FoldersCaseTarget     = 1.05
)

// FoldersResult is what the folders scenario measured.
type FoldersResult struct {
	Schema    string    `json:"schema"`
	Revision  string    `json:"revision"`
	StartedAt time.Time `json:"started_at"`
	// LoadAverage is the machine's 1-minute load average at the start and
	// at the end: the figures are times, and other work on the machine
	// makes them slower.
	LoadAverage [2]float64      `json:"load_average"`
	Memory      FoldersMemory   `json:"memory"`
	Delivery    FoldersDelivery `json:"delivery"`
}

// FoldersMemory is the memory part: many folder programs through behaves.
type FoldersMemory struct {
	Programs     int   `json:"programs"`
	ProgramBytes int64 `json:"program_bytes"`
	Files        int   `json:"files"` // in all
	Cases        int   `json:"cases"`
	Parallel     int   `json:"parallel"`
	// PeakRSSKiB is behaves' VmHWM (RusageMaxRSSKiB wait4's, an upper
	// bound); Bound docs/security.md's formula (engine.MemoryBound and
	// engine.FilesMemory), which has no term for the programs' bytes.
	PeakRSSKiB      int64   `json:"peak_rss_kib"`
	RusageMaxRSSKiB int64   `json:"rusage_max_rss_kib"`
	Bound           int64   `json:"bound"`
	WallMS          float64 `json:"wall_ms"`
	CPUMS           float64 `json:"cpu_ms"`
	// Volumes are the program volumes the engine made for the run.
	Volumes int          `json:"volumes"`
	Counts  report.Tally `json:"counts"`
}

// FoldersDelivery is the delivery part: one large folder program against
// a single-file program.
type FoldersDelivery struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	Cases int   `json:"cases"`
	// LoadMS is behaves validate on the spec of both programs: start-up
	// and the load, which reads and hashes every file once.
	LoadMS Stat `json:"load_ms"`
	// Folder and Single are each program's delivery alone (Prepare: the
	// volume, the helper, the copy, the helper's removal; then the
	// volume's removal), FolderMS and SingleMS its wall time.
	Folder   DeliveryFigure `json:"folder"`
	Single   DeliveryFigure `json:"single"`
	FolderMS Stat           `json:"folder_ms"`
	SingleMS Stat           `json:"single_ms"`
	// HashMS is reading the folder program's files again through their
	// handles, hashing them (runner.File.Open); ArchiveMS the same and
	// writing its delivery archive, to nowhere (docker.Floor.Archive).
	HashMS    Stat `json:"hash_ms"`
	ArchiveMS Stat `json:"archive_ms"`
	// ExtractMS is the floor of the engine's side of the copy: the same
	// archive extracted by the bench (Go's archive/tar, as the engine's
	// own extraction: folders made, files created and written, nothing
	// synced) into a folder of its work folder, on this machine's disk.
	ExtractMS Stat `json:"extract_ms"`
	// FolderCaseMS and SingleCaseMS are, per repetition, the median of
	// each program's cases through the floor's lifecycle, and CaseRatio
	// their ratio.
	FolderCaseMS Stat `json:"folder_case_ms"`
	SingleCaseMS Stat `json:"single_case_ms"`
	CaseRatio    Stat `json:"case_ratio"`
	// RunMS and RunPeakRSSKiB are behaves run --parallel 1 of both
	// programs.
	RunMS         float64 `json:"run_ms"`
	RunPeakRSSKiB int64   `json:"run_peak_rss_kib"`
}

// Folders runs the folders scenario with n folder programs of size bytes
// for the memory part, and a folder program of files files of size bytes
// in all for the delivery part.
func Folders(ctx context.Context, cfg Options, n int, size int64, files int, stdout, logw io.Writer) (*FoldersResult, error) {
	log, work, bin, done, err := startScenario(ctx, cfg, logw, "behaves-bench-folders-")
	if err != nil {
		return nil, err
	}
	defer done()
	e, err := newSandbox(ctx, randomHex(8))
	if err != nil {
		return nil, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sweepTimeout)
		defer cancel()
		if n, err := e.sweepAll(sctx); n > 0 || err != nil {
			log.printf("removed %s of the bench (%v)", verdict.Count(n, "leftover container or volume", "leftover containers and volumes"), err)
		}
		e.Close()
	}()
	res := &FoldersResult{Schema: FoldersSchema, Revision: revision(ctx), StartedAt: time.Now()}
	res.LoadAverage[0] = loadAverage()
	if res.Delivery, err = foldersDelivery(ctx, cfg, log, e, bin, work, size, files); err != nil {
		return nil, err
	}
	if res.Memory, err = foldersMemory(ctx, cfg, log, e, bin, work, n, size); err != nil {
		return nil, err
	}
	res.LoadAverage[1] = loadAverage()
	res.Print(stdout)
	return res, nil
}

// fillRandom fills b with pseudo-random bytes of seed: nothing about a
// program's bytes is special (no runs of one byte, nothing repeated
// across programs).
func fillRandom(b []byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 37))
	for k := 0; k < len(b); k += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && k+j < len(b); j++ {
			b[k+j] = byte(v >> (8 * j))
		}
	}
}

// foldersMemory writes n folder programs of size bytes and runs them.
func foldersMemory(ctx context.Context, cfg Options, log logger, e *sandbox, bin, work string, n int, size int64) (FoldersMemory, error) {
	m := FoldersMemory{Programs: n, ProgramBytes: size, Files: 3 * n, Cases: n}
	dir := filepath.Join(work, "memory-folders")
	half := size / 2
	log.printf("folders: writing %d folder programs of %s (%s in all)", n, humanBytes(size), humanBytes(int64(n)*size))
	block := make([]byte, half)
	for i := range n {
		pdir := filepath.Join(dir, fmt.Sprintf("p%04d", i))
		if err := os.MkdirAll(filepath.Join(pdir, "data"), 0o755); err != nil {
			return m, err
		}
		for k, name := range []string{"a", "b"} {
			fillRandom(block, uint64(2*i+k))
			if err := os.WriteFile(filepath.Join(pdir, "data", name+".bin"), block, 0o644); err != nil {
				return m, err
			}
		}
		if err := os.WriteFile(filepath.Join(pdir, "main.sh"), []byte("cat /program/data/a.bin /program/data/b.bin | wc -c\n"), 0o644); err != nil {
			return m, err
		}
	}
	specPath := filepath.Join(dir, "behaves.yml")
	src := fmt.Sprintf(`# Generated by cmd/bench -folders.
version: 1
profiles:
  sh: {image: %s, command: ["/bin/sh"]}
programs:
  - name: p
    dirs: "p*"
    entry: main.sh
    profile: sh
    cases:
      - {name: size, expect: {stdout: {equals: "%d"}}}
`, jsonString(cfg.ShellImage), 2*half)
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		return m, err
	}
	var args []string
	m.Parallel = runengine.DefaultParallel(spec.DefaultMemory)
	if cfg.ExplicitParallel && cfg.Parallel > 0 {
		args = append(args, "--parallel", strconv.Itoa(cfg.Parallel))
		m.Parallel = cfg.Parallel
	}
	runID := randomHex(8)
	args = append(args, "--run-id", runID)
	// The engine names the volumes it makes in its events, without their
	// labels; it logs a create again for each container that mounts one.
	prefix := docker.NamePrefix(runID)
	var mu sync.Mutex
	volumes := map[string]bool{}
	stop := e.f.Follow(ctx, filters.NewArgs(filters.Arg("type", string(events.VolumeEventType)), filters.Arg("event", string(events.ActionCreate))), func(msg events.Message) {
		if strings.HasPrefix(msg.Actor.ID, prefix) && strings.HasSuffix(msg.Actor.ID, "-program") {
			mu.Lock()
			volumes[msg.Actor.ID] = true
			mu.Unlock()
		}
	})
	log.printf("folders: behaves run on the %d folder programs, parallel %d", n, m.Parallel)
	run, err := runBehaves(ctx, bin, specPath, args...)
	if serr := stop(); err == nil && serr != nil {
		err = fmt.Errorf("reading the engine's events: %w", serr)
	}
	if err != nil {
		return m, err
	}
	if msg := e.leftovers(ctx, runID); msg != "" {
		return m, errors.New(msg)
	}
	mu.Lock()
	m.Volumes = len(volumes)
	mu.Unlock()
	m.WallMS, m.CPUMS = ms(run.Wall), ms(run.CPU)
	m.PeakRSSKiB, m.RusageMaxRSSKiB = run.MaxRSSKiB, run.RusageMaxRSSKiB
	m.Counts = run.Report.Counts.Cases
	m.Bound = runengine.MemoryBound(m.Parallel, spec.DefaultOutputLimit, m.Cases) + runengine.FilesMemory(m.Files)
	if err := os.RemoveAll(dir); err != nil {
		return m, err
	}
	return m, nil
}

// foldersDelivery writes the delivery part's two programs and measures
// their delivery and their cases.
func foldersDelivery(ctx context.Context, cfg Options, log logger, e *sandbox, bin, work string, size int64, files int) (FoldersDelivery, error) {
	d := FoldersDelivery{Files: files, Cases: folderCases}
	dir := filepath.Join(work, "delivery")
	script := []byte("echo \"ok $1\"\n")
	// The folder: its entry and files-1 data files of equal size, 100 to
	// a folder.
	if err := os.MkdirAll(filepath.Join(dir, "folder"), 0o755); err != nil {
		return d, err
	}
	if err := os.WriteFile(filepath.Join(dir, "folder", "main.sh"), script, 0o644); err != nil {
		return d, err
	}
	// The data files share what the entry leaves of size; the first ones
	// take the remainder, so that the folder is size exactly.
	d.Bytes = int64(len(script))
	data := max(size-d.Bytes, 0)
	each, extra := data/int64(files-1), data%int64(files-1)
	buf := make([]byte, each+1)
	for i := range files - 1 {
		n := each
		if int64(i) < extra {
			n++
		}
		sub := filepath.Join(dir, "folder", fmt.Sprintf("d%02d", i/100))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return d, err
		}
		fillRandom(buf[:n], uint64(1000+i))
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.dat", i)), buf[:n], 0o644); err != nil {
			return d, err
		}
		d.Bytes += n
	}
	if err := os.WriteFile(filepath.Join(dir, "single.sh"), script, 0o644); err != nil {
		return d, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by cmd/bench -folders.\nversion: 1\nprofiles:\n  sh: {image: %s, command: [\"/bin/sh\"]}\nprograms:\n", jsonString(cfg.ShellImage))
	for _, entry := range []string{"  - {name: folder, dir: folder, entry: main.sh, profile: sh, cases: [", "  - {name: single, file: single.sh, profile: sh, cases: ["} {
		b.WriteString(entry)
		for k := range folderCases {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{name: c%d, args: [\"%d\"], expect: {stdout: {equals: \"ok %d\"}}}", k, k, k)
		}
		b.WriteString("]}\n")
	}
	specPath := filepath.Join(dir, "behaves.yml")
	if err := os.WriteFile(specPath, []byte(b.String()), 0o644); err != nil {
		return d, err
	}
	sp, err := spec.Load(specPath, spec.Options{})
	if err != nil {
		return d, fmt.Errorf("loading the delivery spec: %w", err)
	}
	if len(sp.Programs) != 2 || len(sp.Programs[0].Program.Files) != files {
		return d, fmt.Errorf("the delivery spec has %d programs, the first of %d files; want 2, %d", len(sp.Programs), len(sp.Programs[0].Program.Files), files)
	}
	folderJob, singleJob := sp.Job(sp.Programs[0]), sp.Job(sp.Programs[1])
	invs := make([]invocation, folderCases)
	for k := range invs {
		invs[k] = invocation{name: fmt.Sprintf("c%d", k), args: []string{strconv.Itoa(k)}, want: fmt.Sprintf("ok %d", k)}
	}
	d.Folder.Programs, d.Single.Programs = 1, 1

	log.printf("folders: a folder program of %d files, %s, against a single-file program, %d cases each, %d repetitions", files, humanBytes(d.Bytes), folderCases, cfg.Reps)
	for rep := range cfg.Reps {
		dt, err := validateBehaves(ctx, bin, specPath)
		if err != nil {
			return d, err
		}
		d.LoadMS.addDur(dt)
		t0 := time.Now()
		if err := foldersHash(folderJob.Program); err != nil {
			return d, err
		}
		d.HashMS.addDur(time.Since(t0))
		t0 = time.Now()
		if err := e.f.Archive(io.Discard, folderJob.Program, folderJob.Profile); err != nil {
			return d, fmt.Errorf("writing the folder program's archive: %w", err)
		}
		d.ArchiveMS.addDur(time.Since(t0))
		var archive bytes.Buffer
		if err := e.f.Archive(&archive, folderJob.Program, folderJob.Profile); err != nil {
			return d, fmt.Errorf("writing the folder program's archive: %w", err)
		}
		out := filepath.Join(dir, "extracted")
		t0 = time.Now()
		if err := extract(&archive, out); err != nil {
			return d, fmt.Errorf("extracting the folder program's archive: %w", err)
		}
		d.ExtractMS.addDur(time.Since(t0))
		if err := os.RemoveAll(out); err != nil {
			return d, err
		}

		// Each delivered alone, in turn (ABBA over the repetitions).
		order := []*runner.Job{&folderJob, &singleJob}
		if rep%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		atts := map[*runner.Job]runner.Attempt{}
		for _, j := range order {
			fig, wall := &d.Folder, &d.FolderMS
			if j == &singleJob {
				fig, wall = &d.Single, &d.SingleMS
			}
			t0 := time.Now()
			made, phases, err := e.deliverJobs(ctx, []runner.Job{*j})
			for _, a := range made {
				atts[j] = a
			}
			if err != nil {
				return d, errors.Join(err, closeAll(ctx, e, atts))
			}
			wall.addDur(time.Since(t0))
			fig.VolumeCreateMS.addDur(phases.VolumeCreate)
			fig.HelperCreateMS.addDur(phases.HelperCreate)
			fig.CopyMS.addDur(phases.Copy)
			fig.HelperRemoveMS.addDur(phases.HelperRemove)
		}

		// One case of each in turn, at parallelism 1.
		var fcase, scase []float64
		for k, inv := range invs {
			for i := range 2 {
				j := order[(i+k)%2]
				p := program{name: "folder", source: script}
				if j == &singleJob {
					p.name = "single"
				}
				l, err := e.lifecycle(ctx, p, atts[j], inv, variant{})
				if err != nil {
					return d, errors.Join(err, closeAll(ctx, e, atts))
				}
				if j == &singleJob {
					scase = append(scase, ms(l.total()))
				} else {
					fcase = append(fcase, ms(l.total()))
				}
			}
		}
		fm, sm := newStat(fcase...).Median, newStat(scase...).Median
		d.FolderCaseMS.add(fm)
		d.SingleCaseMS.add(sm)
		d.CaseRatio.add(fm / sm)

		for j, a := range atts {
			dt, err := e.removeVolume(ctx, a)
			if err != nil {
				return d, errors.Join(err, closeAll(ctx, e, atts))
			}
			delete(atts, j)
			fig := &d.Folder
			if j == &singleJob {
				fig = &d.Single
			}
			fig.VolumeRemoveMS.addDur(dt)
			last := func(s Stat) float64 { return s.Values[len(s.Values)-1] }
			fig.TotalMS.add(last(fig.VolumeCreateMS) + last(fig.HelperCreateMS) + last(fig.CopyMS) + last(fig.HelperRemoveMS) + ms(dt))
		}
		log.printf("folders: repetition %d: delivery %s (single file %s), per case %s against %s",
			rep+1, dur(d.FolderMS.Values[rep]), dur(d.SingleMS.Values[rep]), dur(fm), dur(sm))
	}

	log.printf("folders: behaves run --parallel 1 on both programs")
	run, err := runBehaves(ctx, bin, specPath, "--parallel", "1")
	if err != nil {
		return d, err
	}
	if msg := e.leftovers(ctx, run.Report.RunID); msg != "" {
		return d, errors.New(msg)
	}
	d.RunMS, d.RunPeakRSSKiB = ms(run.Wall), run.MaxRSSKiB
	return d, os.RemoveAll(dir)
}

// foldersHash reads every file of prog through its handle, as a delivery
// does, hashing it, without writing it anywhere.
func foldersHash(prog runner.Program) error {
	for _, p := range slices.Sorted(maps.Keys(prog.Files)) {
		r, err := prog.Files[p].Open()
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, r)
		r.Close()
		if err != nil {
			return fmt.Errorf("reading %s again: %w", p, err)
		}
	}
	return nil
}

// extract writes the files, folders and links of a delivery archive under
// dir, as the engine's extraction does (Go's archive/tar, nothing synced),
// with the bench's own user and modes that let it remove them.
func extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, p)
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			var f *os.File
			if f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			return err
		}
	}
}

// closeAll closes the attempts left, after a failure.
func closeAll(ctx context.Context, e *sandbox, atts map[*runner.Job]runner.Attempt) error {
	var errs []error
	for _, a := range atts {
		if _, err := e.removeVolume(context.WithoutCancel(ctx), a); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Print writes the scenario's figures with their targets.
func (r *FoldersResult) Print(w io.Writer) {
	fmt.Fprintf(w, "behaves bench -folders · %s · behaves %s · load average %.1f at start, %.1f at end\n",
		r.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), r.Revision, r.LoadAverage[0], r.LoadAverage[1])
	m := r.Memory
	fmt.Fprintf(w, "memory: %d folder programs of %s (%s in all, %d files), %d cases, parallel %d: wall %s, behaves CPU %s; cases %d true of %d; %d program volumes\n",
		m.Programs, humanBytes(m.ProgramBytes), humanBytes(int64(m.Programs)*m.ProgramBytes), m.Files, m.Cases, m.Parallel,
		dur(m.WallMS), dur(m.CPUMS), m.Counts.True, m.Counts.Total, m.Volumes)
	fmt.Fprintf(w, "  peak RSS %s (VmHWM; wait4's ru_maxrss %s); formula %s (engine.MemoryBound + engine.FilesMemory)\n",
		mibs(m.PeakRSSKiB<<10), mibs(m.RusageMaxRSSKiB<<10), mibs(m.Bound))
	d := r.Delivery
	fmt.Fprintf(w, "delivery: a folder program of %d files, %s, and a single-file program, each alone (medians of %d; min–max)\n", d.Files, humanBytes(d.Bytes), len(d.FolderMS.Values))
	for _, row := range []struct {
		name string
		wall Stat
		f    DeliveryFigure
	}{{"folder", d.FolderMS, d.Folder}, {"single file", d.SingleMS, d.Single}} {
		fmt.Fprintf(w, "  %-11s %s ms (%s–%s): volume create %s · helper create %s · copy %s · helper remove %s; then volume remove %s\n",
			row.name, msf(row.wall), msv(row.wall.Min), msv(row.wall.Max), msf(row.f.VolumeCreateMS), msf(row.f.HelperCreateMS), msf(row.f.CopyMS), msf(row.f.HelperRemoveMS), msf(row.f.VolumeRemoveMS))
	}
	fmt.Fprintf(w, "  behaves' side of the folder's copy: its files read again and hashed %s ms; the same and its archive written (to nowhere) %s ms\n", msf(d.HashMS), msf(d.ArchiveMS))
	fmt.Fprintf(w, "  the floor of the engine's side: the same archive extracted by the bench onto this disk %s ms (%s–%s)\n", msf(d.ExtractMS), msv(d.ExtractMS.Min), msv(d.ExtractMS.Max))
	fmt.Fprintf(w, "  spec load (behaves validate of both programs: start-up, every file read and hashed once) %s ms\n", msf(d.LoadMS))
	fmt.Fprintf(w, "per case, parallel 1, one case of each in turn (median of %d per repetition): folder %s ms, single file %s ms\n", d.Cases, msf(d.FolderCaseMS), msf(d.SingleCaseMS))
	fmt.Fprintf(w, "behaves run --parallel 1 of both (%d cases): wall %s, peak RSS %s\n", 2*d.Cases, dur(d.RunMS), mibs(d.RunPeakRSSKiB<<10))
	fmt.Fprintf(w, "targets\n")
	pass := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "MISS"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  peak RSS, %d folder programs of %s\t%s\t\t≤ %s\t%s\n", m.Programs, humanBytes(m.ProgramBytes), mibs(m.PeakRSSKiB<<10), mibs(FoldersMemoryTarget), pass(m.PeakRSSKiB<<10 <= FoldersMemoryTarget))
	fmt.Fprintf(tw, "  delivery of the folder program\t%s ms\t%s–%s\t≤ %s ms\t%s\n", msf(d.FolderMS), msv(d.FolderMS.Min), msv(d.FolderMS.Max), msv(FoldersDeliveryTarget), pass(d.FolderMS.Median <= FoldersDeliveryTarget))
	fmt.Fprintf(tw, "  per case, folder / single file\t%.3f×\t%.3f–%.3f\t≤ %.2f×\t%s\n", d.CaseRatio.Median, d.CaseRatio.Min, d.CaseRatio.Max, FoldersCaseTarget, pass(d.CaseRatio.Median <= FoldersCaseTarget))
	tw.Flush()
}

// WriteFoldersJSON writes the folders scenario's results.
func WriteFoldersJSON(path string, r *FoldersResult) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
