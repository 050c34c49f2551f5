package cli

// behaves action and behaves action-post: the container action's main and
// post entry points. action reads its inputs from INPUT_* only (inputs.go),
// then either runs the spec exactly as `behaves run` does (the same
// runSpec over run.Run, given the runConfig the inputs stand for, checked
// by the same run.Config.Validate) and publishes the report it wrote
// (ghpublish.Publish), in one process, or only publishes (command:
// publish), or merges the reports of a matrix's shards and publishes the
// merged report (command: merge).
//
// The post step runs in a new container of the same image at the end of
// the job, even after a failure or a cancellation, and shares nothing with
// the main step but the environment and the workspace. The runner starts
// runs.post-entrypoint as one plain executable path and passes it the main
// step's runs.args, so the post step cannot be told by its arguments: it is
// the binary invoked under a second name (PostName), which Args maps to
// action-post. The main step hands it the run ID through the action's
// state (GITHUB_STATE), saved before the run creates anything.

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/behaves-dev/behaves/internal/ghpublish"
	"github.com/behaves-dev/behaves/internal/publish"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// PostName is the name under which the binary is the action's post step:
// the image holds behaves a second time as /usr/local/bin/behaves-post (a
// link), and action.yml's runs.post-entrypoint names that path.
const PostName = "behaves-post"

// stateRunID is the action state holding the main step's run ID: written
// as run-id=<id> to GITHUB_STATE, read back by the post step from
// STATE_run-id.
const stateRunID = "run-id"

// Args returns the command line Main takes for the process's argv: argv
// without its program name, or, for the binary invoked as PostName,
// action-post whatever the arguments (the runner passes the post step the
// main step's runs.args).
func Args(argv []string) []string {
	if len(argv) > 0 && filepath.Base(argv[0]) == PostName {
		return []string{"action-post"}
	}
	if len(argv) == 0 {
		return nil
	}
	return argv[1:]
}

var actionHelp = commandHelp{
	args: "",
	about: `The GitHub Action's entry point, run by the action's container: it takes no
flags, its inputs come from the INPUT_* variables the runner sets (action.yml
lists them). By its command input it runs the spec as behaves run does and
publishes the report as behaves publish does, in one process; or only
publishes (command: publish); or merges a matrix's shard reports and
publishes the merged report (command: merge). Before a run it saves the
run's ID for the post step (action-post).`,
	exits: `as publish's, from the report and the run that wrote it (behaves help
            publish) · 2 an input is invalid`,
}

var actionPostHelp = commandHelp{
	args: "",
	about: `The action's post step, run at the end of the job (also after a failure or
a cancellation) as the binary named behaves-post: it removes the containers
and volumes that carry the run ID the main step saved (STATE_run-id), and
nothing else. Without a saved ID there is nothing to do.`,
	exits: `0 removed, or nothing to remove · 2 usage · 4 some removal failed,
            the saved ID is not one behaves draws, or Docker is unreachable`,
}

// actionCommand is `behaves action`, the action's main entry point.
func actionCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("action", flag.ContinueOnError)
	if err := parseFlags(fs, args, env); err != nil {
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "behaves action: takes no arguments (its inputs come from INPUT_* variables), got %q\n", fs.Arg(0))
		return ExitUsage
	}
	in, err := readInputs(env)
	if err != nil {
		ghpublish.Command(env.Stdout, publish.LevelError, "behaves action: "+err.Error())
		return ExitUsage
	}
	for _, n := range in.notices {
		fmt.Fprintln(env.Stdout, "behaves action: "+printable(n))
	}
	if in.command == actionPublish {
		return publishReport(ctx, env, in.publish, ExitTrue)
	}
	if in.command == actionMerge {
		// One summary, one comment and one check run for the whole
		// matrix: the merged report is published as a run's would be. A
		// refused merge wrote nothing, and nothing is published.
		code, wrote := mergeReports(env, in.merge)
		if !wrote {
			ghpublish.Command(env.Stdout, publish.LevelError, "behaves merge: the shard reports were not merged; nothing published (the log says why)")
			return code
		}
		return publishReport(ctx, env, in.publish, code)
	}
	// The post step removes what carries this run ID, so it is saved
	// before anything is created. Without it the post step has nothing to
	// do, and a cancelled run's leftovers wait for `behaves gc`.
	runID := newRunID()
	if path := env.Getenv("GITHUB_STATE"); path != "" {
		if err := ghpublish.AppendFile(path, stateRunID+"="+runID+"\n"); err != nil {
			ghpublish.Command(env.Stdout, publish.LevelWarning, "behaves action: the post step will not clean up: saving the run ID: "+err.Error())
		}
	}
	in.run.runID = runID
	code := runSpec(ctx, env, in.run)
	return publishReport(ctx, env, in.publish, code)
}

// actionPostCommand is `behaves action-post` (the binary as PostName): it
// removes the containers and volumes that carry the main step's run ID
// (STATE_run-id), whatever their owner's state, and nothing else. Without
// the state (the main step published only, or stopped before saving it)
// there is nothing to do.
func actionPostCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("action-post", flag.ContinueOnError)
	if !parse(fs, args, env) {
		return ExitUsage
	}
	id := env.Getenv("STATE_" + stateRunID)
	if id == "" {
		fmt.Fprintln(env.Stdout, "behaves: no run ID saved by the main step: nothing to clean up")
		return ExitTrue
	}
	if !runIDPattern.MatchString(id) {
		fmt.Fprintf(env.Stderr, "behaves: the saved run ID %s is not one behaves draws: nothing removed\n", printable(id))
		return ExitRunFailed
	}
	sw, ok := openSweeper(env, "behaves action-post")
	if !ok {
		return ExitRunFailed
	}
	defer sw.Close()
	plan, err := sw.Plan(ctx, 0)
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: %s\n", printable(err.Error()))
		return ExitRunFailed
	}
	var removed, failed int
	for _, p := range plan {
		if p.ID != id {
			continue
		}
		// Removed whatever Decide says: the owner's PID namespace was the
		// main step's container, which this one cannot see.
		for _, r := range sw.Remove(ctx, p.LeftoverRun) {
			if r.Err != nil {
				failed++
				fmt.Fprintf(env.Stderr, "behaves: %s\n", printable(r.Err.Error()))
				continue
			}
			removed++
			fmt.Fprintf(env.Stdout, "behaves: removed %s %s (%s)\n", r.Kind, printable(r.Name), printable(r.Role))
		}
	}
	fmt.Fprintf(env.Stdout, "behaves: run %s: removed %s\n", id, verdict.Count(removed, "leftover", "leftovers"))
	if failed > 0 {
		return ExitRunFailed
	}
	return ExitTrue
}
