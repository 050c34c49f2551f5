package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

func renderString(t testing.TB, r report.Report, lim Limits) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, roundTrip(t, r), lim); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

func parse(t testing.TB, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("parsing the page: %v", err)
	}
	return doc
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func text(n *html.Node) string {
	var sb strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			sb.WriteString(c.Data)
		}
	})
	return sb.String()
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// TestCSP checks the policy as the page carries it: nothing loads by
// default, no 'unsafe-inline', and the page's one script and one style
// sheet are admitted by the SHA-256 of their exact bytes, recomputed here
// from the rendered page.
func TestCSP(t *testing.T) {
	t.Parallel()
	doc := parse(t, renderString(t, fixture(), Limits{}))
	var policy string
	var scripts, styles []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.DataAtom {
		case atom.Meta:
			if v, _ := attr(n, "http-equiv"); strings.EqualFold(v, "Content-Security-Policy") {
				policy, _ = attr(n, "content")
			}
		case atom.Script:
			scripts = append(scripts, text(n))
		case atom.Style:
			styles = append(styles, text(n))
		}
	})
	if len(scripts) != 1 || len(styles) != 1 {
		t.Fatalf("%d scripts and %d style sheets, want 1 and 1", len(scripts), len(styles))
	}
	directives := map[string]string{}
	for _, d := range strings.Split(policy, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	want := map[string]string{
		"default-src": "'none'",
		"script-src":  sha(scripts[0]),
		"style-src":   sha(styles[0]),
		"img-src":     "'none'",
		"base-uri":    "'none'",
		"form-action": "'none'",
	}
	for k, v := range want {
		if directives[k] != v {
			t.Errorf("CSP %s is %q, want %q (policy %q)", k, directives[k], v, policy)
		}
	}
	if strings.Contains(policy, "unsafe") {
		t.Errorf("CSP %q allows something unsafe", policy)
	}
	if scripts[0] != script || styles[0] != style {
		t.Error("the page's script or style differs from the embedded one")
	}
}

// TestNoRequests checks that nothing in the page names something to
// fetch: no src, href, srcset, action, poster or data attribute, no
// url() or @import in the style sheet.
func TestNoRequests(t *testing.T) {
	t.Parallel()
	page := renderString(t, fixture(), Limits{})
	walk(parse(t, page), func(n *html.Node) {
		for _, a := range n.Attr {
			switch a.Key {
			case "src", "href", "srcset", "action", "formaction", "poster", "data", "xlink:href", "background":
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
		}
	})
	for _, s := range []string{"url(", "@import", "http://", "https://"} {
		if strings.Contains(style, s) || strings.Contains(script, s) {
			t.Errorf("the style or script holds %q", s)
		}
	}
}

// allowedElements is every element the template itself writes.
var allowedElements = map[string]bool{
	"html": true, "head": true, "body": true, "meta": true, "title": true, "style": true, "script": true,
	"main": true, "header": true, "footer": true, "section": true, "article": true, "div": true, "span": true,
	"h1": true, "h2": true, "h3": true, "p": true, "b": true, "code": true, "ul": true, "li": true,
	"dl": true, "dt": true, "dd": true, "svg": true, "rect": true, "label": true, "input": true, "button": true,
	"details": true, "summary": true,
	"table": true, "colgroup": true, "col": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
}

var escapeForm = regexp.MustCompile(`^\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})$`)

// TestHostileText renders a report whose every string is hostile and
// checks that none of it became markup: only the template's elements, no
// event handler attribute, one script (the page's own), every escape span
// holding an escape only, and the hostile markup present as text.
func TestHostileText(t *testing.T) {
	t.Parallel()
	page := renderString(t, hostileReport(), Limits{})
	doc := parse(t, page)
	checkInert(t, doc)
	all := text(doc)
	for _, s := range []string{
		`<script>document.documentElement.setAttribute("data-pwned","script")</script>`,
		`</textarea></title></style></script><b id="pwned-b">bold</b>`,
		`"><img src=x onerror=`, `]]><![CDATA[<svg onload=alert(1)>]]>`, `<!-- comment --><iframe`,
		`line\u2028separator\u2029paragraph`, `bidi \u202egnp.exe\u202c`, `ctl \x01\x1b[31mred\x7f nul\x00`,
		`bad utf-8 \xff\xfe\xc3`,
	} {
		if !strings.Contains(all, s) {
			t.Errorf("the page's text lacks %q", s)
		}
	}
	// (A string field of the JSON report holds U+FFFD for bytes that were
	// not UTF-8: that rune is printable, and may stay.)
	for _, r := range []string{"\u2028", "\u2029", "\u202e", "\x01", "\x00"} {
		if strings.Contains(page, r) {
			t.Errorf("the page holds %q raw", r)
		}
	}
}

// TestFailingCaseShown checks that a failing case's expected and actual
// lines are in the page's text at load, side by side, the differing line
// marked, and that the counts and pass@k are the report's.
func TestFailingCaseShown(t *testing.T) {
	t.Parallel()
	doc := parse(t, renderString(t, fixture(), Limits{}))
	var off *html.Node
	counts := map[string]string{}
	var passk []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if v, ok := attr(n, "data-name"); ok && v == "off-by-one" {
			off = n
		}
		if v, ok := attr(n, "data-count"); ok {
			counts[v] = text(n)
		}
		if v, ok := attr(n, "data-group"); ok && v == "samples" {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				passk = append(passk, text(c))
			}
		}
	})
	if off == nil {
		t.Fatal("no program off-by-one in the page")
	}
	var changed [][2]string
	walk(off, func(n *html.Node) {
		if n.DataAtom == atom.Tr {
			if c, _ := attr(n, "class"); c == "chg" {
				var cells []string
				for td := n.FirstChild; td != nil; td = td.NextSibling {
					cells = append(cells, text(td))
				}
				changed = append(changed, [2]string{cells[1], cells[3]})
			}
		}
	})
	if len(changed) != 1 || changed[0] != [2]string{"Buzz", "Fizz"} {
		t.Errorf("changed rows %q, want one: Buzz next to Fizz", changed)
	}
	want := map[string]string{"programs-total": "7", "programs-true": "3", "programs-false": "3", "programs-undetermined": "1"}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("count %s is %q, want %q", k, counts[k], v)
		}
	}
	if got := strings.Join(passk, "|"); got != "samples|3|2|1|0|0.6667|1|n/a" {
		t.Errorf("pass@k row %q", got)
	}
}

