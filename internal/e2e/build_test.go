package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// buildSpec is a spec whose profiles compile C with the gcc test image
// (scripts/images.sh) once per program and run the result per case.
func buildSpec(gcc, missing string) string {
	return fmt.Sprintf(`version: 1
profiles:
  c:
    image: %[1]q
    command: ["/build/main"]
    timeout: 10s
    memory: 64MiB
    build:
      command: ["gcc", "-O2", "-o", "/build/main"]
      timeout: 120s
      memory: 512MiB
  c-small:
    image: %[1]q
    command: ["/build/main"]
    build:
      command: ["gcc", "-o", "/build/main"]
      timeout: 120s
      memory: 512MiB
      output_size: 1MiB
  c-placeholder:
    image: %[1]q
    command: ["/build/main"]
    build:
      # {program} puts the source before a flag that must follow it.
      command: ["gcc", "-o", "/build/main", "{program}", "-lm"]
      timeout: 120s
      memory: 512MiB
  c-slow:
    image: %[1]q
    command: ["/build/main"]
    build:
      command: ["sh", "-c", "sleep 60"]
      timeout: 2s
  c-missing:
    image: %[1]q
    command: ["/build/main"]
    build:
      image: %[2]q
      command: ["gcc", "-o", "/build/main"]
programs:
  - name: sum
    file: sum.c
    profile: c
    cases:
      - {name: two, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
      - {name: three, args: ["1", "2", "3"], expect: {stdout: {equals: "6"}}}
      - {name: none, expect: {stdout: {equals: "0"}}}
      - name: reads /build
        args: ["--list"]
        expect: {stdout: {contains: "main"}}
  - name: broken
    file: broken.c
    profile: c
    cases:
      - {name: two, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
      - {name: none, expect: {stdout: {equals: "0"}}}
  - name: bomb
    file: bomb.c
    profile: c-small
    cases:
      - {name: runs, expect: {stdout: {equals: "ok"}}}
  - name: placed
    file: sum.c
    profile: c-placeholder
    cases:
      - {name: two, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
  - name: slow
    file: sum.c
    profile: c-slow
    cases:
      - {name: two, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
  - name: missing
    file: sum.c
    profile: c-missing
    cases:
      - {name: two, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
`, gcc, missing)
}

// buildFiles are the C programs of buildSpec. bomb.c is a program whose
// compilation (an 8 MiB initialised array: the object and the binary hold
// it) leaves more in /build than the profile's output_size of 1 MiB.
var buildFiles = map[string]string{
	"sum.c": `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
int main(int argc, char **argv) {
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		DIR *d = opendir("/build");
		struct dirent *e;
		if (!d) return 3;
		while ((e = readdir(d))) puts(e->d_name);
		return 0;
	}
	long s = 0;
	for (int i = 1; i < argc; i++) s += atol(argv[i]);
	printf("%ld\n", s);
	return 0;
}
`,
	"broken.c": `#include <stdio.h>
int main(void) {
	printf("%d\n", undeclared_total);
	return 0;
}
`,
	"bomb.c": `#include <stdio.h>
static char big[8 << 20] = {1};
int main(void) { puts(big[0] ? "ok" : "no"); return 0; }
`,
}

