package reportread_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
)

// writtenReports are reports as behaves writes them, through the Writer
// (the run's path) and Encode (merge, rescore, the early report): a run
// of every verdict with output left out by the budget, runs of a repeated
// case, a same_as case's reference events, a failed build, and a run
// given stored reports.
func writtenReports(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	budget := func(name string, in assemble.Input, maxSize int64) {
		path := filepath.Join(t.TempDir(), "report.json")
		w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: maxSize})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := reporttest.Commit(t, w, assemble.Report(reporttest.AddAll(w, in))); err != nil {
			t.Fatal(err)
		}
		if out[name], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	budget("run", reporttest.Input(), 0)
	budget("run, output omitted", reporttest.Input(), 1)
	out["same_as"] = reporttest.SameAs(t, 0)
	out["same_as, output omitted"] = reporttest.SameAs(t, 1)
	out["repeat"] = reporttest.Encoded(t, reporttest.RepeatReport())
	out["failed build"] = reporttest.Encoded(t, reporttest.FailedBuild())
	out["reused"] = reporttest.Encoded(t, reporttest.Reused(t))
	return out
}

// TestWrittenReportsRecordEveryDigest: every event behaves writes under
// the current evidence format carries the SHA-256 of its stdout and
// stderr (also when the output was left out), so that Read, which
// requires them, reads back everything behaves writes.
func TestWrittenReportsRecordEveryDigest(t *testing.T) {
	t.Parallel()
	sha := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for name, data := range writtenReports(t) {
		r, err := reportread.Read(bytes.NewReader(data), 1<<30)
		if err != nil {
			t.Errorf("%s: the written report does not read back: %v", name, err)
			continue
		}
		events := 0
		for _, p := range r.Programs {
			if p.EvidenceFormat != report.EvidenceFormat {
				t.Errorf("%s: program %s written with evidence format %d, want %d", name, p.Name, p.EvidenceFormat, report.EvidenceFormat)
			}
			var evs []report.Event
			if p.Build != nil {
				evs = append(evs, p.Build.Event)
			}
			for _, c := range p.Cases {
				evs = append(evs, c.Event)
				for _, run := range c.Runs {
					evs = append(evs, run.Event)
				}
				evs = append(evs, c.ReferenceEvents...)
			}
			for _, e := range evs {
				events++
				if !sha.MatchString(e.StdoutSHA256) || !sha.MatchString(e.StderrSHA256) {
					t.Errorf("%s: program %s has an event with digests %q, %q", name, p.Name, e.StdoutSHA256, e.StderrSHA256)
				}
			}
		}
		if events == 0 {
			t.Errorf("%s: no events", name)
		}
	}
}

// TestReadRefusesAnEventWithoutItsDigests: an event of a program of the
// current evidence format without the digest of a stream is refused, the
// refusal naming the field; of an earlier format (0, a behaves before
// the digests) it reads as it is.
func TestReadRefusesAnEventWithoutItsDigests(t *testing.T) {
	t.Parallel()
	written := writtenReports(t)
	for _, tc := range []struct {
		report string
		// event finds the event to edit in program p.
		event      func(p map[string]any) map[string]any
		field      string
		value      any
		wantPrefix string
	}{
		{"run", caseEvent(0), "stdout_sha256", "", "programs[0].cases[0].event.stdout_sha256"},
		{"run", caseEvent(1), "stderr_sha256", nil, "programs[0].cases[1].event.stderr_sha256"},
		{"run, output omitted", caseEvent(0), "stdout_sha256", "", "programs[0].cases[0].event.stdout_sha256"},
		{"run, output omitted", caseEvent(0), "stdout_sha256", "not a digest", "programs[0].cases[0].event.stdout_sha256"},
		{"repeat", func(p map[string]any) map[string]any {
			return at(p, "cases", 0)["runs"].([]any)[2].(map[string]any)["event"].(map[string]any)
		}, "stdout_sha256", "", "programs[0].cases[0].runs[2].event.stdout_sha256"},
		{"same_as", func(p map[string]any) map[string]any {
			return at(p, "cases", 0)["reference_events"].([]any)[1].(map[string]any)
		}, "stderr_sha256", "", "programs[0].cases[0].reference_events[1].stderr_sha256"},
		{"failed build", func(p map[string]any) map[string]any { return p["build"].(map[string]any) },
			"stderr_sha256", "", "programs[0].build.stderr_sha256"},
		{"reused", caseEvent(2), "stdout_sha256", "", "programs[0].cases[2].event.stdout_sha256"},
	} {
		t.Run(tc.report+" "+tc.wantPrefix, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(written[tc.report], &m); err != nil {
				t.Fatal(err)
			}
			prog := program0(m, tc.wantPrefix)
			ev := tc.event(prog)
			if _, ok := ev[tc.field]; !ok {
				t.Fatalf("the event has no %s to edit", tc.field)
			}
			if tc.value == nil {
				delete(ev, tc.field) // the key left out: decoded as ""
			} else {
				ev[tc.field] = tc.value
			}
			edited, _ := json.Marshal(m)
			_, err := reportread.Read(bytes.NewReader(edited), 1<<30)
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantPrefix+" ") {
				t.Errorf("Read: %v, want a refusal naming %s", err, tc.wantPrefix)
			}

			// Of an earlier format, the same event reads as it is.
			prog["evidence_format"] = 0.0
			older, _ := json.Marshal(m)
			if tc.value == "not a digest" {
				return // a digest that is there is checked against the output
			}
			if _, err := reportread.Read(bytes.NewReader(older), 1<<30); err != nil {
				t.Errorf("the same event of evidence format 0: %v, want it read", err)
			}
		})
	}
}

