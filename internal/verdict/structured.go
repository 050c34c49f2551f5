package verdict

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The matchers whose right answers are not one text: json, numbers,
// equals with unordered, and a list of matchers (All). Each needs the
// whole stream, except where the kept part already proves a mismatch (a
// JSON syntax error inside it, a token that differs, a line too many):
// then it is false; otherwise a cut stream (or one of a run that did not
// finish) is undetermined. The parse bounds (MaxJSONDepth,
// MaxNumberLength) make output kept whole that exceeds them false,
// naming the bound.

// matchAll judges every matcher of an All matcher: false when one is
// (its reason, with its place in the list), else undetermined when one
// is, else true.
func matchAll(m Matcher, st stream, ch Check) Check {
	ch.Verdict = True
	for i, sub := range m.All {
		part := matchStream(sub, st)
		part.Matcher = &m.All[i]
		ch.Parts = append(ch.Parts, part)
		reason := fmt.Sprintf("%s[%d]%s", st.name, i+1, strings.TrimPrefix(part.Reason, st.name))
		switch {
		case part.Verdict == False && ch.Verdict != False:
			ch.Verdict, ch.Reason = False, reason
		case part.Verdict == Undetermined && ch.Verdict == True:
			ch.Verdict, ch.Reason = Undetermined, reason
		}
	}
	return ch
}

// jsonOptionsOf are m's comparison options.
func jsonOptionsOf(m Matcher) *jsonOptions {
	return &jsonOptions{unordered: m.Unordered, subset: m.Subset, abs: m.Abs, rel: m.Rel}
}

// matchJSON judges a json matcher (see Kind JSON).
func matchJSON(m Matcher, st stream, ch Check) Check {
	if m.Lines {
		return matchJSONLines(m, st, ch)
	}
	want, werr := parseJSON([]byte(m.Value))
	if werr != nil {
		ch.Verdict, ch.Reason = Undetermined, st.name+": invalid matcher: the expected value is not JSON: "+werr.Error()
		return ch
	}
	got, gerr := parseJSON(st.s.Data)
	var d *jsonDiff
	var err error
	if gerr == nil {
		d, err = jsonOptionsOf(m).compare(want, got, "")
	}
	if st.complete() {
		switch {
		case gerr != nil:
			ch.Verdict, ch.Reason = False, st.name+" is not JSON: "+gerr.Error()
		case err != nil:
			ch.Verdict, ch.Reason = False, fmt.Sprintf("%s: %v: more than %d pairs to try in an unordered comparison with a tolerance (the bound behaves compares to)", st.name, err, maxUnorderedWork)
		case d != nil:
			ch.Verdict, ch.Reason = False, st.name+": "+d.String()
		default:
			ch.Verdict = True
		}
		return ch
	}
	// Incomplete: the kept part proves a mismatch only by a syntax error
	// inside it, or by a whole document that differs (whatever follows
	// it, the output is then not the expected one: more JSON after it
	// is not one document). A number at the very end may go on.
	switch {
	case gerr != nil && !gerr.atEnd && !gerr.bound:
		ch.Verdict, ch.Reason = False, st.name+" is not JSON: "+gerr.Error()+st.where()
	case gerr == nil && d != nil && !endsInNumber(got, st.s.Data):
		ch.Verdict, ch.Reason = False, st.name+": "+d.String()+st.where()
	case gerr == nil && d == nil && err == nil:
		ch.Verdict, ch.Reason = Undetermined, st.prefix()+st.part()+" is the expected JSON, but "+st.rest()
	default:
		ch.Verdict, ch.Reason = Undetermined, st.prefix()+st.part()+" is JSON so far, "+st.rest()
	}
	return ch
}

// endsInNumber says whether data's document is a number that ends at
// the end of data (more digits could follow it).
func endsInNumber(v jsonValue, data []byte) bool {
	if v.kind != jsonNumber || len(data) == 0 {
		return false
	}
	c := data[len(data)-1]
	return c >= '0' && c <= '9'
}

// outputLines splits data into lines (a final newline ends the last
// line; a CR before a newline is part of it), with complete saying
// whether the last line ended with a newline.
func outputLines(data []byte) (lines [][]byte, complete bool) {
	if len(data) == 0 {
		return nil, true
	}
	lines = bytes.Split(data, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		return lines[:len(lines)-1], true
	}
	return lines, false
}

