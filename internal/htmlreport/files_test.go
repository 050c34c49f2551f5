package htmlreport

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// hostileName is a file name a program's folder may hold (git tracks it)
// that tries to become markup on the page.
const hostileName = `tool/<script>document.documentElement.setAttribute("data-pwned","files")</script>` + "\u202e.py"

// folderProgram is a folder program (dir proj, entry tool/main.py) of
// files, with a with: file from evals/ and a link, and one case that ran
// and failed.
func folderProgram(files map[string]string) (spec.Program, runner.Observation) {
	c := reporttest.Case("sums", 14, verdict.Expectation{Stdout: reporttest.Equals("3")}, "1", "2")
	p := reporttest.FolderProgram("tool", "proj", "tool/main.py", files, map[string]string{"harness/check.py": "evals/harness/check.py"}, c)
	p.Program.Links = map[string]string{"tool/alias.py": "parsing.py"}
	obs := runner.Observation{ExecutionID: "12121212-1212-4121-8121-121212121212", Acquisition: runner.AcquisitionComplete,
		Settings: reporttest.Settings, Events: []runner.Event{reporttest.Event(reporttest.IntP(0), "4\n", "1", "2")}}
	return p, obs
}

// programNode is the article of the program named name.
func programNode(t *testing.T, doc *html.Node, name string) *html.Node {
	t.Helper()
	var prog *html.Node
	walk(doc, func(n *html.Node) {
		if v, ok := attr(n, "data-name"); ok && v == name && n.DataAtom == atom.Article {
			prog = n
		}
	})
	if prog == nil {
		t.Fatalf("no program %q in the page", name)
	}
	return prog
}

// fileRows are the rows of a program's files table, each its cells' text
// joined by " | ".
func fileRows(prog *html.Node) (rows []string, details int) {
	walk(prog, func(n *html.Node) {
		if n.DataAtom == atom.Details {
			details++
		}
		if c, _ := attr(n, "class"); c == "files" && n.DataAtom == atom.Table {
			walk(n, func(tr *html.Node) {
				if tr.DataAtom == atom.Tr {
					var cells []string
					for td := tr.FirstChild; td != nil; td = td.NextSibling {
						cells = append(cells, text(td))
					}
					rows = append(rows, strings.Join(cells, " | "))
				}
			})
		}
	})
	return rows, details
}

// TestProgramFiles guards the page's account of a program that is more
// than one file, on reports assembled and read back: a folder program is
// named by its folder and entry, and lists its files in a collapsed
// block, each with its size, a with: file with its repository path, a
// link with its target, a hostile file name as text; a list the report
// left out for its size budget is counted and said so; a long list is
// cut and says how many it leaves out; a program of one file lists
// nothing.
func TestProgramFiles(t *testing.T) {
	t.Parallel()
	files := map[string]string{"tool/main.py": "from tool import parsing\n", "tool/parsing.py": strings.Repeat("#\n", 1024), hostileName: "x\n"}
	p, obs := folderProgram(files)
	one := reporttest.Program("single", "solutions/single.py", 30, reporttest.Case("c", 34, verdict.Expectation{}))
	withHarness := reporttest.WithFiles(reporttest.Program("harnessed", "samples/cand.py", 40, reporttest.Case("c", 44, verdict.Expectation{})),
		map[string]string{"harness/check.py": "evals/harness/check.py"})
	in := reporttest.SingleInput(p, obs)
	for _, q := range []spec.Program{one, withHarness} {
		in.Spec.Programs = append(in.Spec.Programs, q)
		in.Programs = append(in.Programs, reporttest.Ran(q, runner.Observation{Acquisition: runner.AcquisitionComplete,
			Settings: reporttest.Settings, Events: []runner.Event{reporttest.Event(reporttest.IntP(0), "")}}, 0))
	}
	r := reporttest.RoundTrip(t, assemble.Report(in))
	page := renderString(t, r, Limits{})
	doc := parse(t, page)
	checkInert(t, doc)

	prog := programNode(t, doc, "tool")
	if got := text(prog); !strings.Contains(got, "folder proj · entry tool/main.py") || !strings.Contains(got, "5 files, 2.1 KiB") {
		t.Errorf("the folder program's text lacks its folder, entry or files' count:\n%s", got)
	}
	rows, details := fileRows(prog)
	want := []string{
		"harness/check.py | 25 B | from evals/harness/check.py",
		"tool/" + `<script>document.documentElement.setAttribute("data-pwned","files")</script>` + `\u202e.py | 2 B | `,
		"tool/alias.py → parsing.py | link | ",
		"tool/main.py | 25 B | ",
		"tool/parsing.py | 2.0 KiB | ",
	}
	// The list is sorted bytewise: "tool/<" before "tool/a".
	if details != 1 || strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d details blocks, files rows:\n%s\nwant one block of:\n%s", details, strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(page, "\u202e") || strings.Contains(page, `<script>document`) {
		t.Error("a file name reached the page raw")
	}

	if rows, details := fileRows(programNode(t, doc, "single")); len(rows) != 0 || details != 0 {
		t.Errorf("a program of one file lists %q", rows)
	}
	rows, _ = fileRows(programNode(t, doc, "harnessed"))
	want = []string{"harness/check.py | 25 B | from evals/harness/check.py", "main.py | 9 B | from samples/cand.py"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("a program of one file and a with: file lists:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// TestProgramFilesBounded: past filesMax files a program's list stops and
// says how many more the JSON report lists; a list the report left out
// for its size budget is counted, and said to be left out.
func TestProgramFilesBounded(t *testing.T) {
	t.Parallel()
	files := map[string]string{"tool/main.py": ""}
	for i := range filesMax + 100 {
		files[fmt.Sprintf("pad/m_%03d.py", i)] = ""
	}
	p, obs := folderProgram(files)
	total := len(files) + 2 // the with: file and the link
	doc := parse(t, renderString(t, reporttest.Single(p, obs), Limits{}))
	prog := programNode(t, doc, "tool")
	rows, _ := fileRows(prog)
	if more := fmt.Sprintf("… and %d more files: the JSON report lists them.", total-filesMax); len(rows) != filesMax || !strings.Contains(text(prog), more) {
		t.Errorf("%d rows, want %d and %q:\n%s", len(rows), filesMax, more, text(prog))
	}

	r := reporttest.WrittenWithin(t, reporttest.SingleInput(p, obs), 16<<10)
	if !r.Programs[0].FilesOmitted {
		t.Fatal("the report kept the list: the test needs it left out")
	}
	prog = programNode(t, parse(t, renderString(t, r, Limits{})), "tool")
	rows, details := fileRows(prog)
	if want := fmt.Sprintf("%d files (list left out of the report for its size budget)", total); len(rows) != 0 || details != 0 || !strings.Contains(text(prog), want) {
		t.Errorf("%d rows, %d details blocks, want none and %q:\n%s", len(rows), details, want, text(prog))
	}
}
