package github

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Event is what publishing needs of the event that triggered the workflow:
// the payload at GITHUB_EVENT_PATH, under the name GITHUB_EVENT_NAME.
// Exactly one of PullRequest, Push and WorkflowRun is set for those events;
// none for others.
type Event struct {
	// Name is GITHUB_EVENT_NAME.
	Name string
	// Repository is the payload's repository: the one the workflow runs in.
	Repository Repository
	// PullRequest is set for pull_request and pull_request_target.
	PullRequest *PullRequest
	// Push is set for push.
	Push *Push
	// WorkflowRun is set for workflow_run.
	WorkflowRun *WorkflowRun
}

// Repository names a repository in a payload.
type Repository struct {
	ID       int64
	FullName string // "owner/name"
	Owner    string // the owner's login
}

// PullRequest is the pull request of a pull_request event.
type PullRequest struct {
	Number int
	// HeadSHA is the pull request's head commit, the one a check run
	// belongs to (GITHUB_SHA is the merge commit instead).
	HeadSHA  string
	HeadRef  string
	HeadRepo Repository
	BaseRef  string
	BaseRepo Repository
}

// Push is the push of a push event.
type Push struct {
	Ref    string
	Before string
	After  string
}

// WorkflowRun is the run that triggered a workflow_run event: for the
// fork-safe pattern, the pull_request run whose report is being published.
type WorkflowRun struct {
	ID         int64
	RunAttempt int
	// Event is the event that triggered that run, e.g. "pull_request".
	Event      string
	Conclusion string
	HeadSHA    string
	HeadBranch string
	// HeadRepository is where the head branch lives: a fork for a fork's
	// pull request. Its zero value means GitHub did not say (a deleted
	// fork).
	HeadRepository Repository
	Repository     Repository
	// PullRequests is what GitHub lists for the run: never a fork's pull
	// request, and possibly pull requests of other repositories.
	PullRequests []RunPullRequest
}

// RunPullRequest is one entry of workflow_run.pull_requests.
type RunPullRequest struct {
	Number     int
	HeadSHA    string
	HeadRef    string
	BaseRef    string
	BaseRepoID int64
}

// The payload's JSON, only the fields used.
type (
	jsonRepo struct {
		ID       int64  `json:"id"`
		FullName string `json:"full_name"`
		Owner    struct {
			Login string `json:"login"`
		} `json:"owner"`
	}
	jsonRef struct {
		Ref  string   `json:"ref"`
		SHA  string   `json:"sha"`
		Repo jsonRepo `json:"repo"`
	}
	jsonPayload struct {
		Repository  jsonRepo `json:"repository"`
		PullRequest *struct {
			Number int     `json:"number"`
			Head   jsonRef `json:"head"`
			Base   jsonRef `json:"base"`
		} `json:"pull_request"`
		Ref         string `json:"ref"`
		Before      string `json:"before"`
		After       string `json:"after"`
		WorkflowRun *struct {
			ID             int64    `json:"id"`
			RunAttempt     int      `json:"run_attempt"`
			Event          string   `json:"event"`
			Conclusion     string   `json:"conclusion"`
			HeadSHA        string   `json:"head_sha"`
			HeadBranch     string   `json:"head_branch"`
			HeadRepository jsonRepo `json:"head_repository"`
			Repository     jsonRepo `json:"repository"`
			PullRequests   []struct {
				Number int     `json:"number"`
				Head   jsonRef `json:"head"`
				Base   jsonRef `json:"base"`
			} `json:"pull_requests"`
		} `json:"workflow_run"`
	}
)

// ReadEvent reads the payload at path (GITHUB_EVENT_PATH) of the event name
// (GITHUB_EVENT_NAME), at most MaxEventBytes of it.
func ReadEvent(name, path string) (*Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the %s event: %w", name, err)
	}
	defer f.Close()
	ev, err := ParseEvent(name, f)
	if err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, path)
	}
	return ev, nil
}

// ParseEvent parses the payload of the event name from r, at most
// MaxEventBytes of it.
func ParseEvent(name string, r io.Reader) (*Event, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEventBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the %s event: %w", name, err)
	}
	if len(data) > MaxEventBytes {
		return nil, fmt.Errorf("reading the %s event: the payload exceeds %d bytes", name, MaxEventBytes)
	}
	var p jsonPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("decoding the %s event: %w", name, err)
	}
	ev := &Event{Name: name, Repository: repository(p.Repository)}
	switch name {
	case "pull_request", "pull_request_target":
		pr := p.PullRequest
		if pr == nil || pr.Number <= 0 || pr.Head.SHA == "" {
			return nil, fmt.Errorf("decoding the %s event: no pull_request with a number and a head sha", name)
		}
		ev.PullRequest = &PullRequest{
			Number:   pr.Number,
			HeadSHA:  pr.Head.SHA,
			HeadRef:  pr.Head.Ref,
			HeadRepo: repository(pr.Head.Repo),
			BaseRef:  pr.Base.Ref,
			BaseRepo: repository(pr.Base.Repo),
		}
	case "push":
		if p.After == "" {
			return nil, fmt.Errorf("decoding the %s event: no after sha", name)
		}
		ev.Push = &Push{Ref: p.Ref, Before: p.Before, After: p.After}
	case "workflow_run":
		wr := p.WorkflowRun
		if wr == nil || wr.ID <= 0 || wr.HeadSHA == "" {
			return nil, fmt.Errorf("decoding the %s event: no workflow_run with an id and a head_sha", name)
		}
		run := &WorkflowRun{
			ID:             wr.ID,
			RunAttempt:     wr.RunAttempt,
			Event:          wr.Event,
			Conclusion:     wr.Conclusion,
			HeadSHA:        wr.HeadSHA,
			HeadBranch:     wr.HeadBranch,
			HeadRepository: repository(wr.HeadRepository),
			Repository:     repository(wr.Repository),
			PullRequests:   []RunPullRequest{},
		}
		for _, pr := range wr.PullRequests {
			run.PullRequests = append(run.PullRequests, RunPullRequest{
				Number:     pr.Number,
				HeadSHA:    pr.Head.SHA,
				HeadRef:    pr.Head.Ref,
				BaseRef:    pr.Base.Ref,
				BaseRepoID: pr.Base.Repo.ID,
			})
		}
		ev.WorkflowRun = run
	}
	return ev, nil
}

func repository(r jsonRepo) Repository {
	return Repository{ID: r.ID, FullName: r.FullName, Owner: r.Owner.Login}
}

// HeadSHA is the commit the event is about: the pull request's head (never
// the merge commit GITHUB_SHA names), the triggering run's head for
// workflow_run, the pushed commit for push; "" for other events.
func (e *Event) HeadSHA() string {
	switch {
	case e.PullRequest != nil:
		return e.PullRequest.HeadSHA
	case e.WorkflowRun != nil:
		return e.WorkflowRun.HeadSHA
	case e.Push != nil:
		return e.Push.After
	}
	return ""
}
