package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestStructuredMatchers: on the real daemon, outputs with more than one
// right answer. A JSON-printing program is true under reordered keys and
// other whitespace, false with the pointer of a changed value, false on
// output that is not JSON, undetermined when its output is cut
// mid-document; a float-printing program passes within rel 1e-9 and
// fails outside it at the token's position; a list of matchers holds only
// when all hold; hostile output kept whole (a nesting bomb, a
// 100,000-digit number) is false naming the bound.
func TestStructuredMatchers(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	dir := writeTree(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  py: {image: "` + img.python + `", command: ["python3", "-I"], timeout: 20s, output_limit: 256KiB}
programs:
  - name: report
    file: report.py
    profile: py
    cases:
      - {name: reordered, args: [ok], expect: {stdout: {json: {a: {x: 1}, b: [1, 2]}}}}
      - {name: changed value, args: [price], expect: {stdout: {json: {items: [{price: 1}, {price: 3}]}}}}
      - {name: not json, args: [text], expect: {stdout: {json: {total: 3}}}}
      - {name: cut mid-document, args: [flood], expect: {stdout: {json: [1]}}}
      - {name: nesting bomb, args: [bomb], expect: {stdout: {json: []}}}
      - {name: long number, args: [digits], expect: {stdout: {numbers: "1"}}}
      - {name: average, args: [avg, "0.1", "0.2"], expect: {stdout: {numbers: "0.3", rel: 1e-9}}}
      - {name: average off, args: [avg, "0.1", "0.21"], expect: {stdout: {numbers: "0.3", rel: 1e-9}}}
      - {name: all hold, args: [rows], expect: {stdout: [{contains: total}, {regex: '^\d+ rows'}]}}
      - {name: one fails, args: [rows], expect: {stdout: [{contains: total}, {regex: '^rows'}]}}
      - {name: any order, args: [lines], expect: {stdout: {equals: "c\na\nb", unordered: true}}}
`,
		"report.py": `import json, sys
mode = sys.argv[1]
if mode == "ok":
    print(json.dumps({"b": [1, 2], "a": {"x": 1.0}}, indent=4))
elif mode == "price":
    print(json.dumps({"items": [{"price": 1}, {"price": 3.5}]}))
elif mode == "text":
    print("total: 3")
elif mode == "flood":
    sys.stdout.write("[" + "1," * 500000 + "1]\n")
elif mode == "bomb":
    sys.stdout.write("[" * 20000 + "]" * 20000)
elif mode == "digits":
    sys.stdout.write("1" + "0" * 100000 + "\n")
elif mode == "avg":
    xs = [float(x) for x in sys.argv[2:]]
    print(sum(xs) / len(xs) * 2)
elif mode == "rows":
    print("12 rows, total 3")
elif mode == "lines":
    print("a\nb\nc")
`,
	})
	code, _, stderr, data := runIn(t, filepath.Join(dir, "behaves.yml"))
	rep := decode(t, data)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, indent(stderr))
	}
	want := map[string]struct {
		v      verdict.Verdict
		reason string
	}{
		"reordered":        {verdict.True, ""},
		"changed value":    {verdict.False, "stdout: /items/1/price: expected 3, got 3.5"},
		"not json":         {verdict.False, `stdout is not JSON: line 1 column 1: 't' where a value belongs`},
		"cut mid-document": {verdict.Undetermined, "stdout cut at 256KiB: the kept part is JSON so far, the rest was not kept"},
		"nesting bomb":     {verdict.False, "nested deeper than 10000 levels"},
		"long number":      {verdict.False, "a token of 100001 characters where the number 1 belongs, longer than 4096"},
		"average":          {verdict.True, ""},
		"average off":      {verdict.False, "stdout line 1 column 1 (token 1): expected 0.3, got 0.31"},
		"all hold":         {verdict.True, ""},
		"one fails":        {verdict.False, "stdout[2]: no match for /^rows/"},
		"any order":        {verdict.True, ""},
	}
	seen := 0
	for _, c := range rep.Programs[0].Cases {
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		seen++
		if c.Verdict != w.v || !strings.Contains(c.Reason, w.reason) {
			t.Errorf("%s: %s (%s), want %s with %q", c.Name, c.Verdict, c.Reason, w.v, w.reason)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d cases in the report", seen, len(want))
	}
	// The list's outcome records each matcher's own.
	for _, c := range rep.Programs[0].Cases {
		if c.Name != "one fails" {
			continue
		}
		ms := c.Expect.Stdout.Matchers
		if c.Expect.Stdout.Kind != verdict.All || len(ms) != 2 || ms[0].Verdict != verdict.True || ms[1].Verdict != verdict.False {
			t.Errorf("one fails: stdout %+v, want a list of a true and a false matcher", c.Expect.Stdout)
		}
	}
}
