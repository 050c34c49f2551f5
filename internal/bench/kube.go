package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// KubeResult is the Kubernetes scenario (-kube): `behaves run` of one
// suite on the Docker backend and on the cluster, at the same parallelism,
// in ABBA order per repetition, and the cluster's throughput at each
// parallelism of KubeParallels.
type KubeResult struct {
	Schema      string `json:"schema"`
	Kubeconfig  string `json:"kubeconfig"`
	Invocations int    `json:"invocations"`
	Parallel    int    `json:"parallel"`
	// DockerMS and KubeMS are the wall time per invocation of each
	// backend's run; Ratio is Kubernetes over Docker, per repetition.
	DockerMS Stat `json:"docker_ms_per_invocation"`
	KubeMS   Stat `json:"kubernetes_ms_per_invocation"`
	Ratio    Stat `json:"ratio"`
	// Spread is the cluster's invocations per second at each parallelism.
	Spread []KubeSpreadPoint `json:"spread"`
}

// KubeSpreadPoint is one parallelism on the cluster.
type KubeSpreadPoint struct {
	Parallel      int     `json:"parallel"`
	WallMS        float64 `json:"wall_ms"`
	PerSecond     float64 `json:"invocations_per_second"`
	MSInvocation  float64 `json:"ms_per_invocation"`
	CasesObserved int     `json:"cases_observed"`
}

// KubeParallels are the parallelisms the spread is measured at.
var KubeParallels = []int{1, 2, 4, 8}

// Kube measures the Kubernetes backend against the Docker backend on this
// machine: programs × cases busybox invocations (each reads a line and
// echoes it), cpus 0.25 each so that a small node schedules several pods
// at once.
func Kube(ctx context.Context, cfg Options, kubeconfig string, programs, cases int, stdout, logw io.Writer) (*KubeResult, error) {
	log := logger{w: logw, start: time.Now()}
	work, err := os.MkdirTemp("", "behaves-bench-kube-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	bin, _, err := behavesBinary(ctx, log, cfg.BehavesBin, work)
	if err != nil {
		return nil, err
	}
	specPath, err := writeKubeSuite(work, cfg.ShellImage, programs, cases)
	if err != nil {
		return nil, err
	}
	n := programs * cases
	par := cfg.Parallel
	if par <= 0 {
		par = 4
	}
	res := &KubeResult{Schema: "behaves.bench-kube/v1", Kubeconfig: kubeconfig, Invocations: n, Parallel: par}
	kubeArgs := []string{"--backend", "kubernetes", "--kubeconfig", kubeconfig}
	perInv := func(args ...string) (float64, error) {
		r, err := runBehaves(ctx, bin, specPath, append([]string{"--parallel", strconv.Itoa(par)}, args...)...)
		if err != nil {
			return 0, err
		}
		return ms(r.Wall) / float64(n), nil
	}
	reps := max(cfg.Reps, 1)
	for i := range reps {
		var d, k float64
		// ABBA: a drift of the machine's load shifts both sides alike.
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, kube := range order {
			if kube {
				v, err := perInv(kubeArgs...)
				if err != nil {
					return nil, err
				}
				k = v
				res.KubeMS.add(v)
			} else {
				v, err := perInv()
				if err != nil {
					return nil, err
				}
				d = v
				res.DockerMS.add(v)
			}
		}
		res.Ratio.add(k / d)
		log.printf("rep %d: docker %.0f ms, kubernetes %.0f ms per invocation (×%.2f)", i+1, d, k, k/d)
	}
	for _, p := range KubeParallels {
		r, err := runBehaves(ctx, bin, specPath, append([]string{"--parallel", strconv.Itoa(p)}, kubeArgs...)...)
		if err != nil {
			return nil, err
		}
		pt := KubeSpreadPoint{Parallel: p, WallMS: ms(r.Wall), PerSecond: float64(n) / r.Wall.Seconds(), MSInvocation: ms(r.Wall) / float64(n),
			CasesObserved: r.Report.Counts.Cases.Total}
		res.Spread = append(res.Spread, pt)
		log.printf("kubernetes --parallel %d: %.1f invocations/s", p, pt.PerSecond)
	}
	res.Print(stdout)
	return res, nil
}

// writeKubeSuite writes the scenario's spec and programs into dir.
func writeKubeSuite(dir, image string, programs, cases int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nprofiles:\n  sh:\n    image: %s\n    command: [\"/bin/sh\"]\n    cpus: 0.25\n    memory: 32MiB\nprograms:\n", jsonString(image))
	for i := range programs {
		name := fmt.Sprintf("p%03d.sh", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("read x; echo \"$x\"\n"), 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  - name: p%03d\n    file: %s\n    profile: sh\n    cases:\n", i, name)
		for c := range cases {
			fmt.Fprintf(&b, "      - {name: c%d, stdin: \"%d-%d\\n\", expect: {stdout: {equals: \"%d-%d\"}}}\n", c, i, c, i, c)
		}
	}
	p := filepath.Join(dir, "behaves.yml")
	return p, os.WriteFile(p, []byte(b.String()), 0o644)
}

// Print writes the scenario's table.
func (r *KubeResult) Print(w io.Writer) {
	fmt.Fprintf(w, "Kubernetes backend: %d invocations, --parallel %d, %d repetitions (ABBA)\n", r.Invocations, r.Parallel, len(r.Ratio.Values))
	fmt.Fprintf(w, "  docker      %7.0f ms per invocation (median; %.0f–%.0f)\n", r.DockerMS.Median, r.DockerMS.Min, r.DockerMS.Max)
	fmt.Fprintf(w, "  kubernetes  %7.0f ms per invocation (median; %.0f–%.0f)\n", r.KubeMS.Median, r.KubeMS.Min, r.KubeMS.Max)
	fmt.Fprintf(w, "  ratio       ×%.2f (kubernetes / docker; %.2f–%.2f)\n", r.Ratio.Median, r.Ratio.Min, r.Ratio.Max)
	fmt.Fprintln(w, "  the cluster at each --parallel:")
	for _, p := range r.Spread {
		fmt.Fprintf(w, "    %2d  %6.1f invocations/s  (%4.0f ms per invocation)\n", p.Parallel, p.PerSecond, p.MSInvocation)
	}
}

// WriteKubeJSON writes r as JSON to path.
func WriteKubeJSON(path string, r *KubeResult) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
