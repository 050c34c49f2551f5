package verdict

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// jsonDiff is the first place where the output's JSON is not the
// expected: a JSON Pointer (RFC 6901) and what differs there.
type jsonDiff struct {
	pointer string
	msg     string
}

func (d *jsonDiff) String() string {
	p := d.pointer
	if p == "" {
		p = "(the whole document)"
	}
	return p + ": " + d.msg
}

// errTooMuchWork: an unordered comparison with tolerances would try more
// pairs than maxUnorderedWork.
var errTooMuchWork = errors.New("too many elements to pair")

// jsonOptions are a json matcher's comparison options.
type jsonOptions struct {
	unordered, subset bool
	abs, rel          *float64
	work              int // pairs tried so far, by unordered comparisons
}

// pointerToken escapes a member name for a JSON Pointer (~ as ~0, / as ~1).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// compareJSON finds the first difference of got from want under o, in
// want's order (its members, then got's members it does not name), or
// nil when they agree.
func (o *jsonOptions) compare(want, got jsonValue, ptr string) (*jsonDiff, error) {
	if want.kind != got.kind {
		return &jsonDiff{ptr, "expected " + jsonShow(want) + ", got " + jsonShow(got)}, nil
	}
	switch want.kind {
	case jsonNull:
		return nil, nil
	case jsonBool:
		if want.boolean != got.boolean {
			return &jsonDiff{ptr, "expected " + jsonShow(want) + ", got " + jsonShow(got)}, nil
		}
	case jsonString:
		if want.text != got.text {
			return &jsonDiff{ptr, "expected " + jsonShow(want) + ", got " + jsonShow(got)}, nil
		}
	case jsonNumber:
		if ok, why := numbersAgree(want.text, got.text, o.abs, o.rel); !ok {
			return &jsonDiff{ptr, "expected " + want.text + ", got " + cutText(got.text) + why}, nil
		}
	case jsonArray:
		if o.unordered {
			return o.unorderedItems(want.items, got.items, ptr)
		}
		for i := range min(len(want.items), len(got.items)) {
			if d, err := o.compare(want.items[i], got.items[i], ptr+"/"+strconv.Itoa(i)); d != nil || err != nil {
				return d, err
			}
		}
		switch {
		case len(got.items) < len(want.items):
			return &jsonDiff{ptr + "/" + strconv.Itoa(len(got.items)), fmt.Sprintf("expected %s, got nothing (%d items, expected %d)",
				jsonShow(want.items[len(got.items)]), len(got.items), len(want.items))}, nil
		case len(got.items) > len(want.items):
			return &jsonDiff{ptr + "/" + strconv.Itoa(len(want.items)), fmt.Sprintf("unexpected item %s (%d items, expected %d)",
				jsonShow(got.items[len(want.items)]), len(got.items), len(want.items))}, nil
		}
	case jsonObject:
		have := make(map[string]int, len(got.members))
		for i, m := range got.members {
			have[m.name] = i
		}
		for _, m := range want.members {
			at := ptr + "/" + pointerToken(m.name)
			i, ok := have[m.name]
			if !ok {
				return &jsonDiff{at, "expected " + jsonShow(m.value) + ", got no such member"}, nil
			}
			if d, err := o.compare(m.value, got.members[i].value, at); d != nil || err != nil {
				return d, err
			}
		}
		if !o.subset && len(got.members) > len(want.members) {
			named := make(map[string]bool, len(want.members))
			for _, m := range want.members {
				named[m.name] = true
			}
			for _, m := range got.members {
				if !named[m.name] {
					return &jsonDiff{ptr + "/" + pointerToken(m.name), "unexpected member " + jsonShow(m.value) + " (subset: true allows members the expectation does not name)"}, nil
				}
			}
		}
	}
	return nil, nil
}

// unorderedItems compares two arrays as multisets. Exactly (no
// tolerance), items pair by their canonical text; with a tolerance, in
// the order of their canonical text with numbers as floating point (for
// arrays of numbers this pairing is the best there is), each expected
// item with the first unpaired item that agrees.
func (o *jsonOptions) unorderedItems(want, got []jsonValue, ptr string) (*jsonDiff, error) {
	if len(want) != len(got) {
		return &jsonDiff{ptr, fmt.Sprintf("expected %d items, got %d (compared in any order)", len(want), len(got))}, nil
	}
	if o.abs == nil && o.rel == nil {
		count := map[string]int{}
		for _, g := range got {
			count[canonicalJSON(g)]++
		}
		for i, w := range want {
			k := canonicalJSON(w)
			if count[k] == 0 {
				return &jsonDiff{ptr + "/" + strconv.Itoa(i), "expected " + jsonShow(w) + " somewhere in the array, got no such item (compared in any order)"}, nil
			}
			count[k]--
		}
		return nil, nil
	}
	if o.work += len(want) * len(got); o.work > maxUnorderedWork {
		return nil, errTooMuchWork
	}
	order := func(vs []jsonValue) []int {
		idx := make([]int, len(vs))
		keys := make([]string, len(vs))
		nums := make([]float64, len(vs))
		for i, v := range vs {
			idx[i], keys[i] = i, canonicalJSON(v)
			nums[i] = math.NaN()
			if v.kind == jsonNumber {
				nums[i], _ = strconv.ParseFloat(v.text, 64)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			if !math.IsNaN(nums[a]) && !math.IsNaN(nums[b]) {
				return cmp.Compare(nums[a], nums[b])
			}
			return strings.Compare(keys[a], keys[b])
		})
		return idx
	}
	wo, gol := order(want), order(got)
	used := make([]bool, len(got))
	for _, wi := range wo {
		found := false
		for _, gi := range gol {
			if used[gi] {
				continue
			}
			d, err := o.compare(want[wi], got[gi], "")
			if err != nil {
				return nil, err
			}
			if d == nil {
				used[gi], found = true, true
				break
			}
		}
		if !found {
			return &jsonDiff{ptr + "/" + strconv.Itoa(wi), "expected " + jsonShow(want[wi]) + " somewhere in the array, got no item that agrees (compared in any order)"}, nil
		}
	}
	return nil, nil
}

