package verdict

import (
	"bytes"
	"encoding/json"
	"go/build"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/runner"
)

var (
	fuzzKinds = [...]Kind{Equals, Contains, Regex}
	fuzzNorms = [...]Normalize{"", NormalizeTrailing, NormalizeExact, NormalizeWhitespace}
)

// FuzzMatch judges arbitrary output against arbitrary matchers. Judge must
// not panic, must be deterministic, must keep every message on one line,
// must agree with bytes.Equal and strings.EqualFold where they apply, and
// must be sound on incomplete evidence: what it settles on the first cutAt
// bytes of an output (true or false) is what it settles on the whole.
func FuzzMatch(f *testing.F) {
	seeds := []struct {
		kind, norm uint8
		icase      bool
		value      string
		out        []byte
		cutAt      uint16
	}{
		{0, 0, false, "5", []byte("5\n"), 1},
		{0, 0, false, "1\n2\nFizz", []byte("1\n2\nFizz\n4\n"), 5},
		{0, 0, false, "a\n\nb", []byte("a\n\n\nb"), 3},
		{0, 0, false, "a", []byte("a \t\r\n\r\n  \n"), 2},
		{0, 2, false, "hello", []byte("hello world"), 5},
		{0, 2, true, "\u212aX", []byte("kx"), 1},
		{0, 3, false, "a b c", []byte(" a\u00a0 b\n c "), 4},
		{0, 3, true, "É b", []byte("é\u3000B"), 3},
		{1, 0, false, "Fizz", []byte("1\n2\nFizz\n"), 7},
		{1, 0, true, "x\u00e9", []byte("x\xc3\xa9"), 2},
		{1, 3, false, "a b", []byte("a\t\tb"), 2},
		{2, 0, false, `\d+$`, []byte("abc 42\n"), 5},
		{2, 2, true, `(?m)^fizz\b`, []byte("x\nFIZZ buzz"), 6},
		{2, 1, false, `a.b`, []byte("a\xffb"), 2},
		{2, 0, false, `(`, []byte("("), 0},
		{0, 0, false, "\xff", []byte("\xfe\xff"), 1},
		{0, 0, true, "ǅ", []byte("ǆ\xe2\x82"), 2},
	}
	for _, s := range seeds {
		f.Add(s.kind, s.norm, s.icase, s.value, s.out, s.cutAt)
	}
	f.Fuzz(func(t *testing.T, kind, norm uint8, icase bool, value string, out []byte, cutAt uint16) {
		m := &Matcher{Kind: fuzzKinds[int(kind)%len(fuzzKinds)], Normalize: fuzzNorms[int(norm)%len(fuzzNorms)], IgnoreCase: icase, Value: value}
		exp := Expectation{Stdout: m}
		whole := done(string(out))
		full := Judge(exp, whole)
		if again := Judge(exp, whole); !reflect.DeepEqual(full, again) {
			t.Fatalf("not deterministic:\n%+v\n%+v", full, again)
		}
		oneLineResult(t, full)

		if m.Kind == Equals && m.Normalize == NormalizeExact {
			want := bytes.Equal(out, []byte(value))
			if icase {
				want = equalFoldBytes(out, []byte(value))
			}
			if (full.Verdict == True) != want {
				t.Fatalf("equals %q on %q = %v, want %v", value, out, full.Verdict, want)
			}
		}

		// Soundness: the first n bytes, cut or from a stopped run, may
		// settle only what the whole output settles.
		n := int(cutAt)
		if n > len(out) {
			n = len(out)
		}
		kept := string(out[:n])
		var partial []runner.Event
		if n < len(out) {
			partial = append(partial, cut(kept, int64(len(out))))
		}
		stopped := done(kept)
		stopped.TimedOut = true
		partial = append(partial, stopped)
		for _, ev := range partial {
			got := Judge(exp, ev)
			oneLineResult(t, got)
			if !reflect.DeepEqual(got, Judge(exp, ev)) {
				t.Fatal("not deterministic on a partial stream")
			}
			ch, fc := got.Checks[1], full.Checks[1]
			if ch.Verdict != Undetermined && ch.Verdict != fc.Verdict {
				t.Fatalf("%+v on the first %d of %q (cut %v, stopped %v) settles %v (%s), but the whole output is %v (%s)",
					*m, n, out, ev.Stdout.Truncated, ev.TimedOut, ch.Verdict, ch.Reason, fc.Verdict, fc.Reason)
			}
		}
	})
}