// matchJSONLines judges a json matcher with lines: one document a line,
// compared line by line; trailing empty lines are not documents.
func matchJSONLines(m Matcher, st stream, ch Check) Check {
	wantLines := strings.Split(strings.TrimRight(m.Value, "\n"), "\n")
	lines, ended := outputLines(st.s.Data)
	if st.complete() {
		for len(lines) > 0 && len(bytes.TrimSpace(lines[len(lines)-1])) == 0 {
			lines = lines[:len(lines)-1]
		}
	}
	opts := jsonOptionsOf(m)
	// Only whole lines are evidence when the stream may go on, and of
	// them not the blank ones at the end: the whole output may end there
	// (blank lines at the end are not documents).
	whole := len(lines)
	if !st.complete() && !ended && whole > 0 {
		whole--
	}
	for whole > 0 && len(bytes.TrimSpace(lines[whole-1])) == 0 {
		whole--
	}
	settle := func(v Verdict, reason string) Check { return st.settle(ch, v, reason) }
	for i := 0; i < whole; i++ {
		if i >= len(wantLines) {
			return settle(False, fmt.Sprintf("%s: %d lines or more, expected %d JSON documents", st.name, i+1, len(wantLines)))
		}
		want, werr := parseJSON([]byte(wantLines[i]))
		if werr != nil {
			return settle(Undetermined, fmt.Sprintf("%s: invalid matcher: expected line %d is not JSON: %v", st.name, i+1, werr))
		}
		got, gerr := parseJSON(lines[i])
		if gerr != nil {
			if gerr.bound && !st.complete() {
				return settle(Undetermined, fmt.Sprintf("%sline %d: %s, and %s", st.prefix(), i+1, gerr.msg, st.rest()))
			}
			return settle(False, fmt.Sprintf("%s line %d is not JSON: column %d: %s", st.name, i+1, gerr.col, gerr.msg))
		}
		d, err := opts.compare(want, got, "")
		if err != nil {
			return settle(False, fmt.Sprintf("%s line %d: more than %d pairs to try in an unordered comparison with a tolerance (the bound behaves compares to)", st.name, i+1, maxUnorderedWork))
		}
		if d != nil {
			return settle(False, fmt.Sprintf("%s line %d: %s", st.name, i+1, d))
		}
	}
	if !st.complete() {
		return settle(Undetermined, fmt.Sprintf("%s%d whole lines agree, %s", st.prefix(), whole, st.rest()))
	}
	if len(lines) != len(wantLines) {
		return settle(False, fmt.Sprintf("%s: %d lines, expected %d JSON documents", st.name, len(lines), len(wantLines)))
	}
	ch.Verdict = True
	return ch
}

// settle gives ch verdict v and reason, saying where a false verdict was
// found when the stream may be incomplete.
func (st stream) settle(ch Check, v Verdict, reason string) Check {
	if v == False && !st.complete() {
		reason += st.where()
	}
	ch.Verdict, ch.Reason = v, reason
	return ch
}

// token is one whitespace-separated word of output, where it starts.
type token struct {
	text      []byte
	line, col int
}

// isSpace is the whitespace that separates tokens (testlib's: ASCII).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// tokens splits data into tokens; the last is whole only when data ends
// in whitespace (lastWhole).
func tokens(data []byte) (out []token, lastWhole bool) {
	line, lineStart := 1, 0
	for i := 0; i < len(data); {
		if isSpace(data[i]) {
			if data[i] == '\n' {
				line, lineStart = line+1, i+1
			}
			i++
			continue
		}
		start := i
		for i < len(data) && !isSpace(data[i]) {
			i++
		}
		out = append(out, token{data[start:i], line, utf8.RuneCount(data[lineStart:start]) + 1})
	}
	return out, len(data) == 0 || isSpace(data[len(data)-1])
}

// isSpecial says whether a token is nan or inf (signed), which match only
// themselves (case aside).
func isSpecial(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan", "inf", "infinity":
		return true
	}
	return false
}

