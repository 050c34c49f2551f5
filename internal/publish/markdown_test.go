package publish

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

const testRunURL = "https://github.com/acme/gate/actions/runs/123456"

// cmarkGFM renders md as GitHub does (cmark-gfm with GitHub's extensions,
// tasklist included: "- [ ]" in report text would make a checkbox).
// --unsafe keeps raw HTML: without it cmark-gfm drops all of it, forged and
// genuine alike, and the checks below would pass vacuously.
func cmarkGFM(t *testing.T, md string) *html.Node {
	t.Helper()
	bin, err := exec.LookPath("cmark-gfm")
	if err != nil {
		if os.Getenv("BEHAVES_REQUIRE_CMARK") == "1" {
			t.Fatalf("cmark-gfm is required (BEHAVES_REQUIRE_CMARK=1): %v", err)
		}
		t.Skipf("cmark-gfm not installed (apt-get install cmark-gfm): %v", err)
	}
	cmd := exec.Command(bin, "--unsafe", "-e", "table", "-e", "tagfilter", "-e", "autolink", "-e", "strikethrough", "-e", "tasklist")
	cmd.Stdin = strings.NewReader(md)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	doc, err := html.Parse(strings.NewReader(string(out)))
	if err != nil {
		t.Fatalf("parsing cmark-gfm's HTML: %v", err)
	}
	return doc
}

// rendered is what a rendered document holds.
type rendered struct {
	elements map[string]int
	links    []string
	// plain is the text outside code and pre, where GitHub would link a
	// mention or a reference.
	plain strings.Builder
	// details are the <details> elements; nested counts those inside
	// another.
	details []*html.Node
	nested  int
	rows    [][]*html.Node // each table row's cells
	body    *html.Node
}

func inspect(doc *html.Node) *rendered {
	r := &rendered{elements: map[string]int{}}
	var walk func(n *html.Node, inCode, inDetails bool)
	walk = func(n *html.Node, inCode, inDetails bool) {
		switch n.Type {
		case html.ElementNode:
			r.elements[n.Data]++
			switch n.DataAtom {
			case atom.A:
				for _, a := range n.Attr {
					if a.Key == "href" {
						r.links = append(r.links, a.Val)
					}
				}
			case atom.Code, atom.Pre:
				inCode = true
			case atom.Details:
				r.details = append(r.details, n)
				if inDetails {
					r.nested++
				}
				inDetails = true
			case atom.Body:
				r.body = n
			case atom.Tr:
				var cells []*html.Node
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
						cells = append(cells, c)
					}
				}
				r.rows = append(r.rows, cells)
			}
		case html.TextNode:
			if !inCode {
				r.plain.WriteString(n.Data)
				r.plain.WriteString("\n")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inCode, inDetails)
		}
	}
	walk(doc, false, false)
	return r
}

func text(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return sb.String()
}

// behavesElements are the elements the renderers write; anything else in
// the HTML came from report text.
var behavesElements = map[string]bool{
	"html": true, "head": true, "body": true, "h2": true, "h3": true, "p": true, "hr": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"code": true, "pre": true, "details": true, "summary": true, "ul": true, "li": true,
	"strong": true, "em": true, "blockquote": true, "a": true,
}

