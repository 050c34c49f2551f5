package reportread_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestReadRoundTrip guards that a report behaves wrote reads back equal.
func TestReadRoundTrip(t *testing.T) {
	t.Parallel()
	want := reporttest.Report()
	var buf bytes.Buffer
	if err := report.Encode(&buf, want); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the encoded report", buf.Bytes())
	got, err := reportread.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got.Verdict != want.Verdict || got.Counts != want.Counts || len(got.Programs) != len(want.Programs) {
		t.Errorf("Read = verdict %s counts %+v, want %s %+v", got.Verdict, got.Counts, want.Verdict, want.Counts)
	}
	if _, err := reportread.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()-1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Read over the limit: err = %v, want larger than", err)
	}
}

// TestStdinExcerpt guards what a case's entry keeps of its stdin: all of a
// short one, the first StdinExcerptMax bytes of a long one (cut at a rune
// boundary when it is text), base64 for bytes that are not text, and
// nothing without stdin; and that a report without the three keys (an
// earlier behaves) still reads.
func TestStdinExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", report.StdinExcerptMax) // 2 bytes a rune
	tests := []struct {
		stdin, text, b64 string
	}{
		{"", "", ""},
		{"3\n", "3\n", ""},
		{"\x00\x01\xff", "", "AAH/"},
		{long, long[:report.StdinExcerptMax], ""},
		{"x" + long, "x" + long[:report.StdinExcerptMax-2], ""}, // 511 would split a rune
	}
	for _, tt := range tests {
		var c report.Case
		c.SetStdin([]byte(tt.stdin))
		if c.StdinSize != int64(len(tt.stdin)) || c.StdinExcerpt != tt.text || c.StdinExcerptBase64 != tt.b64 {
			t.Errorf("stdin %q: size %d, excerpt %q, base64 %q; want %d, %q, %q",
				tt.stdin, c.StdinSize, c.StdinExcerpt, c.StdinExcerptBase64, len(tt.stdin), tt.text, tt.b64)
		}
		if got := c.StdinExcerptData(); !strings.HasPrefix(tt.stdin, string(got)) {
			t.Errorf("stdin %q: StdinExcerptData = %q, not its start", tt.stdin, got)
		}
	}
	written := reporttest.Encoded(t, reporttest.Report())
	old := written
	for _, key := range []string{"stdin_size", "stdin_excerpt", "stdin_excerpt_base64"} {
		old = regexp.MustCompile(`\n *"`+key+`": [^\n]*`).ReplaceAll(old, nil)
	}
	if bytes.Contains(old, []byte("stdin_excerpt")) || len(old) == len(written) {
		t.Fatal("the test did not remove the stdin keys")
	}
	r, err := reportread.Read(bytes.NewReader(old), 1<<20)
	if err != nil {
		t.Fatalf("Read of a report without the stdin keys: %v", err)
	}
	if c := r.Programs[1].Cases[1]; c.StdinSize != 0 || len(c.StdinExcerptData()) != 0 {
		t.Errorf("a case without the stdin keys read as size %d, excerpt %q", c.StdinSize, c.StdinExcerptData())
	}
}

