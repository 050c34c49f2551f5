package spec

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// casesSpec returns a valid spec with one program per entry of casesFiles,
// each naming that cases file.
func casesSpec(casesFiles ...string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\nprofiles:\n  sh:\n    image: %s\n    command: [sh]\nprograms:\n", testImage)
	for i, f := range casesFiles {
		fmt.Fprintf(&sb, "  - name: p%d\n    file: main.sh\n    profile: sh\n    cases_file: %s\n", i, f)
	}
	return sb.String()
}

// loadErrors loads path and returns its Errors, failing when it loads.
func loadErrors(t *testing.T, path string, opt Options) Errors {
	t.Helper()
	s, err := Load(path, opt)
	if err == nil {
		t.Fatalf("Load succeeded with %d programs, want errors", len(s.Programs))
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load: %v", err)
	}
	return errs
}

// Outside a git work tree a missing file is named as missing, relative to
// the folder it was written against: the spec's for cases_file, the cases
// file's own for a stdin_file in it.
func TestCasesFileMissingOutsideGit(t *testing.T) {
	t.Parallel()
	dir := plainDir(t)
	write(t, filepath.Join(dir, "main.sh"), "cat\n")
	write(t, filepath.Join(dir, "cases", "c.jsonl"), `{"name": "a", "stdin_file": "in.txt"}`+"\n")
	write(t, filepath.Join(dir, "in.txt"), "in the spec's folder, not the cases file's\n")
	path := filepath.Join(dir, "behaves.yml")
	write(t, path, casesSpec("nowhere.yaml", "cases/c.jsonl"))
	errs := loadErrors(t, path, Options{})
	want := []string{
		filepath.Join(dir, "behaves.yml") + `:10:17: cases_file "nowhere.yaml" does not exist (paths are relative to the spec's folder)`,
		filepath.Join(dir, "cases", "c.jsonl") + `:1:29: stdin_file "in.txt" does not exist (paths are relative to the cases file's folder)`,
	}
	if len(errs) != len(want) {
		t.Fatalf("errors:\n%v\nwant:\n%s", errs, strings.Join(want, "\n"))
	}
	for i := range want {
		if got := errs[i].Error(); got != want[i] {
			t.Errorf("error %d = %s\nwant %s", i, got, want[i])
		}
	}
}

// A stdin_file in a cases file is read from the cases file's folder, and
// every case keeps the cases file (relative to the root) and its position
// there, the position's file given the way the spec's path was.
func TestCasesFilePositionsAndStdin(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "main.sh"), "cat\n")
	write(t, filepath.Join(repo, "tests", "in.txt"), "from the cases folder\n")
	write(t, filepath.Join(repo, "in.txt"), "from the spec's folder\n")
	write(t, filepath.Join(repo, "tests", "c.yaml"), "- name: a\n  stdin_file: in.txt\n")
	write(t, filepath.Join(repo, "tests", "c.jsonl"), "\n\n   {\"name\": \"é\", \"stdin_file\": \"in.txt\"}\n")
	write(t, filepath.Join(repo, "behaves.yml"), casesSpec("tests/c.yaml", "tests/c.jsonl")+
		"  - name: inline\n    file: main.sh\n    profile: sh\n    cases:\n      - name: b\n        stdin_file: in.txt\n")
	track(t, repo)
	// The spec's path relative to the working directory is not under
	// test's control; an absolute one shows the join.
	s, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		file  string
		pos   Pos
		stdin string
		sfile string
	}
	want := []got{
		{"tests/c.yaml", Pos{File: filepath.Join(repo, "tests", "c.yaml"), Line: 1, Col: 3}, "from the cases folder\n", "tests/in.txt"},
		{"tests/c.jsonl", Pos{File: filepath.Join(repo, "tests", "c.jsonl"), Line: 3, Col: 4}, "from the cases folder\n", "tests/in.txt"},
		{"", Pos{File: filepath.Join(repo, "behaves.yml"), Line: 19, Col: 9}, "from the spec's folder\n", "in.txt"},
	}
	if len(s.Programs) != len(want) {
		t.Fatalf("%d programs, want %d", len(s.Programs), len(want))
	}
	for i, w := range want {
		c := s.Programs[i].Cases[0]
		if g := (got{c.File, c.Pos, string(c.Invocation.Stdin), c.StdinFile}); g != w {
			t.Errorf("program %d case: %+v, want %+v", i, g, w)
		}
	}
}

