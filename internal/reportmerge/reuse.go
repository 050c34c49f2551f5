package reportmerge

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"
	"unicode/utf8"
)

// mergeSources is the sources of every report, each run once, in order.
func mergeSources(reports []Report) (*Reuse, error) {
	var out *Reuse
	seen := map[string]bool{}
	for _, r := range reports {
		if r.Reuse == nil {
			continue
		}
		if out == nil {
			out = &Reuse{Sources: []ReuseSource{}}
		}
		for _, s := range r.Reuse.Sources {
			if !seen[s.RunID] {
				seen[s.RunID] = true
				out.Sources = append(out.Sources, s)
			}
		}
	}
	if out != nil && len(out.Sources) > MaxReuseRuns {
		return nil, refuse("the shards took evidence from %d runs, more than a report names (%d)", len(out.Sources), MaxReuseRuns)
	}
	return out, nil
}
