package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/behaves-dev/behaves/internal/report"
)

// maxEventSize bounds how much of the Actions event payload is read. The
// runner writes it, but it quotes pull request titles and bodies; 64 MiB is
// far above any payload GitHub sends (webhook payloads are capped at 25 MB).
const maxEventSize = 64 << 20

// commitSHA is a full commit ID (SHA-1, or SHA-256 for such repositories).
var commitSHA = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// githubOrigin is the GitHub Actions run behaves runs in, for the report,
// or the zero value outside Actions. A field it cannot establish stays ""
// (never a guess), with a warning, so that a publisher comparing it with
// its own event refuses rather than trusts.
func githubOrigin(getenv func(string) string) (report.GitHub, []string) {
	if getenv("GITHUB_ACTIONS") != "true" {
		return report.GitHub{}, nil
	}
	g := report.GitHub{
		RunID:      getenv("GITHUB_RUN_ID"),
		RunAttempt: getenv("GITHUB_RUN_ATTEMPT"),
		Repository: getenv("GITHUB_REPOSITORY"),
		EventName:  getenv("GITHUB_EVENT_NAME"),
	}
	var warnings []string
	if sha := getenv("GITHUB_SHA"); commitSHA.MatchString(sha) {
		g.SHA = sha
	}
	head, err := eventHeadSHA(getenv("GITHUB_EVENT_PATH"))
	switch {
	case err != nil:
		warnings = append(warnings, fmt.Sprintf("behaves: the report records no head commit: %v", err))
	case head != "":
		g.HeadSHA = head
	default:
		g.HeadSHA = g.SHA
	}
	return g, warnings
}

// eventHeadSHA reads the head commit of a pull_request or workflow_run
// event from the event payload at path; "" for other events.
func eventHeadSHA(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading the event payload: %w", err)
	}
	defer f.Close()
	var ev struct {
		PullRequest *struct {
			Head struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
		WorkflowRun *struct {
			HeadSHA string `json:"head_sha"`
		} `json:"workflow_run"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxEventSize)).Decode(&ev); err != nil {
		return "", fmt.Errorf("reading the event payload %s: %w", path, err)
	}
	sha := ""
	switch {
	case ev.PullRequest != nil:
		sha = ev.PullRequest.Head.SHA
	case ev.WorkflowRun != nil:
		sha = ev.WorkflowRun.HeadSHA
	default:
		return "", nil
	}
	if !commitSHA.MatchString(sha) {
		return "", fmt.Errorf("the event payload %s holds no valid head commit", path)
	}
	return sha, nil
}
