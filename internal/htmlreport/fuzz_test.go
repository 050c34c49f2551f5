package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// FuzzRender puts arbitrary text in a program's name, a case's reason, the
// expected value and the output, and checks that the page parses to the
// template's elements only, with no handler attribute and one script.
func FuzzRender(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s, []byte(s))
	}
	f.Add("a\nb\n", []byte("a\nc\n"))
	f.Fuzz(func(t *testing.T, s string, out []byte) {
		c := kase(s, verdict.False, s, s, string(out), string(out), s)
		r := finish(reportOf(program(s, s, c)))
		var buf bytes.Buffer
		if err := Render(&buf, r, Limits{OutputBudget: 64 << 10}); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(&buf)
		if err != nil {
			t.Fatal(err)
		}
		scripts := 0
		walk(doc, func(n *html.Node) {
			switch n.Type {
			case html.ElementNode:
				if !allowedElements[n.Data] {
					t.Errorf("element <%s>", n.Data)
				}
				if n.Data == "script" {
					scripts++
				}
				for _, a := range n.Attr {
					if strings.HasPrefix(a.Key, "on") || a.Key == "style" {
						t.Errorf("attribute %s", a.Key)
					}
				}
			case html.CommentNode:
				t.Errorf("comment %q", n.Data)
			}
		})
		if scripts != 1 {
			t.Errorf("%d scripts", scripts)
		}
	})
}
