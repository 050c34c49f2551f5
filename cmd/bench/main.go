// Command bench measures behaves against the alternatives a user has and
// against the engine's own floor, side by side on one machine, so that
// what behaves adds is a ratio to what a user would otherwise write and to
// what no runner can avoid, held to the targets of docs/performance.md:
//
//  1. `behaves run` (the real binary, built into a temporary folder and run
//     as a separate process) on generated suites of N/10 programs × 10
//     cases (20 × 10, and the scaling sizes 60, 100 and 400) at
//     parallelism 2 (-parallel), and on 200 programs × 1 case, where
//     program delivery is paid on every case;
//  2. the same invocations as a sequential `docker run --rm -i` loop with
//     the same hardening flags, on the sample, per invocation;
//  3. the floor: the same invocations, images and container settings
//     through the bare Engine API lifecycle (create, attach, start, wait,
//     inspect, remove, nothing else) with the program volumes already
//     filled, run by behaves' own sandbox (docker.Floor: its delivery,
//     container settings and Attempt.Run, without the OOM-event
//     subscription), on the sample,
//     at the suites' parallelism and at 1. The floor of the targets skips
//     the engine's network sandbox (Config.NetworkDisabled, no DNS); the
//     old floor sets it up (NetworkDisabled false, DNS 127.0.0.1), as
//     behaves did before it skipped the sandbox (network_files: none, the
//     default). Both set these fields themselves, so
//     they measure the same whatever behaves' configuration says;
//  4. `behaves run --parallel 1` on the sample, against (3) at parallelism 1;
//  5. scaling: the wall time of 60, 100, 200 and 400 invocations, each
//     also against the floor, and 400 against 200;
//  6. the peak RSS of a behaves process while one program writes 256 MiB,
//     then 1 GiB, to stdout with its output ceiling above that, so all of
//     it is drained;
//  7. the memory scenario of 10,000 invocations (-memory N, a run of its
//     own), included from its -json file with -memory-from;
//  8. a Python evaluation-style suite: 100 programs of one case each, each
//     defining a function and asserting on it, against the floor of such
//     programs (measured on -eval-sample of them).
//
// -folders N (a run of its own) measures folder programs: behaves' peak
// RSS over N folder programs of -folder-size each, and a folder program of
// -folder-files files: its delivery and its cost per case against a
// single-file program's.
//
// Beside them: the parallelism table (behaves and the floor on the sample
// at 1, 2, 3 and 4), the floor's phases, program delivery, and what each
// setting costs: the floor at parallelism 1 with Init, the tmpfs mounts,
// the IPC namespace (or only its /dev/shm) or the program volume switched
// off, or with the network sandbox or behaves' OOM-event subscription
// added, in the bench's floor only (a floor.Variant, which no flag,
// input or spec field of behaves reaches).
//
// The scenarios and their results are package internal/bench; this
// command holds the flags.
//
// The programs are trivial and half of each kind: busybox sh reading a line
// and echoing it, python3 printing its argument. The sample (60
// invocations: 6 programs × 10 cases of the suite) is shared by (2), (3)
// and (4); the floor of a whole suite is the floor's wall time per
// invocation at the same parallelism × the suite's invocations (the
// lifecycle does not depend on which filled volume is mounted).
//
// Repetitions: -reps (3) of the figures whose targets are tight (the
// floors, the suites, the scaling points, the one-case and eval suites,
// --parallel 1 with the floors at 1), each floor next to the runs compared
// with it (the floors at the suites' parallelism before and after them),
// in ABBA order, so that a drift of a shared machine's load shifts both
// sides of a ratio alike; ratios are taken per repetition, and the median and min–max
// printed. -long-reps (1) of the rest: the docker run loop, the
// parallelism table, the cost of each setting, the floods. At the figures
// measured so far (about 0.1–0.2 s a container lifecycle at parallelism 2,
// 2 cores; docs/performance.md) that is about 20 minutes; a daemon shared
// with other work makes it slower and the figures noisier.
//
// The figures are printed as a table with their targets (PASS/MISS,
// and each floor ratio also against the old floor) and written as JSON
// with -json. Timings are not tests: the exit code is 0 whenever the
// benchmark completed, whatever the figures; 1 when it could not measure;
// 2 for a usage error.
//
//	go run ./cmd/bench -memory 10000 -json memory.json   # (7), about 30 minutes
//	go run ./cmd/bench -memory-from memory.json -json bench.json [-reps 3] [flags]
//	go run ./cmd/bench -folders 200 -json folders.json   # folder programs: memory, delivery, per case
//	go run ./cmd/bench -kube /tmp/behaves-k8s/kubeconfig -json kube.json # the Kubernetes backend against Docker
//	go run ./cmd/bench -short                            # CI: every figure, tiny
//	go run ./cmd/bench -from bench.json                  # the table of an earlier run
//
// It needs the Docker daemon, the docker CLI, Go (to build behaves) and the
// local images of scripts/images.sh (BEHAVES_IMAGE_BUSYBOX and
// BEHAVES_IMAGE_PYTHON, from the environment or the env file the script
// writes). Everything it creates carries the label behaves.run-id (the
// bench's own run ID, or behaves' for behaves' runs) and is removed at the
// end, also after an interruption.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/behaves-dev/behaves/internal/bench"
	"github.com/behaves-dev/behaves/internal/spec"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := realMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// realMain parses the flags, runs the benchmark, prints the table and
