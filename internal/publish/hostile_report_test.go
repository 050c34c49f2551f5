package publish

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
)

// The reports FuzzHostileReport mutates: the golden reports of package
// assemble, which its tests check byte for byte against what
// assemble.Report and report.Encode make, so every base is a report a real
// run writes.
var hostileBases = []string{"report.golden.json", "report_repeat.golden.json"}

// jsonString is one string literal of a JSON document: doc[start:end],
// quotes included; key says it names an object member.
type jsonString struct {
	start, end int
	key        bool
}

// jsonStrings lists the string literals of doc, a valid JSON document, in
// order.
func jsonStrings(doc []byte) []jsonString {
	var out []jsonString
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		j := i + 1
		for doc[j] != '"' {
			if doc[j] == '\\' {
				j++
			}
			j++
		}
		k := j + 1
		for k < len(doc) && strings.IndexByte(" \t\r\n", doc[k]) >= 0 {
			k++
		}
		out = append(out, jsonString{start: i, end: j + 1, key: k < len(doc) && doc[k] == ':'})
		i = j
	}
	return out
}

// Mutation modes: what a forger does with one string of a valid report.
const (
	// replaceOne puts the text in place of the string (a value, or a
	// key, which renames the member).
	replaceOne = iota
	// replaceAll puts it in place of every string equal to that one, so
	// that a name kept in several places (a group's name and its programs'
	// group, a program's reason and its case's) stays consistent.
	replaceAll
	// addMember adds a member named by the text before the key, with a
	// copy of that key's value: a new key in a map such as pass_at_reasons.
	addMember
	modes
)

// forge returns doc with text put into its string at (an index into
// strs) as mode says.
func forge(doc []byte, strs []jsonString, at, mode int, text string) []byte {
	quoted, err := json.Marshal(text)
	if err != nil {
		panic(err) // a string always marshals
	}
	lit := strs[at]
	var out bytes.Buffer
	switch {
	case mode == addMember && lit.key:
		var value json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(doc[bytes.IndexByte(doc[lit.end:], ':')+lit.end+1:]))
		if err := dec.Decode(&value); err != nil {
			panic(err) // doc is valid JSON
		}
		out.Write(doc[:lit.start])
		out.Write(quoted)
		out.WriteString(": ")
		out.Write(value)
		out.WriteString(", ")
		out.Write(doc[lit.start:])
	case mode == replaceAll:
		old := doc[lit.start:lit.end]
		last := 0
		for _, s := range strs {
			if bytes.Equal(doc[s.start:s.end], old) {
				out.Write(doc[last:s.start])
				out.Write(quoted)
				last = s.end
			}
		}
		out.Write(doc[last:])
	default:
		out.Write(doc[:lit.start])
		out.Write(quoted)
		out.Write(doc[lit.end:])
	}
	return out.Bytes()
}

// benign is the stand-in for hostile text: the same bytes and the same
// line breaks, every other rune an 'x' per byte. So a report carrying it
// is cut, truncated and broken into lines where the hostile one is, and
// whatever the renderings show differently came from what the text says.
func benign(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r == '\n' {
			sb.WriteByte('\n')
			continue
		}
		sb.WriteString(strings.Repeat("x", utf8.RuneLen(r)))
	}
	return sb.String()
}

// splitMark separates the documents rendered in one cmark-gfm call: a
// raw HTML block of its own, which a document that ends as the renderers
// end theirs (closed blocks, a final newline) leaves at the top level.
const splitMark = `<div id="behaves-split"></div>`