// Columns in a JSON line count characters, as yaml.v3's do, and every
// value gets its own.
func TestJSONLineColumns(t *testing.T) {
	t.Parallel()
	n, err := jsonLine([]byte(` {"é": "ü", "k": [1, 2.5, true, null, {}]}`), 7)
	if err != nil {
		t.Fatal(err)
	}
	type at struct {
		tag       string
		line, col int
	}
	var got []at
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		got = append(got, at{n.ShortTag(), n.Line, n.Column})
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	want := []at{
		{"!!map", 7, 2}, {"!!str", 7, 3}, {"!!str", 7, 8}, {"!!str", 7, 13},
		{"!!seq", 7, 18}, {"!!int", 7, 19}, {"!!float", 7, 22}, {"!!bool", 7, 27}, {"!!null", 7, 33}, {"!!map", 7, 39},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("nodes:\n%v\nwant\n%v", got, want)
	}
	var v int64
	if err := n.Content[3].Content[0].Decode(&v); err != nil || v != 1 {
		t.Errorf("the number decodes to %d, %v", v, err)
	}
	for _, tt := range []struct {
		in  string
		col int
	}{
		{`{"a": 1,}`, 9},
		{`{"a" 1}`, 6},
		{`{"a": [1, 2}`, 12},
		{`{"a": "b"`, 10},
		{`{} {}`, 4},
		{`{"a": tru}`, 7}, // the literal's start
	} {
		_, err := jsonLine([]byte(tt.in), 1)
		var je *jsonError
		if !errors.As(err, &je) {
			t.Errorf("jsonLine(%s) = %v, want a jsonError", tt.in, err)
		} else if je.col != tt.col {
			t.Errorf("jsonLine(%s): %q at col %d, want col %d", tt.in, je.msg, je.col, tt.col)
		}
	}
}

// A cases file is capped like every file a spec names.
func TestCasesFileCapped(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "main.sh"), "cat\n")
	sparse(t, filepath.Join(repo, "big.jsonl"), 2<<10)
	write(t, filepath.Join(repo, "behaves.yml"), casesSpec("big.jsonl"))
	track(t, repo)
	errs := loadErrors(t, filepath.Join(repo, "behaves.yml"), Options{MaxFileSize: 1 << 10})
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, `cases_file "big.jsonl" is 2048 bytes, above the 1KiB cap for the files a spec names`) {
		t.Errorf("errors: %v", errs)
	}
}

// 10,000 cases from one JSON Lines file load (no timing is asserted: the
// benchmark measures), each with its own line, and a files glob sharing
// the file parses it once: the programs share the cases' stdin bytes.
func TestCasesFileTenThousand(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	const n = 10000
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `{"name": "case %d", "args": ["%d"], "stdin": "%d\n", "expect": {"stdout": {"equals": "%d"}}}`+"\n", i, i, i, i*2)
	}
	write(t, filepath.Join(repo, "cases.jsonl"), sb.String())
	write(t, filepath.Join(repo, "main.sh"), "cat\n")
	write(t, filepath.Join(repo, "behaves.yml"), casesSpec("cases.jsonl"))
	track(t, repo)
	s, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := s.Programs[0].Cases
	if len(cases) != n {
		t.Fatalf("%d cases, want %d", len(cases), n)
	}
	last := cases[n-1]
	if last.Name != "case 9999" || last.Pos.Line != n || last.File != "cases.jsonl" ||
		string(last.Invocation.Stdin) != "9999\n" || last.Expect.Stdout.Value != "19998" {
		t.Errorf("last case: %+v", last)
	}
	// One more program on the same file is 20,000 invocations: above the
	// default --max-cases.
	write(t, filepath.Join(repo, "two.yml"), casesSpec("cases.jsonl", "cases.jsonl"))
	track(t, repo)
	errs := loadErrors(t, filepath.Join(repo, "two.yml"), Options{})
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, "20000 invocations") {
		t.Errorf("errors: %v", errs)
	}
}

