package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// addAll gives w every case of in, as a run does while it goes, and
// returns in with the observations' output dropped (what the runner keeps
// when the caller takes the output through OnEvent).
func addAll(w *Writer, in Input) Input {
	for i, p := range in.Spec.Programs {
		for j, c := range p.Cases {
			if j < len(in.Observations[i].Events) {
				w.Add(i, j, c, []RunResult{{Event: in.Observations[i].Events[j], Result: in.Results[i][j]}}, in.Results[i][j])
			}
		}
	}
	obs := append([]runner.Observation(nil), in.Observations...)
	for i := range obs {
		obs[i].Events = append([]runner.Event(nil), obs[i].Events...)
		for j := range obs[i].Events {
			obs[i].Events[j].Stdout.Data = nil
			obs[i].Events[j].Stderr.Data = nil
		}
	}
	in.Observations = obs
	return in
}

// TestWriterMatchesEncode guards the spooled report against the in-memory
// one: cases added as they are judged, then assembled from the spool, give
// the same bytes as Encode (the golden file), the spool is gone, and the
// summaries render the same terminal text.
func TestWriterMatchesEncode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	w, err := NewWriter(path, WriterOptions{MaxSize: DefaultMaxReportSize})
	if err != nil {
		t.Fatal(err)
	}
	in := addAll(w, fixtureInput())
	sum, err := w.Commit(Build(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "report.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the spooled report differs from the encoded one:\n%s", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the report", len(entries))
	}
	var term, wantTerm bytes.Buffer
	opt := TerminalOptions{Token: strings.Repeat("t", 32)}
	if err := WriteTerminal(&term, sum, opt); err != nil {
		t.Fatal(err)
	}
	if err := WriteTerminal(&wantTerm, fixture(), opt); err != nil {
		t.Fatal(err)
	}
	if term.String() != wantTerm.String() {
		t.Errorf("the summaries render differently:\n%s\n--- want\n%s", term.String(), wantTerm.String())
	}
	// A summary is never written as if it were the evidence.
	if err := Encode(&bytes.Buffer{}, sum); err == nil {
		t.Errorf("Encode wrote a report of summaries")
	}
}

// budgetRun is a program with one case per verdict given, each writing n
// control characters to stdout and to stderr.
func budgetRun(verdicts []verdict.Verdict, n int) Input {
	out := bytes.Repeat([]byte{1}, n)
	p := prog("flood", "flood.sh", 1)
	var events []runner.Event
	var results []verdict.CaseResult
	for i, v := range verdicts {
		p.Cases = append(p.Cases, kase(fmt.Sprintf("c%d", i), 10+i, verdict.Expectation{}))
		ev := event(intp(0), "")
		ev.Stdout = runner.Stream{Data: out, Bytes: int64(n)}
		ev.Stderr = runner.Stream{Data: out, Bytes: int64(n)}
		events = append(events, ev)
		results = append(results, verdict.CaseResult{Verdict: v, Reason: "r"})
	}
	return Input{
		Spec:         &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{p}},
		Observations: []runner.Observation{{Events: events, Acquisition: runner.AcquisitionComplete}},
		Results:      [][]verdict.CaseResult{results},
	}
}

// entrySizes are the bytes of the first case's entry in the report, with
// and without its output (all of budgetRun's are alike).
func entrySizes(t *testing.T, in Input) (full, bare int64) {
	t.Helper()
	c := buildCase(in.Spec.Programs[0].Cases[0], &in.Observations[0].Events[0], &in.Results[0][0], nil)
	var buf bytes.Buffer
	if err := encodeEntry(&buf, c); err != nil {
		t.Fatal(err)
	}
	full = int64(buf.Len())
	buf.Reset()
	if err := encodeEntry(&buf, omitted(summarize(c))); err != nil {
		t.Fatal(err)
	}
	if full < 2*4*int64(in.Observations[0].Events[0].Stdout.Bytes)/3 {
		t.Fatalf("entry of %d bytes: the output is not in it", full)
	}
	return full, int64(buf.Len())
}

