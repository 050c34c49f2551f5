package reportread

import (
	"fmt"
	"strconv"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// checkGroups recomputes the groups from the programs (their group and
// verdict) and the k values the report asked for, and compares: a forged
// pass@k or count does not fold from its samples.
func checkGroups(r *report.Report) error {
	var ks []int
	for i, g := range r.Groups {
		for key := range g.PassAt {
			k, err := strconv.Atoi(key)
			if err != nil || k < 1 || k > verdict.MaxPassAtK || strconv.Itoa(k) != key {
				return fmt.Errorf("group %d: pass_at key %q is not a k", i+1, key)
			}
			if i == 0 {
				ks = append(ks, k)
			}
		}
	}
	want := report.GroupsOf(r.Programs, ks)
	if len(want) != len(r.Groups) {
		return fmt.Errorf("%d groups, but the programs name %d", len(r.Groups), len(want))
	}
	for i := range want {
		if err := sameGroup(r.Groups[i], want[i]); err != nil {
			return fmt.Errorf("group %d (%q): %w", i+1, r.Groups[i].Name, err)
		}
	}
	return nil
}

func sameGroup(got, want report.Group) error {
	if got.Name != want.Name || got.N != want.N || got.True != want.True || got.False != want.False || got.Undetermined != want.Undetermined {
		return fmt.Errorf("counts n %d, true %d, false %d, undetermined %d are not its samples' (%s: n %d, true %d, false %d, undetermined %d)",
			got.N, got.True, got.False, got.Undetermined, want.Name, want.N, want.True, want.False, want.Undetermined)
	}
	if len(got.PassAt) != len(want.PassAt) {
		return fmt.Errorf("pass_at has %d values of k, the first group %d", len(got.PassAt), len(want.PassAt))
	}
	for k, w := range want.PassAt {
		g, ok := got.PassAt[k]
		switch {
		case !ok:
			return fmt.Errorf("pass_at has no k = %s", k)
		case (g == nil) != (w == nil) || g != nil && *g != *w:
			return fmt.Errorf("pass@%s is %s, not what its samples give (%s)", k, report.FormatPassAt(g), report.FormatPassAt(w))
		}
	}
	// The reasons are text a renderer prints, so they are recomputed like
	// the values: their keys exactly the k whose pass@k is null, each text
	// exactly what passAt writes. A key pass_at lacks (which reads as nil)
	// is no exception.
	for k, g := range got.PassAtReasons {
		w, ok := want.PassAtReasons[k]
		switch {
		case !ok:
			return fmt.Errorf("pass_at_reasons has a key %s, which is not a k whose pass@k is null", escape.Quote(escape.Shorten(k, 40)))
		case g != w:
			return fmt.Errorf("pass_at_reasons[%s] is not what its samples give (%q)", k, w)
		}
	}
	for k := range want.PassAtReasons {
		if _, ok := got.PassAtReasons[k]; !ok {
			return fmt.Errorf("pass_at_reasons has no reason for k = %s, whose pass@k is null", k)
		}
	}
	return nil
}
