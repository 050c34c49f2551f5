package report_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

func TestJSONGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := report.Encode(&buf, reporttest.Report()); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "report.golden.json", buf.Bytes())

	// The golden file decodes back into the same report.
	var back report.Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, reporttest.Report()) {
		t.Errorf("decoding the report does not give it back")
	}
}

func TestBuildFixture(t *testing.T) {
	t.Parallel()
	r := reporttest.Report()
	if r.Schema != report.Schema || r.Tool.Name != "behaves" || r.SpecFile != "behaves.yml" {
		t.Errorf("schema %q tool %+v spec_file %q", r.Schema, r.Tool, r.SpecFile)
	}
	if r.Verdict != verdict.False {
		t.Errorf("verdict = %v, want false", r.Verdict)
	}
	wantCounts := report.Counts{
		Programs: report.Tally{Total: 4, True: 1, False: 1, Undetermined: 2},
		Cases:    report.Tally{Total: 8, True: 2, False: 2, Undetermined: 4},
	}
	if r.Counts != wantCounts {
		t.Errorf("counts = %+v, want %+v", r.Counts, wantCounts)
	}
	var names []string
	for _, p := range r.Programs {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "fizzbuzz,samples/wrong.py,big-output,missing-image" {
		t.Errorf("program order = %s, want the spec's", got)
	}
	wrong := r.Programs[1].Cases[0]
	if wrong.Expect.Stdout == nil || wrong.Expect.Stdout.Verdict != verdict.False ||
		wrong.Expect.Stdout.Value != "1\n2\nFizz\n4\nBuzz\n" || wrong.Expect.Stdout.Reason != `stdout: expected "1\n2\nFizz\n4\nBuzz", got "1\n2\n3\n4\n5"` {
		t.Errorf("stdout outcome = %+v", wrong.Expect.Stdout)
	}
	if wrong.Line != 14 || wrong.Col != 11 || r.Programs[1].Line != 30 || r.Programs[1].Col != 5 {
		t.Errorf("positions lost: case %d:%d program %d:%d", wrong.Line, wrong.Col, r.Programs[1].Line, r.Programs[1].Col)
	}
	if got, want := r.Programs[0].ProgramSHA256, fmt.Sprintf("%x", sha256.Sum256([]byte("print(1)\n"))); got != want {
		t.Errorf("program_sha256 = %q, want %q", got, want)
	}
	if p := r.Programs[0]; p.DurationMS != 400 {
		t.Errorf("duration from the caller = %d, want 400", p.DurationMS)
	}
	if p := r.Programs[2]; p.DurationMS != 42 {
		t.Errorf("duration summed from events = %d, want 42", p.DurationMS)
	}
	big := r.Programs[2].Cases[0].Event
	if !big.StdoutTruncated || big.StdoutBytes != 1<<20 || big.Stdout != "line 1\nline 2\nline 3\nli" {
		t.Errorf("truncated stream = %+v", big)
	}
}

func TestBuildVerdict(t *testing.T) {
	t.Parallel()
	one := func(vs ...verdict.Verdict) report.Input {
		in := report.Input{Spec: &spec.Spec{Path: "behaves.yml"}}
		for i, v := range vs {
			in.Spec.Programs = append(in.Spec.Programs, reporttest.Program(string(rune('a'+i)), "p.py", 1, reporttest.Case("c", 2, verdict.Expectation{})))
			in.Observations = append(in.Observations, runner.Observation{Acquisition: runner.AcquisitionComplete, Events: []runner.Event{{}}})
			in.Results = append(in.Results, []verdict.CaseResult{{Verdict: v}})
		}
		return in
	}
	T, F, U := verdict.True, verdict.False, verdict.Undetermined
	tests := []struct {
		name string
		in   report.Input
		want verdict.Verdict
	}{
		{"all true", one(T, T), T},
		{"false dominates", one(T, U, F), F},
		{"undetermined", one(T, U), U},
		{"no programs", one(), U},
		{"no spec", report.Input{}, U},
		{"run error", func() report.Input { in := one(T); in.Err = reporttest.ErrRun; return in }(), U},
		{"interrupted", func() report.Input { in := one(T); in.Interrupted = true; return in }(), U},
		{"false with run error", func() report.Input { in := one(F); in.Err = reporttest.ErrRun; return in }(), F},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := report.Build(tt.in)
			if r.Verdict != tt.want {
				t.Errorf("verdict = %v, want %v", r.Verdict, tt.want)
			}
			if tt.in.Err != nil && r.Error != tt.in.Err.Error() {
				t.Errorf("error = %q", r.Error)
			}
		})
	}
}

