package htmlreport

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/behaves-dev/behaves/internal/reporttest"
)

// byClass returns the text of every element of class c under n.
func byClass(n *html.Node, c string) []string {
	var out []string
	walk(n, func(e *html.Node) {
		if e.Type == html.ElementNode {
			if v, _ := attr(e, "class"); v == c {
				out = append(out, text(e))
			}
		}
	})
	return out
}

// byID returns the element of id under n (nil when none is).
func byID(n *html.Node, id string) *html.Node {
	var out *html.Node
	walk(n, func(e *html.Node) {
		if v, ok := attr(e, "id"); ok && v == id && out == nil {
			out = e
		}
	})
	return out
}

// TestReusedShown guards the page of a run given stored reports: the
// header says how many invocations were reused and from which run (its
// commit and Actions run) and why the rest ran now; a reused case carries
// a mark and the run and execution its evidence came from, a case that
// ran now its reason and detail; the program says how many were reused.
func TestReusedShown(t *testing.T) {
	t.Parallel()
	doc := parse(t, renderString(t, reporttest.Reused(t), Limits{}))
	head := byID(doc, "reuse")
	if head == nil {
		t.Fatal("the page has no reuse line")
	}
	if got, want := text(head), "reused 6 of 10 invocations from run run-0100 (commit abc1234, Actions run 9876543210 of owner/repo) and 1 more: run-0099"; got != want {
		t.Errorf("reuse line %q, want %q", got, want)
	}
	if ran := byID(doc, "ran-now"); ran == nil || text(ran) != "ran now: 2 changed: program, 1 no stored run, 1 undetermined" {
		t.Errorf("ran-now line %v", ran)
	}
	if got := byClass(doc, "reused-from"); len(got) != 1 || got[0] != "run run-0099, execution bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb" {
		t.Errorf("reused-from %q, want the one false reused case's", got)
	}
	// The badges: one in the header, one on the one reused case shown.
	if got := byClass(doc, "badge reused"); len(got) != 2 {
		t.Errorf("%d reused badges, want 2 (the header's and the case's)", len(got))
	}
	var reusedCase string
	walk(doc, func(n *html.Node) {
		if n.DataAtom == atom.H3 && strings.Contains(text(n), "reused") {
			reusedCase = text(n)
		}
	})
	if reusedCase != "false many reused" {
		t.Errorf("the reused case's heading is %q", reusedCase)
	}
	notReused := byClass(doc, "not-reused")
	if len(notReused) != 2 || !strings.HasPrefix(notReused[0], "changed: program: the program file's digest is") ||
		!strings.HasPrefix(notReused[1], "undetermined: stored stdout was") {
		t.Errorf("not-reused %q", notReused)
	}
	if !strings.Contains(text(doc), "4 cases: 3 true, 1 false, 0 undetermined · 4 reused") {
		t.Error("the sorter program does not say 4 of its cases were reused")
	}
}

// TestNoReuseNoReuseLine: a run given no stored reports says nothing of
// reuse.
func TestNoReuseNoReuseLine(t *testing.T) {
	t.Parallel()
	page := renderString(t, fixture(), Limits{})
	doc := parse(t, page)
	if byID(doc, "reuse") != nil || len(byClass(doc, "badge reused")) > 0 || strings.Contains(text(doc), "ran now") {
		t.Error("a run given no stored reports speaks of reuse")
	}
}

// TestReusedHostileDetail: a not_reused detail quoting a stored report
// becomes text, escaped to one line: no element, comment or script of its
// own, no raw control character.
func TestReusedHostileDetail(t *testing.T) {
	t.Parallel()
	page := renderString(t, reporttest.Reused(t), Limits{})
	for _, raw := range []string{"\x1b", "\r", "<script>alert", "<!--", "]]>"} {
		if strings.Contains(page, raw) {
			t.Errorf("the page holds %q raw", raw)
		}
	}
	doc := parse(t, page)
	checkInert(t, doc)
	want := "undetermined: stored stdout was <script>alert(1)</script> | cell | `code` \\x1b[31mred\\x1b[0m @mention\\n::error::pwned\\r\\n# heading ]]> &amp; <!--"
	if got := byClass(doc, "not-reused"); len(got) != 2 || got[1] != want {
		t.Errorf("the hostile detail shows as %q, want %q", got, want)
	}
}
