package publish

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var digits = regexp.MustCompile(`[0-9]+`)

// counted is a count and its noun, singular or plural ("0 bytes").
var counted = regexp.MustCompile(`0 (byte|run|case|program|problem|file)s?\b`)

// skeleton is a rendering with the report's text taken out: the elements
// and HTML comments in document order (a comment's text left out: the
// marker's digest follows the spec's name), and the text outside code with
// every number as 0 (byte counts follow the text). Text outside code is
// where GitHub links a mention or a reference.
func skeleton(doc *html.Node) string {
	var sb strings.Builder
	var walk func(n *html.Node, inCode bool)
	walk = func(n *html.Node, inCode bool) {
		switch n.Type {
		case html.ElementNode:
			sb.WriteString("<" + n.Data + ">")
			inCode = inCode || n.Data == "code" || n.Data == "pre"
		case html.CommentNode:
			sb.WriteString("<!---->")
		case html.TextNode:
			if !inCode {
				// Counts are the data's, and so is whether their noun
				// is singular: "1 byte" and "5 bytes" read alike here.
				sb.WriteString(counted.ReplaceAllString(digits.ReplaceAllString(n.Data, "0"), "0 $1"))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inCode)
		}
	}
	walk(doc, false)
	return sb.String()
}

// TestRandomTextRendersLikePlainText renders reports whose every string is
// random markdown, HTML and control soup, and checks that GitHub's renderer
// makes of each exactly what it makes of a report saying "x" everywhere:
// the same elements in the same order and the same text outside code. So
// report text can add, remove or move no element (no link, image, heading,
// table cell, or <details> closed early) and no word outside code (no
// mention or reference).
func TestRandomTextRendersLikePlainText(t *testing.T) {
	t.Parallel()
	tokens := []string{"`", "``", "```", "|", `\`, "<", ">", "&", "&amp;", "[", "]", "(", ")", "!", "@", "#", "*", "_", "~",
		" ", "  ", "\n", "\r", "\r\n", "\t", "<details>", "</details>", "</summary>", "<!--", "-->", "<img src=x>",
		"http://x.example", "www.a.example", ":", "-", "---", "=", "+", "1.", "\u202e", "\u200b", "\x00", "\xff", "a", "9",
		"@octocat", "#12", "<script>", "</code>", "</pre>", "~~~", "&#96;", "\\|", "|---|"}
	rng := rand.New(rand.NewPCG(1, 2))
	opt := Options{RunURL: testRunURL, Annotations: true}
	want := skeleton(cmarkGFM(t, Summary(withText("x"), opt)))
	wantComment := skeleton(cmarkGFM(t, Comment(withText("x"), opt)))
	for range 150 {
		var sb strings.Builder
		for range 1 + rng.IntN(25) {
			sb.WriteString(tokens[rng.IntN(len(tokens))])
		}
		s := sb.String()
		r := withText(s)
		if got := skeleton(cmarkGFM(t, Summary(r, opt))); got != want {
			t.Fatalf("summary of %q renders as\n%s\nwant\n%s", s, got, want)
		}
		if got := skeleton(cmarkGFM(t, Comment(r, opt))); got != wantComment {
			t.Fatalf("comment of %q renders as\n%s\nwant\n%s", s, got, wantComment)
		}
	}
}
