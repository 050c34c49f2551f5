package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// The reuse scenario (-reuse N): what behaves run --reuse saves.
//
//   - The evaluation shape of N programs, run once, then again with one
//     program changed and --reuse of the first report: the second run's
//     wall against the first's, and against the changed program's own
//     lifecycle (a spec of that program alone, run without reuse); the
//     engine's event log must show the changed program's containers only.
//   - The suite (-programs × -cases), run once, then unchanged with
//     --reuse of its report: nothing runs.
//   - A stored report of about 256 MiB (the default --max-report-size),
//     written by the report writer from the memory scenario's shape, read
//     by a run with --reuse: behaves' peak RSS against docs/security.md's
//     read bound (8 × the file + 64 MiB) plus the run's own.

// ReuseSchema names the JSON format of the reuse scenario's results.
const ReuseSchema = "behaves.bench-reuse/v1"

// ReuseResult is what the reuse scenario measured.
type ReuseResult struct {
	Schema    string    `json:"schema"`
	Revision  string    `json:"revision"`
	StartedAt time.Time `json:"started_at"`
	Parallel  int       `json:"parallel"`
	// Eval is the evaluation shape, one program changed.
	Eval ReusePair `json:"eval"`
	// AloneMS is the changed program run alone, without reuse: its own
	// lifecycle and behaves' start; AloneContainers what that run made.
	AloneMS         float64 `json:"alone_ms"`
	AloneContainers int     `json:"alone_containers"`
	// Suite is the suite, unchanged.
	Suite ReusePair `json:"suite"`
	// Big is the run that reads a large stored report.
	Big ReuseRead `json:"big"`
}

// ReusePair is a first run and a rerun with --reuse of its report.
type ReusePair struct {
	Programs    int     `json:"programs"`
	Invocations int     `json:"invocations"`
	FirstMS     float64 `json:"first_ms"`
	SecondMS    float64 `json:"second_ms"`
	// Ratio is SecondMS / FirstMS.
	Ratio float64 `json:"ratio"`
	// Reused and Ran are the rerun's report's counts; Containers what the
	// engine's event log shows the rerun created.
	Reused     int `json:"reused"`
	Ran        int `json:"ran"`
	Containers int `json:"containers"`
}

// ReuseRead is a run that read a large stored report.
type ReuseRead struct {
	ReportBytes int64   `json:"report_bytes"`
	WriteMS     float64 `json:"write_ms"`
	WallMS      float64 `json:"wall_ms"`
	PeakRSSKiB  int64   `json:"peak_rss_kib"`
	// BaseRSSKiB is the same run without --reuse; Bound the read bound
	// (8 × the file + 64 MiB) above it.
	BaseRSSKiB int64 `json:"base_rss_kib"`
	Bound      int64 `json:"bound"`
}

// BigReportCases are the cases of the large stored report by default:
// with 64 KiB of control characters on each stream (4/3 of that in the
// report, as base64), they pass the writer's 256 MiB budget, which is then
// full.
const BigReportCases = 1700

// Reuse runs the reuse scenario with n evaluation programs.
func Reuse(ctx context.Context, cfg Options, n int, stdout, logw io.Writer) (*ReuseResult, error) {
	log, work, bin, done, err := startScenario(ctx, cfg, logw, "behaves-bench-reuse-")
	if err != nil {
		return nil, err
	}
	defer done()
	e, err := newSandbox(ctx, randomHex(8))
	if err != nil {
		return nil, err
	}
	defer e.Close()
	ps := newProfiles(cfg.ShellImage, cfg.PythonImage, 4<<20)
	res := &ReuseResult{Schema: ReuseSchema, Revision: revision(ctx), StartedAt: time.Now(), Parallel: cfg.Parallel}
	par := []string{"--parallel", strconv.Itoa(cfg.Parallel)}

	// The evaluation shape, one program changed.
	eval := newEvalSuite("eval", n)
	first, err := reuseFirst(ctx, log, bin, work, ps, eval, par)
	if err != nil {
		return nil, err
	}
	changed := eval
	changed.name = "eval-changed"
	changed.programs = append([]program{}, eval.programs...)
	k := n / 2
	changed.programs[k].source = append([]byte("# changed\n"), changed.programs[k].source...)
	second, err := reuseSecond(ctx, log, e, bin, work, ps, changed, first, par)
	if err != nil {
		return nil, err
	}
	res.Eval = pair(eval, first, second)
	alone := suite{name: "eval-alone", programs: []program{changed.programs[k]}}
	path, err := alone.write(work, ps)
	if err != nil {
		return nil, err
	}
	log.printf("reuse: the changed program alone")
	stop := e.watchCreates(ctx)
	ar, err := runBehaves(ctx, bin, path, par...)
	creates, werr := stop()
	if err = errors.Join(err, werr); err != nil {
		return nil, err
	}
	res.AloneMS, res.AloneContainers = ms(ar.Wall), creates[ar.Report.RunID]

	// The suite, unchanged.
	base := newSuite("suite", cfg.Programs, cfg.Cases)
	first, err = reuseFirst(ctx, log, bin, work, ps, base, par)
	if err != nil {
		return nil, err
	}
	again := base
	again.name = "suite-again"
	second, err = reuseSecond(ctx, log, e, bin, work, ps, again, first, par)
	if err != nil {
		return nil, err
	}
	res.Suite = pair(base, first, second)

	// A large stored report.
	if res.Big, err = reuseBig(ctx, log, bin, work, cfg.ShellImage, cfg.ReuseBig, alone, ps, par); err != nil {
		return nil, err
	}
	res.Print(stdout)
	return res, nil
}

