package gitindex

import "sort"

// Near returns the paths git tracks (Tracked entries of this repository's
// own index; not a submodule's files) whose Damerau–Levenshtein distance
// to rel is the smallest one at most max, in lexical order, or nil when
// none is that close. Only the index is read: what else sits in the work
// tree is never a candidate, so a suggestion says nothing about untracked
// files.
func (r *Repo) Near(rel string, max int) []string {
	var best []string
	bestDist := max + 1
	for p, e := range r.index.entries {
		if !e.Tracked() || p == rel {
			continue
		}
		limit := min(bestDist, max)
		d := Distance(rel, p, limit)
		switch {
		case d > limit:
		case d < bestDist:
			bestDist, best = d, []string{p}
		default:
			best = append(best, p)
		}
	}
	sort.Strings(best)
	return best
}

// Distance is the Damerau–Levenshtein distance between a and b, in bytes
// (the optimal string alignment form: insertions, deletions, substitutions
// and transpositions of adjacent bytes, no substring edited twice), or
// max+1 when it is above max (found early, without the whole table).
func Distance(a, b string, max int) int {
	if max < 0 {
		return 0
	}
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	// Three rows of the table: i-2, i-1 and i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			low = min(low, v)
		}
		if low > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > max {
		return max + 1
	}
	return prev[len(b)]
}
