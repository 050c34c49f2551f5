package reportread

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/behaves-dev/behaves/internal/report"
)

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// checkShard checks a report's shard block against itself and against the
// report's programs: a shard's report holds exactly the programs its table
// puts on it; a merge holds every program of the table once, and a
// missing shard's programs carry no cases.
func checkShard(r *report.Report) error {
	s := r.Shard
	if s == nil {
		return nil
	}
	switch {
	case s.Count < 1 || s.Count > report.MaxShards:
		return fmt.Errorf("shard: count %d is not between 1 and %d", s.Count, report.MaxShards)
	case s.Index < 0 || s.Index > s.Count:
		return fmt.Errorf("shard: index %d is not between 0 and its count %d", s.Index, s.Count)
	case !digestPattern.MatchString(s.SpecDigest):
		return fmt.Errorf("shard: spec_digest %q is not sha256:<64 hex digits>", s.SpecDigest)
	}
	table := make(map[string]int, len(s.Programs))
	for i, p := range s.Programs {
		if p.Shard < 1 || p.Shard > s.Count {
			return fmt.Errorf("shard: program %d of the table is on shard %d of %d", i+1, p.Shard, s.Count)
		}
		if p.Line < 0 || p.Col < 0 || p.Cases < 0 {
			return fmt.Errorf("shard: program %d of the table has a negative line, col or cases", i+1)
		}
		if _, dup := table[p.ID]; dup {
			return fmt.Errorf("shard: program ID %q is in the table twice", p.ID)
		}
		table[p.ID] = p.Shard
	}
	seen := make(map[string]bool, len(r.Programs))
	for i, p := range r.Programs {
		on, ok := table[p.ID]
		switch {
		case !ok:
			return fmt.Errorf("shard: program %d (%q) is not in the shard table", i+1, p.ID)
		case seen[p.ID]:
			return fmt.Errorf("shard: program %q is in the report twice", p.ID)
		case s.Index > 0 && on != s.Index:
			return fmt.Errorf("shard: program %q belongs to shard %d, not to this report's %d", p.ID, on, s.Index)
		}
		seen[p.ID] = true
	}
	if s.Index > 0 {
		if len(s.Merged) > 0 || len(s.Missing) > 0 {
			return errors.New("shard: a shard's report lists merged or missing shards")
		}
		for _, p := range s.Programs {
			if p.Shard == s.Index && !seen[p.ID] {
				return fmt.Errorf("shard: program %q of shard %d is not in the report", p.ID, s.Index)
			}
		}
		return nil
	}
	state := make([]int, s.Count+1) // 1 merged, 2 missing
	for _, lists := range [][]int{s.Merged, s.Missing} {
		for _, i := range lists {
			if i < 1 || i > s.Count || state[i] != 0 {
				return fmt.Errorf("shard: merged and missing must name each shard 1..%d once", s.Count)
			}
		}
	}
	for _, i := range s.Merged {
		state[i] = 1
	}
	for _, i := range s.Missing {
		state[i] = 2
	}
	for i := 1; i <= s.Count; i++ {
		if state[i] == 0 {
			return fmt.Errorf("shard: a merge names shard %d neither merged nor missing", i)
		}
	}
	if len(seen) != len(table) {
		return fmt.Errorf("shard: a merge holds %d of the table's %d programs", len(seen), len(table))
	}
	for _, p := range r.Programs {
		on := table[p.ID]
		switch {
		case state[on] == 2 && len(p.Cases) > 0:
			return fmt.Errorf("shard: program %q of missing shard %d has cases", p.ID, on)
		case state[on] == 2 && p.Reason != report.MissingReason(on, s.Count):
			return fmt.Errorf("shard: program %q of missing shard %d does not say so (reason %q)", p.ID, on, report.MissingReason(on, s.Count))
		case state[on] == 1 && report.MissingShardReason.MatchString(p.Reason) && len(p.Cases) == 0:
			return fmt.Errorf("shard: program %q of merged shard %d says its shard is missing", p.ID, on)
		}
	}
	return nil
}