// TestBuildStage compiles C once per program and runs it per case, on the
// real daemon: a correct program is true in every case, a compile error
// makes every case false with gcc's message, a build past output_size is
// false by the build_output limit, a build that times out is false, a
// missing build image is undetermined; and nothing is left on the daemon.
// A rerun with --reuse of the report makes only the timed-out build's
// containers. (That the build runs once per attempt is the scheduler's
// test.)
func TestBuildStage(t *testing.T) {
	t.Parallel()
	gcc := dockertest.Image(t, "BEHAVES_IMAGE_GCC")
	missing := "sha256:" + strings.Repeat("0", 63) + "2"
	o := runBehaves(t, context.Background(), buildSpec(gcc, missing), buildFiles, "--parallel", "2")
	if o.code != 1 {
		t.Errorf("exit %d, want 1 (programs false)\nstderr:\n%s", o.code, indent(o.stderr))
	}

	sum := o.program(t, "sum")
	if sum.Verdict != verdict.True {
		t.Errorf("sum: %s (%s), want true; build: %+v", sum.Verdict, sum.Reason, sum.Build)
	}
	if b := sum.Build; b == nil {
		t.Fatal("sum: no build object in the report")
	} else {
		if b.ExitCode == nil || *b.ExitCode != 0 || b.SandboxError != "" || b.TimedOut || b.ResourceLimit != "" {
			t.Errorf("sum build: %+v, want exit 0", *b)
		}
		if want := []string{"gcc", "-O2", "-o", "/build/main", "/program/sum.c"}; strings.Join(b.Command, " ") != strings.Join(want, " ") {
			t.Errorf("sum build command %q, want %q", b.Command, want)
		}
		if b.ImageDigest != gcc {
			t.Errorf("sum build image_digest %q, want %q", b.ImageDigest, gcc)
		}
		if b.Limits.MemoryBytes != 512<<20 || b.Limits.TimeoutMS != 120000 || b.Limits.FileSize != 64<<20 {
			t.Errorf("sum build limits %+v, want 512MiB, 120s and fsize 64MiB", b.Limits)
		}
		// /build holds the binary gcc wrote: some kilobytes, within
		// output_size.
		if b.OutputBytes == nil || *b.OutputBytes < 1000 || *b.OutputBytes > b.OutputSize {
			t.Errorf("sum build output_bytes %v, want the binary's size, at most output_size %d", b.OutputBytes, b.OutputSize)
		}
	}
	for _, c := range sum.Cases {
		if got := strings.Join(c.Event.Command, " "); !strings.HasPrefix(got, "/build/main") || strings.Contains(got, "/program/") {
			t.Errorf("sum/%s ran %q, want /build/main and the args only", c.Name, got)
		}
	}

	broken := o.program(t, "broken")
	if broken.Verdict != verdict.False {
		t.Errorf("broken: %s (%s), want false", broken.Verdict, broken.Reason)
	}
	if broken.Build == nil || broken.Build.ExitCode == nil || *broken.Build.ExitCode == 0 {
		t.Fatalf("broken: build %+v, want a failed build", broken.Build)
	}
	if !strings.Contains(broken.Build.Stderr, "undeclared_total") {
		t.Errorf("broken: the build's stderr %q lacks gcc's message", broken.Build.Stderr)
	}
	for _, c := range broken.Cases {
		if c.Verdict != verdict.False || !strings.HasPrefix(c.Reason, "build failed: exit 1: ") || !strings.Contains(c.Reason, "error") || !strings.Contains(c.Reason, "undeclared_total") {
			t.Errorf("broken/%s: %s (%q), want false with the compiler's first error line", c.Name, c.Verdict, c.Reason)
		}
		if c.Event.BuildFailure == "" || c.Event.ExitCode != nil {
			t.Errorf("broken/%s: event %+v, want a build failure and no run", c.Name, c.Event)
		}
	}

	bomb := o.program(t, "bomb")
	if bomb.Verdict != verdict.False || bomb.Build == nil || bomb.Build.ResourceLimit != runner.LimitBuildOutput {
		t.Errorf("bomb: %s (%s), build %+v, want false by build_output", bomb.Verdict, bomb.Reason, bomb.Build)
	}
	if c := bomb.Cases[0]; !strings.Contains(c.Reason, "output_size") {
		t.Errorf("bomb/%s: reason %q, want the output_size", c.Name, c.Reason)
	}
	if b := bomb.Build; b != nil && (b.OutputBytes == nil || *b.OutputBytes <= 1<<20) {
		t.Errorf("bomb build output_bytes %v, want more than output_size (1 MiB)", b.OutputBytes)
	}

	placed := o.program(t, "placed")
	if placed.Verdict != verdict.True {
		t.Errorf("placed: %s (%s), want true; build: %+v", placed.Verdict, placed.Reason, placed.Build)
	}
	if b := placed.Build; b == nil {
		t.Error("placed: no build object in the report")
	} else if want := "gcc -o /build/main /program/sum.c -lm"; strings.Join(b.Command, " ") != want {
		t.Errorf("placed build command %q, want %q", b.Command, want)
	}

	slow := o.program(t, "slow")
	if slow.Verdict != verdict.False || slow.Reason != "build failed: timed out after 2s" || slow.Build == nil || !slow.Build.TimedOut {
		t.Errorf("slow: %s (%q), build %+v; want false, timed out after 2s", slow.Verdict, slow.Reason, slow.Build)
	}

	miss := o.program(t, "missing")
	if miss.Verdict != verdict.Undetermined || !strings.Contains(miss.Reason, "image") {
		t.Errorf("missing: %s (%s), want undetermined naming the image", miss.Verdict, miss.Reason)
	}
	if miss.Build == nil || miss.Build.SandboxError == "" {
		t.Errorf("missing: build %+v, want its sandbox_error", miss.Build)
	} else if miss.Build.OutputBytes != nil {
		t.Errorf("missing: build output_bytes %d, want null (nothing was built)", *miss.Build.OutputBytes)
	}

	// The report reads back: its build objects pass reportread.Read.
	var buf bytes.Buffer
	if err := report.Encode(&buf, o.report); err != nil {
		t.Fatal(err)
	}
	if _, err := reportread.Read(&buf, 64<<20); err != nil {
		t.Errorf("reportread.Read: %v", err)
	}

	// Run again with --reuse of that report: what compiled and ran, and
	// what failed to compile or passed output_size, is answered without a
	// container; the build that timed out builds again (its time is the
	// machine's), and the missing image's undetermined case runs again.
	again := reuseRun(t, dockertest.Client(t), buildSpec(gcc, missing), buildFiles, saveReport(t, o))
	for _, p := range again.report.Programs {
		for _, c := range p.Cases {
			switch p.Name {
			case "slow", "missing":
				if c.ReusedFrom != nil || c.NotReused == nil {
					t.Errorf("rerun %s/%s: reused %v, want it run again", p.Name, c.Name, c.ReusedFrom)
				}
			default:
				if c.ReusedFrom == nil || c.ReusedFrom.RunID != o.report.RunID {
					t.Errorf("rerun %s/%s: not reused (%+v), want it from run %s", p.Name, c.Name, c.NotReused, o.report.RunID)
				}
			}
		}
	}
	if c := again.program(t, "slow").Cases[0]; c.NotReused != nil && c.NotReused.Reason != "timed out" {
		t.Errorf("rerun slow: ran for %q, want timed out", c.NotReused.Reason)
	}
	if got, want := caseVerdicts(again.report), caseVerdicts(o.report); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rerun verdicts %v, want the first run's %v", got, want)
	}
	// slow's alone: the helper that delivers its file and its build.
	if again.containers != 2 {
		t.Errorf("the rerun created %d containers, want 2 (slow's delivery and build)", again.containers)
	}
}