// caseEvent finds case k's event of a program.
func caseEvent(k int) func(p map[string]any) map[string]any {
	return func(p map[string]any) map[string]any { return at(p, "cases", k)["event"].(map[string]any) }
}

// at is element i of the list m[key].
func at(m map[string]any, key string, i int) map[string]any {
	return m[key].([]any)[i].(map[string]any)
}

// program0 is the program a path (programs[i]…) names.
func program0(m map[string]any, path string) map[string]any {
	i, err := strconv.Atoi(regexp.MustCompile(`^programs\[(\d+)\]`).FindStringSubmatch(path)[1])
	if err != nil {
		panic(err)
	}
	return at(m, "programs", i)
}

// TestReadRefusesReuseOfAnUnlistedRun: a reused case names the run its
// evidence came from, and the report's reuse.sources must list it.
func TestReadRefusesReuseOfAnUnlistedRun(t *testing.T) {
	t.Parallel()
	r := reporttest.Reused(t)
	for _, tc := range []struct {
		name string
		edit func(r *report.Report)
		want string
	}{
		{"an unknown run", func(r *report.Report) { r.Programs[0].Cases[2].ReusedFrom.RunID = "run-0042" },
			`programs[0].cases[2].reused_from.run_id "run-0042" is no run of reuse.sources`},
		{"its source dropped", func(r *report.Report) { r.Reuse.Sources = r.Reuse.Sources[:1] },
			`programs[0].cases[2].reused_from.run_id "run-0099" is no run of reuse.sources`},
		{"the report's own run", func(r *report.Report) { r.Programs[0].Cases[0].ReusedFrom.RunID = r.RunID },
			`programs[0].cases[0].reused_from.run_id "run-0101" is no run of reuse.sources`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := r
			edited.Reuse = new(*r.Reuse)
			edited.Reuse.Sources = append([]report.ReuseSource(nil), r.Reuse.Sources...)
			edited.Programs = append([]report.Program(nil), r.Programs...)
			edited.Programs[0].Cases = append([]report.Case(nil), r.Programs[0].Cases...)
			for k := range edited.Programs[0].Cases {
				if o := edited.Programs[0].Cases[k].ReusedFrom; o != nil {
					edited.Programs[0].Cases[k].ReusedFrom = new(*o)
				}
			}
			tc.edit(&edited)
			var buf bytes.Buffer
			if err := report.Encode(&buf, edited); err != nil {
				t.Fatal(err)
			}
			_, err := reportread.Read(&buf, 1<<30)
			if err == nil || err.Error() != tc.want+": a reused case names a run the report lists" {
				t.Errorf("Read: %v, want %q", err, tc.want)
			}
		})
	}
}
