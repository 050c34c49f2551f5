package reportread

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// The shape pass: Read walks the raw JSON once, before anything is
// decoded into the report's types, and refuses what would cost more to
// decode than a report behaves writes could. encoding/json turns 3 bytes
// of `{}` in a list into a whole struct, so a small file of empty objects
// (a reference_events of a million `{}`) once took gigabytes; pass@k
// computed for every k a group named cost time in proportion to their
// product. The walk follows the report's Go types (what the decoder will
// fill), allocates nothing in proportion to the input, and takes time
// linear in it:
//
//   - every key is matched as the decoder matches it (exactly, else
//     case-insensitively), and one that matches a field only
//     case-insensitively or names a field twice is refused, so that what
//     the walk checks is what the decoder fills;
//   - the keys report.Encode always writes are present and not null (report,
//     program, case);
//   - the shape limits: at most verdict.MaxPassAtKs values of k a group,
//     each a k from 1 to verdict.MaxPassAtK in decimal, the same set in
//     every group; at most MaxRuns runs and reference_events a case,
//     and reference_events only on a same_as case; at most
//     MaxCheckerRuns checker_runs a case;
//   - the memory the decoder will take (decodeCost) at most
//     maxDecodeFactor times the file plus decodeSlack.
//
// Everything else (types of scalars, enums, what folds to what) is the
// decoder's and checkReport's, after this pass.

// maxDecodeFactor and decodeSlack bound what decoding a report may take,
// as counted by decodeCost: a report behaves wrote takes about its own
// size (every struct's keys are written, and they are longer than the
// struct), so a file that would take more was made to exhaust its reader.
// With the file itself and the garbage of growing slices, Read's peak
// stays within docs/security.md's bound (8 × the file + 64 MiB).
const (
	maxDecodeFactor = 3
	decodeSlack     = 16 << 20
)

// maxNesting is encoding/json's own bound on nesting: deeper input is
// refused before any of it is walked further.
const maxNesting = 10000

// mapEntryOverhead is what a map entry costs beyond its key and value
// (buckets, tophash, the load factor's slack), counted generously.
const mapEntryOverhead = 48

// stringHeader is the size of a string header, what each string in a
// slice or map costs before its bytes.
var stringHeader = int64(reflect.TypeFor[string]().Size())

