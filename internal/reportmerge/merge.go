package reportmerge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Input is one shard's report, read by ReadFile, and where it came
// from (for messages).
type Input struct {
	Path   string
	Report report.Report
}

// Options tune Merge.
type Options struct {
	// AllowMissing merges without some shards: their programs are
	// undetermined ("shard 2/3 missing"), with no cases.
	AllowMissing bool
	// PassAt are the k of pass@k the merged groups are computed for
	// (DefaultPassAt when empty).
	PassAt []int
	// RunID, Version, GitHub and Now are the merge's own: the merged
	// report is this process's, the shards' are named in its shard block.
	RunID   string
	Version string
	GitHub  report.GitHub
}

// Error is a refusal to merge: the reports do not make one run.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func refuse(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Merge combines the reports of the shards of one run into one report, as
// the unsharded run would have written it: the programs in spec order,
// counts, groups (pass@k for opt.PassAt) and the verdict recomputed. It
// refuses (a *Error) a report that is not a shard's, shards of
// different specs (digests) or counts, two reports of one shard or of one
// program, and a missing shard unless opt.AllowMissing: then each of its
// programs is undetermined with no cases, and the merge cannot be true.
// The run failed (Error) when any shard's run failed; it was interrupted
// when any shard was.
func Merge(in []Input, opt Options) (report.Report, error) {
	if len(in) == 0 {
		return report.Report{}, refuse("no shard reports to merge")
	}
	byIndex := map[int]Input{}
	var first *report.Shard
	var firstPath string
	for _, m := range in {
		s := m.Report.Shard
		if s == nil || s.Index == 0 {
			why := "it has no shard (it was not written by behaves run --shard)"
			if s != nil {
				why = "it is a merge, not a shard"
			}
			if e := m.Report.Error; s == nil && e != "" {
				why += "; its run: " + e
			}
			return report.Report{}, refuse("%s: %s", m.Path, why)
		}
		if first == nil {
			first, firstPath = s, m.Path
		}
		switch {
		case s.Count != first.Count:
			return report.Report{}, refuse("%s is shard %d/%d, but %s is of %d shards: not one run", m.Path, s.Index, s.Count, firstPath, first.Count)
		case s.SpecDigest != first.SpecDigest:
			return report.Report{}, refuse("%s and %s ran different specs (spec digest %s, %s): not one run", firstPath, m.Path, first.SpecDigest, s.SpecDigest)
		case !slices.Equal(s.Programs, first.Programs):
			return report.Report{}, refuse("%s and %s have different shard tables: not one run", firstPath, m.Path)
		}
		if prev, dup := byIndex[s.Index]; dup {
			return report.Report{}, refuse("%s and %s overlap: both are shard %d/%d", prev.Path, m.Path, s.Index, s.Count)
		}
		byIndex[s.Index] = m
	}
	owner := map[string]string{}
	for i := 1; i <= first.Count; i++ {
		m, ok := byIndex[i]
		if !ok {
			continue
		}
		for _, p := range m.Report.Programs {
			if prev, dup := owner[p.ID]; dup {
				return report.Report{}, refuse("%s and %s overlap: both hold program %q", prev, m.Path, p.ID)
			}
			owner[p.ID] = m.Path
		}
	}
	var merged, missing []int
	for i := 1; i <= first.Count; i++ {
		if _, ok := byIndex[i]; ok {
			merged = append(merged, i)
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 && !opt.AllowMissing {
		names := make([]string, len(missing))
		for k, i := range missing {
			names[k] = fmt.Sprintf("%d/%d", i, first.Count)
		}
		return report.Report{}, refuse("shard %s missing (merge with --allow-missing to judge its programs undetermined)", strings.Join(names, ", "))
	}

	base := byIndex[merged[0]].Report
	out := report.Report{
		Schema:   report.Schema,
		Tool:     report.Tool{Name: report.ToolName, Version: opt.Version},
		RunID:    opt.RunID,
		Spec:     base.Spec,
		SpecFile: base.SpecFile,
		GitHub:   opt.GitHub,
		// Shards of one filtered run share their patterns (their spec
		// digest, which covers the programs selected, is checked equal).
		Filter: base.Filter,
		Shard: &report.Shard{Index: 0, Count: first.Count, SpecDigest: first.SpecDigest,
			Merged: merged, Missing: missing, Programs: first.Programs},
	}
	var end time.Time
	var errs []string
	for _, i := range merged {
		r := byIndex[i].Report
		if out.StartedAt.IsZero() || r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if e := r.StartedAt.Add(time.Duration(r.DurationMS) * time.Millisecond); e.After(end) {
			end = e
		}
		out.Interrupted = out.Interrupted || r.Interrupted
		if r.Error != "" {
			errs = append(errs, fmt.Sprintf("shard %d/%d: %s", i, first.Count, r.Error))
		}
		out.OutputOmittedCases += r.OutputOmittedCases
	}
	out.DurationMS = end.Sub(out.StartedAt).Milliseconds()
	out.Error = strings.Join(errs, "; ")

	shards := make([]report.Report, 0, len(merged))
	for _, i := range merged {
		shards = append(shards, byIndex[i].Report)
	}
	reuse, err := mergeSources(shards)
	if err != nil {
		return report.Report{}, err
	}
	out.Reuse = reuse

	held := map[string]report.Program{}
	for _, i := range merged {
		for _, p := range byIndex[i].Report.Programs {
			held[p.ID] = p
		}
	}
	out.Programs = make([]report.Program, 0, len(first.Programs))
	for _, t := range first.Programs {
		p, ok := held[t.ID]
		if !ok {
			p = missingProgram(t, first.Count)
		}
		out.Programs = append(out.Programs, p)
	}
	// Counted as reportread.Read counts them, nondeterministic cases too: a
	// merged report must read back.
	out.Counts = report.CountsOf(out.Programs)
	out.Reuse = report.ReuseOf(&out)
	out.Verdict = report.Overall(out)
	ks := opt.PassAt
	if len(ks) == 0 {
		ks = report.DefaultPassAt
	}
	out.Groups = report.GroupsOf(out.Programs, ks)
	return report.Normalize(out), nil
}

// missingProgram is the entry of a program whose shard's report is
// missing: undetermined, with no cases (nothing was observed).
func missingProgram(t report.ShardProgram, count int) report.Program {
	why := report.MissingReason(t.Shard, count)
	return report.Program{
		ID: t.ID, Name: t.Name, Group: t.Group, File: t.File, Profile: t.Profile,
		Line: t.Line, Col: t.Col,
		// Nothing was observed, so nothing of another format: a rescore
		// of the merge leaves it undetermined rather than refuse it.
		EvidenceFormat:     report.EvidenceFormat,
		Verdict:            verdict.Undetermined,
		Reason:             why,
		Acquisition:        runner.AcquisitionError,
		AcquisitionReasons: []string{why + ": its report was not among those merged"},
		Cases:              []report.Case{},
	}
}