// reuseFirst runs s once and returns the run, its report kept beside it.
func reuseFirst(ctx context.Context, log logger, bin, work string, ps profiles, s suite, par []string) (behavesRun, error) {
	path, err := s.write(work, ps)
	if err != nil {
		return behavesRun{}, err
	}
	log.printf("reuse: %s (%s), first run", s.name, s.shape())
	br, err := runBehaves(ctx, bin, path, par...)
	if err != nil {
		return br, err
	}
	kept := filepath.Join(work, s.name+"-stored.json")
	if err := os.Rename(br.ReportPath, kept); err != nil {
		return br, err
	}
	br.ReportPath = kept
	return br, nil
}

// reuseSecond runs s with --reuse of first's report and counts the
// containers it made.
func reuseSecond(ctx context.Context, log logger, e *sandbox, bin, work string, ps profiles, s suite, first behavesRun, par []string) (reused, error) {
	path, err := s.write(work, ps)
	if err != nil {
		return reused{}, err
	}
	log.printf("reuse: %s, --reuse of the first run's report", s.name)
	stop := e.watchCreates(ctx)
	br, err := runBehaves(ctx, bin, path, append([]string{"--reuse", first.ReportPath}, par...)...)
	creates, werr := stop()
	if err = errors.Join(err, werr); err != nil {
		return reused{}, err
	}
	n := creates[br.Report.RunID]
	if br.Report.Reuse == nil {
		return reused{}, fmt.Errorf("the rerun of %s has no reuse block", s.name)
	}
	log.printf("reuse: %s took %s (first %s), %d reused, %d ran, %d containers", s.name, br.Wall.Round(time.Millisecond),
		first.Wall.Round(time.Millisecond), br.Report.Reuse.Reused, br.Report.Reuse.Ran, n)
	return reused{behavesRun: br, containers: n}, nil
}

type reused struct {
	behavesRun
	containers int
}

func pair(s suite, first behavesRun, second reused) ReusePair {
	return ReusePair{Programs: len(s.programs), Invocations: s.size(), FirstMS: ms(first.Wall), SecondMS: ms(second.Wall),
		Ratio: ms(second.Wall) / ms(first.Wall), Reused: second.Report.Reuse.Reused, Ran: second.Report.Reuse.Ran, Containers: second.containers}
}

// watchCreates counts, from now until the returned function is called,
// the containers the daemon creates with a behaves run ID label, by run ID,
// from the live event stream (docker.Follow, on the sandbox's client).
func (e *sandbox) watchCreates(ctx context.Context) (stop func() (map[string]int, error)) {
	seen := map[string]int{}
	end := e.f.Follow(ctx, filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("event", string(events.ActionCreate)),
		filters.Arg("label", runner.LabelRunID),
	), func(m events.Message) { seen[m.Actor.Attributes[runner.LabelRunID]]++ })
	return func() (map[string]int, error) {
		// A container's create event is on the stream long before the run
		// that made it removes it and returns.
		if err := end(); err != nil {
			return seen, fmt.Errorf("reading the engine's events: %w", err)
		}
		return seen, nil
	}
}

