package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/reportwrite"
)

// TestPassAtSamples runs a files: entry of five samples on the real daemon
// (two true, two false, one undetermined: its output was cut at
// output_limit before the text a contains check looks for) and checks the
// report's group, its pass@k over the four determined samples (the
// undetermined one left out, never counted as a failure), the reason of a
// k beyond them, and the terminal's table; and that the report reads back
// (reportread.Read recomputes the group).
func TestPassAtSamples(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %q
    command: ["/bin/sh"]
    timeout: 20s
    output_limit: 1KiB
programs:
  - name: double
    files: "samples/*.sh"
    profile: sh
    cases:
      - {name: two, args: ["2"], expect: {stdout: {contains: "4"}}}
`, img.busybox)
	files := map[string]string{
		"samples/a_right.sh": "echo $(($1 * 2))\n",
		"samples/b_right.sh": "echo $(($1 + $1))\n",
		"samples/c_wrong.sh": "echo $(($1 * $1 * $1))\n",
		"samples/d_wrong.sh": "echo $1\n",
		// More than output_limit before its answer: "4" is not in the
		// kept part, and may be in the rest, which was not kept.
		"samples/e_flood.sh": "head -c 4096 /dev/zero | tr '\\0' x\necho 4\n",
	}
	o := runBehaves(t, context.Background(), spec, files, "--pass-at", "5,1,2")
	if o.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", o.code, indent(o.stderr))
	}
	if len(o.report.Groups) != 1 {
		t.Fatalf("groups %+v, want one", o.report.Groups)
	}
	g := o.report.Groups[0]
	if g.Name != "double" || g.N != 5 || g.True != 2 || g.False != 2 || g.Undetermined != 1 {
		t.Errorf("group %+v, want double: n 5, true 2, false 2, undetermined 1\nstdout:\n%s", g, indent(o.stdout))
	}
	// Over n = 4 determined samples, c = 2: pass@1 = 0.5, pass@2 = 1 −
	// C(2,2)/C(4,2) = 5/6; k = 5 is more than 4.
	want := map[string]string{"1": "0.5", "2": "0.8333", "5": "null"}
	for k, w := range want {
		v, ok := g.PassAt[k]
		got := "null"
		if v != nil {
			got = fmt.Sprint(*v)
		}
		if !ok || got != w {
			t.Errorf("pass@%s = %s (present %v), want %s", k, got, ok, w)
		}
	}
	if r := g.PassAtReasons["5"]; !strings.Contains(r, "k = 5 exceeds the number of determined samples, 4 (1 of 5 undetermined)") {
		t.Errorf("pass@5 reason %q", r)
	}
	for _, p := range o.report.Programs {
		if p.Group != "double" {
			t.Errorf("program %s: group %q, want double", p.Name, p.Group)
		}
	}
	if !strings.Contains(o.stdout, "pass@1 0.5 · pass@2 0.8333 · pass@5 n/a · over 4 determined samples (1 undetermined left out)") {
		t.Errorf("the terminal does not show pass@k:\n%s", indent(o.stdout))
	}
	// The report's groups fold from its programs, so it reads back.
	path := filepath.Join(t.TempDir(), "r.json")
	if err := reportwrite.WriteJSON(path, o.report); err != nil {
		t.Fatal(err)
	}
	if _, err := readWritten(t, path, 1<<30); err != nil {
		t.Errorf("the run's report does not read back: %v", err)
	}
	_ = os.Remove(path)
}