// A cases file named by several entries is parsed once: its cases'
// bytes are shared, and its problems are reported once.
func TestCasesFileSharedParsedOnce(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "main.sh"), "cat\n")
	write(t, filepath.Join(repo, "c.jsonl"), `{"name": "a", "stdin": "x"}`+"\n")
	write(t, filepath.Join(repo, "bad.jsonl"), `{"name": "a", "stdn": "x"}`+"\n")
	write(t, filepath.Join(repo, "behaves.yml"), casesSpec("c.jsonl", "./c.jsonl", "c.jsonl"))
	write(t, filepath.Join(repo, "bad.yml"), casesSpec("bad.jsonl", "bad.jsonl"))
	track(t, repo)
	s, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := &s.Programs[0].Cases[0].Invocation.Stdin[0]
	for _, p := range s.Programs[1:] {
		if &p.Cases[0].Invocation.Stdin[0] != first {
			t.Errorf("program %s has its own copy of the cases file's stdin", p.Name)
		}
	}
	if errs := loadErrors(t, filepath.Join(repo, "bad.yml"), Options{}); len(errs) != 1 {
		t.Errorf("want the unknown key once, got:\n%v", errs)
	}
}

// A cases file of many bad lines gives a bounded list of problems, and
// one of more cases than --max-cases allows is refused without parsing
// the rest.
func TestCasesFileBounded(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "main.sh"), "cat\n")
	write(t, filepath.Join(repo, "junk.jsonl"), strings.Repeat("not json\n", 1000))
	write(t, filepath.Join(repo, "keys.jsonl"), strings.Repeat(`{"name": "same", "argz": []}`+"\n", 1000))
	var sb strings.Builder
	for i := range 7 {
		fmt.Fprintf(&sb, `{"name": "c%d"}`+"\n", i)
	}
	write(t, filepath.Join(repo, "seven.jsonl"), sb.String())
	write(t, filepath.Join(repo, "junk.yml"), casesSpec("junk.jsonl"))
	write(t, filepath.Join(repo, "keys.yml"), casesSpec("keys.jsonl"))
	write(t, filepath.Join(repo, "seven.yml"), casesSpec("seven.jsonl"))
	track(t, repo)
	for _, name := range []string{"junk.yml", "keys.yml"} {
		errs := loadErrors(t, filepath.Join(repo, name), Options{})
		if len(errs) != maxCasesFileProblems+1 || !strings.Contains(errs[len(errs)-1].Msg, "more problems than the 100 shown") {
			t.Errorf("%s: %d errors, the last %v", name, len(errs), errs[len(errs)-1])
		}
		if errs[0].Pos.Line != 1 || errs[maxCasesFileProblems-1].Pos.Line > maxCasesFileProblems {
			t.Errorf("%s: not the first problems: %v … %v", name, errs[0], errs[maxCasesFileProblems-1])
		}
	}
	errs := loadErrors(t, filepath.Join(repo, "seven.yml"), Options{Ceilings: Ceilings{MaxCases: 5}})
	if len(errs) != 1 || errs[0].Pos.Line != 6 || !strings.Contains(errs[0].Msg, "more than 5 cases, above --max-cases 5") {
		t.Errorf("errors: %v", errs)
	}
}