// reuseBig writes a stored report of about 256 MiB with the report writer
// (the memory scenario's spec, each case's event as the sandbox would
// give it, 64 KiB of \x01 a stream) and measures a run of s that reads it
// with --reuse, and the same run without it.
func reuseBig(ctx context.Context, log logger, bin, work, shellImage string, cases int, s suite, ps profiles, par []string) (ReuseRead, error) {
	var out ReuseRead
	specPath, _, err := writeMemorySpec(work, shellImage, cases)
	if err != nil {
		return out, err
	}
	sp, err := spec.Load(specPath, spec.Options{})
	if err != nil {
		return out, err
	}
	log.printf("reuse: writing a stored report of %d cases", cases)
	t0 := time.Now()
	big := filepath.Join(work, "big-stored.json")
	w, err := assemble.NewWriter(big, reportwrite.Options{MaxSize: reportwrite.DefaultMaxReportSize})
	if err != nil {
		return out, err
	}
	defer w.Close()
	flood := make([]byte, memoryStreamBytes)
	for i := range flood {
		flood[i] = 1
	}
	records := make([]assemble.Program, len(sp.Programs))
	zero := 0
	for i, p := range sp.Programs {
		records[i] = assemble.Program{Spec: p, Attempt: runner.Observation{ExecutionID: randomHex(16), Acquisition: runner.AcquisitionComplete}}
		for c, sc := range p.Cases {
			ev := runner.Event{ExitCode: &zero, Duration: time.Millisecond,
				Stdout: runner.Stream{Data: flood, Bytes: int64(len(flood))}, Stderr: runner.Stream{Data: flood, Bytes: int64(len(flood))}}
			res := verdict.Judge(sc.Expect, ev)
			k := assemble.Case{Spec: sc, Runs: []assemble.RunResult{{Event: ev, Result: res}}, Result: res}
			w.AddCase(i, c, k)
			records[i].Cases = append(records[i].Cases, k.WithoutOutput())
		}
	}
	if _, err := w.Commit(assemble.Report(assemble.Input{Spec: sp, Programs: records, RunID: randomHex(8), StartedAt: time.Now()})); err != nil {
		return out, err
	}
	out.WriteMS = ms(time.Since(t0))
	fi, err := os.Stat(big)
	if err != nil {
		return out, err
	}
	out.ReportBytes = fi.Size()
	path, err := s.write(work, ps)
	if err != nil {
		return out, err
	}
	log.printf("reuse: a run reading the %s stored report", mibs(out.ReportBytes))
	br, err := runBehaves(ctx, bin, path, append([]string{"--reuse", big}, par...)...)
	if err != nil {
		return out, err
	}
	out.WallMS, out.PeakRSSKiB = ms(br.Wall), br.MaxRSSKiB
	base, err := runBehaves(ctx, bin, path, par...)
	if err != nil {
		return out, err
	}
	out.BaseRSSKiB = base.MaxRSSKiB
	out.Bound = 8*out.ReportBytes + 64<<20
	return out, nil
}

func (r *ReuseResult) Print(w io.Writer) {
	fmt.Fprintf(w, "behaves bench -reuse · %s · behaves %s · parallel %d\n", r.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), r.Revision, r.Parallel)
	row := func(what string, p ReusePair) {
		fmt.Fprintf(w, "%-40s first %9s  rerun %8s  %5.1f %%  reused %d, ran %d, %d containers\n",
			fmt.Sprintf("%s (%d programs, %d invocations)", what, p.Programs, p.Invocations), dur(p.FirstMS), dur(p.SecondMS), 100*p.Ratio, p.Reused, p.Ran, p.Containers)
	}
	row("eval, one program changed", r.Eval)
	fmt.Fprintf(w, "%-40s %s, %d containers; the rerun is %s beyond it\n", "  the changed program alone", dur(r.AloneMS), r.AloneContainers, dur(r.Eval.SecondMS-r.AloneMS))
	row("suite, unchanged", r.Suite)
	b := r.Big
	fmt.Fprintf(w, "reading a stored report of %s (written in %s): run %s, peak RSS %s (%s without --reuse); bound %s above it: %s\n",
		mibs(b.ReportBytes), dur(b.WriteMS), dur(b.WallMS), mibs(b.PeakRSSKiB<<10), mibs(b.BaseRSSKiB<<10), mibs(b.Bound),
		within((b.PeakRSSKiB-b.BaseRSSKiB)<<10 <= b.Bound))
}

func WriteReuseJSON(path string, r *ReuseResult) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