// matchNumbers judges a numbers matcher (see Kind Numbers).
func matchNumbers(m Matcher, st stream, ch Check) Check {
	want := strings.Fields(m.Value)
	got, lastWhole := tokens(st.s.Data)
	whole := len(got)
	if !st.complete() && !lastWhole && whole > 0 {
		whole--
	}
	settle := func(v Verdict, reason string) Check { return st.settle(ch, v, reason) }
	for i := 0; i < whole; i++ {
		g := got[i]
		at := fmt.Sprintf("%s line %d column %d (token %d)", st.name, g.line, g.col, i+1)
		if i >= len(want) {
			return settle(False, fmt.Sprintf("%s: %s, more than the %d expected", at, quoteCut(g.text, reasonWidth), len(want)))
		}
		w := want[i]
		_, wnum := parseDecimal(w)
		switch {
		case isSpecial(w):
			if !strings.EqualFold(strings.TrimPrefix(w, "+"), strings.TrimPrefix(string(g.text), "+")) {
				return settle(False, fmt.Sprintf("%s: expected %s, got %s", at, w, quoteCut(g.text, reasonWidth)))
			}
		case wnum:
			if len(g.text) > MaxNumberLength {
				if !st.complete() {
					return settle(Undetermined, fmt.Sprintf("%stoken %d is longer than %d characters, and %s", st.prefix(), i+1, MaxNumberLength, st.rest()))
				}
				return settle(False, fmt.Sprintf("%s: a token of %d characters where the number %s belongs, longer than %d (the bound behaves compares to)", at, len(g.text), w, MaxNumberLength))
			}
			if _, gnum := parseDecimal(string(g.text)); !gnum {
				return settle(False, fmt.Sprintf("%s: expected the number %s, got %s", at, w, quoteCut(g.text, reasonWidth)))
			}
			if ok, why := numbersAgree(w, string(g.text), m.Abs, m.Rel); !ok {
				return settle(False, fmt.Sprintf("%s: expected %s, got %s%s", at, w, cutText(string(g.text)), why))
			}
		case w != string(g.text):
			return settle(False, fmt.Sprintf("%s: expected %s, got %s", at, strconv.Quote(w), quoteCut(g.text, reasonWidth)))
		}
	}
	if !st.complete() {
		return settle(Undetermined, fmt.Sprintf("%sthe %d whole tokens agree, %s", st.prefix(), whole, st.rest()))
	}
	if len(got) != len(want) {
		return settle(False, fmt.Sprintf("%s: %d tokens, expected %d", st.name, len(got), len(want)))
	}
	ch.Verdict = True
	return ch
}

// unorderedLines splits text into lines normalised one by one (the
// matcher's normalize applied to each line; trailing and whitespace
// drop the empty lines at the end), folded when ignoring case.
func unorderedLines(m Matcher, data []byte) [][]byte {
	lines, _ := outputLines(data)
	out := make([][]byte, 0, len(lines))
	for _, l := range lines {
		switch m.normalize() {
		case NormalizeTrailing:
			l = bytes.TrimRight(l, " \t\r")
		case NormalizeWhitespace:
			l = []byte(strings.Join(strings.Fields(string(l)), " "))
		}
		if m.IgnoreCase {
			l = fold(l)
		}
		out = append(out, l)
	}
	// Empty lines at the end are dropped, also from the whole lines of a
	// stream that may go on: the whole output may end with them.
	if m.normalize() != NormalizeExact {
		for len(out) > 0 && len(out[len(out)-1]) == 0 {
			out = out[:len(out)-1]
		}
	}
	return out
}

// matchUnordered judges an equals matcher with unordered: the lines, each
// normalised, as a multiset.
func matchUnordered(m Matcher, st stream, ch Check) Check {
	want := unorderedLines(m, []byte(m.Value))
	count := make(map[string]int, len(want))
	for _, w := range want {
		count[string(w)]++
	}
	data := st.s.Data
	if !st.complete() {
		// Only lines a newline ended are evidence.
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
		} else {
			data = nil
		}
	}
	got := unorderedLines(m, data)
	for i, g := range got {
		if count[string(g)] == 0 {
			reason := fmt.Sprintf("%s line %d: %s is not among the expected lines, or more times than expected (compared in any order)", st.name, i+1, quoteCut(g, reasonWidth))
			if !st.complete() {
				reason += st.where()
			}
			ch.Verdict, ch.Reason = False, reason
			return ch
		}
		count[string(g)]--
	}
	if !st.complete() {
		ch.Verdict, ch.Reason = Undetermined, fmt.Sprintf("%sthe %d whole lines are among the expected, %s", st.prefix(), len(got), st.rest())
		return ch
	}
	for _, w := range want {
		if count[string(w)] > 0 {
			ch.Verdict, ch.Reason = False, fmt.Sprintf("%s: expected the line %s %d more %s, got %s, expected %d (compared in any order)",
				st.name, quoteCut(w, reasonWidth), count[string(w)], Plural(count[string(w)], "time", "times"), Count(len(got), "line", "lines"), len(want))
			return ch
		}
	}
	ch.Verdict = True
	return ch
}