// TestBounded renders 5,000 programs, a third of them false with 64 KiB
// of output each: the page stays within its bound, and every false case
// still shows some of its expected and actual output.
func TestBounded(t *testing.T) {
	t.Parallel()
	// Rendered without the JSON round trip: the report would be 200 MiB.
	r := manyPrograms(5000)
	var buf bytes.Buffer
	if err := Render(&buf, r, Limits{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	const bound = 24 << 20
	if len(page) > bound {
		t.Fatalf("the page of 5,000 programs is %d bytes, more than %d", len(page), bound)
	}
	// Every false case has rows on both sides.
	doc := parse(t, page)
	shown := 0
	walk(doc, func(n *html.Node) {
		if v, _ := attr(n, "data-stream"); v == "stdout" {
			left, right := 0, 0
			walk(n, func(c *html.Node) {
				if c.DataAtom == atom.Td {
					cls, _ := attr(c, "class")
					if strings.HasPrefix(cls, "l ") && text(c) != "" {
						left++
					}
					if strings.HasPrefix(cls, "r ") && text(c) != "" {
						right++
					}
				}
			})
			if left > 0 && right > 0 {
				shown++
			}
		}
	})
	if want := r.Counts.Cases.False; shown < want {
		t.Errorf("%d streams show expected and actual, want at least the %d false cases", shown, want)
	}
	if !strings.Contains(page, "more bytes") {
		t.Error("no excerpt says what it cut")
	}
	t.Logf("5,000 programs: %d bytes of HTML", len(page))
}

// TestBudgetSpent checks that a page whose budget cannot hold every
// excerpt says so, and stays within it.
func TestBudgetSpent(t *testing.T) {
	t.Parallel()
	lim := Limits{OutputBudget: 64 << 10, MinSideBytes: 4 << 10}
	var buf bytes.Buffer
	if err := Render(&buf, manyPrograms(300), lim); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, "budget for output is spent") {
		t.Error("the page does not say that its output budget is spent")
	}
	if len(page) > 1<<20 {
		t.Errorf("the page is %d bytes", len(page))
	}
}

// TestFailedBuildShown: a program whose build failed (every case false by
// it) is shown as its build, once: the command, the exit code and what the
// compiler wrote, stderr first and as text (hostile markup included), and
// no block per case.
func TestFailedBuildShown(t *testing.T) {
	t.Parallel()
	reason := "build failed: main.c:3:1: error: expected ';' before '}' token"
	var cases []report.Case
	for _, name := range []string{"adds", "subtracts"} {
		c := kase(name, verdict.False, reason, "3", "", "")
		c.Expect.Stdout.Verdict = verdict.Undetermined
		c.Event = report.Event{BuildFailure: reason, Limits: c.Event.Limits}
		cases = append(cases, c)
	}
	p := program("broken", "broken.c", cases...)
	stderr := "main.c:3:1: error: expected ';' before '}' token\n<script>alert(1)</script>\n"
	b := report.BuildStage{Tmpfs: map[string]int64{}, Event: report.Event{
		ExitCode: intp(1), Command: []string{"gcc", "-O2", "-o", "/build/main", "main.c", "-DGREETING=hello world"},
		StderrBytes: int64(len(stderr)), StderrKeptBytes: int64(len(stderr)), DurationMS: 80,
		Limits: report.Limits{TimeoutMS: 60000},
	}}
	b.Stderr = stderr
	p.Build = &b
	r := roundTrip(t, finish(reportOf(p)))
	page := renderString(t, r, Limits{})
	doc := parse(t, page)
	var prog *html.Node
	walk(doc, func(n *html.Node) {
		if v, ok := attr(n, "data-name"); ok && v == "broken" {
			prog = n
		}
	})
	if prog == nil {
		t.Fatal("no program broken in the page")
	}
	got := text(prog)
	for _, s := range []string{
		"build command", "gcc -O2 -o /build/main main.c '-DGREETING=hello world'", // quoted where a shell would split "build exit code", "all 2 cases false: " + reason,
		"error: expected ';' before '}' token", "<script>alert(1)</script>",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("the program's text lacks %q:\n%s", s, got)
		}
	}
	blocks, streams := 0, []string{}
	walk(prog, func(n *html.Node) {
		if c, _ := attr(n, "class"); c == "case" {
			blocks++
		}
		if s, ok := attr(n, "data-stream"); ok {
			streams = append(streams, s)
		}
	})
	if blocks != 1 || strings.Join(streams, ",") != "stderr" {
		t.Errorf("%d case blocks and streams %q, want the build's block alone with its stderr", blocks, streams)
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("the compiler's output became markup")
	}
	if strings.Contains(got, "subtracts") {
		t.Errorf("a case is shown one by one besides the build:\n%s", got)
	}
}