// equalFoldBytes is the oracle for ignore_case on exact bytes: strings.EqualFold
// on valid UTF-8; where either side is invalid, unit by unit, with valid
// runes compared by strings.EqualFold and invalid bytes byte for byte.
func equalFoldBytes(a, b []byte) bool {
	if utf8.Valid(a) && utf8.Valid(b) {
		return strings.EqualFold(string(a), string(b))
	}
	for len(a) > 0 && len(b) > 0 {
		ra, sa := utf8.DecodeRune(a)
		rb, sb := utf8.DecodeRune(b)
		invA, invB := ra == utf8.RuneError && sa == 1, rb == utf8.RuneError && sb == 1
		switch {
		case invA != invB:
			return false
		case invA && a[0] != b[0]:
			return false
		case !invA && !strings.EqualFold(string(a[:sa]), string(b[:sb])):
			return false
		}
		a, b = a[sa:], b[sb:]
	}
	return len(a) == 0 && len(b) == 0
}

func oneLineResult(t *testing.T, r CaseResult) {
	t.Helper()
	if strings.ContainsAny(r.Reason, "\r\n") {
		t.Fatalf("reason on more than one line: %q", r.Reason)
	}
	for _, ch := range r.Checks {
		if strings.ContainsAny(ch.Reason+ch.Expected+ch.Actual, "\r\n") {
			t.Fatalf("check on more than one line: %+v", ch)
		}
	}
	if (r.Verdict == True) != (r.Reason == "") {
		t.Fatalf("verdict %v with reason %q", r.Verdict, r.Reason)
	}
}

func BenchmarkMatch10MiB(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 10<<20; i++ {
		buf.WriteString("line ")
		buf.WriteString(itoa(i))
		buf.WriteString(": The quick brown fox jumps over the lazy dog \r\n")
	}
	out := buf.String()
	tail := out[len(out)-40:]
	matchers := []struct {
		name string
		m    Matcher
	}{
		{"equals", Matcher{Kind: Equals, Value: out}},
		{"equals/exact", Matcher{Kind: Equals, Value: out, Normalize: NormalizeExact}},
		{"equals/whitespace", Matcher{Kind: Equals, Value: out, Normalize: NormalizeWhitespace}},
		{"equals/ignore_case", Matcher{Kind: Equals, Value: out, IgnoreCase: true}},
		{"contains", Matcher{Kind: Contains, Value: strings.TrimSpace(tail)}},
		{"contains/ignore_case", Matcher{Kind: Contains, Value: strings.TrimSpace(tail), IgnoreCase: true}},
		{"regex", Matcher{Kind: Regex, Value: `line \d+: never`}},
		{"regex/ignore_case", Matcher{Kind: Regex, Value: `LINE \d+: NEVER`, IgnoreCase: true}},
	}
	for _, mm := range matchers {
		b.Run(mm.name, func(b *testing.B) {
			ev := done(out)
			exp := Expectation{Stdout: &mm.m}
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				Judge(exp, ev)
			}
		})
	}
	b.Run("equals/cut", func(b *testing.B) {
		ev := cut(out, int64(len(out))+1)
		exp := Expectation{Stdout: &Matcher{Kind: Equals, Value: out + "x"}}
		b.SetBytes(int64(len(out)))
		for b.Loop() {
			Judge(exp, ev)
		}
	})
}

// TestImports keeps the package pure: the standard library and the runner's
// evidence types only (no Docker, no YAML, no GitHub).
func TestImports(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.GoFiles) == 0 {
		t.Fatal("no Go files found")
	}
	const runnerPath = "github.com/behaves-dev/behaves/internal/runner"
	for _, imp := range pkg.Imports {
		first, _, _ := strings.Cut(imp, "/")
		if imp != runnerPath && strings.Contains(first, ".") {
			t.Errorf("package verdict imports %q: only the standard library and %s are allowed", imp, runnerPath)
		}
		if imp == "C" || imp == "unsafe" || strings.HasPrefix(imp, "os") || imp == "net" || strings.HasPrefix(imp, "net/") {
			t.Errorf("package verdict imports %q: it must do no I/O", imp)
		}
	}
}

