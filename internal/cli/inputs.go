package cli

// The action's inputs. The runner passes each as INPUT_<NAME> (upper-cased,
// spaces to "_", hyphens kept: INPUT_FAIL-ON); an absent or empty input
// takes its default. Every input is checked here, before anything runs, so
// that a malformed one fails the step with a message naming the input
// rather than the flag it becomes. The spec's flags are checked by the very
// flag.Value that run parses them with (specFlags.register), so the two
// can never accept different values.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/behaves-dev/behaves/internal/ghpublish"
	gh "github.com/behaves-dev/behaves/internal/publish/github"
	"github.com/behaves-dev/behaves/internal/run"
)

// The action's commands (the command input).
const (
	actionRun     = "run"
	actionPublish = "publish"
	actionMerge   = "merge"
)

// actionInputs are the action's inputs, checked.
type actionInputs struct {
	command string
	// run is what command run runs: the inputs that are run's (the spec,
	// the report, the ceilings, images, pulling, untracked files,
	// parallel, fail-on). The run ID is drawn by the action.
	run     runConfig
	publish publishConfig
	// merge is command merge's configuration: the reports input's files
	// and folders, allow-missing, pass-at, fail-on, and the report input
	// as the merged report's path.
	merge mergeConfig
	// notices are what the step's log should say about the inputs (an
	// input that asked for nothing to happen).
	notices []string
}

// specInputs are the inputs that become run's spec flags, with the flag
// each one becomes. A lines input gives the flag once per non-empty line.
var specInputs = []struct {
	input, flag string
	lines       bool
}{
	{"max-timeout", "max-timeout", false},
	{"max-memory", "max-memory", false},
	{"max-output", "max-output", false},
	{"max-output-limit", "max-output-limit", false},
	{"max-cases", "max-cases", false},
	{"max-pids", "max-pids", false},
	{"max-repeat", "max-repeat", false},
	{"max-reference-output", "max-reference-output", false},
	{"max-program-files", "max-program-files", false},
	{"max-program-size", "max-program-size", false},
	{"images", "image", true},
	{"allow-untracked", "allow-untracked", true},
	{"allow-non-gating", "allow-non-gating", true},
	{"allowed-registries", "allow-registry", true},
}

// inputName is the environment variable the runner passes input name in.
func inputName(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// input returns the input's value, trimmed of surrounding space, as
// go-githubactions reads it (from env, never the process). Its writer is
// discarded: behaves writes outputs and commands itself.
func input(env Env, name string) string {
	a := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(io.Discard))
	return a.GetInput(name)
}

// boolInput parses a boolean input as the toolkit's getBooleanInput does
// (YAML 1.2 core: true, True, TRUE, false, False, FALSE); def when empty.
func boolInput(env Env, name string, def bool) (bool, error) {
	switch v := input(env, name); v {
	case "":
		return def, nil
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	default:
		return false, fmt.Errorf("input %s: want true or false, not %q", name, v)
	}
}

// inWorkspace resolves an input path against GITHUB_WORKSPACE, which the
// action's paths are relative to.
func inWorkspace(env Env, p string) string {
	if ws := workspace(env); ws != "" && !filepath.IsAbs(p) {
		return filepath.Join(ws, p)
	}
	return p
}

