package verdict

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

func jsonM(v string) *Matcher   { return &Matcher{Kind: JSON, Value: v} }
func numbers(v string) *Matcher { return &Matcher{Kind: Numbers, Value: v} }
func tol(v float64) *float64    { return &v }
func all(ms ...*Matcher) *Matcher {
	m := &Matcher{Kind: All}
	for _, s := range ms {
		m.All = append(m.All, *s)
	}
	return m
}

// TestStructuredMatchers: json, numbers, unordered equals and lists of
// matchers, on whole and on cut output, each verdict with its reason.
func TestStructuredMatchers(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", MaxJSONDepth+1) + strings.Repeat("]", MaxJSONDepth+1)
	long := "1" + strings.Repeat("0", 100000)
	tests := []struct {
		name   string
		m      *Matcher
		ev     runner.Event
		want   Verdict
		reason string // as checkReason
	}{
		// json: by value
		{"json: reordered keys, other whitespace", jsonM(`{"a": 1, "b": [true, null, "x"]}`), done("{\n  \"b\":[true,null,\"x\"],\"a\":1}\n"), True, ""},
		{"json: numbers by value", jsonM(`{"n": 1, "m": 2.50, "k": 100}`), done(`{"n": 1.0, "m": 25e-1, "k": 1e2}`), True, ""},
		{"json: -0 is 0", jsonM(`0`), done(`-0.0`), True, ""},
		{"json: exact decimals, not float64", jsonM(`0.1`), done(`0.10000000000000001`), False, "stdout: (the whole document): expected 0.1, got 0.10000000000000001"},
		{"json: within abs", with(jsonM(`{"avg": 0.3}`), func(m *Matcher) { m.Abs = tol(1e-9) }), done(`{"avg": 0.30000000000000004}`), True, ""},
		{"json: pointer of the first difference", jsonM(`{"items": [{"price": 1}, {"price": 2}, {"price": 3}]}`),
			done(`{"items": [{"price": 1}, {"price": 2}, {"price": 3.5}]}`), False, "stdout: /items/2/price: expected 3, got 3.5"},
		{"json: pointer escapes", jsonM(`{"a/b": {"c~d": 1}}`), done(`{"a/b": {"c~d": 2}}`), False, "stdout: /a~1b/c~0d: expected 1, got 2"},
		{"json: missing member", jsonM(`{"a": 1, "b": 2}`), done(`{"a": 1}`), False, "stdout: /b: expected 2, got no such member"},
		{"json: extra member", jsonM(`{"a": 1}`), done(`{"a": 1, "z": [1]}`), False, "~/z: unexpected member [1]"},
		{"json: subset allows it", with(jsonM(`{"a": 1}`), func(m *Matcher) { m.Subset = true }), done(`{"z": 0, "a": 1}`), True, ""},
		{"json: array order matters", jsonM(`[1, 2, 3]`), done(`[1, 3, 2]`), False, "stdout: /1: expected 2, got 3"},
		{"json: unordered arrays", with(jsonM(`[1, 2, 2, {"a": 1}]`), func(m *Matcher) { m.Unordered = true }), done(`[{"a": 1.0}, 2, 1, 2]`), True, ""},
		{"json: unordered counts", with(jsonM(`[1, 2, 2]`), func(m *Matcher) { m.Unordered = true }), done(`[2, 1, 1]`), False, "~expected 2 somewhere in the array"},
		{"json: unordered with a tolerance", with(jsonM(`[0.3, 0.1]`), func(m *Matcher) { m.Unordered, m.Rel = true, tol(1e-9) }), done(`[0.1, 0.30000000000000004]`), True, ""},
		{"json: fewer items", jsonM(`[1, 2]`), done(`[1]`), False, "stdout: /1: expected 2, got nothing (1 items, expected 2)"},
		{"json: type differs", jsonM(`{"a": "1"}`), done(`{"a": 1}`), False, `stdout: /a: expected "1", got 1`},
		{"json: not JSON", jsonM(`{"a": 1}`), done("a: 1\n"), False, `stdout is not JSON: line 1 column 1: 'a' where a value belongs`},
		{"json: not JSON on line 2", jsonM(`[1, 2]`), done("[1,\n  2,]"), False, `stdout is not JSON: line 2 column 5: ']' where a value belongs`},
		{"json: more after the document", jsonM(`1`), done("1 2"), False, "~more after the JSON document"},
		{"json: empty output", jsonM(`1`), done(""), False, "stdout is not JSON: line 1 column 1: no JSON document"},
		{"json: duplicate member names", jsonM(`{"a": 1}`), done(`{"a": 1, "a": 2}`), False, `~the member name "a" appears twice in one object`},
		{"json: invalid UTF-8", jsonM(`"x"`), done("\"\xff\""), False, "~invalid UTF-8"},
		{"json: nesting bomb", jsonM(`[]`), done(deep), False, "~nested deeper than 10000 levels"},
		{"json: a long number", jsonM(`1`), done(long), False, "~a number of 100001 characters, longer than 4096"},
		{"json: escapes", jsonM(`"é\n😀"`), done(`"\u00e9\n\ud83d\ude00"`), True, ""},
		// json on cut output
		{"json: cut mid-document", jsonM(`{"a": [1, 2, 3]}`), cut(`{"a": [1, 2`, 1<<20), Undetermined, "stdout cut at 64KiB: the kept part is JSON so far, the rest was not kept"},
		{"json: cut, a syntax error in the kept part", jsonM(`{"a": 1}`), cut(`{"a" 1, `, 1<<20), False, "~(in the kept part; stdout cut at 64KiB)"},
		{"json: cut, a whole document that differs", jsonM(`{"a": 1}`), cut(`{"a": 2}`, 1<<20), False, "stdout: /a: expected 1, got 2 (in the kept part; stdout cut at 64KiB)"},
		{"json: cut, a whole document that agrees", jsonM(`{"a": 1}`), cut(`{"a": 1}`, 1<<20), Undetermined, "~is the expected JSON, but the rest was not kept"},
		{"json: cut inside a number", jsonM(`123`), cut(`12`, 1<<20), Undetermined, ""},
		{"json: cut, a nesting bomb", jsonM(`[]`), cut(deep, 1<<20), Undetermined, ""},
		// json lines
		{"json lines: each line", with(jsonM("{\"a\": 1}\n[2]"), func(m *Matcher) { m.Lines = true }), done("{\"a\":1}\n[ 2 ]\n"), True, ""},
		{"json lines: a line differs", with(jsonM("{\"a\": 1}\n[2]"), func(m *Matcher) { m.Lines = true }), done("{\"a\":1}\n[3]\n"), False, "stdout line 2: /0: expected 2, got 3"},
		{"json lines: one line too many", with(jsonM("1"), func(m *Matcher) { m.Lines = true }), done("1\n2\n"), False, "stdout: 2 lines or more, expected 1 JSON documents"},
		{"json lines: cut after a wrong line", with(jsonM("1\n2\n3"), func(m *Matcher) { m.Lines = true }), cut("1\n5\n3", 1<<20), False, "~stdout line 2: (the whole document): expected 2, got 5 (in the kept part"},
		{"json lines: cut, lines agree so far", with(jsonM("1\n2\n3"), func(m *Matcher) { m.Lines = true }), cut("1\n2\n3", 1<<20), Undetermined, "~2 whole lines agree"},
		// numbers
		{"numbers: exact by value", numbers("1 2.5 100"), done("1.0 2.50\n1e2\n"), True, ""},
		{"numbers: within rel", with(numbers("0.3"), func(m *Matcher) { m.Rel = tol(1e-9) }), done("0.30000000000000004\n"), True, ""},
		{"numbers: outside rel", with(numbers("1 0.3"), func(m *Matcher) { m.Rel = tol(1e-9) }), done("1\n0.3001\n"), False,
			"stdout line 2 column 1 (token 2): expected 0.3, got 0.3001 (off by 0.0001, outside rel 1e-09)"},
		{"numbers: abs or rel, either", with(numbers("1000"), func(m *Matcher) { m.Abs, m.Rel = tol(0.5), tol(1e-3) }), done("1000.9"), True, ""},
		{"numbers: words exactly", numbers("YES 3"), done("yes 3"), False, `stdout line 1 column 1 (token 1): expected "YES", got "yes"`},
		{"numbers: not a number", numbers("1 2"), done("1 two"), False, `stdout line 1 column 3 (token 2): expected the number 2, got "two"`},
		{"numbers: token count", numbers("1 2 3"), done("1 2"), False, "stdout: 2 tokens, expected 3"},
		{"numbers: a token too many", numbers("1"), done("1 2"), False, `stdout line 1 column 3 (token 2): "2", more than the 1 expected`},
		{"numbers: nan only itself", numbers("nan inf"), done("NaN inf"), True, ""},
		{"numbers: nan is not a number", with(numbers("nan"), func(m *Matcher) { m.Abs = tol(1e9) }), done("1"), False, "~expected nan, got \"1\""},
		{"numbers: a long number", numbers("1"), done(long), False, "~a token of 100001 characters where the number 1 belongs, longer than 4096"},
		{"numbers: cut, a wrong whole token", numbers("1 2 3"), cut("1 5 3", 1<<20), False, "~expected 2, got 5 (in the kept part"},
		{"numbers: cut, the last token may go on", numbers("1 2 30"), cut("1 2 3", 1<<20), Undetermined, "~the 2 whole tokens agree"},
		// equals, unordered
		{"unordered: any order", with(eq("b\na\na\n"), func(m *Matcher) { m.Unordered = true }), done("a\nb  \na\n\n"), True, ""},
		{"unordered: ignore_case", icase(with(eq("B\na"), func(m *Matcher) { m.Unordered = true })), done("A\nb"), True, ""},
		{"unordered: a line too many", with(eq("a\nb"), func(m *Matcher) { m.Unordered = true }), done("a\nb\na"), False, `stdout line 3: "a" is not among the expected lines, or more times than expected (compared in any order)`},
		{"unordered: a line missing", with(eq("a\nb\nb"), func(m *Matcher) { m.Unordered = true }), done("b\na"), False, `stdout: expected the line "b" 1 more time, got 2 lines, expected 3 (compared in any order)`},
		{"unordered: cut, a stray whole line", with(eq("a\nb"), func(m *Matcher) { m.Unordered = true }), cut("a\nc\nb", 1<<20), False, "~(in the kept part"},
		{"unordered: cut, whole lines agree", with(eq("a\nb"), func(m *Matcher) { m.Unordered = true }), cut("b\nx", 1<<20), Undetermined, "~the 1 whole lines are among the expected"},
		// what a cut stream may end with
		{"unordered: cut after blank lines", with(eq("a"), func(m *Matcher) { m.Unordered = true }), cut("a\n\n", 1<<20), Undetermined, ""},
		{"json lines: cut after a blank line", with(jsonM("1"), func(m *Matcher) { m.Lines = true }), cut("1\n  \n", 1<<20), Undetermined, ""},
		{"json lines: a blank line between", with(jsonM("1\n2"), func(m *Matcher) { m.Lines = true }), cut("1\n\n2\n", 1<<20), False, "~stdout line 2 is not JSON"},
		// a list of matchers
		{"all: every one holds", all(contains("total"), regex(`^\d+ rows`)), done("12 rows, total 3\n"), True, ""},
		{"all: the one that fails", all(contains("total"), regex(`^\d+ rows`)), done("total: 3\n"), False, `stdout[2]: no match for /^\d+ rows/, got "total: 3"`},
		{"all: false over undetermined", all(contains("nope"), eq("x")), cut("abc", 1<<20), False, "~stdout[2]"},
		{"all: undetermined", all(contains("total"), contains("rows")), cut("total", 1<<20), Undetermined, "~stdout[2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.m.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			res := Judge(Expectation{Stdout: tt.m}, tt.ev)
			if res.Verdict != tt.want {
				t.Errorf("verdict %v (%s), want %v", res.Verdict, res.Reason, tt.want)
			}
			checkReason(t, res.Reason, tt.reason)
		})
	}
}