// checkHostile checks a rendering of a hostile report: it has wantDetails
// <details> blocks and a table cell whose text is wantCell.
func checkHostile(t *testing.T, name, md string, wantDetails int, wantCell string) {
	t.Helper()
	for _, bad := range []string{"\u202e", "\x00", "\r"} {
		if strings.Contains(md, bad) {
			t.Errorf("%s: the markdown holds %q", name, bad)
		}
	}
	got := inspect(cmarkGFM(t, md))
	for el, n := range got.elements {
		if !behavesElements[el] {
			t.Errorf("%s: %d <%s> elements came from report text", name, n, el)
		}
	}
	if len(got.links) != 1 || got.links[0] != testRunURL {
		t.Errorf("%s: links %q, want only the run's", name, got.links)
	}
	plain := got.plain.String()
	for _, bad := range []string{"octocat", "#123", "javascript", "onerror", "evil", "heading", "forged", "gnp", "behaves:comment", "alert"} {
		if strings.Contains(plain, bad) {
			t.Errorf("%s: %q appears outside code, where GitHub would act on it:\n%s", name, bad, plain)
		}
	}
	if len(got.details) != wantDetails || got.nested != 0 {
		t.Errorf("%s: %d <details> (%d nested), want %d, none nested", name, len(got.details), got.nested, wantDetails)
	}
	for _, d := range got.details {
		first := d.FirstChild
		for first != nil && first.Type != html.ElementNode {
			first = first.NextSibling
		}
		if first == nil || first.DataAtom != atom.Summary {
			t.Errorf("%s: a <details> does not start with its <summary>", name)
		}
		if !strings.Contains(text(d), "program file:") {
			t.Errorf("%s: a <details> lost its content (closed early?): %q", name, text(d))
		}
	}
	// Between the heading of the case blocks and the footer's rule, the
	// body holds <details> elements only: a block closed early would leave
	// its rest here.
	in := false
	for n := got.body.FirstChild; n != nil; n = n.NextSibling {
		switch {
		case n.DataAtom == atom.H3 && strings.Contains(text(n), "not true"):
			in = true
		case n.DataAtom == atom.Hr:
			in = false
		case in && n.Type == html.ElementNode && n.DataAtom != atom.Details:
			t.Errorf("%s: <%s> %q between the case blocks", name, n.Data, text(n))
		case in && n.Type == html.TextNode && strings.TrimSpace(n.Data) != "":
			t.Errorf("%s: text %q between the case blocks", name, n.Data)
		}
	}
	// The hostile text whole in one cell, and every row as wide as its
	// table's header.
	found := false
	width := 0
	for _, cells := range got.rows {
		if cells[0].DataAtom == atom.Th {
			width = len(cells)
		}
		if len(cells) != width {
			t.Errorf("%s: a table row has %d cells, want %d", name, len(cells), width)
		}
		for _, c := range cells {
			found = found || text(c) == wantCell
		}
	}
	if !found {
		t.Errorf("%s: no table cell holds %q", name, wantCell)
	}
}

func TestHostileReportsRenderInert(t *testing.T) {
	t.Parallel()
	opt := Options{RunURL: testRunURL, Annotations: true}
	for _, tt := range []struct {
		name    string
		r       report.Report
		details int
		cell    string
	}{
		// Both cases of the first program are not true, and the third
		// program's cases share one block.
		{"report", hostileReport(), 3, oneLine(hostile(), nameMaxRunes)},
		{"spec errors", hostileSpecErrors(), 0, oneLine(hostile(), messageRunes)},
	} {
		checkHostile(t, tt.name+": summary", Summary(tt.r, opt), tt.details, tt.cell)
		checkHostile(t, tt.name+": check run", CheckRunSummary(tt.r, opt), tt.details, tt.cell)
		comment := Comment(tt.r, opt)
		checkHostile(t, tt.name+": comment", comment, tt.details, tt.cell)
		if n := strings.Count(comment, markerPrefix); n != 1 {
			t.Errorf("%s: comment holds %d markers, want exactly one", tt.name, n)
		}
		if sha, ok := ParseMarker(comment); !ok || Marker(tt.r) != markerPrefix+sha+markerSuffix {
			t.Errorf("%s: the comment's first line is not its marker: %q", tt.name, strings.SplitN(comment, "\n", 2)[0])
		}
	}
}