func TestBuildMissingEntries(t *testing.T) {
	t.Parallel()
	// An interrupted run: the second program never started, the first one
	// has an event for its first case only and no verdicts at all.
	in := report.Input{
		Spec: &spec.Spec{Path: "behaves.yml", Programs: []spec.Program{
			reporttest.Program("a", "a.py", 1, reporttest.Case("one", 2, verdict.Expectation{}), reporttest.Case("two", 3, verdict.Expectation{})),
			reporttest.Program("b", "b.py", 4, reporttest.Case("one", 5, verdict.Expectation{Stdout: reporttest.Equals("x")})),
		}},
		Observations: []runner.Observation{{Acquisition: runner.AcquisitionPartial, Events: []runner.Event{{SandboxError: "interrupted"}}}},
		Interrupted:  true,
	}
	r := report.Build(in)
	a, b := r.Programs[0], r.Programs[1]
	// Without a program verdict, the program's is what its cases fold
	// to (the first undetermined case's reason), as Read recomputes it.
	if a.Verdict != verdict.Undetermined || a.Reason != "interrupted" {
		t.Errorf("program a = %v %q", a.Verdict, a.Reason)
	}
	if c := a.Cases[0]; c.Verdict != verdict.Undetermined || c.Reason != "interrupted" {
		t.Errorf("case with a sandbox error = %v %q", c.Verdict, c.Reason)
	}
	if c := a.Cases[1]; c.Verdict != verdict.Undetermined || c.Reason != report.ReasonNotRun {
		t.Errorf("case without an event = %v %q", c.Verdict, c.Reason)
	}
	if b.Acquisition != runner.AcquisitionError || !reflect.DeepEqual(b.AcquisitionReasons, []string{report.ReasonNotRun}) {
		t.Errorf("program without an observation: %q %q", b.Acquisition, b.AcquisitionReasons)
	}
	if m := b.Cases[0].Expect.Stdout; m == nil || m.Verdict != verdict.Undetermined || m.Value != "x" {
		t.Errorf("unchecked matcher = %+v", m)
	}
	if r.Verdict != verdict.Undetermined || r.Counts.Cases.Undetermined != 3 {
		t.Errorf("verdict %v counts %+v", r.Verdict, r.Counts)
	}
}

func TestBuildDoesNotAlias(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	r := report.Build(in)
	in.Observations[0].Events[0].Command[0] = "changed"
	in.Spec.Programs[0].Cases[0].Invocation.Args[0] = "changed"
	if r.Programs[0].Cases[0].Event.Command[0] != "python3" || r.Programs[0].Cases[0].Args[0] != "5" {
		t.Errorf("the report shares slices with its input")
	}
}

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := report.Encode(&buf, reporttest.Report()); err != nil {
		t.Fatal(err)
	}
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
	for name, r := range map[string]report.Report{"zero": zero, "built": report.Build(report.Input{Spec: &spec.Spec{Programs: []spec.Program{reporttest.Program("p", "p.py", 1, reporttest.Case("c", 2, verdict.Expectation{}))}}})} {
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
var nullable = map[string]bool{"exit_code": true, "stdout": true, "stderr": true, "shard": true, "build": true, "same_as": true}

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
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
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
		if len(m) != countJSONFields(typ) {
			t.Errorf("%s: %d keys, want %d", path, len(m), countJSONFields(typ))
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

func countJSONFields(typ reflect.Type) int {
	n := 0
	for i := 0; i < typ.NumField(); i++ {
		if typ.Field(i).IsExported() && typ.Field(i).Tag.Get("json") != "-" {
			n++
		}
	}
	return n
}

func TestWriteJSONAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, []byte("old report"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := reporttest.Report()
	if err := report.WriteJSON(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.Encode(&want, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file does not hold the encoded report")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "report.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only report.json", names)
	}
}

func TestWriteJSONFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The target is a folder: the rename fails, and the temporary file
	// must not stay behind.
	path := filepath.Join(dir, "report.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(path, reporttest.Report()); err == nil {
		t.Fatal("writing over a folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %d entries", len(entries))
	}
	if err := report.WriteJSON(filepath.Join(dir, "missing", "report.json"), reporttest.Report()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing folder: err = %v", err)
	}
}