// renderAll renders each of mds with cmark-gfm in one process (one process
// per document would make the fuzz pass slow) and returns the skeleton of
// each, or fails when the documents do not come back apart: one of them
// swallowed the separator, which itself is report text acting as markup.
func renderAll(t *testing.T, mds ...string) []*html.Node {
	t.Helper()
	// A separator first too: HTML parsing puts a comment at the very start
	// of a document outside <body>, where the split would not see it.
	var in strings.Builder
	in.WriteString(splitMark + "\n\n")
	for _, md := range mds {
		in.WriteString(md)
		in.WriteString("\n\n" + splitMark + "\n\n")
	}
	doc := cmarkGFM(t, in.String())
	var body *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "body" {
			body = n
		}
		for c := n.FirstChild; c != nil && body == nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	var parts []*html.Node
	part := &html.Node{Type: html.DocumentNode}
	for n := body.FirstChild; n != nil; {
		next := n.NextSibling
		if n.Type == html.ElementNode && n.Data == "div" && len(n.Attr) == 1 && n.Attr[0].Val == "behaves-split" {
			parts = append(parts, part)
			part = &html.Node{Type: html.DocumentNode}
		} else {
			body.RemoveChild(n)
			part.AppendChild(n)
		}
		n = next
	}
	if len(parts) != len(mds)+1 || parts[0].FirstChild != nil {
		t.Fatalf("%d documents rendered as %d: one swallowed the separator", len(mds), len(parts)-1)
	}
	return parts[1:]
}

// comments returns the HTML comments in n, in document order.
func comments(n *html.Node) []*html.Node {
	var out []*html.Node
	if n.Type == html.CommentNode {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, comments(c)...)
	}
	return out
}

// checkMarkerOnly fails unless the rendered comment holds exactly one HTML
// comment, the sticky marker, as its first node, and the summaries none.
func checkMarkerOnly(t *testing.T, r report.Report, summary, comment, checkRun *html.Node) {
	t.Helper()
	want := strings.TrimSuffix(strings.TrimPrefix(Marker(r), "<!--"), "-->")
	first := comment.FirstChild
	for first != nil && first.Type == html.TextNode && strings.TrimSpace(first.Data) == "" {
		first = first.NextSibling
	}
	if cs := comments(comment); len(cs) != 1 || first != cs[0] || cs[0].Data != want {
		t.Fatalf("the rendered comment holds %d HTML comments, want only the marker %q first", len(cs), want)
	}
	for _, d := range []*html.Node{summary, checkRun} {
		if cs := comments(d); len(cs) != 0 {
			t.Fatalf("a rendered summary holds %d HTML comments: %q", len(cs), cs[0].Data)
		}
	}
}

// hostileSeed is a seed of FuzzHostileReport that names its string by
// content.
type hostileSeed struct {
	base int
	// find is the string's literal (quotes included) and nth which of the
	// literals equal to it; next moves on to the literal after it.
	find      string
	nth, next int
	mode      int
	text      string
	// accepted says whether Read must accept the forged report: a seed
	// meant to reach the renderers must not be refused for a reason that
	// has nothing to do with its text.
	accepted bool
}

// hostileSeeds are forgeries that once got through Read: a key pass_at does not hold
// in pass_at_reasons, carrying mentions, an image beacon, a link, a forged
// table row and a second sticky marker with raw tabs and newlines (Read
// refuses it since f904720; before, it reached the summary, the comment and
// the check run); and hostile program names, args, reasons and group names
// kept consistent, which Read accepts and the renderers must keep inert.
func hostileSeeds() []hostileSeed {
	h := hostile()
	marker := "\n" + markerPrefix + strings.Repeat("ab", 32) + markerSuffix + "\n\t<!--\tbehaves:comment\n-->\n"
	row := "\n| ✅ true | forged | 1 | 0 | 0 | 1ms | — |\n"
	var seeds []hostileSeed
	for _, text := range []string{"@team/x", "@user", "<img src=x>", "[a](http://x)", row, marker,
		"@team/x @user <img src=x> [a](http://x)" + row + marker} {
		seeds = append(seeds, hostileSeed{find: `"pass_at_reasons"`, next: 1, mode: addMember, text: text})
	}
	for _, text := range []string{h, "@team/x", "<img src=x>", row, marker} {
		seeds = append(seeds,
			hostileSeed{find: `"fizzbuzz"`, mode: replaceAll, text: text, accepted: true},
			hostileSeed{find: `"samples"`, mode: replaceAll, text: text, accepted: true},
			hostileSeed{find: `"--binary"`, mode: replaceAll, text: text, accepted: true},
			hostileSeed{find: `"5"`, mode: replaceOne, text: text, accepted: true},
			hostileSeed{find: `"stderr: expected \"\", got \"warning: no fizz\""`, mode: replaceAll, text: text, accepted: true},
			hostileSeed{base: 1, find: `"coin"`, mode: replaceAll, text: text, accepted: true},
			hostileSeed{base: 1, find: `"parity"`, mode: replaceAll, text: text, accepted: true},
		)
	}
	return seeds
}

