package report_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := report.Encode(&buf, reporttest.Report()); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the encoded report", buf.Bytes())
	var back report.Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	ev := back.Programs[0].Cases[1].Event
	raw, err := base64.StdEncoding.DecodeString(ev.StdoutBase64)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte("ok\xff\xfe\n"); !bytes.Equal(raw, want) || !bytes.Equal(ev.StdoutData(), want) {
		t.Errorf("decoded bytes = %q, want %q", raw, want)
	}
	if ev.Stdout != "" || ev.StdoutKeptBytes != 5 || ev.StdoutSHA256 != fmt.Sprintf("%x", sha256.Sum256(raw)) {
		t.Errorf("stdout %q, kept %d, sha256 %s: want only base64, 5 bytes and their digest", ev.Stdout, ev.StdoutKeptBytes, ev.StdoutSHA256)
	}
}

// TestEveryKeyPresent encodes zero values and checks that every field of
// every type appears in the JSON, and that no list is null.
func TestEveryKeyPresent(t *testing.T) {
	t.Parallel()
	zero := report.Report{Programs: []report.Program{{Cases: []report.Case{{Expect: report.Expect{Stdout: &report.MatcherOutcome{}}}}}}}
	for name, r := range map[string]report.Report{"zero": zero, "built": assemble.Report(assemble.Input{Spec: &spec.Spec{Programs: []spec.Program{reporttest.Program("p", "p.py", 1, reporttest.Case("c", 2, verdict.Expectation{}))}}})} {
		var buf bytes.Buffer
		if err := report.Encode(&buf, r); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		checkKeys(t, name, reflect.TypeFor[report.Report](), m)
	}
}

// nullable are the fields whose null has a meaning.
var nullable = map[string]bool{"exit_code": true, "stdout": true, "stderr": true, "shard": true, "build": true, "same_as": true,
	"reuse": true, "reused_from": true, "not_reused": true, "reference_applied": true,
	"abs": true, "rel": true} // a tolerance not given

func checkKeys(t *testing.T, path string, typ reflect.Type, v any) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Struct:
		if typ == reflect.TypeFor[time.Time]() {
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: got %T, want an object", path, v)
			return
		}
		fields := jsonFields(typ)
		for _, f := range fields {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				t.Errorf("%s.%s has no json name", path, f.Name)
				continue
			}
			fv, ok := m[name]
			if !ok {
				t.Errorf("%s: key %q missing", path, name)
				continue
			}
			if fv == nil {
				if !nullable[name] || f.Type.Kind() != reflect.Pointer {
					t.Errorf("%s.%s is null", path, name)
				}
				continue
			}
			checkKeys(t, path+"."+name, f.Type, fv)
		}
		if len(m) != len(fields) {
			t.Errorf("%s: %d keys, want %d", path, len(m), len(fields))
		}
	case reflect.Slice:
		s, ok := v.([]any)
		if !ok {
			t.Errorf("%s: got %T, want a list", path, v)
			return
		}
		for i, e := range s {
			checkKeys(t, fmt.Sprintf("%s[%d]", path, i), typ.Elem(), e)
		}
	case reflect.Map:
		if _, ok := v.(map[string]any); !ok {
			t.Errorf("%s: got %T, want an object", path, v)
		}
	}
}

// jsonFields are the fields of typ that JSON writes: its own and those of
// the structs it embeds without a tag (runner.Settings' Container), whose
// keys sit in the same object.
func jsonFields(typ reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(typ) {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" || f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			continue
		}
		out = append(out, f)
	}
	return out
}