// TestStructuredValidate: what a matcher cannot be judged with.
func TestStructuredValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		m    *Matcher
		want string
	}{
		{jsonM(`{"a": }`), "the expected value is not JSON: line 1 column 7"},
		{with(jsonM("1\n{"), func(m *Matcher) { m.Lines = true }), "the expected line 2 is not JSON"},
		{numbers("  "), "numbers expects at least one token"},
		{with(numbers("1"), func(m *Matcher) { m.Abs = tol(-1) }), "a tolerance of -1"},
		{with(contains("x"), func(m *Matcher) { m.Unordered = true }), "unordered applies to equals and json, not contains"},
		{&Matcher{Kind: All}, "an empty list of matchers"},
		{all(eq("x"), all(eq("y"))), "matcher 2 is a list itself"},
		{all(eq("x"), regex("(")), "matcher 2: invalid regex"},
	} {
		if err := tt.m.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: Validate = %v, want %q", *tt.m, err, tt.want)
		}
	}
}

// TestJSONWords: a word that is not true, false or null is named where it
// starts; a cut inside one of them is not a mismatch.
func TestJSONWords(t *testing.T) {
	t.Parallel()
	if res := Judge(Expectation{Stdout: jsonM(`true`)}, done("total: 3")); res.Verdict != False ||
		res.Reason != `stdout is not JSON: line 1 column 1: 't' where a value belongs` {
		t.Errorf("a word: %v %s", res.Verdict, res.Reason)
	}
	if res := Judge(Expectation{Stdout: jsonM(`[true]`)}, cut("[tr", 1<<20)); res.Verdict != Undetermined {
		t.Errorf("cut inside true: %v %s", res.Verdict, res.Reason)
	}
}