// shapeError is a refusal of the shape pass, at a path in the report.
func shapeError(path, format string, args ...any) error {
	if path == "" {
		path = "the report"
	}
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

// checkShape is the shape pass over data, a whole report.
func checkShape(data []byte) error {
	w := walker{data: data}
	w.skipSpace()
	if w.pos >= len(w.data) || w.data[w.pos] != '{' {
		return errors.New("not a report: it is not a JSON object")
	}
	if err := w.value(typeOfReport, "", ""); err != nil {
		return err
	}
	if limit := maxDecodeFactor*int64(len(data)) + decodeSlack; w.cost > limit {
		return fmt.Errorf("not a report: decoding it would take %s, more than %d × its size plus %s (a report behaves writes takes about its own size), most of it for the entries of %s",
			verdict.FormatSize(w.cost), maxDecodeFactor, verdict.FormatSize(decodeSlack), w.costliest())
	}
	return nil
}

var typeOfReport = reflect.TypeFor[report.Report]()

// walker walks one report's raw JSON.
type walker struct {
	data  []byte
	pos   int
	depth int
	// cost is what the decoder will allocate, as decodeCost counts it.
	cost int64
	// ks is the first group's set of k (as keys), which every group must
	// have; nil before the first group.
	ks []string
	// sameAs is set by the current case's expect.same_as when it is not
	// null (Case's own walk resets and reads it).
	sameAs bool
	// answerRef is set by a checker matcher's answer_reference, in the
	// current case's expect, when it is not "" (its answer is the
	// reference's output, which reference_events hold).
	answerRef bool
	// keys holds the keys of the pass_at object being walked.
	keys []string
	// entryCost is what the entries of each list and map field cost,
	// by the field's name: where a refusal says the cost went.
	entryCost map[string]int64
}

// charge adds what n bytes of entries of the named field cost.
func (w *walker) charge(name string, n int64) {
	w.cost += n
	if w.entryCost == nil {
		w.entryCost = map[string]int64{}
	}
	w.entryCost[name] += n
}

// costliest names the field whose entries cost the most.
func (w *walker) costliest() string {
	best, most := "no list", int64(-1)
	for name, n := range w.entryCost {
		if n > most || n == most && name < best {
			best, most = name, n
		}
	}
	return best
}

// A field of a struct as the decoder sees it.
type field struct {
	name  string
	index []int
	typ   reflect.Type
}

// structInfo is a struct type's JSON fields, in the decoder's terms.
type structInfo struct {
	fields   []field
	byName   map[string]int
	required []string
}

var structInfos sync.Map // reflect.Type → *structInfo

// required are the keys report.Encode always writes and Read requires (not null).
var required = map[reflect.Type][]string{
	reflect.TypeFor[report.Report]():  {"schema", "tool", "run_id", "spec", "spec_file", "verdict", "counts", "interrupted", "error", "spec_errors", "github", "programs"},
	reflect.TypeFor[report.Program](): {"id", "name", "file", "profile", "line", "col", "verdict", "reason", "acquisition", "cases"},
	reflect.TypeFor[report.Case]():    {"name", "line", "col", "args", "verdict", "reason", "expect", "event"},
}

func infoOf(t reflect.Type) *structInfo {
	if v, ok := structInfos.Load(t); ok {
		return v.(*structInfo)
	}
	si := &structInfo{byName: map[string]int{}, required: required[t]}
	si.collect(t, nil)
	v, _ := structInfos.LoadOrStore(t, si)
	return v.(*structInfo)
}

// collect adds t's fields, its own first and then those of the structs it
// embeds without a tag (promoted, as the decoder does): a name taken
// already is shadowed, as the outer field shadows a promoted one.
func (si *structInfo) collect(t reflect.Type, index []int) {
	var embedded []int
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			embedded = append(embedded, i)
			continue
		case tag == "-" || !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		if _, shadowed := si.byName[name]; !shadowed {
			si.byName[name] = len(si.fields)
			si.fields = append(si.fields, field{name: name, index: append(append([]int{}, index...), i), typ: f.Type})
		}
	}
	for _, i := range embedded {
		si.collect(t.Field(i).Type, append(append([]int{}, index...), i))
	}
}