// A timed-out run's 137 is the sandbox's kill: the page says the program
// was stopped and never shows 137 as its exit code.
func TestTimedOutIsNotExit137(t *testing.T) {
	t.Parallel()
	r := fixture()
	c := &r.Programs[2].Cases[0]
	c.Event.TimedOut, c.Event.ExitCode, c.Event.Limits.TimeoutMS = true, intp(137), 5000
	c.Expect.ExitCodeReason = "timed out after 5s"
	page := renderString(t, r, Limits{})
	if strings.Contains(page, "got 137") {
		t.Errorf("the page presents 137 as the program's exit code")
	}
	if !strings.Contains(page, "got none: the sandbox stopped the program (timed out after 5s)") {
		t.Errorf("the page does not say the program was stopped at the timeout")
	}
}

// checkInert checks that report text made nothing of the page: only the
// elements the template writes, no comment, no element with a pwned id or
// an event handler or style attribute, one script (the page's own), every
// escape span holding an escape only.
func checkInert(t *testing.T, doc *html.Node) {
	t.Helper()
	scripts := 0
	walk(doc, func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			if !allowedElements[n.Data] {
				t.Errorf("element <%s> in the page", n.Data)
			}
			if n.DataAtom == atom.Script {
				scripts++
			}
			if id, _ := attr(n, "id"); strings.HasPrefix(id, "pwned") {
				t.Errorf("element with id %q in the page", id)
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") || a.Key == "style" {
					t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
				}
			}
			if c, _ := attr(n, "class"); c == "x" && !escapeForm.MatchString(text(n)) {
				t.Errorf("escape span holds %q", text(n))
			}
		case html.CommentNode:
			t.Errorf("comment in the page: %q", n.Data)
		}
	})
	if scripts != 1 {
		t.Errorf("%d scripts, want 1", scripts)
	}
}

// TestCaseFilePosition: a case from a cases or inputs file is placed at
// its line of that file, never at that line of the spec; a case written in
// the spec stays in the spec.
func TestCaseFilePosition(t *testing.T) {
	t.Parallel()
	r := fixture()
	var moved, kept *report.Case
	for i := range r.Programs {
		switch r.Programs[i].Name {
		case "off-by-one":
			moved = &r.Programs[i].Cases[0]
		case "crash":
			kept = &r.Programs[i].Cases[0]
		}
	}
	moved.File, moved.Line, moved.Col = "tests/inputs.jsonl", 3, 1
	var pos []string
	walk(parse(t, renderString(t, r, Limits{})), func(n *html.Node) {
		if n.DataAtom == atom.Dt && text(n) == "spec" && n.NextSibling != nil {
			pos = append(pos, text(n.NextSibling))
		}
	})
	want := []string{"tests/inputs.jsonl:3:1", fmt.Sprintf("behaves.yml:%d:%d", kept.Line, kept.Col)}
	for _, w := range want {
		if !slices.Contains(pos, w) {
			t.Errorf("no case placed at %s; the cases' places: %q", w, pos)
		}
	}
	if slices.Contains(pos, "behaves.yml:3:1") {
		t.Errorf("the inputs file's case is placed at its line of the spec: %q", pos)
	}
}
