package publish

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/ghlimits"
	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// sourceRunURL is the link to the Actions run of reporttest.Reused's first
// source, on the server of testRunURL.
const sourceRunURL = "https://github.com/owner/repo/actions/runs/9876543210"

// TestReusedMarkdown guards what a run given stored reports publishes: how
// many invocations were reused, from which run (its commit and its Actions
// run, linked) and why the rest ran now; a Reused column in the table; each
// reused case block marked with its run and execution, each case that ran
// now with its reason and detail.
func TestReusedMarkdown(t *testing.T) {
	t.Parallel()
	r := reporttest.Reused(t)
	opt := Options{RunURL: testRunURL, Annotations: true}
	summary := Summary(r, opt)
	goldentest.Check(t, "summary_reused.golden.md", []byte(summary))
	for name, md := range map[string]string{"summary": summary, "comment": Comment(r, opt), "check run": CheckRunSummary(r, opt)} {
		for _, want := range []string{
			"**Reused** 6 of 10 invocations from run `run-0100` (commit `abc1234`, [Actions run 9876543210](" + sourceRunURL + ")) and 1 more run.",
			" Ran now (cases by reason): 2 `changed: program`, 1 `no stored run`, 1 `undetermined`.\n",
			"| | Program | Passed | Failed | Undetermined | Reused | Time | Image |\n",
			"| ❌ false | `sorter` | 3 | 1 | 0 | 4 | 168ms |",
			"<code>sorter</code> / <code>many</code>: <code>stdout: expected &#34;1 2 3&#34;, got &#34;3 1 2&#34;</code> · reused</summary>",
			"- reused: the stored evidence of run `run-0099` (execution `bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb`), judged again\n",
			"- ran now: `changed: program`: `the program file's digest is",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, md)
			}
		}
		if n := strings.Count(md, "· reused</summary>"); n != 1 {
			t.Errorf("%s: %d case blocks marked reused, want 1", name, n)
		}
	}

	// Without the run's own link there is no server to link the source's
	// run on; a source of another repository names it; one outside
	// Actions is named alone.
	r.Reuse.Sources = []report.ReuseSource{reporttest.ReuseSources[0]}
	r.GitHub.Repository = "someone/else"
	md := Summary(r, Options{})
	if want := "**Reused** 6 of 10 invocations from run `run-0100` (commit `abc1234`, Actions run `9876543210` of `owner/repo`). Ran now"; !strings.Contains(md, want) {
		t.Errorf("the summary lacks %q:\n%s", want, md)
	}
	r.Reuse.Sources = reporttest.ReuseSources[1:]
	if want := "**Reused** 6 of 10 invocations from run `run-0099`. Ran now"; !strings.Contains(Summary(r, Options{}), want) {
		t.Errorf("the summary lacks %q", want)
	}
}

// TestReusedReasonsBounded: the reuse paragraph names at most notesMax
// reasons, so that the head stays small whatever a report holds.
func TestReusedReasonsBounded(t *testing.T) {
	t.Parallel()
	r := reporttest.Reused(t)
	r.Reuse.NotReused = nil
	for k := range 9 {
		r.Reuse.NotReused = append(r.Reuse.NotReused, report.ReasonCount{Reason: fmt.Sprintf("changed: part %d", k), Cases: 1})
	}
	md := Summary(r, Options{})
	if !strings.Contains(md, "1 `changed: part 4`, … 4 more reasons.") || strings.Contains(md, "part 5") {
		t.Errorf("the reasons are not bounded:\n%s", md)
	}
}

// TestReusedHostileDetailInert: a not_reused detail quoting a stored
// report (markup, a table pipe, backticks, a colour escape, a mention,
// line breaks) renders, as GitHub renders it, as text in code: no element,
// link or mention of its own, no broken table or block.
func TestReusedHostileDetailInert(t *testing.T) {
	t.Parallel()
	r := reporttest.Reused(t)
	opt := Options{RunURL: testRunURL, Annotations: true}
	for name, md := range map[string]string{"summary": Summary(r, opt), "comment": Comment(r, opt), "check run": CheckRunSummary(r, opt)} {
		for _, bad := range []string{"\x1b", "\r", "\n::error::", "\n# heading"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s: the markdown holds %q raw", name, bad)
			}
		}
		got := inspect(cmarkGFM(t, md))
		for el, n := range got.elements {
			if !behavesElements[el] {
				t.Errorf("%s: %d <%s> elements came from report text", name, n, el)
			}
		}
		if !slices.Equal(got.links, []string{sourceRunURL, testRunURL}) {
			t.Errorf("%s: links %q, want the source's run and this run's", name, got.links)
		}
		plain := got.plain.String()
		for _, bad := range []string{"alert", "script", "@mention", "heading", "pwned", "x1b"} {
			if strings.Contains(plain, bad) {
				t.Errorf("%s: %q appears outside code, where GitHub would act on it:\n%s", name, bad, plain)
			}
		}
		if len(got.details) != 3 || got.nested != 0 {
			t.Errorf("%s: %d <details> (%d nested), want 3", name, len(got.details), got.nested)
		}
		found := false
		for _, d := range got.details {
			found = found || strings.Contains(text(d), "ran now: undetermined: stored stdout was <script>alert(1)</script> | cell | `code` \\x1b[31mred\\x1b[0m @mention\\n::error::pwned\\r\\n# heading")
		}
		if !found {
			t.Errorf("%s: no case block shows the detail whole, as text", name)
		}
		for _, cells := range got.rows {
			if len(cells) != 8 {
				t.Errorf("%s: a table row has %d cells, want 8", name, len(cells))
			}
		}
	}
}

// TestReusedHugeReportStaysWithinLimits: the reuse paragraph, the Reused
// column and the marks on case blocks stay within each limit.
func TestReusedHugeReportStaysWithinLimits(t *testing.T) {
	t.Parallel()
	r := hugeReport()
	origin := &report.Origin{RunID: "run-0100", ExecutionID: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}
	for i := range r.Programs {
		for j := range r.Programs[i].Cases {
			if j%2 == 0 {
				r.Programs[i].Cases[j].ReusedFrom = origin
			} else {
				r.Programs[i].Cases[j].NotReused = report.NewNotReused("changed: program", strings.Repeat("|`<x>", 300))
			}
		}
	}
	r.Reuse = &report.Reuse{Sources: reporttest.ReuseSources, Reused: 3500, Ran: 3550, NotReused: []report.ReasonCount{{Reason: "changed: program", Cases: 3550}}}
	opt := Options{RunURL: testRunURL, Annotations: true}
	for name, tt := range map[string]struct {
		md    string
		limit int
	}{
		"summary":   {Summary(r, opt), StepSummaryLimit - 1},
		"comment":   {Comment(r, opt), ghlimits.CommentBytes},
		"check run": {CheckRunSummary(r, opt), ghlimits.CheckRunSummaryBytes},
	} {
		if len(tt.md) > tt.limit {
			t.Errorf("%s: %d bytes, above %d", name, len(tt.md), tt.limit)
		}
		if !strings.Contains(tt.md, "**Reused** 3500 of 7050 invocations") || !strings.Contains(tt.md, "· reused</summary>") {
			t.Errorf("%s: the reuse is not said", name)
		}
	}
}
