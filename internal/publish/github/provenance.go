package github

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Provenance is what a report says about the Actions run that wrote it: its
// github.run_id, github.run_attempt and github.head_sha (report.GitHub's
// RunID, RunAttempt and HeadSHA). A report read from disk is untrusted, and
// so are these strings.
type Provenance struct {
	RunID      string
	RunAttempt string
	HeadSHA    string
}

// errNoRun is returned when a check needs a workflow_run event.
var errNoRun = errors.New("the event is not a workflow_run")

// maxQuoted bounds how much of an untrusted value an error quotes.
const maxQuoted = 80

// CheckProvenance refuses a report that does not belong to run, the
// workflow_run being published: its run ID, attempt and head commit must
// all be recorded and equal run's id, run_attempt and head_sha. Without
// this, the fork-safe publisher could post an old report, or one from
// another pull request, as the result of this run.
func CheckProvenance(p Provenance, run *WorkflowRun) error {
	if run == nil {
		return fmt.Errorf("checking the report's provenance: %w", errNoRun)
	}
	var problems []string
	check := func(field, got, want string) {
		switch {
		case got == "":
			problems = append(problems, fmt.Sprintf("it records no %s", field))
		case got != want:
			problems = append(problems, fmt.Sprintf("its %s is %s, the workflow_run's is %s", field, quote(got), want))
		}
	}
	check("github.run_id", p.RunID, strconv.FormatInt(run.ID, 10))
	check("github.run_attempt", p.RunAttempt, strconv.Itoa(run.RunAttempt))
	check("github.head_sha", p.HeadSHA, run.HeadSHA)
	if len(problems) > 0 {
		return errors.New("refusing the report: it is not from the workflow run being published: " + strings.Join(problems, "; "))
	}
	return nil
}

// quote quotes an untrusted value for an error message: Go syntax, so no
// line break or workflow command survives it, and cut to maxQuoted bytes.
func quote(s string) string {
	return strconv.Quote(cut(s, maxQuoted, annotationCutMarker))
}
