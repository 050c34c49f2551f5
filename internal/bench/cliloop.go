package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/behaves-dev/behaves/internal/runner"
)

// dockerRunArgs is the `docker run` command line of the user's alternative:
// the same container settings as cfg and hc (behaves' own, loopConfig), but
// `--rm -i` instead of behaves' wait, inspect and remove. Deriving the flags
// from the configuration keeps the two from drifting apart.
func dockerRunArgs(name string, cfg *container.Config, hc *container.HostConfig) []string {
	a := []string{"run", "--rm", "-i", "--name", name,
		"--hostname", cfg.Hostname,
		"--user", cfg.User,
		"--workdir", cfg.WorkingDir,
		"--network", string(hc.NetworkMode),
		"--ipc", string(hc.IpcMode),
		"--shm-size", strconv.FormatInt(hc.ShmSize, 10),
		"--log-driver", hc.LogConfig.Type,
		"--memory", strconv.FormatInt(hc.Memory, 10),
		"--memory-swap", strconv.FormatInt(hc.MemorySwap, 10),
		"--cpus", strconv.FormatFloat(float64(hc.NanoCPUs)/1e9, 'f', -1, 64),
	}
	if hc.PidsLimit != nil {
		a = append(a, "--pids-limit", strconv.FormatInt(*hc.PidsLimit, 10))
	}
	if hc.ReadonlyRootfs {
		a = append(a, "--read-only")
	}
	if hc.Init != nil && *hc.Init {
		a = append(a, "--init")
	}
	if hc.Runtime != "" {
		a = append(a, "--runtime", hc.Runtime)
	}
	if cfg.Healthcheck != nil && len(cfg.Healthcheck.Test) == 1 && cfg.Healthcheck.Test[0] == "NONE" {
		a = append(a, "--no-healthcheck")
	}
	for _, d := range hc.DNS {
		a = append(a, "--dns", d)
	}
	for _, c := range hc.CapDrop {
		a = append(a, "--cap-drop", c)
	}
	for _, s := range hc.SecurityOpt {
		a = append(a, "--security-opt", s)
	}
	for _, u := range hc.Ulimits {
		a = append(a, "--ulimit", fmt.Sprintf("%s=%d:%d", u.Name, u.Soft, u.Hard))
	}
	for _, k := range sortedKeys(hc.Tmpfs) {
		a = append(a, "--tmpfs", k+":"+hc.Tmpfs[k])
	}
	for _, m := range hc.Mounts {
		spec := fmt.Sprintf("type=%s,src=%s,dst=%s", m.Type, m.Source, m.Target)
		if m.ReadOnly {
			spec += ",readonly"
		}
		if m.VolumeOptions != nil && m.VolumeOptions.NoCopy {
			spec += ",volume-nocopy"
		}
		a = append(a, "--mount", spec)
	}
	for _, e := range cfg.Env {
		a = append(a, "--env", e)
	}
	for _, k := range sortedKeys(cfg.Labels) {
		a = append(a, "--label", k+"="+cfg.Labels[k])
	}
	a = append(a, "--entrypoint", cfg.Entrypoint[0], cfg.Image)
	a = append(a, cfg.Entrypoint[1:]...)
	return append(a, cfg.Cmd...)
}

// loopConfig is the configuration the docker run loop's flags are derived
// from: behaves' own for program p's invocation inv of its prepared
// program a, with the network sandbox set up, because the CLI cannot skip
// it (it has no flag for NetworkDisabled; --network none only sets the
// mode): the old floor's. Its containers have the role "cli".
func (e *sandbox) loopConfig(a runner.Attempt, p program, inv invocation) (*container.Config, *container.HostConfig, error) {
	cfg, hc, err := e.f.Config(a, oldFloor.Variant, p.source, runner.Invocation{Args: inv.args, Stdin: []byte(inv.stdin)})
	if err != nil {
		return nil, nil, err
	}
	cfg.Labels[runner.LabelRole] = "cli"
	return cfg, hc, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cliLoop runs every invocation of s as a sequential `docker run --rm -i`
// against the filled volumes vols, and returns the wall time. It checks each
// output, as behaves and the floor do.
func (e *sandbox) cliLoop(ctx context.Context, dockerBin string, s suite, vols []runner.Attempt) (time.Duration, error) {
	t0 := time.Now()
	for i, p := range s.programs {
		for _, inv := range p.cases {
			cfg, hc, err := e.loopConfig(vols[i], p, inv)
			if err != nil {
				return 0, err
			}
			cmd := exec.CommandContext(ctx, dockerBin, dockerRunArgs(e.name("-cli"), cfg, hc)...)
			cmd.Stdin = strings.NewReader(inv.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				return 0, fmt.Errorf("docker run %s/%s: %w (stderr %q)", p.name, inv.name, err, stderr.String())
			}
			if got := strings.TrimRight(stdout.String(), "\n"); got != inv.want {
				return 0, fmt.Errorf("docker run %s/%s: stdout %q, want %q (stderr %q)", p.name, inv.name, got, inv.want, stderr.String())
			}
		}
	}
	return time.Since(t0), nil
}