// FuzzStructured judges arbitrary output against json, numbers and
// unordered equals matchers, as FuzzMatch does the others: no panic,
// deterministic, one-line reasons, and sound on incomplete evidence (what
// the first cutAt bytes settle, the whole output settles alike).
func FuzzStructured(f *testing.F) {
	seeds := []struct {
		kind  uint8
		opts  uint8
		value string
		out   []byte
		cutAt uint16
	}{
		{0, 0, `{"a": [1, 2]}`, []byte(`{"a":[1,2]}`), 5},
		{0, 0, `123`, []byte("12345"), 2},
		{0, 1, `[1, 2]`, []byte("[2, 1]\n"), 4},
		{0, 2, "1\n2", []byte("1\n\n2\n\n"), 3},
		{0, 4, `0.3`, []byte("0.30000000000000004"), 3},
		{1, 0, "1 2 3", []byte("1 2 30"), 4},
		{1, 4, "0.3 nan", []byte("0.3000000001 NaN"), 6},
		{2, 0, "a\nb", []byte("b\na\n\n"), 3},
		{2, 1, "a\n\nb", []byte("b\n\na"), 2},
		{0, 0, `"\ud83d\ude00"`, []byte(`"😀"`), 3},
	}
	for _, s := range seeds {
		f.Add(s.kind, s.opts, s.value, s.out, s.cutAt)
	}
	f.Fuzz(func(t *testing.T, kind, opts uint8, value string, out []byte, cutAt uint16) {
		m := &Matcher{Kind: [...]Kind{JSON, Numbers, Equals}[int(kind)%3], Value: value}
		switch m.Kind {
		case JSON:
			m.Unordered, m.Lines, m.Subset = opts&1 != 0, opts&2 != 0, opts&8 != 0
		case Equals:
			m.Unordered = true
			m.Normalize = fuzzNorms[int(opts)%len(fuzzNorms)]
		}
		if opts&4 != 0 && m.Kind != Equals {
			m.Rel = new(float64)
			*m.Rel = 1e-9
		}
		if m.Validate() != nil {
			return
		}
		exp := Expectation{Stdout: m}
		whole := done(string(out))
		full := Judge(exp, whole)
		if again := Judge(exp, whole); !reflect.DeepEqual(full, again) {
			t.Fatalf("not deterministic:\n%+v\n%+v", full, again)
		}
		oneLineResult(t, full)
		n := min(int(cutAt), len(out))
		kept := string(out[:n])
		var partial []runner.Event
		if n < len(out) {
			partial = append(partial, cut(kept, int64(len(out))))
		}
		stopped := done(kept)
		stopped.TimedOut = true
		partial = append(partial, stopped)
		for _, ev := range partial {
			got := Judge(exp, ev)
			oneLineResult(t, got)
			ch, fc := got.Checks[1], full.Checks[1]
			if ch.Verdict != Undetermined && ch.Verdict != fc.Verdict {
				t.Fatalf("%+v on the first %d of %q (cut %v) settles %v (%s), but the whole output is %v (%s)",
					*m, n, out, ev.Stdout.Truncated, ch.Verdict, ch.Reason, fc.Verdict, fc.Reason)
			}
		}
	})
}

// FuzzJSONParse holds the parser to encoding/json: what it accepts is
// valid JSON, and valid JSON within the bounds and without a member name
// twice is accepted; a number's decimal equals another's exactly when
// math/big says their values are equal.
func FuzzJSONParse(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,2,{"b":null}]`, `"\u00e9"`, `-0.0e+5`, `{"a":1,"a":2}`, `[`, `1 2`, "\"\xff\""} {
		f.Add([]byte(s), "1.50", "15e-1")
	}
	f.Fuzz(func(t *testing.T, data []byte, a, b string) {
		_, err := parseJSON(data)
		if err == nil && !json.Valid(data) {
			t.Fatalf("parseJSON accepts %q, which encoding/json refuses", data)
		}
		// RFC 8259 asks for UTF-8, which encoding/json does not enforce.
		if err != nil && json.Valid(data) && utf8.Valid(data) && !err.bound && !strings.Contains(err.msg, "twice") {
			t.Fatalf("parseJSON refuses %q (%v), which encoding/json accepts", data, err)
		}
		da, oka := parseDecimal(a)
		db, okb := parseDecimal(b)
		if !oka || !okb || len(a) > 40 || len(b) > 40 || strings.ContainsAny(a+b, "eE") {
			return
		}
		ra, ok1 := new(big.Rat).SetString(a)
		rb, ok2 := new(big.Rat).SetString(b)
		if !ok1 || !ok2 {
			return
		}
		if da.equal(db) != (ra.Cmp(rb) == 0) {
			t.Fatalf("decimals %q and %q: equal %v, math/big says %v", a, b, da.equal(db), ra.Cmp(rb) == 0)
		}
	})
}