// numbersAgree compares two numbers' texts: exactly as decimals without
// a tolerance; else as floating point, agreeing when |got − want| ≤ abs
// or ≤ rel × |want| (testlib's rule: either is enough). A number too
// large for floating point compares exactly. why says by how much they
// differ when they do not agree.
func numbersAgree(want, got string, abs, rel *float64) (ok bool, why string) {
	wd, wok := parseDecimal(want)
	gd, gok := parseDecimal(got)
	if !wok || !gok {
		return want == got, ""
	}
	if wd.equal(gd) {
		return true, ""
	}
	if abs == nil && rel == nil {
		return false, ""
	}
	w, werr := strconv.ParseFloat(want, 64)
	g, gerr := strconv.ParseFloat(got, 64)
	if werr != nil || gerr != nil { // out of range: exact only
		return false, ""
	}
	diff := math.Abs(g - w)
	if abs != nil && diff <= *abs || rel != nil && diff <= *rel*math.Abs(w) {
		return true, ""
	}
	var within []string
	if abs != nil {
		within = append(within, "abs "+strconv.FormatFloat(*abs, 'g', -1, 64))
	}
	if rel != nil {
		within = append(within, "rel "+strconv.FormatFloat(*rel, 'g', -1, 64))
	}
	return false, fmt.Sprintf(" (off by %s, outside %s)", strconv.FormatFloat(diff, 'g', 3, 64), strings.Join(within, " and "))
}

// cutText shortens a value's text for a reason.
func cutText(s string) string {
	if len(s) <= reasonWidth {
		return s
	}
	return s[:reasonWidth] + "…"
}

// jsonShow is v as compact JSON for a reason, cut to about reasonWidth.
func jsonShow(v jsonValue) string {
	var b strings.Builder
	writeJSON(&b, v, reasonWidth)
	if b.Len() > reasonWidth {
		return b.String()[:cutAt([]byte(b.String()), reasonWidth)] + "…"
	}
	return b.String()
}

// canonicalJSON is v as compact JSON with numbers as their exact
// decimals and members sorted by name: two values share it exactly when
// they are equal by value (compared in order).
func canonicalJSON(v jsonValue) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v jsonValue) {
	switch v.kind {
	case jsonNumber:
		d, _ := parseDecimal(v.text)
		b.WriteString(d.key())
	case jsonArray:
		b.WriteByte('[')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, it)
		}
		b.WriteByte(']')
	case jsonObject:
		ms := slices.Clone(v.members)
		slices.SortFunc(ms, func(a, b jsonMember) int { return strings.Compare(a.name, b.name) })
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(m.name))
			b.WriteByte(':')
			writeCanonical(b, m.value)
		}
		b.WriteByte('}')
	default:
		writeJSON(b, v, -1)
	}
}

// writeJSON writes v as compact JSON, stopping once b holds more than
// limit bytes (no limit when negative). Strings are written as Go quotes
// them, so a reason stays one line whatever the program printed.
func writeJSON(b *strings.Builder, v jsonValue, limit int) {
	if limit >= 0 && b.Len() > limit {
		return
	}
	switch v.kind {
	case jsonNull:
		b.WriteString("null")
	case jsonBool:
		b.WriteString(strconv.FormatBool(v.boolean))
	case jsonNumber:
		b.WriteString(v.text)
	case jsonString:
		b.WriteString(strconv.Quote(v.text))
	case jsonArray:
		b.WriteByte('[')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, it, limit)
			if limit >= 0 && b.Len() > limit {
				return
			}
		}
		b.WriteByte(']')
	case jsonObject:
		b.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(m.name))
			b.WriteByte(':')
			writeJSON(b, m.value, limit)
			if limit >= 0 && b.Len() > limit {
				return
			}
		}
		b.WriteByte('}')
	}
}