// TestMatcherDescribe: how every renderer names a matcher and shows what
// it expects.
func TestMatcherDescribe(t *testing.T) {
	t.Parallel()
	rel := 1e-9
	list := report.MatcherOutcome{Kind: verdict.All, Matchers: []report.MatcherOutcome{
		{Kind: verdict.Contains, Value: "total", Normalize: verdict.NormalizeTrailing, Verdict: verdict.True},
		{Kind: verdict.JSON, Value: `{"a":1}`, Normalize: verdict.NormalizeTrailing, Subset: true, Verdict: verdict.False},
		{Kind: verdict.Numbers, Value: "0.3", Normalize: verdict.NormalizeTrailing},
	}}
	for _, tt := range []struct {
		m                  report.MatcherOutcome
		describe, expected string
	}{
		{report.MatcherOutcome{Kind: verdict.Equals, Value: "b\na", Normalize: verdict.NormalizeExact, IgnoreCase: true, Unordered: true},
			"equals, normalize exact, ignore case, unordered", "b\na"},
		{report.MatcherOutcome{Kind: verdict.Numbers, Value: "0.3", Normalize: verdict.NormalizeTrailing, Rel: &rel}, "numbers, rel 1e-09", "0.3"},
		{list, "all of 3 matchers", "1. contains \"total\" (normalize trailing) → true\n2. json \"{\\\"a\\\":1}\" (subset) → false\n3. numbers \"0.3\" → undetermined\n"},
	} {
		if got := tt.m.Describe(); got != tt.describe {
			t.Errorf("Describe = %q, want %q", got, tt.describe)
		}
		if got := tt.m.ExpectedText(); got != tt.expected {
			t.Errorf("ExpectedText = %q, want %q", got, tt.expected)
		}
	}
	if (&report.MatcherOutcome{Kind: verdict.Equals, Unordered: true}).LinesAlign() || !(&report.MatcherOutcome{Kind: verdict.Equals}).LinesAlign() {
		t.Error("LinesAlign: only an equals matcher in order aligns lines")
	}
}

// TestOverallFoldsGatingPrograms: a program that does not gate is judged
// and counted, but the run's verdict is its gating programs'.
func TestOverallFoldsGatingPrograms(t *testing.T) {
	t.Parallel()
	r := report.Report{Programs: []report.Program{{Verdict: verdict.True}, {Verdict: verdict.False, NotGating: true}, {Verdict: verdict.Undetermined, NotGating: true}}}
	r.Counts = report.CountsOf(r.Programs)
	if got := report.Overall(r); got != verdict.True {
		t.Errorf("Overall = %v, want true: the false and undetermined programs do not gate", got)
	}
	r.Programs[0].Verdict = verdict.False
	if got := report.Overall(r); got != verdict.False {
		t.Errorf("Overall = %v, want false", got)
	}
	if r.Counts.Programs.False != 1 || r.Counts.Programs.Undetermined != 1 {
		t.Errorf("counts %+v: every program is counted", r.Counts.Programs)
	}
	r.Programs = r.Programs[1:] // nothing gates
	if got := report.Overall(r); got != verdict.True {
		t.Errorf("Overall with no gating program = %v, want true", got)
	}
}

// TestCaseExpected: what the renderers show as a matcher's expected side:
// its text, and for a checker whose answer is the reference's output,
// that output as the reference's run kept it.
func TestCaseExpected(t *testing.T) {
	t.Parallel()
	ref := report.Event{}
	ref.SetOutput([]byte("1 2 3\n"), []byte("warn\n"))
	c := report.Case{ReferenceEvents: []report.Event{ref}}
	fromRef := &report.MatcherOutcome{Kind: verdict.Checker, AnswerReference: "ref"}
	if got := string(c.Expected("stdout", fromRef)); got != "1 2 3\n" {
		t.Errorf("stdout answer from the reference: %q", got)
	}
	if got := string(c.Expected("stderr", fromRef)); got != "warn\n" {
		t.Errorf("stderr answer from the reference: %q", got)
	}
	if got := (&report.Case{}).Expected("stdout", fromRef); got != nil {
		t.Errorf("no reference run kept: %q, want nothing", got)
	}
	if got := string(c.Expected("stdout", &report.MatcherOutcome{Kind: verdict.Equals, Value: "5"})); got != "5" {
		t.Errorf("equals: %q", got)
	}
	if c.Expected("stdout", nil) != nil {
		t.Error("no matcher: want nothing")
	}
}