// FuzzHostileReport forges reports, not only run output: it puts the
// fuzzer's text into one string of a real report (a value, a key, or a new
// map member) and reads the result with reportread.Read. For what Read accepts
// it renders the job summary, the PR comment and the check run's summary
// with cmark-gfm and compares each skeleton (elements, comments, text
// outside code) with that of the same forgery made with benign text of the
// same shape: an element, an HTML comment, a mention or a reference whose
// presence depends on what report text says fails it. The comment's only
// HTML comment is its marker, on its first line.
func FuzzHostileReport(f *testing.F) {
	var docs [][]byte
	var strs [][]jsonString
	for _, name := range hostileBases {
		doc, err := os.ReadFile(filepath.Join("..", "assemble", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		if _, err := reportread.Read(bytes.NewReader(doc), 1<<20); err != nil {
			f.Fatalf("the base report %s does not read: %v", name, err)
		}
		docs, strs = append(docs, doc), append(strs, jsonStrings(doc))
	}
	for _, s := range hostileSeeds() {
		at, seen := -1, 0
		for i, lit := range strs[s.base] {
			if string(docs[s.base][lit.start:lit.end]) == s.find {
				if seen == s.nth {
					at = i + s.next
					break
				}
				seen++
			}
		}
		if at < 0 {
			f.Fatalf("seed: %s holds no %s", hostileBases[s.base], s.find)
		}
		if s.accepted {
			if _, err := reportread.Read(bytes.NewReader(forge(docs[s.base], strs[s.base], at, s.mode, s.text)), 1<<20); err != nil {
				f.Fatalf("seed %s in %s: Read refuses it (%v), so it tests no renderer", s.find, hostileBases[s.base], err)
			}
		}
		f.Add(uint8(s.base), uint16(at), uint8(s.mode), s.text)
	}
	opt := Options{RunURL: testRunURL, Annotations: true}
	f.Fuzz(func(t *testing.T, base uint8, at uint16, mode uint8, text string) {
		// Marshal would turn invalid UTF-8 into U+FFFD: do it first, so
		// that the benign stand-in has the shape of what Read sees.
		text = strings.ToValidUTF8(text, "\uFFFD")
		b := int(base) % len(docs)
		doc, ss := docs[b], strs[b]
		i, m := int(at)%len(ss), int(mode)%modes
		r, err := reportread.Read(bytes.NewReader(forge(doc, ss, i, m, text)), 1<<20)
		if err != nil {
			return // refused: nothing is rendered
		}
		plain := benign(text)
		rb, err := reportread.Read(bytes.NewReader(forge(doc, ss, i, m, plain)), 1<<20)
		got := renderAll(t, Summary(r, opt), Comment(r, opt), CheckRunSummary(r, opt))
		checkMarkerOnly(t, r, got[0], got[1], got[2])
		if err != nil {
			// The string takes only some values (an enum, a digest, a
			// run ID) and the stand-in is not one: there is nothing to
			// compare with, and such a value holds no markup anyway.
			return
		}
		want := renderAll(t, Summary(rb, opt), Comment(rb, opt), CheckRunSummary(rb, opt))
		for k, name := range []string{"summary", "comment", "check run summary"} {
			if g, w := skeleton(got[k]), skeleton(want[k]); g != w {
				t.Fatalf("the %s of a report with %q at string %d (mode %d) renders unlike the one with %q there:\n%s", name, text, i, m, plain, skeletonDiff(g, w))
			}
		}
	})
}

// skeletonDiff shows where two skeletons part: the first line that
// differs, with the two lines before it.
func skeletonDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(i-2, 0)
	line := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return "(end)"
	}
	var sb strings.Builder
	for k := from; k < i; k++ {
		sb.WriteString("  " + g[k] + "\n")
	}
	sb.WriteString("- " + line(w, i) + "\n+ " + line(g, i))
	return sb.String()
}
