package reportmerge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// MergeInput is one shard's report, read by ReadFile, and where it came
// from (for messages).
type MergeInput struct {
	Path   string
	Report Report
}

// MergeOptions tune Merge.
type MergeOptions struct {
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
	GitHub  GitHub
}

// MergeError is a refusal to merge: the reports do not make one run.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

func refuse(format string, args ...any) error {
	return &MergeError{Msg: fmt.Sprintf(format, args...)}
}

// Merge combines the reports of the shards of one run into one report, as
// the unsharded run would have written it: the programs in spec order,
// counts, groups (pass@k for opt.PassAt) and the verdict recomputed. It
// refuses (a *MergeError) a report that is not a shard's, shards of
// different specs (digests) or counts, two reports of one shard or of one
// program, and a missing shard unless opt.AllowMissing: then each of its
// programs is undetermined with no cases, and the merge cannot be true.
// The run failed (Error) when any shard's run failed; it was interrupted
// when any shard was.
func Merge(in []MergeInput, opt MergeOptions) (Report, error) {
	if len(in) == 0 {
		return Report{}, refuse("no shard reports to merge")
	}
	byIndex := map[int]MergeInput{}
	var first *Shard
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
			return Report{}, refuse("%s: %s", m.Path, why)
		}
		if first == nil {
			first, firstPath = s, m.Path
		}
		switch {
		case s.Count != first.Count:
			return Report{}, refuse("%s is shard %d/%d, but %s is of %d shards: not one run", m.Path, s.Index, s.Count, firstPath, first.Count)
		case s.SpecDigest != first.SpecDigest:
			return Report{}, refuse("%s and %s ran different specs (spec digest %s, %s): not one run", firstPath, m.Path, first.SpecDigest, s.SpecDigest)
		case !slices.Equal(s.Programs, first.Programs):
			return Report{}, refuse("%s and %s have different shard tables: not one run", firstPath, m.Path)
		}
		if prev, dup := byIndex[s.Index]; dup {
			return Report{}, refuse("%s and %s overlap: both are shard %d/%d", prev.Path, m.Path, s.Index, s.Count)
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
				return Report{}, refuse("%s and %s overlap: both hold program %q", prev, m.Path, p.ID)
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
		return Report{}, refuse("shard %s missing (merge with --allow-missing to judge its programs undetermined)", strings.Join(names, ", "))
	}

	base := byIndex[merged[0]].Report
	out := Report{
		Schema:   Schema,
		Tool:     Tool{Name: ToolName, Version: opt.Version},
		RunID:    opt.RunID,
		Spec:     base.Spec,
		SpecFile: base.SpecFile,
		GitHub:   opt.GitHub,
		Shard: &Shard{Index: 0, Count: first.Count, SpecDigest: first.SpecDigest,
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

	shards := make([]Report, 0, len(merged))
	for _, i := range merged {
		shards = append(shards, byIndex[i].Report)
	}
	reuse, err := mergeSources(shards)
	if err != nil {
		return Report{}, err
	}
	out.Reuse = reuse

	held := map[string]Program{}
	for _, i := range merged {
		for _, p := range byIndex[i].Report.Programs {
			held[p.ID] = p
		}
	}
	out.Programs = make([]Program, 0, len(first.Programs))
	for _, t := range first.Programs {
		p, ok := held[t.ID]
		if !ok {
			p = missingProgram(t, first.Count)
		}
		out.Programs = append(out.Programs, p)
	}
	// Counted as Read counts them, nondeterministic cases too: a merged
	// report must read back.
	out.Counts = CountsOf(out.Programs)
	out.Reuse = ReuseOf(&out)
	out.Verdict = Overall(out)
	ks := opt.PassAt
	if len(ks) == 0 {
		ks = DefaultPassAt
	}
	out.Groups = groups(out.Programs, ks)
	return Normalize(out), nil
}

// missingProgram is the entry of a program whose shard's report is
// missing: undetermined, with no cases (nothing was observed).
func missingProgram(t ShardProgram, count int) Program {
	why := MissingReason(t.Shard, count)
	return Program{
		ID: t.ID, Name: t.Name, Group: t.Group, File: t.File, Profile: t.Profile,
		Line: t.Line, Col: t.Col,
		// Nothing was observed, so nothing of another format: a rescore
		// of the merge leaves it undetermined rather than refuse it.
		EvidenceFormat:     EvidenceFormat,
		Verdict:            verdict.Undetermined,
		Reason:             why,
		Acquisition:        runner.AcquisitionError,
		AcquisitionReasons: []string{why + ": its report was not among those merged"},
		Cases:              []Case{},
	}
}
