package publish

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// A program whose build failed gets one block in the summary: the build's
// command, exit code and the compiler's stderr, not one block per case.
func TestSummaryFailedBuild(t *testing.T) {
	t.Parallel()
	why := "build failed: exit 1: /program/typo.c:8:25: error: 'totl' undeclared"
	c1 := kase("two", 20, verdict.False, why, nil, "5", "", "")
	c2 := kase("none", 21, verdict.False, why, nil, "0", "", "")
	for _, c := range []*report.Case{&c1, &c2} {
		c.Event.BuildFailure = why
		c.Event.Command = []string{"/build/sum"}
	}
	p := program("sum/typo.c", "solutions/typo.c", 10, c1, c2)
	stderr := "/program/typo.c: In function 'main':\n/program/typo.c:8:25: error: 'totl' undeclared\n"
	p.Build = &report.BuildStage{Event: report.Event{
		ExitCode: intp(1), Stderr: stderr, StderrBytes: int64(len(stderr)),
		Command: []string{"gcc", "-O2", "-o", "/build/sum", "/program/typo.c", "-DGREETING=hello world"},
	}}
	p.DurationMS, p.Build.DurationMS = 300, 1200
	r := finish(report.Report{Spec: "behaves.yml", Programs: []report.Program{p}})
	md := Summary(r, Options{})
	for _, want := range []string{
		"sum/typo.c</code>: all 2 cases false: <code>build failed: exit 1:",
		"| 1.5s (build 1.2s) |", // the time is the build's and the runs', the build's apart
		"- build command: `gcc -O2 -o /build/sum /program/typo.c '-DGREETING=hello world'`", // quoted where a shell would split
		"- build exit code: `1`",
		"/program/typo.c:8:25: error: 'totl' undeclared",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "/ <code>two</code>") {
		t.Errorf("summary has a block per case:\n%s", md)
	}
}

// A folder program's failed build names the repository file its compiler
// message is in (the compiler names it relative to /program), in the
// summary's block as in the annotation.
func TestSummaryFailedBuildNamesFile(t *testing.T) {
	t.Parallel()
	build := failedBuild([]string{"go", "build", "-o", "/build/app", "."}, "# example.com/tool/calc\ncalc/calc.go:7:2: undefined: y\n")
	r := reporttest.RoundTrip(t, reporttest.Single(folderProgram(""), reporttest.FailedBuildRun(build, 1)))
	md := Summary(r, Options{})
	for _, want := range []string{
		"- program folder: `proj`\n- build error in: `proj/calc/calc.go:7:2`\n- build command: `go build -o /build/app .`\n",
		"calc/calc.go:7:2: undefined: y",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	// A build whose output names no file of the program says nothing of one.
	build = failedBuild(build.Command, "go: cannot find main module\n")
	r = reporttest.RoundTrip(t, reporttest.Single(folderProgram(""), reporttest.FailedBuildRun(build, 1)))
	if md := Summary(r, Options{}); strings.Contains(md, "build error in") || !strings.Contains(md, "build command") {
		t.Errorf("summary of a build that names no file:\n%s", md)
	}
}
