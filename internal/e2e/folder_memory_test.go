package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/peakrss"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestFolderProgramsMemory's run: folderPrograms folder programs of
// folderProgramBytes each (two data files of half that), folderCases cases
// each. 480 MiB in all, above the 256 MiB target: a behaves that
// held every program's bytes (as it did until programs became content
// handles: the spec kept them all, and each helper's archive of up to 32
// programs was one buffer) cannot pass it. The full figure, 200
// programs of 20 MiB, is the bench's (go run ./cmd/bench -folders 200,
// docs/performance.md): 4 GiB of disk and 200 containers are too much for
// every test run.
const (
	folderPrograms     = 60
	folderProgramBytes = 8 << 20
	folderCases        = 2
	// folderMemoryTarget is issue 37's: a run of folder programs stays
	// under 256 MiB of peak RSS whatever their count and size.
	folderMemoryTarget = 256 << 20
)

// TestFolderProgramsMemory guards behaves' memory with folder programs,
// through the real path (the behaves binary as a child, the real daemon):
// its peak RSS (VmHWM) stays under the 256 MiB and under
// docs/security.md's formula, which has no term for the programs' bytes;
// each program's files are delivered once, into the one volume all its
// cases mount (the program volumes counted from the daemon's live event
// stream: one per program, not one per case); and every case sees its
// files' exact sizes.
func TestFolderProgramsMemory(t *testing.T) {
	img := testImages(t)
	cl := dockertest.Client(t)
	root := t.TempDir()
	half := folderProgramBytes / 2
	// Pseudo-random bytes, distinct per program (its own seed), so that
	// nothing about them is special.
	block := make([]byte, half)
	for i := range folderPrograms {
		r := rand.New(rand.NewPCG(uint64(i), 37))
		for _, name := range []string{"a", "b"} {
			for k := 0; k < len(block); k += 8 {
				v := r.Uint64()
				for j := 0; j < 8 && k+j < len(block); j++ {
					block[k+j] = byte(v >> (8 * j))
				}
			}
			dir := filepath.Join(root, fmt.Sprintf("p%03d", i), "data")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".bin"), block, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("p%03d", i), "main.sh"), []byte("wc -c < \"/program/data/$1.bin\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specPath := filepath.Join(root, "behaves.yml")
	if err := os.WriteFile(specPath, []byte(fmt.Sprintf(`version: 1
profiles:
  sh: {image: %q, command: ["/bin/sh"]}
programs:
  - name: p
    dirs: "p*"
    entry: main.sh
    profile: sh
    cases:
      - {name: a, args: [a], expect: {stdout: {equals: "%d"}}}
      - {name: b, args: [b], expect: {stdout: {equals: "%d"}}}
`, img.busybox, half, half)), 0o644); err != nil {
		t.Fatal(err)
	}

	runID := randomHex(t)[:16]
	prefix := docker.NamePrefix(runID)
	var mu sync.Mutex
	volumes, started := map[string]bool{}, 0
	stopVolumes := followEvents(t, cl, filters.NewArgs(filters.Arg("type", "volume"), filters.Arg("event", "create")), func(m events.Message) {
		// Volume events carry a volume's name, not its labels; the
		// engine logs a create for each container that mounts it too.
		if strings.HasPrefix(m.Actor.ID, prefix) && strings.HasSuffix(m.Actor.ID, "-program") {
			mu.Lock()
			volumes[m.Actor.ID] = true
			mu.Unlock()
		}
	})
	stopStarts := followEvents(t, cl, filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "start"),
		filters.Arg("label", runner.LabelRunID+"="+runID), filters.Arg("label", runner.LabelRole+"="+docker.RoleProgram)), func(events.Message) {
		mu.Lock()
		started++
		mu.Unlock()
	})

	bin := buildBehaves(t)
	reportPath := filepath.Join(t.TempDir(), "report.json")
	var stdout bytes.Buffer
	var stderr syncBuffer
	cmd := exec.Command(bin, "run", "--spec", specPath, "--report", reportPath, "--run-id", runID)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var peakRSS int64
	err := cmd.Start()
	if err == nil {
		stop, peak := make(chan struct{}), make(chan int64, 1)
		go func() { peak <- peakrss.Poll(cmd.Process.Pid, stop) }()
		err = cmd.Wait()
		close(stop)
		peakRSS = <-peak
	}
	stopVolumes()
	stopStarts()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("running behaves: %v\nstderr:\n%s", err, indent(stderr.String()))
	}
	rep := readReport(t, reportPath, &stderr)
	dockertest.AssertNothingLeft(t, cl, rep.RunID)
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0\n%s\nstderr:\n%s", code, strings.Join(caseReasons(rep), "\n"), indent(stderr.String()))
	}
	if peakRSS == 0 {
		t.Fatal("no VmHWM read for the behaves process")
	}
	cases := 0
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			cases++
			if c.Verdict != verdict.True {
				t.Errorf("%s/%s: %s (%s %s)", p.Name, c.Name, c.Verdict, c.Reason, c.Event.SandboxError)
			}
		}
	}
	if len(rep.Programs) != folderPrograms || cases != folderPrograms*folderCases {
		t.Fatalf("%d programs, %d cases; want %d and %d", len(rep.Programs), cases, folderPrograms, folderPrograms*folderCases)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(volumes) != folderPrograms || started != cases {
		t.Errorf("%d program volumes and %d program containers, want %d (one per program: its files delivered once) and %d (one per case)",
			len(volumes), started, folderPrograms, cases)
	}

	parallel := engine.DefaultParallel(spec.DefaultMemory)
	files := folderPrograms * 3
	bound := engine.MemoryBound(parallel, spec.DefaultOutputLimit, cases) + engine.FilesMemory(files)
	t.Logf("%d folder programs of %d MiB (%d MiB in all), %d cases, parallel %d: peak RSS %.1f MiB (the formula %.1f MiB; the target %d MiB)",
		folderPrograms, folderProgramBytes>>20, folderPrograms*folderProgramBytes>>20, cases, parallel, mib(peakRSS), mib(bound), folderMemoryTarget>>20)
	if peakRSS > bound || peakRSS >= folderMemoryTarget {
		t.Errorf("behaves' peak RSS is %.1f MiB, over the formula's %.1f MiB or the %d MiB target", mib(peakRSS), mib(bound), folderMemoryTarget>>20)
	}
}
