package docker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
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
		return runner.Program{Entry: "prog.sh", Files: runner.FilesOf(map[string][]byte{"prog.sh": []byte(listing), "lib/marker": []byte(marker)})}
	}
	pyProf := runner.Profile{
		Name: "python", Image: python, Command: []string{"python3", "-I"}, ProgramName: "main.py",
		Timeout: 20 * time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20,
		User: "65534:65534",
	}
	missing := shProfile("sha256:" + strings.Repeat("0", 64))
	batch := []runner.Request{
		{Program: shProg("one"), Profile: shProfile(busybox)},
		{Program: runner.Program{Entry: "p.py", Files: runner.FilesOf(map[string][]byte{"p.py": []byte("import os\nprint(sorted(os.listdir('/program')))\n")})}, Profile: pyProf},
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

// TestIntegrationPrepareChangedFile delivers a batch of three programs
// read from disk (content handles), the middle one's file rewritten after
// it was read (the same size, other bytes), through the real engine.
// Guards the streamed delivery's check: the changed program fails alone,
// with an error naming its file; the copy it was part of is abandoned (the
// first program's 2 MiB were already streamed) and the other two are
// delivered again, each with exactly the bytes recorded; the engine is not
// taken for lost, and nothing is left.
func TestIntegrationPrepareChangedFile(t *testing.T) {
	t.Parallel()
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	sb := newTestSandbox(t)
	dir := t.TempDir()
	// Each program prints the SHA-256 of its data file.
	script := runner.BytesFile([]byte("sha256sum /program/data.bin | cut -d' ' -f1\n"))
	progs := make([]runner.Program, 3)
	for i, size := range []int{2 << 20, 1 << 20, 1 << 20} {
		path := filepath.Join(dir, fmt.Sprintf("data%d.bin", i))
		data := bytes.Repeat([]byte{byte('a' + i)}, size)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := runner.ReadFile(path, fmt.Sprintf("tool%d/data.bin", i), fi, 16<<20)
		if err != nil {
			t.Fatal(err)
		}
		progs[i] = runner.Program{Entry: "main.sh", Files: map[string]runner.File{"main.sh": script, "data.bin": f}}
	}
	// Rewritten in place: the same inode and size, one byte differs.
	changed, err := os.OpenFile(filepath.Join(dir, "data1.bin"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changed.WriteAt([]byte("!"), 1000); err != nil {
		t.Fatal(err)
	}
	changed.Close()

	batch := make([]runner.Request, len(progs))
	for i, p := range progs {
		batch[i] = runner.Request{Program: p, Profile: shProfile(busybox)}
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
	if err := res[1].Err; err == nil || res[1].Attempt != nil ||
		!strings.Contains(err.Error(), "tool1/data.bin changed on disk after behaves read it") ||
		!strings.Contains(err.Error(), "/program/data.bin") {
		t.Errorf("the changed program: %+v, want an error naming tool1/data.bin and /program/data.bin", res[1])
	}
	t.Logf("the changed program's error: %v", res[1].Err)
	for _, i := range []int{0, 2} {
		if res[i].Err != nil {
			t.Fatalf("program %d: %v", i, res[i].Err)
		}
		ev := runOK(t, res[i].Attempt, runner.Invocation{})
		if got, want := strings.TrimSpace(string(ev.Stdout.Data)), progs[i].Files["data.bin"].SHA256; exitCode(ev) != "0" || got != want {
			t.Errorf("program %d's data.bin has sha256 %q (exit %s, stderr %q), want the recorded %s", i, got, exitCode(ev), ev.Stderr.Data, want)
		}
	}
	if err := sb.lostErr(); err != nil {
		t.Errorf("the sandbox took the abandoned copy for the engine's loss: %v", err)
	}
}