// lookup finds the field a key fills, as the decoder does: the exact name,
// else one equal under Unicode case folding. exact is false for the latter.
func (si *structInfo) lookup(key string) (i int, exact, ok bool) {
	if i, ok := si.byName[key]; ok {
		return i, true, true
	}
	for i, f := range si.fields {
		if strings.EqualFold(f.name, key) {
			return i, false, true
		}
	}
	return 0, false, false
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

// value walks the value at w.pos, which the decoder will decode into a
// value of type t, at path (for messages), the value of the field name
// (or an entry of it).
func (w *walker) value(t reflect.Type, path, name string) error {
	w.skipSpace()
	if w.pos >= len(w.data) {
		return shapeError(path, "the JSON ends early")
	}
	if w.literal("null") {
		return nil
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		start := w.pos
		if err := w.skip(path); err != nil {
			return err
		}
		w.cost += int64(w.pos - start) // time.Time, verdict.Verdict: at most what they read
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.charge(name, int64(t.Elem().Size()))
		return w.value(t.Elem(), path, name)
	case reflect.Struct:
		return w.object(t, path)
	case reflect.Slice:
		return w.array(t, path, name)
	case reflect.Map:
		return w.mapObject(t, path, name)
	case reflect.String:
		n, err := w.str(path)
		w.cost += int64(n)
		return err
	default:
		return w.skip(path)
	}
}

// object walks a JSON object decoded into struct type t.
func (w *walker) object(t reflect.Type, path string) error {
	if w.data[w.pos] != '{' {
		return w.skip(path) // the decoder refuses it
	}
	if err := w.enter(path); err != nil {
		return err
	}
	si := infoOf(t)
	// seen[i] is 0 while field i has no key, then 1 for null, 2 for a value.
	var seenBuf [64]uint8
	seen := seenBuf[:0]
	if len(si.fields) <= len(seenBuf) {
		seen = seenBuf[:len(si.fields)]
	} else {
		seen = make([]uint8, len(si.fields))
	}
	isCase := t == reflect.TypeFor[report.Case]()
	if isCase {
		w.sameAs, w.answerRef = false, false
	}
	var refEvents int
	w.pos++
	for first := true; ; first = false {
		w.skipSpace()
		if w.pos < len(w.data) && w.data[w.pos] == '}' {
			w.pos++
			break
		}
		if !first {
			if err := w.expect(',', path); err != nil {
				return err
			}
			w.skipSpace()
		}
		key, err := w.key(path)
		if err != nil {
			return err
		}
		i, exact, ok := si.lookup(key)
		if !ok {
			if err := w.skip(path); err != nil { // the decoder ignores it
				return err
			}
			continue
		}
		f := si.fields[i]
		sub := join(path, f.name)
		if !exact {
			return shapeError(path, "key %s is not %q: behaves writes its keys exactly", escape.Quote(escape.Shorten(key, 40)), f.name)
		}
		if seen[i] != 0 {
			return shapeError(path, "%q is given twice", f.name)
		}
		w.skipSpace()
		null := w.peekLiteral("null")
		empty := w.peekLiteral(`""`)
		seen[i] = 2
		if null {
			seen[i] = 1
		}
		limit, what := w.limitOf(t, f.name)
		var n int
		switch {
		case limit > 0 && f.typ.Kind() == reflect.Slice:
			n, err = w.countedArray(f.typ, sub, f.name, limit, what)
		case t == reflect.TypeFor[report.Group]() && f.name == "pass_at":
			err = w.passAt(f.typ, sub)
		case limit > 0 && f.typ.Kind() == reflect.Map:
			err = w.countedMap(f.typ, sub, f.name, limit, what)
		default:
			err = w.value(f.typ, sub, f.name)
		}
		if err != nil {
			return err
		}
		switch {
		case isCase && f.name == "reference_events":
			refEvents = n
		case t == reflect.TypeFor[report.Expect]() && f.name == "same_as":
			w.sameAs = !null
		case t == reflect.TypeFor[report.MatcherOutcome]() && f.name == "answer_reference":
			w.answerRef = w.answerRef || !null && !empty
		}
	}
	w.depth--
	for _, k := range si.required {
		if seen[si.byName[k]] != 2 {
			return fmt.Errorf("not a report: %s has no %q", where(path), k)
		}
	}
	if isCase && refEvents > 0 && !w.sameAs && !w.answerRef {
		return shapeError(join(path, "reference_events"), "%d events on a case that is neither same_as nor checked with its reference's output as the answer: only those have reference events", refEvents)
	}
	return nil
}

// where names a path in a refusal of a missing key.
func where(path string) string {
	if path == "" {
		return "the report"
	}
	return path
}

// limitOf is the most elements a struct field's list or map may hold
// (0 for no limit but the file's size), and what to call them.
func (w *walker) limitOf(t reflect.Type, name string) (int, string) {
	switch {
	case t == reflect.TypeFor[report.Case]() && (name == "runs" || name == "reference_events"):
		return report.MaxRuns, "the repeat ceiling"
	case t == reflect.TypeFor[report.Case]() && name == "checker_runs":
		return report.MaxCheckerRuns, "two streams on each run of the repeat ceiling"
	case t == reflect.TypeFor[report.Group]() && name == "pass_at_reasons":
		return verdict.MaxPassAtKs, "the values of k a run asks for"
	case t == reflect.TypeFor[report.Reuse]() && name == "sources":
		return report.MaxReuseRuns, "the runs a report names as where its evidence came from"
	}
	return 0, ""
}

// array walks a JSON array decoded into slice type t, the value of the
// field name.
func (w *walker) array(t reflect.Type, path, name string) error {
	_, err := w.countedArray(t, path, name, 0, "")
	return err
}

// countedArray walks a JSON array decoded into slice type t, the value of
// the field name, refusing more than limit elements when limit > 0, and
// returns how many it holds.
func (w *walker) countedArray(t reflect.Type, path, name string, limit int, what string) (int, error) {
	w.skipSpace()
	if w.pos >= len(w.data) || w.data[w.pos] != '[' {
		return 0, w.skip(path) // null, or what the decoder refuses
	}
	if err := w.enter(path); err != nil {
		return 0, err
	}
	elem := t.Elem()
	// A slice grows as it is decoded: its final array, and on the way the
	// ones it outgrew (at most about as much again).
	size := 2 * int64(elem.Size())
	w.pos++
	n := 0
	for {
		w.skipSpace()
		if w.pos < len(w.data) && w.data[w.pos] == ']' {
			w.pos++
			break
		}
		if n > 0 {
			if err := w.expect(',', path); err != nil {
				return n, err
			}
		}
		if limit > 0 && n == limit {
			return n, shapeError(path, "more than %d entries (at most %s)", limit, what)
		}
		w.charge(name, size)
		if err := w.value(elem, path+"["+strconv.Itoa(n)+"]", name); err != nil {
			return n, err
		}
		n++
	}
	w.depth--
	return n, nil
}

// mapObject walks a JSON object decoded into map type t, the value of the
// field name.
func (w *walker) mapObject(t reflect.Type, path, name string) error {
	return w.countedMap(t, path, name, 0, "")
}

// countedMap walks a JSON object decoded into map type t, refusing more
// than limit keys when limit > 0. When w.keys is being collected (pass_at),
// each key is appended to it.
func (w *walker) countedMap(t reflect.Type, path, name string, limit int, what string) error {
	return w.eachKey(path, limit, what, func(key string) error {
		w.charge(name, 2*(2*stringHeader+int64(t.Elem().Size())+mapEntryOverhead)+int64(len(key)))
		return w.value(t.Elem(), path+"["+strconv.Quote(escape.Shorten(key, 20))+"]", name)
	})
}

// eachKey walks a JSON object whose keys are data (a map), calling
// visit with each key with w.pos at its value.
func (w *walker) eachKey(path string, limit int, what string, visit func(key string) error) error {
	w.skipSpace()
	if w.pos >= len(w.data) || w.data[w.pos] != '{' {
		return w.skip(path) // null, or what the decoder refuses
	}
	if err := w.enter(path); err != nil {
		return err
	}
	w.pos++
	for n := 0; ; n++ {
		w.skipSpace()
		if w.pos < len(w.data) && w.data[w.pos] == '}' {
			w.pos++
			break
		}
		if n > 0 {
			if err := w.expect(',', path); err != nil {
				return err
			}
			w.skipSpace()
		}
		if limit > 0 && n == limit {
			return shapeError(path, "more than %d keys (at most %s)", limit, what)
		}
		key, err := w.key(path)
		if err != nil {
			return err
		}
		if err := visit(key); err != nil {
			return err
		}
	}
	w.depth--
	return nil
}

// passAt walks a group's pass_at: at most verdict.MaxPassAtKs keys, each a
// k from 1 to verdict.MaxPassAtK in decimal, once each, and the same set as
// the first group's.
func (w *walker) passAt(t reflect.Type, path string) error {
	w.keys = w.keys[:0]
	err := w.eachKey(path, verdict.MaxPassAtKs, "the values of k a run may ask for", func(key string) error {
		k, err := strconv.Atoi(key)
		if err != nil || k < 1 || k > verdict.MaxPassAtK || strconv.Itoa(k) != key {
			return shapeError(path, "key %s is not a k from 1 to %d", escape.Quote(escape.Shorten(key, 40)), verdict.MaxPassAtK)
		}
		for _, seen := range w.keys {
			if seen == key {
				return shapeError(path, "k = %s is given twice", key)
			}
		}
		w.keys = append(w.keys, key)
		w.charge("pass_at", 2*(2*stringHeader+int64(t.Elem().Size())+mapEntryOverhead)+int64(len(key)))
		return w.value(t.Elem(), path+"["+key+"]", "pass_at")
	})
	if err != nil {
		return err
	}
	if w.ks == nil {
		w.ks = append([]string{}, w.keys...)
		return nil
	}
	if !sameSet(w.ks, w.keys) {
		return shapeError(path, "k = %s, but the first group has k = %s: every group has the run's values of k",
			strings.Join(w.keys, ", "), strings.Join(w.ks, ", "))
	}
	return nil
}

// sameSet reports whether a and b, each without repeats, hold the same
// strings.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// enter counts one more level of nesting, refusing more than maxNesting.
func (w *walker) enter(path string) error {
	w.depth++
	if w.depth > maxNesting {
		return shapeError(path, "nested more than %d deep", maxNesting)
	}
	return nil
}

func (w *walker) skipSpace() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *walker) expect(c byte, path string) error {
	w.skipSpace()
	if w.pos >= len(w.data) || w.data[w.pos] != c {
		return shapeError(path, "not JSON: %q expected at byte %d", c, w.pos)
	}
	w.pos++
	return nil
}