// writes the JSON. It returns the exit code.
func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	if cfg.From != "" {
		res, err := bench.ReadJSON(cfg.From)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		res.Print(stdout)
		return 0
	}
	// The scenarios that are runs of their own: the first one asked for
	// runs, and its result is written as JSON with -json.
	for _, sc := range []struct {
		asked bool
		run   func() (write func(path string) error, err error)
	}{
		{cfg.Kube != "", func() (func(string) error, error) {
			res, err := bench.Kube(ctx, cfg, cfg.Kube, cfg.KubePrograms, cfg.KubeCases, stdout, stderr)
			return func(p string) error { return bench.WriteKubeJSON(p, res) }, err
		}},
		{cfg.Folders > 0, func() (func(string) error, error) {
			res, err := bench.Folders(ctx, cfg, cfg.Folders, cfg.FolderSize, cfg.FolderFiles, stdout, stderr)
			return func(p string) error { return bench.WriteFoldersJSON(p, res) }, err
		}},
		{cfg.Reuse > 0, func() (func(string) error, error) {
			res, err := bench.Reuse(ctx, cfg, cfg.Reuse, stdout, stderr)
			return func(p string) error { return bench.WriteReuseJSON(p, res) }, err
		}},
		{cfg.Memory > 0, func() (func(string) error, error) {
			res, err := bench.Memory(ctx, cfg, cfg.Memory, stdout, stderr)
			return func(p string) error { return bench.WriteMemoryJSON(p, res) }, err
		}},
	} {
		if !sc.asked {
			continue
		}
		write, err := sc.run()
		if err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		if cfg.JSONPath != "" {
			if err := write(cfg.JSONPath); err != nil {
				fmt.Fprintf(stderr, "bench: writing %s: %v\n", cfg.JSONPath, err)
				return 1
			}
		}
		return 0
	}
	var mem *bench.MemoryResult
	if cfg.MemoryFrom != "" {
		if mem, err = bench.ReadMemoryJSON(cfg.MemoryFrom); err != nil {
			fmt.Fprintf(stderr, "bench: -memory-from: %v\n", err)
			return 1
		}
	}
	res, err := bench.Run(ctx, cfg, mem, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	res.Command = "go run ./cmd/bench " + strings.Join(args, " ")
	res.Print(stdout)
	if cfg.JSONPath != "" {
		if err := bench.WriteJSON(cfg.JSONPath, res); err != nil {
			fmt.Fprintf(stderr, "bench: writing %s: %v\n", cfg.JSONPath, err)
			return 1
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", cfg.JSONPath)
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (bench.Options, error) {
	var cfg bench.Options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./cmd/bench [flags]\n\nMeasures behaves against a docker run loop and the bare Engine API floor (the targets of docs/performance.md).\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.Reps, "reps", 3, "repetitions of the suites (1), (5) and (8), the floors (3) and --parallel 1 (4)")
	fs.IntVar(&cfg.LongReps, "long-reps", 1, "repetitions of the docker run loop (2), the parallelism table, the cost of each setting and the floods (6)")
	fs.IntVar(&cfg.Programs, "programs", 20, "programs in the suite (1)")
	fs.IntVar(&cfg.Cases, "cases", 10, "cases per program in the suite (1) and the scaling runs (5)")
	fs.IntVar(&cfg.Wide, "wide", 200, "programs of one case each in the one-case suite (1)")
	fs.IntVar(&cfg.Sample, "sample", 60, "invocations of the sample for (2), (3), (4), the parallelism table and the cost of each setting, in programs of -cases cases")
	scale := fs.String("scale", "60,100,200,400", "invocation counts of the scaling runs (5), in programs of -cases cases, each also against the floor (1); the suite's own count reuses (1)")
	flood := fs.String("flood", "256MiB,1GiB", "bytes the program of (6) writes to stdout, one run per size (binary units; 0 skips (6))")
	fs.IntVar(&cfg.Parallel, "parallel", 2, "parallelism of the suites and their floors, passed as --parallel (0: behaves' default, computed as behaves does)")
	parallels := fs.String("parallels", "1,2,3,4", "parallelisms of the parallelism table (behaves and the floor on the sample at each)")
	fs.IntVar(&cfg.EvalPrograms, "eval", 100, "programs of one case each in the Python evaluation suite (8)")
	fs.IntVar(&cfg.EvalSample, "eval-sample", 20, "evaluation programs the floor of (8) runs")
	fs.IntVar(&cfg.Reuse, "reuse", 0, "run only the reuse scenario: this many evaluation programs (500 for the figures in docs/performance.md) run once, then again with one changed and --reuse of the first report; the suite (-programs × -cases) rerun unchanged with --reuse; and a run reading a stored report of about 256 MiB")
	fs.IntVar(&cfg.ReuseBig, "reuse-big", bench.BigReportCases, "cases of the reuse scenario's large stored report (each 64KiB of \\x01 on both streams; the default fills the report's 256MiB budget)")
	fs.IntVar(&cfg.Folders, "folders", 0, "run only the folders scenario: this many folder programs of -folder-size (200 for the figures in docs/performance.md), one case each, for behaves' peak RSS; and a folder program of -folder-files files, -folder-size in all, against a single-file program, 10 cases each: its delivery time and its cost per case (-reps repetitions)")
	folderSize := fs.String("folder-size", "20MiB", "the size of each folder program of the folders scenario (binary units)")
	fs.StringVar(&cfg.Kube, "kube", "", "KUBECONFIG: run only the Kubernetes scenario: -kube-programs × -kube-cases busybox invocations on the Docker backend and on this cluster at -parallel (default 4), -reps repetitions in ABBA order, the ratio per invocation, and the cluster's throughput at --parallel 1, 2, 4 and 8")
	fs.IntVar(&cfg.KubePrograms, "kube-programs", 10, "the programs of the Kubernetes scenario")
	fs.IntVar(&cfg.KubeCases, "kube-cases", 4, "the cases of each program of the Kubernetes scenario")
	fs.IntVar(&cfg.FolderFiles, "folder-files", 2000, "the files of the folders scenario's delivered folder program")
	fs.StringVar(&cfg.MemoryFrom, "memory-from", "", "include (7) from the -json file of an earlier -memory run")
	fs.StringVar(&cfg.JSONPath, "json", "", "write every figure as JSON to this file")
	fs.BoolVar(&cfg.Short, "short", false, "CI mode: every figure on tiny suites, 1 repetition, a 1 MiB flood (explicit flags still win)")
	fs.StringVar(&cfg.BehavesBin, "behaves", "", "a behaves binary to measure (default: go build the module into a temporary folder)")
	fs.StringVar(&cfg.DockerBin, "docker", "docker", "the docker CLI of the docker run loop (2)")
	fs.StringVar(&cfg.ShellImage, "image-shell", "", "image ID of the shell programs (default $BEHAVES_IMAGE_BUSYBOX, else from -images-env)")
	fs.StringVar(&cfg.PythonImage, "image-python", "", "image ID of the Python programs (default $BEHAVES_IMAGE_PYTHON, else from -images-env)")
	envFile := fs.String("images-env", defaultImagesEnv(), "the env file scripts/images.sh writes")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the work folder (specs, programs, reports)")
	fs.StringVar(&cfg.From, "from", "", "print the table of an earlier -json file instead of measuring")
	fs.IntVar(&cfg.Memory, "memory", 0, "run only the memory scenario: this many invocations (10000 for the figures in docs/bench), each writing 64KiB of control characters to stdout and to stderr; prints behaves' peak RSS and the report's size next to the bounds of docs/security.md")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg.ExplicitParallel = set["parallel"]
	if cfg.Short {
		// Ten container lifecycles in all: a shell and a Python program
		// in the suites, one shell invocation in the sample.
		short := map[string]func(){
			"reps":        func() { cfg.Reps = 1 },
			"long-reps":   func() { cfg.LongReps = 1 },
			"programs":    func() { cfg.Programs = 2 },
			"cases":       func() { cfg.Cases = 1 },
			"wide":        func() { cfg.Wide = 2 },
			"sample":      func() { cfg.Sample = 1 },
			"scale":       func() { *scale = "1,2" },
			"flood":       func() { *flood = "1MiB" },
			"parallels":   func() { *parallels = "1,2" },
			"eval":        func() { cfg.EvalPrograms = 2 },
			"eval-sample": func() { cfg.EvalSample = 1 },
		}
		for name, apply := range short {
			if !set[name] {
				apply()
			}
		}
	}
	var err error
	if cfg.FolderSize, err = spec.ParseSize(*folderSize); err != nil || cfg.FolderSize < 2 {
		return cfg, fmt.Errorf("-folder-size: %q is not a size of at least 2 bytes", *folderSize)
	}
	if cfg.FolderFiles < 2 {
		return cfg, errors.New("-folder-files must be at least 2 (the entry and a data file)")
	}
	if cfg.Scale, err = parseInts(*scale); err != nil {
		return cfg, fmt.Errorf("-scale: %w", err)
	}
	if cfg.Parallels, err = parseInts(*parallels); err != nil {
		return cfg, fmt.Errorf("-parallels: %w", err)
	}
	if *flood != "0" {
		for _, f := range strings.Split(*flood, ",") {
			n, err := spec.ParseSize(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return cfg, fmt.Errorf("-flood: %q is not a positive size", f)
			}
			cfg.Floods = append(cfg.Floods, n)
		}
	}
	for name, v := range map[string]int{"reps": cfg.Reps, "long-reps": cfg.LongReps, "programs": cfg.Programs, "cases": cfg.Cases, "wide": cfg.Wide, "sample": cfg.Sample, "eval": cfg.EvalPrograms, "eval-sample": cfg.EvalSample} {
		if v < 1 {
			return cfg, fmt.Errorf("-%s must be at least 1", name)
		}
	}
	if cfg.Memory < 0 || cfg.Folders < 0 {
		return cfg, errors.New("-memory and -folders must not be negative")
	}
	if cfg.Parallel < 0 {
		return cfg, errors.New("-parallel must not be negative")
	}
	if cfg.EvalSample > cfg.EvalPrograms {
		return cfg, errors.New("-eval-sample must not be above -eval (the sample is a subset of the suite)")
	}
	if cfg.From != "" {
		return cfg, nil
	}
	if cfg.ShellImage == "" || cfg.PythonImage == "" {
		images := readImagesEnv(*envFile)
		if cfg.ShellImage == "" {
			cfg.ShellImage = firstNonEmpty(os.Getenv("BEHAVES_IMAGE_BUSYBOX"), images["BEHAVES_IMAGE_BUSYBOX"])
		}
		if cfg.PythonImage == "" {
			cfg.PythonImage = firstNonEmpty(os.Getenv("BEHAVES_IMAGE_PYTHON"), images["BEHAVES_IMAGE_PYTHON"])
		}
	}
	if cfg.ShellImage == "" || cfg.PythonImage == "" {
		return cfg, fmt.Errorf("no image IDs: run scripts/images.sh (it writes %s), or pass -image-shell and -image-python", *envFile)
	}
	return cfg, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func defaultImagesEnv() string {
	if p := os.Getenv("BEHAVES_IMAGES_ENV"); p != "" {
		return p
	}
	return "/tmp/behaves-images.env"
}

// readImagesEnv reads the KEY=VALUE lines of scripts/images.sh's env file;
// a missing file is no assignment.
func readImagesEnv(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && strings.HasPrefix(k, "BEHAVES_IMAGE_") {
			out[k] = v
		}
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