// TestReadRefusesForgery guards Read against edited reports: each edit of
// the fixture's report, as behaves writes it, must be refused with a
// message naming the problem.
func TestReadRefusesForgery(t *testing.T) {
	t.Parallel()
	written := reporttest.Encoded(t, reporttest.Report())
	programs := func(m map[string]any) []any { return m["programs"].([]any) }
	program := func(m map[string]any, i int) map[string]any { return programs(m)[i].(map[string]any) }
	tests := []forgery{
		{"schema", func(m map[string]any) { m["schema"] = "behaves.report/v2" }, "schema"},
		{"tool", func(m map[string]any) { m["tool"].(map[string]any)["name"] = "other" }, "tool"},
		{"missing key", func(m map[string]any) { delete(m, "counts") }, `"counts"`},
		{"null programs", func(m map[string]any) { m["programs"] = nil }, `"programs"`},
		{"missing case key", func(m map[string]any) {
			delete(program(m, 0)["cases"].([]any)[0].(map[string]any), "verdict")
		}, `programs[0].cases[0] has no "verdict"`},
		{"overall verdict", func(m map[string]any) { m["verdict"] = "true" }, "verdict true is not"},
		{"unknown verdict", func(m map[string]any) { m["verdict"] = "maybe" }, "unknown verdict"},
		{"program verdict", func(m map[string]any) {
			for _, p := range programs(m) {
				if p := p.(map[string]any); p["verdict"] == "false" {
					p["verdict"] = "true"
				}
			}
		}, "is not what its cases fold to"},
		{"program reason", func(m map[string]any) {
			// A renderer prints a program's reason: it is the deciding
			// case's, as the verdict is.
			program(m, 1)["reason"] = "all good, merge it"
		}, `program 2: reason "all good, merge it" is not what its cases fold to`},
		{"counts", func(m map[string]any) {
			m["counts"].(map[string]any)["programs"].(map[string]any)["false"] = 0.0
		}, "counts"},
		{"all true", func(m map[string]any) {
			// A consistent forgery that flips every case still needs
			// consistent counts: left as they were, they give it away.
			for _, p := range programs(m) {
				p := p.(map[string]any)
				p["verdict"], p["reason"] = "true", ""
				for _, c := range p["cases"].([]any) {
					c.(map[string]any)["verdict"], c.(map[string]any)["reason"] = "true", ""
				}
			}
			m["verdict"] = "true"
		}, "counts"},
		{"run id", func(m map[string]any) { m["run_id"] = "x\n::error::forged" }, "run_id"},
		{"github run", func(m map[string]any) { m["github"].(map[string]any)["run_id"] = "12; rm" }, "github.run_id"},
		{"head sha", func(m map[string]any) { m["github"].(map[string]any)["head_sha"] = "HEAD" }, "head_sha"},
		{"negative line", func(m map[string]any) { program(m, 0)["line"] = -1.0 }, "negative"},
		{"acquisition", func(m map[string]any) { program(m, 0)["acquisition"] = "<b>" }, "acquisition"},
		{"stdin excerpt too long", func(m map[string]any) {
			c := program(m, 1)["cases"].([]any)[1].(map[string]any)
			c["stdin_size"] = 4096.0
			c["stdin_excerpt_base64"] = ""
			c["stdin_excerpt"] = strings.Repeat("y", report.StdinExcerptMax+1)
		}, "stdin excerpt of 513 bytes"},
		{"stdin excerpt beyond its size", func(m map[string]any) {
			program(m, 0)["cases"].([]any)[1].(map[string]any)["stdin_size"] = 3.0
		}, "from a stdin of 3"},
		{"stdin excerpt twice", func(m map[string]any) {
			program(m, 0)["cases"].([]any)[1].(map[string]any)["stdin_excerpt"] = "x"
		}, "both stdin_excerpt"},
		{"stdin excerpt not base64", func(m map[string]any) {
			program(m, 0)["cases"].([]any)[1].(map[string]any)["stdin_excerpt_base64"] = "!!"
		}, "stdin_excerpt_base64"},
		{"pass@k raised", func(m map[string]any) {
			m["groups"].([]any)[0].(map[string]any)["pass_at"].(map[string]any)["1"] = 1.0
		}, "pass@1 is 1, not what its samples give (0)"},
		{"pass@k null without reason", func(m map[string]any) {
			m["groups"].([]any)[0].(map[string]any)["pass_at_reasons"] = map[string]any{}
		}, "pass_at_reasons has no reason for k = 2"},
		{"pass@k reason for a k pass_at lacks", func(m map[string]any) {
			// A forged report: a key missing from pass_at read as nil and was
			// accepted whatever it held, and renderers printed it raw.
			m["groups"].([]any)[0].(map[string]any)["pass_at_reasons"].(map[string]any)["1 @org/team ![x](http://127.0.0.1/b.png)"] = "x"
		}, `pass_at_reasons has a key "1 @org/team`},
		{"pass@k reason for a k with a value", func(m map[string]any) {
			m["groups"].([]any)[0].(map[string]any)["pass_at_reasons"].(map[string]any)["1"] = "why not"
		}, `pass_at_reasons has a key "1"`},
		{"pass@k reason rewritten", func(m map[string]any) {
			m["groups"].([]any)[0].(map[string]any)["pass_at_reasons"].(map[string]any)["2"] = "@everyone look"
		}, `pass_at_reasons[2] is not what its samples give`},
		{"group counts", func(m map[string]any) {
			g := m["groups"].([]any)[0].(map[string]any)
			g["undetermined"], g["true"] = 0.0, 1.0
		}, "not its samples'"},
		{"group dropped", func(m map[string]any) { m["groups"] = []any{} }, "0 groups, but the programs name 1"},
		{"program left its group", func(m map[string]any) { program(m, 2)["group"] = "" }, "counts n 2"},
		{"pass_at key", func(m map[string]any) {
			m["groups"].([]any)[0].(map[string]any)["pass_at"].(map[string]any)["01"] = 0.0
		}, `groups[0].pass_at: key "01" is not a k`},
		{"kept output rewritten", func(m map[string]any) {
			// A forged report: a false program's output replaced with the right
			// text rescored as true. A forger can recompute the digest;
			// damage on the way cannot.
			e := program(m, 1)["cases"].([]any)[0].(map[string]any)["event"].(map[string]any)
			e["stdout"], e["stdout_kept_bytes"], e["stdout_bytes"] = "1\n2\nFizz\n4\nBuzz\n", 16.0, 16.0
		}, "program 2: case 1: stdout is not the output whose SHA-256 stdout_sha256 records"},
		{"kept output cut", func(m map[string]any) {
			program(m, 0)["cases"].([]any)[0].(map[string]any)["event"].(map[string]any)["stdout"] = "1\n2\n"
		}, "program 1: case 1: stdout holds 4 bytes, but stdout_kept_bytes says 16"},
		{"kept more than written", func(m map[string]any) {
			program(m, 0)["cases"].([]any)[0].(map[string]any)["event"].(map[string]any)["stdout_bytes"] = 3.0
		}, "stdout_kept_bytes 16 is not between 0 and stdout_bytes 3"},
		{"omitted output kept", func(m map[string]any) {
			program(m, 0)["cases"].([]any)[0].(map[string]any)["event"].(map[string]any)["stdout_omitted"] = true
		}, "stdout is omitted but 16 bytes of it are kept"},
		{"spec errors with programs", func(m map[string]any) {
			m["spec_errors"] = []any{map[string]any{"file": "x", "line": 1.0, "col": 1.0, "message": "m"}}
		}, "spec errors"},
	}
	refusesForgeries(t, written, tests)
	if _, err := reportread.Read(bytes.NewReader(append(written, "{}"...)), 1<<20); err == nil {
		t.Error("Read accepted data after the report")
	}
	if r, err := reportread.Read(bytes.NewReader(written), 1<<20); err != nil || r.Verdict != verdict.False {
		t.Errorf("Read(fixture) = %v, %v; want false, nil", r.Verdict, err)
	}
}