func (w *walker) peekLiteral(lit string) bool {
	return strings.HasPrefix(string(w.data[w.pos:min(len(w.data), w.pos+len(lit))]), lit)
}

// literal consumes lit when it comes next.
func (w *walker) literal(lit string) bool {
	if w.peekLiteral(lit) {
		w.pos += len(lit)
		return true
	}
	return false
}

// key reads an object's key and its colon.
func (w *walker) key(path string) (string, error) {
	if w.pos >= len(w.data) || w.data[w.pos] != '"' {
		return "", shapeError(path, "not JSON: a key expected at byte %d", w.pos)
	}
	start := w.pos
	if _, err := w.str(path); err != nil {
		return "", err
	}
	raw := w.data[start:w.pos]
	key := string(raw[1 : len(raw)-1])
	if strings.IndexByte(key, '\\') >= 0 {
		// Escapes in a key (rare: Encode writes none) are read as the
		// decoder reads them.
		if err := json.Unmarshal(raw, &key); err != nil {
			return "", shapeError(path, "not JSON: %v", err)
		}
	}
	if err := w.expect(':', path); err != nil {
		return "", err
	}
	return key, nil
}

// str reads a JSON string at w.pos and returns an upper bound on its
// decoded length (its raw length).
func (w *walker) str(path string) (int, error) {
	if w.pos >= len(w.data) || w.data[w.pos] != '"' {
		start := w.pos
		err := w.skip(path)
		return w.pos - start, err // the decoder refuses a non-string
	}
	start := w.pos
	w.pos++
	for w.pos < len(w.data) {
		switch c := w.data[w.pos]; {
		case c == '"':
			w.pos++
			return w.pos - start - 2, nil
		case c == '\\':
			w.pos += 2
		case c < 0x20:
			return 0, shapeError(path, "not JSON: a control character in a string at byte %d", w.pos)
		default:
			w.pos++
		}
	}
	return 0, shapeError(path, "not JSON: a string does not end")
}

// skip passes over any JSON value at w.pos (one the decoder ignores, or
// refuses for its type), counting its nesting.
func (w *walker) skip(path string) error {
	w.skipSpace()
	if w.pos >= len(w.data) {
		return shapeError(path, "the JSON ends early")
	}
	switch c := w.data[w.pos]; c {
	case '"':
		_, err := w.str(path)
		return err
	case '{':
		return w.eachKey(path, 0, "", func(string) error { return w.skip(path) })
	case '[':
		if err := w.enter(path); err != nil {
			return err
		}
		w.pos++
		for n := 0; ; n++ {
			w.skipSpace()
			if w.pos < len(w.data) && w.data[w.pos] == ']' {
				w.pos++
				break
			}
			if n > 0 {
				if err := w.expect(',', path); err != nil {
					return err
				}
			}
			if err := w.skip(path); err != nil {
				return err
			}
		}
		w.depth--
		return nil
	default:
		start := w.pos
		for w.pos < len(w.data) && strings.IndexByte(",]} \t\r\n", w.data[w.pos]) < 0 {
			w.pos++
		}
		if w.pos == start {
			return shapeError(path, "not JSON: a value expected at byte %d", w.pos)
		}
		return nil
	}
}