// TestBuildInterrupted interrupts a run while its build container runs:
// the build and its cases are undetermined (never false), and neither the
// container nor the program and build volumes are left on the daemon.
func TestBuildInterrupted(t *testing.T) {
	t.Parallel()
	gcc := dockertest.Image(t, "BEHAVES_IMAGE_GCC")
	cl := dockertest.Client(t)
	runID := randomHex(t)[:16]
	spec := fmt.Sprintf(`version: 1
profiles:
  slow:
    image: %q
    command: ["/build/main"]
    build:
      command: ["sh", "-c", "sleep 60"]
      timeout: 120s
programs:
  - name: slow
    file: main.c
    profile: slow
    cases: [{name: one}, {name: two}]
`, gcc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan outcome, 1)
	go func() {
		done <- runSpec(t, ctx, spec, map[string]string{"main.c": "int main(void) { return 0; }\n"}, "--run-id", runID)
	}()

	f := filters.NewArgs(
		filters.Arg("label", labelRunID+"="+runID),
		filters.Arg("label", labelRole+"=build"),
		filters.Arg("status", "running"),
	)
	deadline := time.Now().Add(time.Minute)
	for {
		lctx, lcancel := context.WithTimeout(context.Background(), 10*time.Second)
		cs, err := cl.ContainerList(lctx, container.ListOptions{Filters: f})
		lcancel()
		if err != nil {
			t.Fatalf("listing containers: %v", err)
		}
		if len(cs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatal("no build container running after a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The build volume exists while the build runs.
	_, volumes := dockertest.Leftovers(t, cl, runID)
	if len(volumes) != 2 {
		t.Errorf("volumes during the build: %q, want the program's and the build's", volumes)
	}
	cancel()
	o := <-done
	dockertest.AssertNothingLeft(t, cl, runID)
	p := o.program(t, "slow")
	if p.Verdict != verdict.Undetermined || p.Build == nil || p.Build.SandboxError == "" {
		t.Errorf("slow: %s (%s), build %+v; want undetermined with the build's sandbox error", p.Verdict, p.Reason, p.Build)
	}
	if o.code != 4 {
		t.Errorf("exit %d, want 4 (interrupted)", o.code)
	}
}
