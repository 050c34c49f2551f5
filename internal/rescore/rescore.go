// Package rescore judges stored evidence again: the events of an earlier
// report against the spec's current expectations, without running
// anything. It owns the rule of when stored evidence can answer: the
// program, how it ran and each case's input must be what the spec says
// now; anything else is an error that names what differs, never a silent
// re-run.
package rescore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// ReasonOmitted is the reason of a case whose stored output was left out of
// the report (its size budget): its digest cannot be judged.
const ReasonOmitted = "the stored report kept only a digest of this case's output (its size budget left the bytes out): rescoring cannot judge it; run it again"

// Evidence is what Match found: for each spec program, the stored
// observation and each case's judgement against the current spec, ready
// for assemble.Report.
type Evidence struct {
	Observations []runner.Observation
	Results      [][]verdict.CaseResult
	// Runs holds, for a case that ran more than once, each stored run
	// judged again (assemble.Input's Runs).
	Runs [][][]assemble.RunResult
	// References holds a same_as case's stored reference runs
	// (assemble.Input's References).
	References [][][]runner.Event
	Programs   []assemble.ProgramResult
}

// Match pairs each program of sp with its stored entry in old (by id) and
// each case with its stored case (by name), checks that the stored
// evidence answers for the spec as it is now, and judges it. Every
// mismatch is a spec.Error at the program's or the case's position in sp,
// naming what differs; any makes the result nil.
func Match(sp *spec.Spec, old report.Report, oldPath string) (*Evidence, spec.Errors) {
	var errs spec.Errors
	fail := func(pos spec.Pos, format string, args ...any) {
		errs = append(errs, spec.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	if len(old.SpecErrors) > 0 {
		fail(spec.Pos{File: sp.Path, Line: 1, Col: 1}, "%s holds no evidence: its run stopped at spec errors and ran nothing", oldPath)
		return nil, errs
	}
	byID := make(map[string]*report.Program, len(old.Programs))
	for i := range old.Programs {
		byID[old.Programs[i].ID] = &old.Programs[i]
	}
	ev := &Evidence{
		Observations: make([]runner.Observation, len(sp.Programs)),
		Results:      make([][]verdict.CaseResult, len(sp.Programs)),
		Runs:         make([][][]assemble.RunResult, len(sp.Programs)),
		References:   make([][][]runner.Event, len(sp.Programs)),
		Programs:     make([]assemble.ProgramResult, len(sp.Programs)),
	}
	inputs, inputOf := sp.References(nil)
	byName := make(map[string]spec.Program, len(sp.Programs))
	for _, p := range sp.Programs {
		byName[p.Name] = p
	}
	for i, p := range sp.Programs {
		op := byID[p.ID]
		if op == nil {
			fail(p.Pos, "program %q (%s): %s has no evidence for it (id %s): run it with behaves run", p.Name, p.File, oldPath, p.ID)
			continue
		}
		prof := sp.Job(p).Profile // ProgramName set as the run sets it
		before := len(errs)
		if want := report.ProgramDigest(p.Program); op.ProgramSHA256 != want {
			fail(p.Pos, "program %q: %s changed since the stored run (sha256 %s, stored %s): run it again", p.Name, p.File, short(want), short(op.ProgramSHA256))
		}
		for _, d := range settingsDiff(prof, op.Settings) {
			fail(p.Pos, "program %q: profile %q's %s: run it again", p.Name, p.Profile, d)
		}
		for _, d := range buildDiff(prof, op.Build) {
			fail(p.Pos, "program %q: profile %q's build %s: run it again", p.Name, p.Profile, d)
		}
		stored := make(map[string]*report.Case, len(op.Cases))
		for k := range op.Cases {
			stored[op.Cases[k].Name] = &op.Cases[k]
		}
		obs := runner.Observation{
			ExecutionID:     op.ExecutionID,
			Acquisition:     op.Acquisition,
			Reasons:         slices.Clone(op.AcquisitionReasons),
			SandboxWarnings: slices.Clone(op.SandboxWarnings),
			Settings:        op.Settings,
			Events:          make([]runner.Event, len(p.Cases)),
		}
		if op.Build != nil {
			b, _ := op.Build.RunnerEvent() // its output is not judged again
			obs.Build = &b
		}
		results := make([]verdict.CaseResult, len(p.Cases))
		runs := make([][]assemble.RunResult, len(p.Cases))
		refRuns := make([][]runner.Event, len(p.Cases))
		for k, c := range p.Cases {
			oc := stored[c.Name]
			if oc == nil {
				fail(c.Pos, "case %q of program %q: %s has no such case: run it with behaves run", c.Name, p.Name, oldPath)
				continue
			}
			if want, got := max(c.Repeat, 1), oc.RunCount(); want != got {
				fail(c.Pos, "case %q of program %q: repeat is %d, the stored case ran %d %s: run it again", c.Name, p.Name, want, got, times(got))
				continue
			}
			for _, d := range caseDiff(prof, p, c, oc) {
				fail(c.Pos, "case %q of program %q: %s: run it again", c.Name, p.Name, d)
			}
			// A same_as case is judged against its stored reference runs,
			// which must be the reference's as the spec has it now.
			var refs []runner.Event
			refsWhole := true
			if sa := c.Expect.SameAs; sa != nil {
				in := inputOf[i][k]
				ref, ok := byName[sa.Reference]
				if in < 0 || !ok {
					fail(c.Pos, "case %q of program %q: its reference %q is not in the spec", c.Name, p.Name, sa.Reference)
					continue
				}
				var d []string
				refs, refsWhole, d = referenceDiff(sp, ref, inputs[in], c, oc)
				for _, m := range d {
					fail(c.Pos, "case %q of program %q: reference %q: %s: run it again", c.Name, p.Name, sa.Reference, m)
				}
				refRuns[k] = refs
			} else if len(oc.ReferenceEvents) > 0 {
				fail(c.Pos, "case %q of program %q: the stored case was compared with a reference (same_as), the spec's is not: run it again", c.Name, p.Name)
				continue
			}
			// Every stored run is judged again; the case's event is the
			// first run's.
			stored := []report.Event{oc.Event}
			if len(oc.Runs) > 1 {
				stored = stored[:0]
				for _, r := range oc.Runs {
					stored = append(stored, r.Event)
				}
			}
			rs := make([]assemble.RunResult, len(stored))
			judged := make([]verdict.CaseResult, len(stored))
			for r, se := range stored {
				e, whole := se.RunnerEvent()
				res := verdict.CaseResult{Verdict: verdict.Undetermined, Reason: ReasonOmitted}
				switch {
				case !whole || !refsWhole:
				case c.Expect.SameAs != nil:
					res = verdict.JudgeSameAs(*c.Expect.SameAs, refs, e)
				default:
					res = verdict.Judge(c.Expect, e)
				}
				rs[r], judged[r] = assemble.RunResult{Event: e, Result: res}, res
			}
			obs.Events[k] = rs[0].Event
			results[k] = verdict.Fold(judged).CaseResult
			if len(rs) > 1 {
				runs[k] = rs
			}
		}
		if len(errs) > before {
			continue
		}
		ev.Observations[i] = obs
		ev.Results[i] = results
		ev.Runs[i] = runs
		ev.References[i] = refRuns
		ev.Programs[i] = assemble.ProgramResult{Duration: time.Duration(op.DurationMS) * time.Millisecond}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return ev, nil
}

// settingsDiff lists how the profile's declared fields (image, user,
// runtime, env, tmpfs) differ from the settings the stored attempt applied.
// Settings the engine derives (the image's ENV, the per-run volume, the
// image's VOLUME tmpfs) are not the profile's and are not compared. An
// attempt that stopped before running anything recorded no settings (its
// cases are undetermined, and stay so).
func settingsDiff(prof runner.Profile, st runner.Settings) []string {
	if st.ImageID == "" && st.Image == "" {
		return nil
	}
	var d []string
	if st.Image != prof.Image {
		d = append(d, fmt.Sprintf("image is %q, the stored run used %q", prof.Image, st.Image))
	}
	if st.User != prof.User {
		d = append(d, fmt.Sprintf("user is %q, the stored run used %q", prof.User, st.User))
	}
	if st.Runtime != prof.Runtime {
		d = append(d, fmt.Sprintf("runtime is %q, the stored run used %q", prof.Runtime, st.Runtime))
	}
	env := make([]string, 0, len(prof.Env))
	for _, k := range slices.Sorted(maps.Keys(prof.Env)) {
		env = append(env, k+"="+prof.Env[k])
	}
	if !slices.Equal(env, st.Env) {
		d = append(d, fmt.Sprintf("env is %q, the stored run used %q", env, st.Env))
	}
	for _, path := range slices.Sorted(maps.Keys(prof.Tmpfs)) {
		if got, ok := tmpfsSize(st.Tmpfs[path]); !ok || got != prof.Tmpfs[path] {
			d = append(d, fmt.Sprintf("tmpfs %s is %d bytes, the stored run had %q", path, prof.Tmpfs[path], st.Tmpfs[path]))
		}
	}
	return d
}

// tmpfsSize reads size=N from a tmpfs options string.
func tmpfsSize(opts string) (int64, bool) {
	for _, o := range strings.Split(opts, ",") {
		if v, ok := strings.CutPrefix(o, "size="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// referenceDiff checks a same_as case's stored reference runs against the
// spec now: the reference's program (program_sha256), as many runs as the
// reference makes of this input (the largest repeat of the cases that
// share it), and each run's input, command and limits under the reference's
// profile. It returns the runs as events, whether all of their output was
// kept whole, and what differs.
func referenceDiff(sp *spec.Spec, ref spec.Program, in spec.ReferenceInput, c spec.Case, oc *report.Case) ([]runner.Event, bool, []string) {
	var d []string
	if oc.Expect.SameAs == nil {
		return nil, false, []string{"the stored case was not same_as: it has no reference runs"}
	}
	if want, got := max(in.Repeat, 1), len(oc.ReferenceEvents); want != got {
		d = append(d, fmt.Sprintf("it runs %d %s for this input, the stored case has %d %s", want, times(want), got, times(got)))
	}
	prof := sp.Job(ref).Profile
	digest := report.ProgramDigest(ref.Program)
	events := make([]runner.Event, 0, len(oc.ReferenceEvents))
	whole := true
	for _, se := range oc.ReferenceEvents {
		if se.ImageDigest != "" && !imageMatches(prof.Image, se.ImageDigest, se.RepoDigest) {
			m := fmt.Sprintf("image is %q, the stored run ran %s", prof.Image, se.ImageDigest)
			if !slices.Contains(d, m) {
				d = append(d, m)
			}
		}
		if se.ProgramSHA256 != "" && se.ProgramSHA256 != digest {
			m := fmt.Sprintf("%s changed since the stored run (sha256 %s, stored %s)", ref.File, short(digest), short(se.ProgramSHA256))
			if !slices.Contains(d, m) {
				d = append(d, m)
			}
		}
		for _, m := range eventDiff(prof, c, c.Invocation.Args, se) {
			if !slices.Contains(d, m) {
				d = append(d, m)
			}
		}
		e, ok := se.RunnerEvent()
		whole = whole && ok
		events = append(events, e)
	}
	return events, whole, d
}

// times is "time" or "times" for n.
func times(n int) string {
	if n == 1 {
		return "time"
	}
	return "times"
}

// caseDiff lists how a case's input (args, stdin) and how it ran (the
// command, the profile's limits) differ from the stored case's events (its
// event and each run's), each difference once.
func caseDiff(prof runner.Profile, p spec.Program, c spec.Case, oc *report.Case) []string {
	var d []string
	if !slices.Equal(c.Invocation.Args, oc.Args) {
		d = append(d, fmt.Sprintf("args are %q, the stored case had %q", c.Invocation.Args, oc.Args))
	}
	events := []report.Event{oc.Event}
	for _, r := range oc.Runs {
		events = append(events, r.Event)
	}
	for _, e := range events {
		for _, m := range eventDiff(prof, c, oc.Args, e) {
			if !slices.Contains(d, m) {
				d = append(d, m)
			}
		}
	}
	return d
}

// eventDiff lists how one stored event's input (stdin) and how it ran (the
// command, the profile's limits) differ from what the spec says now. An
// event that never ran (a sandbox error before start) recorded neither
// command nor limits, and is not compared on them.
func eventDiff(prof runner.Profile, c spec.Case, args []string, e report.Event) []string {
	var d []string
	sum := sha256.Sum256(c.Invocation.Stdin)
	if want := hex.EncodeToString(sum[:]); e.StdinSHA256 != "" && e.StdinSHA256 != want {
		d = append(d, fmt.Sprintf("stdin changed (sha256 %s, stored %s)", short(want), short(e.StdinSHA256)))
	}
	if len(e.Command) > 0 {
		// The command ends with the stored args, compared above.
		want := slices.Clone(prof.Command)
		if prof.Build == nil { // with a build, the command is the full prefix
			want = append(want, "/program/"+prof.ProgramName)
		}
		want = append(want, args...)
		if !slices.Equal(want, e.Command) {
			d = append(d, fmt.Sprintf("command is %q, the stored run ran %q", want, e.Command))
		}
	}
	if e.Limits != (runner.Limits{}) {
		want := runner.Limits{
			TimeoutMS: prof.Timeout.Milliseconds(), MemoryBytes: prof.Memory, CPUs: prof.CPUs, Pids: prof.Pids,
			OutputLimit: prof.OutputLimit, OutputCeiling: prof.OutputCeiling,
		}
		got := e.Limits
		got.NoFile, got.FileSize = 0, 0 // the sandbox's own, derived: not the profile's
		if got != want {
			d = append(d, fmt.Sprintf("limits are %s, the stored run had %s", limits(want), limits(got)))
		}
	}
	return d
}

// buildDiff lists how the profile's build stage (its command, image,
// limits, output_size and tmpfs) differs from the stored build. A stored
// build that never ran (a sandbox error before start) recorded no
// command, image or limits, and is not compared on them; its cases are
// undetermined and stay so.
func buildDiff(prof runner.Profile, ob *report.BuildStage) []string {
	b := prof.Build
	switch {
	case b == nil && ob == nil:
		return nil
	case b == nil:
		return []string{fmt.Sprintf("stage is gone, the stored run built with %q", ob.Command)}
	case ob == nil:
		return []string{"stage is new: the stored run had none"}
	}
	var d []string
	if len(ob.Command) > 0 {
		want := runner.BuildArgv(b.Command, "/program/"+prof.ProgramName)
		if !slices.Equal(want, ob.Command) {
			d = append(d, fmt.Sprintf("command is %q, the stored build ran %q", want, ob.Command))
		}
	}
	if ob.ImageDigest != "" && !imageMatches(b.Image, ob.ImageDigest, ob.RepoDigest) {
		d = append(d, fmt.Sprintf("image is %q, the stored build ran %s", b.Image, ob.ImageDigest))
	}
	if ob.Limits != (runner.Limits{}) {
		want := runner.Limits{
			TimeoutMS: b.Timeout.Milliseconds(), MemoryBytes: b.Memory, CPUs: b.CPUs, Pids: b.Pids,
			OutputLimit: b.OutputLimit, OutputCeiling: b.OutputCeiling,
		}
		got := ob.Limits
		got.NoFile, got.FileSize = 0, 0
		if got != want {
			d = append(d, fmt.Sprintf("limits are %s, the stored build had %s", limits(want), limits(got)))
		}
	}
	if ob.OutputSize != b.OutputSize {
		d = append(d, fmt.Sprintf("output_size is %s, the stored build had %s", verdict.FormatSize(b.OutputSize), verdict.FormatSize(ob.OutputSize)))
	}
	if !maps.Equal(b.Tmpfs, ob.Tmpfs) && !(len(b.Tmpfs) == 0 && len(ob.Tmpfs) == 0) {
		d = append(d, fmt.Sprintf("tmpfs is %v, the stored build had %v", b.Tmpfs, ob.Tmpfs))
	}
	return d
}

// imageMatches says whether a pinned reference ("sha256:<id>" or
// "name@sha256:<digest>") is the image a stored event ran: its image ID,
// or its registry digest.
func imageMatches(ref, id, repoDigest string) bool {
	if ref == id || ref == repoDigest {
		return true
	}
	_, digest, ok := strings.Cut(ref, "@")
	_, stored, ok2 := strings.Cut(repoDigest, "@")
	return ok && ok2 && digest == stored
}

func limits(l runner.Limits) string {
	return fmt.Sprintf("timeout %s, memory %s, cpus %g, pids %d, output_limit %s, output_ceiling %s",
		time.Duration(l.TimeoutMS)*time.Millisecond, verdict.FormatSize(l.MemoryBytes), l.CPUs, l.Pids,
		verdict.FormatSize(l.OutputLimit), verdict.FormatSize(l.OutputCeiling))
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	if digest == "" {
		return "none"
	}
	return digest
}
