package reportmerge

import "github.com/behaves-dev/behaves/internal/report"

// mergeSources is the sources of every report, each run once, in order.
func mergeSources(reports []report.Report) (*report.Reuse, error) {
	var out *report.Reuse
	seen := map[string]bool{}
	for _, r := range reports {
		if r.Reuse == nil {
			continue
		}
		if out == nil {
			out = &report.Reuse{Sources: []report.ReuseSource{}}
		}
		for _, s := range r.Reuse.Sources {
			if !seen[s.RunID] {
				seen[s.RunID] = true
				out.Sources = append(out.Sources, s)
			}
		}
	}
	if out != nil && len(out.Sources) > report.MaxReuseRuns {
		return nil, refuse("the shards took evidence from %d runs, more than a report names (%d)", len(out.Sources), report.MaxReuseRuns)
	}
	return out, nil
}
