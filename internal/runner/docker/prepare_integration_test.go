package docker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// TestIntegrationPrepareBatch delivers one batch of programs of two images,
// with one program whose image is missing in the middle, through the real
// engine. Guards the batch delivery (one helper per image, one copy, volume
// k at helperDir/k): each program sees exactly its own files under
// /program, read-only, owned by root, and nothing of the others; the
// missing image fails that program only.
func TestIntegrationPrepareBatch(t *testing.T) {
	t.Parallel()
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	python := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	sb := newTestSandbox(t)

	// Every shell program lists /program with modes and owners and prints
	// its own marker file; the python one does the same.
	listing := "cd /program && find . | sort | while read -r f; do stat -c '%A %u %n' \"$f\"; done; cat /program/lib/marker\n"
	shProg := func(marker string) runner.Program {
		return runner.Program{Entry: "prog.sh", Files: map[string][]byte{"prog.sh": []byte(listing), "lib/marker": []byte(marker)}}
	}
	pyProf := runner.Profile{
		Name: "python", Image: python, Command: []string{"python3", "-I"}, ProgramName: "main.py",
		Timeout: 20 * time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20,
		User: "65534:65534",
	}
	missing := shProfile("sha256:" + strings.Repeat("0", 64))
	batch := []runner.Request{
		{Program: shProg("one"), Profile: shProfile(busybox)},
		{Program: runner.Program{Entry: "p.py", Files: map[string][]byte{"p.py": []byte("import os\nprint(sorted(os.listdir('/program')))\n")}}, Profile: pyProf},
		{Program: shProg("lost"), Profile: missing},
		{Program: shProg("three"), Profile: shProfile(busybox)},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res := sb.Prepare(ctx, batch)
	for _, r := range res {
		if r.Attempt != nil {
			t.Cleanup(func() {
				if err := r.Attempt.Close(context.Background()); err != nil {
					t.Errorf("closing an attempt: %v", err)
				}
			})
		}
	}
	if len(res) != len(batch) {
		t.Fatalf("%d results for %d requests", len(res), len(batch))
	}
	if res[2].Err == nil || !strings.Contains(res[2].Err.Error(), "image not present") || res[2].Attempt != nil {
		t.Errorf("program with a missing image: %+v", res[2])
	}
	for _, i := range []int{0, 1, 3} {
		if res[i].Err != nil {
			t.Fatalf("program %d: %v", i, res[i].Err)
		}
	}

	wantSh := func(marker string) string {
		return "drwxr-xr-x 0 .\n" + // the volume's root, as the engine made it
			"dr-xr-xr-x 0 ./lib\n" +
			"-r--r--r-- 0 ./lib/marker\n" +
			"-r--r--r-- 0 ./main.sh\n" + marker
	}
	for i, want := range map[int]string{0: wantSh("one"), 3: wantSh("three"), 1: "['main.py']\n"} {
		ev := runOK(t, res[i].Attempt, runner.Invocation{})
		if exitCode(ev) != "0" || string(ev.Stdout.Data) != want {
			t.Errorf("program %d sees:\n%s\nstderr %q\nwant:\n%s", i, ev.Stdout.Data, ev.Stderr.Data, want)
		}
	}
}