// readInputs reads and checks every input. Its error names the input.
func readInputs(env Env) (actionInputs, error) {
	in := actionInputs{command: actionRun}
	if c := input(env, "command"); c != "" {
		if c != actionRun && c != actionPublish && c != actionMerge {
			return in, fmt.Errorf("input command: want run, publish or merge, not %q", c)
		}
		in.command = c
	}
	specPath := inWorkspace(env, firstSet(input(env, "spec"), "behaves.yml"))
	reportPath := inWorkspace(env, firstSet(input(env, "report"), "behaves-report.json"))
	in.run = newRunConfig()
	in.run.reportPath = reportPath
	// junit: run writes it (replacing a stale one before the spec is read);
	// publish writes it from the report it checked.
	junitPath := ""
	if v := input(env, "junit"); v != "" {
		junitPath = inWorkspace(env, v)
		if in.command == actionRun {
			in.run.junitPath = junitPath
		}
	}

	// The spec's flags and run's own, each set and checked by the
	// flag.Value that behaves run parses it with.
	sf := &in.run.spec
	fs := flag.NewFlagSet("action", flag.ContinueOnError)
	sf.register(fs)
	in.run.registerRun(fs)
	// Each of run's inputs is the flag of its name.
	setFlag := func(name, v string) error {
		if err := fs.Set(name, v); err != nil {
			return fmt.Errorf("input %s: %v", name, err)
		}
		return nil
	}
	sf.path = specPath
	for _, si := range specInputs {
		v := input(env, si.input)
		if v == "" {
			continue
		}
		values := []string{v}
		if si.lines {
			values = lines(v)
		}
		for _, val := range values {
			if err := fs.Set(si.flag, val); err != nil {
				return in, fmt.Errorf("input %s: %v", si.input, err)
			}
		}
	}
	pull, err := boolInput(env, "pull-images", false)
	if err != nil {
		return in, err
	}
	sf.pull = pull
	if v := input(env, "pass-at"); v != "" {
		if err := setFlag("pass-at", v); err != nil {
			return in, err
		}
	}
	if v := input(env, "shard"); v != "" {
		if in.command != actionRun {
			return in, fmt.Errorf("input shard: only command run runs a shard, not %s", in.command)
		}
		if err := setFlag("shard", v); err != nil {
			return in, err
		}
	}
	for _, r := range lines(input(env, "reuse")) {
		if in.command != actionRun {
			return in, fmt.Errorf("input reuse: only command run reuses stored evidence, not %s", in.command)
		}
		path := inWorkspace(env, r)
		// A cache that missed leaves no report: then every case runs.
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			in.notices = append(in.notices, fmt.Sprintf("input reuse: no report at %s (a cache that missed?): its cases run", r))
			continue
		}
		if err := setFlag("reuse", path); err != nil {
			return in, err
		}
	}
	if v := input(env, "parallel"); v != "" {
		if err := setFlag("parallel", v); err != nil {
			return in, err
		}
	}
	if err := readBackendInputs(env, in.command, setFlag); err != nil {
		return in, err
	}
	if err := in.run.checkBackend(); err != nil {
		return in, err
	}

	// The run's config is checked as a whole by the one check behaves
	// run's flags pass too; its refusal names the input.
	if err := in.run.library().Validate(); err != nil {
		return in, inputRefusal(err)
	}

	p := publishConfig{Config: ghpublish.Config{ReportPath: reportPath, MaxReportSize: DefaultMaxReadReport, FailOn: FailOnUndetermined, Comment: gh.CommentUpdate,
		CheckName: firstSet(input(env, "check-name"), ghpublish.DefaultCheckName)}}
	// Every command publishes (merge the merged report), so every one
	// takes the check run's name.
	if err := gh.ValidateCheckName(p.CheckName); err != nil {
		return in, fmt.Errorf("input check-name: %v", err)
	}
	if in.command == actionPublish {
		p.JUnitPath = junitPath
	}
	if v := input(env, "fail-on"); v != "" {
		if err := setFlag("fail-on", v); err != nil {
			return in, err
		}
	}
	p.FailOn = in.run.failOn
	if v := input(env, "max-report-size"); v != "" {
		if err := setFlag("max-report-size", v); err != nil {
			return in, err
		}
		// The report holds more than its cases' budget: room for the rest.
		p.MaxReportSize = max(p.MaxReportSize, in.run.maxReport+reportReadSlack)
	}
	if v := input(env, "comment"); v != "" {
		if p.Comment, err = gh.ParseCommentMode(v); err != nil {
			return in, fmt.Errorf("input comment: %v", err)
		}
	}
	if p.CheckRun, err = boolInput(env, "check-run", false); err != nil {
		return in, err
	}
	if p.Annotations, err = boolInput(env, "annotations", true); err != nil {
		return in, err
	}
	if v := input(env, "html"); v != "" {
		if strings.ContainsAny(v, "\n\r") {
			return in, fmt.Errorf("input html: want one path, not %q", v)
		}
		p.HTMLPath = inWorkspace(env, v)
	}
	// The token: the input, else GITHUB_TOKEN (the input's default,
	// ${{ github.token }}, normally fills it).
	p.token = firstSet(input(env, "github-token"), env.Getenv("GITHUB_TOKEN"))
	p.Shard = input(env, "shard") != ""
	in.publish = p
	return in, readMergeInputs(env, &in)
}