func TestParseMarker(t *testing.T) {
	t.Parallel()
	hex := strings.Repeat("0123456789abcdef", 4)
	marker := markerPrefix + hex + markerSuffix
	tests := []struct {
		body string
		ok   bool
	}{
		{marker, true},
		{marker + "\n## behaves", true},
		{marker + "\r\n## behaves", true},                           // as GitHub may return a body
		{"\n" + marker, false},                                      // not the first line
		{"x" + marker, false},                                       // text before
		{marker + " x\n", false},                                    // text after
		{strings.ReplaceAll(marker, "\t", " ") + "\n", false},       // spaces, as report text would have them
		{strings.ReplaceAll(marker, "\t", `\t`) + "\n", false},      // escape.Text's form of a tab
		{markerPrefix + strings.ToUpper(hex) + markerSuffix, false}, // not lowercase
		{markerPrefix + hex[1:] + markerSuffix, false},              // 63 digits
		{markerPrefix + hex + "0" + markerSuffix, false},            // 65 digits
		{markerPrefix + hex[1:] + "g" + markerSuffix, false},        // not hex
		{"", false},
	}
	for _, tt := range tests {
		sha, ok := ParseMarker(tt.body)
		if ok != tt.ok || (ok && sha != hex) {
			t.Errorf("ParseMarker(%q) = %q, %v; want ok %v", tt.body, sha, ok, tt.ok)
		}
	}
	// One marker per spec file, and none made of its name.
	a := Marker(report.Report{SpecFile: "a/behaves.yml"})
	if a == Marker(report.Report{SpecFile: "b/behaves.yml"}) || strings.Contains(a, "behaves.yml") {
		t.Errorf("marker %q", a)
	}
}

func TestTableRows(t *testing.T) {
	t.Parallel()
	r := fixture()
	got := inspect(cmarkGFM(t, Summary(r, Options{})))
	want := [][]string{
		{"", "Program", "Passed", "Failed", "Undetermined", "Time", "Image"},
		{"✅ true", "fizzbuzz", "1", "0", "0", "100ms", "python@sha256:aaaaaaaaaaaa"},
		{"❌ false", "crash", "0", "2", "0", "200ms", "python@sha256:aaaaaaaaaaaa"},
		{"⚠️ undetermined", "big-output", "0", "0", "1", "100ms", "python@sha256:aaaaaaaaaaaa"},
		{"⚠️ undetermined", "missing-image", "0", "0", "2", "200ms", "—"},
		{"✅ true", "samples/a.py", "1", "0", "0", "100ms", "python@sha256:aaaaaaaaaaaa"},
		{"❌ false", "samples/b.py", "0", "1", "0", "100ms", "python@sha256:aaaaaaaaaaaa"},
		{"✅ true", "samples/c.py", "1", "0", "0", "100ms", "python@sha256:aaaaaaaaaaaa"},
	}
	if len(got.rows) != len(want) {
		t.Fatalf("%d table rows, want %d", len(got.rows), len(want))
	}
	for i, cells := range got.rows {
		var texts []string
		for _, c := range cells {
			texts = append(texts, strings.TrimSpace(text(c)))
		}
		if strings.Join(texts, "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i, texts, want[i])
		}
	}
	// 2 + 1 + 1 cases are not true, and the two cases of missing-image
	// that never ran share one block.
	if len(got.details) != 5 || got.nested != 0 {
		t.Errorf("%d <details> (%d nested), want 5", len(got.details), got.nested)
	}
	if !strings.Contains(text(got.details[4]), "all 2 cases undetermined: image not present") {
		t.Errorf("the cases that never ran are not folded: %q", text(got.details[4]))
	}
	if !strings.Contains(got.plain.String(), "2 of 3 samples true") {
		t.Errorf("no samples line:\n%s", got.plain.String())
	}
}