// spoolSize is the bytes in w's spool folder.
func spoolSize(t *testing.T, w *Writer) int64 {
	t.Helper()
	entries, err := os.ReadDir(w.spool)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// TestWriterBudget guards --max-report-size: true cases' output goes
// first, then undetermined, false last; what is left out is marked with
// its size and digest; verdicts stay; neither the spool nor the report
// grows past the budget.
func TestWriterBudget(t *testing.T) {
	t.Parallel()
	const n = 10 << 10
	T, F, U := verdict.True, verdict.False, verdict.Undetermined
	// Added in this order: trues fill the budget, then the false and
	// undetermined ones must push them out.
	verdicts := []verdict.Verdict{T, T, T, T, U, F, F, T, U}
	in := budgetRun(verdicts, n)
	full, bare := entrySizes(t, in)
	budget := 4*full + 6*bare // four entries with output, the rest without
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	w, err := NewWriter(path, WriterOptions{MaxSize: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for j, c := range in.Spec.Programs[0].Cases {
		w.Add(0, j, c, []RunResult{{Event: in.Observations[0].Events[j], Result: in.Results[0][j]}}, in.Results[0][j])
		if got := spoolSize(t, w); got > budget {
			t.Fatalf("after case %d the spool holds %d bytes, over the budget %d", j, got, budget)
		}
	}
	in = addAll(w, in) // already added: nothing changes
	if _, err := w.Commit(Build(in)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) > budget+8<<10 {
		t.Errorf("report is %d bytes, budget %d", len(data), budget)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(bytes.Repeat([]byte{1}, n)))
	omitted := 0
	for j, c := range r.Programs[0].Cases {
		e := c.Event
		if c.Verdict != verdicts[j] {
			t.Errorf("case %d: verdict %v, want %v", j, c.Verdict, verdicts[j])
		}
		if e.StdoutKeptBytes != n || e.StdoutSHA256 != sum || e.StderrSHA256 != sum {
			t.Errorf("case %d: kept %d, sha256 %s: the evidence's identity is lost", j, e.StdoutKeptBytes, e.StdoutSHA256)
		}
		if e.StdoutOmitted != e.StderrOmitted {
			t.Errorf("case %d: one stream omitted, not the other", j)
		}
		switch {
		case e.StdoutOmitted:
			omitted++
			if e.StdoutBase64 != "" || e.Stdout != "" || e.StderrBase64 != "" {
				t.Errorf("case %d: omitted, but output is there", j)
			}
			if c.Verdict != verdict.True {
				t.Errorf("case %d (%v): output omitted while true cases' output went first", j, c.Verdict)
			}
		case !bytes.Equal(e.StdoutData(), bytes.Repeat([]byte{1}, n)) || !bytes.Equal(e.StderrData(), bytes.Repeat([]byte{1}, n)):
			t.Errorf("case %d: output not kept exactly", j)
		case e.Stdout != "":
			t.Errorf("case %d: control characters stored as JSON text, not base64", j)
		}
	}
	// Four fit: the four not true ones keep theirs, every true one loses it.
	if omitted != 5 || r.OutputOmittedCases != 5 {
		t.Errorf("%d cases omitted (output_omitted_cases %d), want the 5 true ones", omitted, r.OutputOmittedCases)
	}
}

// TestWriterBudgetRanks guards the order among cases that are not true:
// a false case pushes out an undetermined one, never another false one,
// and a case that finds no room is omitted itself.
func TestWriterBudgetRanks(t *testing.T) {
	t.Parallel()
	const n = 10 << 10
	T, F, U := verdict.True, verdict.False, verdict.Undetermined
	verdicts := []verdict.Verdict{U, F, F, T, U}
	in := budgetRun(verdicts, n)
	full, bare := entrySizes(t, in)
	w, err := NewWriter(filepath.Join(t.TempDir(), "report.json"), WriterOptions{MaxSize: full + 4*bare})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for j, c := range in.Spec.Programs[0].Cases {
		w.Add(0, j, c, []RunResult{{Event: in.Observations[0].Events[j], Result: in.Results[0][j]}}, in.Results[0][j])
	}
	r, err := w.Commit(Build(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, true, true, true} // omitted?
	for j, c := range r.Programs[0].Cases {
		if c.Event.StdoutOmitted != want[j] {
			t.Errorf("case %d (%v): omitted %v, want %v", j, c.Verdict, c.Event.StdoutOmitted, want[j])
		}
	}
}

// TestWriterExcerpts guards the memory a run keeps for the terminal: only
// the first cases that are not true, in the spec's order, hold the start of
// their output, and never more than a block's worth.
func TestWriterExcerpts(t *testing.T) {
	t.Parallel()
	F := verdict.False
	in := budgetRun([]verdict.Verdict{F, F, F, F}, 64<<10)
	w, err := NewWriter(filepath.Join(t.TempDir(), "report.json"), WriterOptions{Excerpts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, j := range []int{3, 1, 2, 0} { // finished out of order
		w.Add(0, j, in.Spec.Programs[0].Cases[j], []RunResult{{Event: in.Observations[0].Events[j], Result: in.Results[0][j]}}, in.Results[0][j])
	}
	r, err := w.Commit(Build(in))
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range r.Programs[0].Cases {
		if got, want := c.excerpt != nil, j < 2; got != want {
			t.Errorf("case %d: excerpt held %v, want %v", j, got, want)
		}
		if c.excerpt != nil && (len(c.excerpt[0]) != excerptBytes || len(c.excerpt[1]) != excerptBytes) {
			t.Errorf("case %d: excerpt of %d and %d bytes, want %d", j, len(c.excerpt[0]), len(c.excerpt[1]), excerptBytes)
		}
	}
	var out bytes.Buffer
	if err := WriteTerminal(&out, r, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "more bytes not shown") || !strings.Contains(out.String(), "not held in memory") {
		t.Errorf("terminal does not say what it leaves out:\n%s", out.String())
	}
}

// TestWriteStream guards the streamed output against encoding/json: the
// spool writes each stream as Encode would write encodeStream's string.
func TestWriteStream(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", " ", "\n", "\t", "\r", "\"", "\\", "<", ">", "&", "\x01", "\x1f", "\x7f", "\b", "\f", "é", "€", "\u2028", "\u2029", "😀", "\xff"}
	inputs := [][]byte{nil, []byte("plain"), bytes.Repeat([]byte{1}, 100)}
	for n := 0; n < 2000; n++ {
		var b []byte
		for k := rng.IntN(64); k > 0; k-- {
			// Mostly letters, so that text wins often.
			if rng.IntN(4) > 0 {
				b = append(b, 'a'+byte(rng.IntN(26)))
			} else {
				b = append(b, alphabet[rng.IntN(len(alphabet))]...)
			}
		}
		inputs = append(inputs, b)
	}
	texts := 0
	for _, b := range inputs {
		text, b64 := encodeStream(b)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(text + b64); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeStream(&got, b); err != nil {
			t.Fatal(err)
		}
		if w := want.String(); got.String() != w[1:len(w)-2] {
			t.Fatalf("%q: wrote %s, encoding/json %s", b, got.String(), w)
		}
		if int64(got.Len()) != encodedLen(b) {
			t.Fatalf("%q: wrote %d bytes, encodedLen says %d", b, got.Len(), encodedLen(b))
		}
		if text != "" {
			texts++
		}
	}
	if texts < 100 || texts > len(inputs)-100 {
		t.Errorf("%d of %d inputs went as text: the test does not cover both encodings", texts, len(inputs))
	}
}