// inputRefusal is run.Config.Validate's refusal of an input's value,
// named by the input.
func inputRefusal(err error) error {
	var se *run.SettingError
	switch {
	case errors.Is(err, run.ErrPullNeedsRegistry):
		return errors.New("input pull-images: true needs allowed-registries, the registries a pull may fetch from (one HOST[:PORT] a line): the spec, which a pull request may edit, names the images")
	case errors.As(err, &se):
		return fmt.Errorf("input %s: %v", se.Setting, se.Err)
	}
	return err
}

// readMergeInputs reads the inputs of command merge (reports,
// allow-missing), refusing them with another command. pass-at, fail-on,
// max-report-size and report are read with the others.
func readMergeInputs(env Env, in *actionInputs) error {
	reports := lines(input(env, "reports"))
	allowMissing, err := boolInput(env, "allow-missing", false)
	if err != nil {
		return err
	}
	if in.command != actionMerge {
		switch {
		case len(reports) > 0:
			return fmt.Errorf("input reports: only command merge reads shard reports, not %s", in.command)
		case allowMissing:
			return fmt.Errorf("input allow-missing: only command merge merges shards, not %s", in.command)
		}
		return nil
	}
	if len(reports) == 0 {
		return errors.New("input reports: command merge needs the shard reports: a folder (or lines of files and folders) relative to the workspace")
	}
	m := mergeConfig{reportPath: in.publish.ReportPath, allowMissing: allowMissing, failOn: in.publish.FailOn,
		maxReportSize: in.publish.MaxReportSize, passAt: in.run.passAt}
	for _, r := range reports {
		m.inputs = append(m.inputs, inWorkspace(env, r))
	}
	in.merge = m
	return nil
}

// firstSet returns the first of its arguments that is not "".
func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// lines splits a multi-line input into its non-empty lines, trimmed.
func lines(v string) []string {
	var out []string
	for _, l := range strings.Split(v, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// runIDPattern is a run ID behaves draws (run.IDPattern); --run-id takes
// nothing else.
var runIDPattern = run.IDPattern

// runIDFlag is run's --run-id: the run ID chosen by the caller (behaves
// action, which saves it as the post step's state before the run creates
// anything), checked as it is parsed.
type runIDFlag string

func (f *runIDFlag) String() string { return string(*f) }

func (f *runIDFlag) Set(s string) error {
	if !runIDPattern.MatchString(s) {
		return fmt.Errorf("want 16 lowercase hex digits, not %q", s)
	}
	*f = runIDFlag(s)
	return nil
}

// registerRunID adds run's --run-id. It is for behaves action (and tests):
// a run ID a person picks could collide with another run's, whose objects
// the post step would then remove.
func registerRunID(fs *flag.FlagSet) *runIDFlag {
	var f runIDFlag
	fs.Var(&f, "run-id", "the run's ID, 16 lowercase hex digits (for behaves action; default: a random one)")
	return &f
}

// readBackendInputs sets the backend, namespace and kubeconfig inputs. A
// kubeconfig input holding a line break is the kubeconfig itself (a
// secret): it goes to a file of its own, mode 0600, under RUNNER_TEMP
// (which the runner removes with the job); any other value is a path in
// the workspace.
func readBackendInputs(env Env, command string, setFlag func(name, v string) error) error {
	for _, name := range []string{"backend", "namespace", "kubeconfig"} {
		v := input(env, name)
		if v == "" || name == "backend" && v == BackendDocker {
			continue
		}
		if command != actionRun {
			return fmt.Errorf("input %s: only command run runs programs, not %s", name, command)
		}
		if name == "kubeconfig" {
			if !strings.Contains(v, "\n") {
				v = inWorkspace(env, v)
			} else {
				dir, err := os.MkdirTemp(env.Getenv("RUNNER_TEMP"), "behaves-kubeconfig-")
				if err != nil {
					return fmt.Errorf("input kubeconfig: %v", err)
				}
				path := filepath.Join(dir, "kubeconfig")
				if err := os.WriteFile(path, []byte(v), 0o600); err != nil {
					return fmt.Errorf("input kubeconfig: %v", err)
				}
				v = path
			}
		}
		if err := setFlag(name, v); err != nil {
			return err
		}
	}
	return nil
}