func TestCodeSpan(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain", "`plain`"},
		{"", "`\"\"`"},
		{"a`b", "``a`b``"},
		{"`start", "`` `start ``"},
		{"end``", "``` end`` ```"},
		{" space", "`  space `"},
		{"line\nbreak\r\x00", "`line\\nbreak\\r\\x00`"},
		{"\u202eevil", "`\\u202eevil`"},
	}
	for _, tt := range tests {
		if got := code(tt.in, 80); got != tt.want {
			t.Errorf("code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := cell("a|b`|", 80), "``a\\|b`\\|``"; got != want {
		t.Errorf("cell = %q, want %q", got, want)
	}
}

func TestCodeSpanRendersItsText(t *testing.T) {
	t.Parallel()
	// Every backtick run from 1 to 10, at the start, inside and at the
	// end: the code element holds exactly the escaped text.
	var ins []string
	for n := 1; n <= 10; n++ {
		run := strings.Repeat("`", n)
		ins = append(ins, run+"a", "a"+run+"b", "a"+run, run)
	}
	var md strings.Builder
	md.WriteString("| x |\n| --- |\n")
	for _, in := range ins {
		md.WriteString("| " + cell(in+"|p", 80) + " |\n")
	}
	md.WriteString("\n")
	for _, in := range ins {
		md.WriteString("- " + code(in, 80) + "\n")
	}
	got := inspect(cmarkGFM(t, md.String()))
	var codes []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.DataAtom == atom.Code {
			codes = append(codes, text(n))
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(got.body)
	if len(codes) != 2*len(ins) {
		t.Fatalf("%d code elements, want %d", len(codes), 2*len(ins))
	}
	for i, in := range ins {
		if codes[i] != in+"|p" || codes[len(ins)+i] != in {
			t.Errorf("%q rendered as %q and %q", in, codes[i], codes[len(ins)+i])
		}
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		maxBytes int
		maxLines int
		lines    []string
		rest     int
		noEOL    bool
	}{
		{"whole", "a\nb\n", 100, 10, []string{"a", "b"}, 0, false},
		{"no final newline", "a\nb", 100, 10, []string{"a", "b"}, 0, true},
		{"lines bound", "a\nb\nc\n", 100, 2, []string{"a", "b"}, 2, false},
		{"bytes bound on a rune", "ab€cd", 4, 10, []string{"ab"}, 5, false},
		{"lone CR and NUL", "a\rb\x00\n", 100, 10, []string{`a\rb\x00`}, 0, false},
		{"empty line kept", "\n\nx\n", 100, 10, []string{"", "", "x"}, 0, false},
	}
	for _, tt := range tests {
		ex := newExcerpt([]byte(tt.in), tt.maxBytes, tt.maxLines)
		if strings.Join(ex.lines, "|") != strings.Join(tt.lines, "|") || ex.rest != tt.rest || ex.noEOL != tt.noEOL {
			t.Errorf("%s: got %q rest %d noEOL %v, want %q rest %d noEOL %v", tt.name, ex.lines, ex.rest, ex.noEOL, tt.lines, tt.rest, tt.noEOL)
		}
	}
}

func TestRunURL(t *testing.T) {
	t.Parallel()
	if got, err := RunURL("https://github.com", "acme/gate", "123456"); err != nil || got != testRunURL {
		t.Errorf("RunURL = %q, %v", got, err)
	}
	if got, err := RunURL("https://ghe.example.com/", "acme/gate", "7"); err != nil || got != "https://ghe.example.com/acme/gate/actions/runs/7" {
		t.Errorf("RunURL (GHES) = %q, %v", got, err)
	}
	for _, bad := range [][3]string{
		{"javascript:alert(1)", "acme/gate", "1"},
		{"https://github.com/x", "acme/gate", "1"},
		{"https://u:p@github.com", "acme/gate", "1"},
		{"https://github.com", "acme/gate)", "1"},
		{"https://github.com", "acme", "1"},
		{"https://github.com", "acme/gate", "1 2"},
		{"https://github.com", "acme/gate", ""},
	} {
		if got, err := RunURL(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("RunURL(%q) = %q, want an error", bad, got)
		}
	}
	// A link that is not one RunURL makes is left out.
	md := Summary(fixture(), Options{RunURL: "https://x.example/a) [y](javascript:z"})
	if strings.Contains(md, "javascript") || strings.Contains(md, "workflow run") {
		t.Errorf("a bad RunURL was linked:\n%s", md)
	}
}

func TestHeadline(t *testing.T) {
	t.Parallel()
	tally := func(total, tru, fls, und int) report.Report {
		return report.Report{Counts: report.Counts{Programs: report.Tally{Total: total, True: tru, False: fls, Undetermined: und}}}
	}
	specErr := report.Report{SpecErrors: []report.SpecError{{Line: 1}, {Line: 2}}}
	tests := []struct {
		r    report.Report
		want string
	}{
		{tally(40, 35, 3, 2), "3 of 40 programs false, 2 undetermined"},
		{tally(2, 2, 0, 0), "all 2 programs true"},
		{tally(1, 0, 0, 1), "0 of 1 program false, 1 undetermined"},
		{tally(0, 0, 0, 0), "no program was judged"},
		{specErr, "the spec has 2 errors; nothing ran"},
	}
	for _, tt := range tests {
		if got := Headline(tt.r); got != tt.want {
			t.Errorf("Headline = %q, want %q", got, tt.want)
		}
	}
}

func TestGoldenMarkdown(t *testing.T) {
	t.Parallel()
	r := fixture()
	opt := Options{RunURL: testRunURL, Annotations: true}
	goldentest.Check(t, "summary.golden.md", []byte(Summary(r, opt)))
	goldentest.Check(t, "comment.golden.md", []byte(Comment(r, opt)))
	spec := finish(report.Report{Spec: "behaves.yml",
		Error: "the spec has 2 problems",
		SpecErrors: []report.SpecError{
			{File: "behaves.yml", Line: 3, Col: 5, Message: `unknown key "tiemout" | did you mean timeout?`},
			{File: "behaves.yml", Line: 9, Col: 7, Message: "profile \"py\" is not defined"},
		}})
	goldentest.Check(t, "spec_errors.golden.md", []byte(Summary(spec, Options{})))
	if spec.Verdict != verdict.Undetermined {
		t.Fatalf("fixture: a spec-error report is %s", spec.Verdict)
	}
}

// Programs of one profile none of whose cases ran, for one reason (an
// image missing), share one block that says it once and lists them; a
// lone program keeps its own block.
func TestMissingImageOncePerProfile(t *testing.T) {
	t.Parallel()
	a, b := program("a", "a.py", 10, missingImageCase("one"), missingImageCase("two")), program("b", "b.py", 20, missingImageCase("three"), missingImageCase("four"))
	c := program("c", "c.sh", 30, missingImageCase("five"), missingImageCase("six"))
	c.Profile = "sh"
	md := Summary(finish(report.Report{Spec: "behaves.yml", SpecFile: "behaves.yml", Programs: []report.Program{a, b, c}}), Options{})
	if n := strings.Count(md, "image not present: pull it before scoring</code></summary>"); n != 2 {
		t.Errorf("the reason is said in %d blocks, want 2 (python's and the lone sh program's):\n%s", n, md)
	}
	for _, want := range []string{
		"<summary>⚠️ profile <code>python</code>: all 4 cases of 2 programs undetermined: <code>image not present: pull it before scoring</code></summary>",
		"- `a`: `a.py`, spec `behaves.yml:10:5`\n- `b`: `b.py`, spec `behaves.yml:20:5`\n",
		"<summary>⚠️ <code>c</code>: all 2 cases undetermined:",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
	if got := inspect(cmarkGFM(t, md)); len(got.details) != 2 || got.nested != 0 {
		t.Errorf("%d <details> (%d nested), want 2", len(got.details), got.nested)
	}
}

// TestProgramWhere: a program's details name its file, or a folder
// program's folder and entry.
func TestProgramWhere(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    report.Program
		want string
	}{
		{report.Program{File: "src/p.py"}, "- program file: `src/p.py`\n"},
		{report.Program{File: "cli-app", Dir: "cli-app"}, "- program folder: `cli-app`\n"},
		{report.Program{File: "cli-app", Dir: "cli-app", Entry: "run.sh"}, "- program folder: `cli-app`, entry `run.sh`\n"},
	} {
		if got := programWhere(&tt.p); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.p, got, tt.want)
		}
	}
}
