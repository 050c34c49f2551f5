package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// staleCheckTimeout bounds the look for stale leftovers at the start of a
// run: it is two list calls, normally a few milliseconds.
const staleCheckTimeout = 5 * time.Second

// maxStaleLines is the most stale runs a run warns about, one line each.
const maxStaleLines = 10

var gcHelp = commandHelp{
	args: `[--older-than DURATION] [--dry-run]`,
	about: `Removes the containers and volumes that behaves runs left behind, found by
their behaves.run-id label (with --backend kubernetes, the pods and config
maps of behaves' namespace, the owner read from their annotations). A run's leftovers are removed when its owner is
gone: it ran on this host and its process (behaves.pid) is no longer alive,
or the PID now belongs to a process that started after the run. Runs of
other hosts and runs whose owner is alive are kept unless --older-than says
so.`,
	exits: `0 everything removed, or nothing to remove · 2 usage ·
            4 some removal failed, or Docker is unreachable`,
}

// gcCommand is `behaves gc`.
func gcCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("gc", flag.ContinueOnError)
	var olderThan ageFlag
	fs.Var(&olderThan, "older-than", "also remove every run that started more than `DURATION` ago, whatever its owner's state or host (90m, 24h, 7d)")
	dryRun := fs.Bool("dry-run", false, "print what would be removed, remove nothing")
	backend := backendFlag(BackendDocker)
	fs.Var(&backend, "backend", "what to sweep: docker (containers and volumes) or kubernetes (pods and config maps of behaves' namespace)")
	kubeconfig := fs.String("kubeconfig", "", "with --backend kubernetes: the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	namespace := fs.String("namespace", "", "with --backend kubernetes: the namespace to sweep (default behaves)")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	if backend != BackendKubernetes && (*kubeconfig != "" || *namespace != "") {
		fmt.Fprintln(env.Stderr, "behaves gc: --kubeconfig and --namespace need --backend kubernetes")
		return ExitUsage
	}
	words := dockerWords
	if backend == BackendKubernetes {
		env.NewSweeper, words = KubeSweeper(*kubeconfig, *namespace), kubeWords
	}
	if olderThan.set && olderThan.d <= 0 {
		fmt.Fprintf(env.Stderr, "behaves gc: --older-than must be positive, not %s\n", olderThan.d)
		return ExitUsage
	}
	sw, ok := openSweeper(env, "behaves gc")
	if !ok {
		return ExitRunFailed
	}
	defer sw.Close()
	plan, err := sw.Plan(ctx, olderThan.d)
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves gc: %v\n", err)
		return ExitRunFailed
	}

	heading, verb := "removing", "removed"
	if *dryRun {
		heading, verb = "would remove", "would remove"
	}
	var runs, containers, volumes, kept, failed int
	for _, p := range plan {
		if !p.Remove {
			kept++
			fmt.Fprintf(env.Stdout, "kept %s: %s\n", describeRun(p.LeftoverRun), printable(p.Reason))
			continue
		}
		runs++
		fmt.Fprintf(env.Stdout, "%s %s: %s\n", heading, describeRun(p.LeftoverRun), printable(p.Reason))
		var removals []runner.Removal
		if *dryRun {
			for _, l := range append(append([]runner.LeftoverObject{}, p.Containers...), p.Volumes...) {
				removals = append(removals, runner.Removal{LeftoverObject: l})
			}
		} else {
			removals = sw.Remove(ctx, p.LeftoverRun)
		}
		for _, r := range removals {
			if r.Err != nil {
				failed++
				fmt.Fprintf(env.Stderr, "behaves gc: run %s: %s\n", printable(p.ID), printable(r.Err.Error()))
				continue
			}
			if r.Kind == runner.KindContainer || r.Kind == runner.KindPod {
				containers++
			} else {
				volumes++
			}
			fmt.Fprintf(env.Stdout, "  %s %s %s (%s)\n", verb, r.Kind, printable(r.Name), printable(r.Role))
		}
	}
	switch {
	case len(plan) == 0:
		fmt.Fprintf(env.Stdout, "nothing to remove: no %s or %s carries %s\n", words[0], words[2], runner.LabelRunID)
	default:
		fmt.Fprintf(env.Stdout, "%s %s and %s of %s; kept %s\n", verb, verdict.Count(containers, words[0], words[1]),
			verdict.Count(volumes, words[2], words[3]), verdict.Count(runs, "run", "runs"), verdict.Count(kept, "run", "runs"))
	}
	if failed > 0 {
		fmt.Fprintf(env.Stderr, "behaves gc: %s failed\n", verdict.Count(failed, "removal", "removals"))
		return ExitRunFailed
	}
	return ExitTrue
}