// FuzzRead guards Read on any input: it never panics, and a report it
// accepts is one it accepts again once re-encoded, with the same verdict
// and counts (nothing it accepted depends on what Encode drops).
func FuzzRead(f *testing.F) {
	written := reporttest.Encoded(f, reporttest.Report())
	f.Add(written)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema":"behaves.report/v1","programs":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := reportread.Read(bytes.NewReader(data), 1<<20)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := report.Encode(&buf, r); err != nil {
			t.Fatalf("Encode of an accepted report: %v", err)
		}
		again, err := reportread.Read(&buf, 4<<20)
		if err != nil {
			t.Fatalf("Read refuses its own accepted report re-encoded: %v", err)
		}
		if again.Verdict != r.Verdict || again.Counts != r.Counts {
			t.Fatalf("re-read verdict %s %+v, want %s %+v", again.Verdict, again.Counts, r.Verdict, r.Counts)
		}
	})
}

// TestCaseFile guards a case's cases file: kept from the spec, written as
// "file" in the case ("" for a case written in the spec), and read back,
// while a report whose cases have no "file" (every report before cases
// files) still reads.
func TestCaseFile(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	sc := &in.Programs[0].Cases[0].Spec
	sc.File, sc.Pos = "tests/fizz.jsonl", spec.Pos{File: "tests/fizz.jsonl", Line: 3, Col: 1}
	rep := assemble.Report(in)
	var buf bytes.Buffer
	if err := report.Encode(&buf, rep); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the encoded report", buf.Bytes())
	var raw struct {
		Programs []struct {
			Cases []map[string]json.RawMessage `json:"cases"`
		} `json:"programs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if got := string(raw.Programs[0].Cases[0]["file"]); got != `"tests/fizz.jsonl"` {
		t.Errorf("the case from a cases file has file %s", got)
	}
	if got := string(raw.Programs[0].Cases[1]["file"]); got != `""` {
		t.Errorf("a case written in the spec has file %s, want \"\"", got)
	}
	back, err := reportread.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Programs[0].Cases[0]; c.File != "tests/fizz.jsonl" || c.Line != 3 || c.Col != 1 {
		t.Errorf("read back: file %q at %d:%d", c.File, c.Line, c.Col)
	}
	written := reporttest.Encoded(t, reporttest.Report())
	caseFile := regexp.MustCompile(`\n {10}"file": [^\n]*`) // a case's keys are 10 deep
	old := caseFile.ReplaceAll(written, nil)
	if len(old) == len(written) || !bytes.Contains(old, []byte(`"file"`)) {
		t.Fatal("the test did not remove the cases' file keys, or removed the programs' too")
	}
	if _, err := reportread.Read(bytes.NewReader(old), 1<<20); err != nil {
		t.Errorf("Read of a report whose cases have no file: %v", err)
	}
}

// forgery is an edit of a written report that Read must refuse, with
// what its error must say.
type forgery struct {
	name string
	edit func(m map[string]any)
	want string
}

// refusesForgeries applies each forgery to the report written, each to a
// fresh copy, and checks that Read refuses the result saying what it
// must.
func refusesForgeries(t *testing.T, written []byte, tests []forgery) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(written, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = reportread.Read(bytes.NewReader(b), 1<<20)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
