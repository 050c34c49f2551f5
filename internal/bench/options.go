package bench

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Options are what to measure (cmd/bench's flags).
type Options struct {
	Reps, LongReps   int
	Programs, Cases  int
	Wide             int
	Sample           int
	Scale            []int
	Floods           []int64
	Parallel         int // 0: behaves' default
	Parallels        []int
	EvalPrograms     int
	EvalSample       int
	MemoryFrom       string
	JSONPath         string
	Short            bool
	BehavesBin       string
	DockerBin        string
	ShellImage       string
	PythonImage      string
	Keep             bool
	From             string
	ExplicitParallel bool
	// Memory, when above 0, runs only the memory scenario with that many
	// invocations (see Memory).
	Memory int
	// Reuse, when above 0, runs only the reuse scenario with that many
	// evaluation programs (see Reuse).
	Reuse int
	// ReuseBig is the cases of the reuse scenario's large stored report.
	ReuseBig int
	// Folders, when above 0, runs only the folders scenario with that many
	// folder programs of FolderSize each, and a folder program of
	// FolderFiles files of FolderSize in all (see Folders).
	Folders     int
	FolderSize  int64
	FolderFiles int
	// Kube, when set, runs only the Kubernetes scenario against the
	// cluster this kubeconfig names, with KubePrograms × KubeCases
	// invocations (see Kube).
	Kube                    string
	KubePrograms, KubeCases int
}

// loadAverage is the 1-minute load average (0 if unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(fields[0], 64)
	return v
}

// logger writes progress lines, each with the time since start.
type logger struct {
	w     io.Writer
	start time.Time
}

func (l logger) printf(format string, args ...any) {
	fmt.Fprintf(l.w, "bench %6s  %s\n", time.Since(l.start).Round(time.Second), fmt.Sprintf(format, args...))
}