// openSweeper connects to what a sweep looks at (env.NewSweeper); when it
// cannot, it prints why, after who, and returns false.
func openSweeper(env Env, who string) (runner.Sweeper, bool) {
	if env.NewSweeper == nil {
		fmt.Fprintf(env.Stderr, "%s: no Docker connection is configured\n", who)
		return nil, false
	}
	sw, err := env.NewSweeper()
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", who, err)
		return nil, false
	}
	return sw, true
}

// warnStaleRuns prints a warning on stderr for each dead run whose
// leftovers are on the daemon (at most maxStaleLines, then a count),
// suggesting `behaves gc`. It costs one container list and one volume list,
// and never fails the run: when it cannot look, it says so and returns.
func warnStaleRuns(ctx context.Context, env Env) {
	if env.NewSweeper == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, staleCheckTimeout)
	defer cancel()
	sw, err := env.NewSweeper()
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: warning: could not look for leftovers of earlier runs: %v\n", err)
		return
	}
	defer sw.Close()
	plan, err := sw.Plan(ctx, 0)
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: warning: could not look for leftovers of earlier runs: %s\n", printable(err.Error()))
		return
	}
	n := 0
	for _, p := range plan {
		if !p.Dead {
			continue
		}
		n++
		if n <= maxStaleLines {
			words, gc := dockerWords, "behaves gc"
			if slices.ContainsFunc(append(slices.Clone(p.Containers), p.Volumes...), func(l runner.LeftoverObject) bool {
				return l.Kind == runner.KindPod || l.Kind == runner.KindConfigMap
			}) {
				words, gc = kubeWords, "behaves gc --backend kubernetes"
			}
			fmt.Fprintf(env.Stderr, "behaves: warning: %s left %s and %s: %s; `%s` removes them\n",
				describeRun(p.LeftoverRun), verdict.Count(len(p.Containers), words[0], words[1]), verdict.Count(len(p.Volumes), words[2], words[3]), printable(p.Reason), gc)
		}
	}
	if n > maxStaleLines {
		fmt.Fprintf(env.Stderr, "behaves: warning: and %d more stale %s; `behaves gc` removes them\n", n-maxStaleLines, verdict.Plural(n-maxStaleLines, "run", "runs"))
	}
}

// The words for what a backend's runs leave: what ran programs, one and
// many, then what held their files.
var (
	dockerWords = [4]string{"container", "containers", "volume", "volumes"}
	kubeWords   = [4]string{"pod", "pods", "config map", "config maps"}
)

// describeRun names a run and, when its labels are sound, its owner.
func describeRun(r runner.LeftoverRun) string {
	if r.Err != nil {
		return "run " + printable(r.ID)
	}
	return fmt.Sprintf("run %s (pid %d on %s, started %s)", printable(r.ID), r.Owner.PID, printable(r.Owner.Host), r.Owner.StartedAt.UTC().Format(time.RFC3339))
}

// printable returns s as inert text for a terminal or a CI log: labels are
// written by whoever can reach the daemon, so a value holding anything but
// printable ASCII (a control byte, an escape sequence, a line break,
// non-ASCII) or a '#' is quoted with Go escapes, '#' as \x23 so that the
// Actions runner never sees "##[".
func printable(s string) string {
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '#'
	}
	if plain {
		return s
	}
	return strings.ReplaceAll(strconv.QuoteToASCII(s), "#", `\x23`)
}

// ageFlag is a duration that also takes whole days ("7d"), and remembers
// whether it was set.
type ageFlag struct {
	d   time.Duration
	set bool
}

func (f *ageFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.d.String()
}

func (f *ageFlag) Set(s string) error {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return fmt.Errorf("want a duration such as 90m, 24h or 7d, got %q", s)
		}
		f.d, f.set = time.Duration(n)*24*time.Hour, true
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 90m, 24h or 7d, got %q", s)
	}
	f.d, f.set = d, true
	return nil
}
