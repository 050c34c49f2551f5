package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// Group is one `files:` entry of the spec (many samples of one problem):
// how its samples were judged, and pass@k over them.
type Group struct {
	Name string `json:"name"`
	// N counts every sample; True, False and Undetermined its verdicts.
	N            int `json:"n"`
	True         int `json:"true"`
	False        int `json:"false"`
	Undetermined int `json:"undetermined"`
	// PassAt maps each k asked for (in decimal) to pass@k over the
	// N − Undetermined determined samples (verdict.PassAtK, rounded to 4
	// decimals): undetermined samples are left out, never counted as
	// failures. It is null when k exceeds the determined samples, and
	// PassAtReasons then says why.
	PassAt        map[string]*float64 `json:"pass_at"`
	PassAtReasons map[string]string   `json:"pass_at_reasons"`
}

// DefaultPassAt is the k of pass@k when none is asked for.
var DefaultPassAt = []int{1}

// GroupsOf folds the programs of each `files:` entry (Program.Group) into a
// Group, in the order the entries first appear, with pass@k for each of ks.
// Folded uses it; so does whatever recomputes a report's groups.
func GroupsOf(programs []Program, ks []int) []Group { return groups(programs, ks) }

func groups(programs []Program, ks []int) []Group {
	var out []Group
	at := map[string]int{}
	for _, p := range programs {
		if p.Group == "" {
			continue
		}
		i, ok := at[p.Group]
		if !ok {
			i = len(out)
			at[p.Group] = i
			out = append(out, Group{Name: p.Group})
		}
		g := &out[i]
		g.N++
		switch p.Verdict {
		case verdict.True:
			g.True++
		case verdict.False:
			g.False++
		default:
			g.Undetermined++
		}
	}
	for i := range out {
		out[i].PassAt, out[i].PassAtReasons = passAt(out[i], ks)
	}
	return out
}

// passAt computes a group's pass@k values and the reasons of the null ones.
func passAt(g Group, ks []int) (map[string]*float64, map[string]string) {
	values := map[string]*float64{}
	reasons := map[string]string{}
	determined := g.N - g.Undetermined
	for _, k := range ks {
		key := strconv.Itoa(k)
		p, ok := verdict.PassAtK(determined, g.True, k)
		if !ok {
			values[key] = nil
			reasons[key] = fmt.Sprintf("k = %d exceeds the number of determined samples, %d (%d of %d undetermined)", k, determined, g.Undetermined, g.N)
			continue
		}
		p = verdict.RoundPassAt(p)
		values[key] = &p
	}
	return values, reasons
}

// FormatPassAt is a pass@k value as the messages write it: "null" for
// nil, else the shortest decimal.
func FormatPassAt(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

// PassAtText is a group's pass@k values in one line, k in increasing
// order: "pass@1 0.6667 · pass@5 1 · pass@10 n/a (k = 10 exceeds …)".
// Undetermined samples are named apart, since pass@k leaves them out.
func (g Group) PassAtText() string {
	ks := g.Ks()
	parts := make([]string, 0, len(ks)+1)
	for _, k := range ks {
		key := strconv.Itoa(k)
		if v := g.PassAt[key]; v != nil {
			parts = append(parts, "pass@"+key+" "+FormatPassAt(v))
		} else {
			parts = append(parts, "pass@"+key+" n/a")
		}
	}
	if g.Undetermined > 0 {
		parts = append(parts, fmt.Sprintf("over %d determined samples (%d undetermined left out)", g.N-g.Undetermined, g.Undetermined))
	}
	return strings.Join(parts, " · ")
}

// Ks is the k of the group's pass_at in increasing order: the keys that are a
// k written in decimal (reportread.Read refuses any other key). Renderers
// print a k from here, as a number, and never a key of the report's maps.
func (g Group) Ks() []int {
	ks := make([]int, 0, len(g.PassAt))
	for key := range g.PassAt {
		if k, err := strconv.Atoi(key); err == nil && strconv.Itoa(k) == key {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// NullReason is why pass@k is null for k (its pass_at_reasons entry), and
// ok false when pass@k has a value.
func (g Group) NullReason(k int) (reason string, ok bool) {
	key := strconv.Itoa(k)
	if g.PassAt[key] != nil {
		return "", false
	}
	reason, ok = g.PassAtReasons[key]
	return reason, ok
}
