package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// PullRequestNumber returns the pull request the event is about, taken from
// the event and never from a report; 0 when there is none (a push, a
// workflow_run of a push, a fork's branch with no open pull request at that
// commit).
//
// For workflow_run it considers only runs of pull_request events, and:
//   - uses workflow_run.pull_requests when it lists a pull request into this
//     repository (GitHub may list pull requests of other repositories there),
//     preferring the one whose head is the run's head commit;
//   - otherwise, as for every fork's pull request (GitHub always leaves the
//     list empty then), lists the open pull requests with head
//     <head_repository.owner.login>:<head_branch> and keeps the one whose
//     head is workflow_run.head_sha. commits/{sha}/pulls would not do: it
//     does not find commits that exist only in a fork.
//
// When several pull requests qualify, the lowest number wins.
func (c *Client) PullRequestNumber(ctx context.Context, ev *Event) (int, error) {
	switch {
	case ev.PullRequest != nil:
		if base := ev.PullRequest.BaseRepo.FullName; base != "" && !strings.EqualFold(base, c.owner+"/"+c.repo) {
			return 0, fmt.Errorf("finding the pull request: the event's pull request is into %q, not %s/%s", base, c.owner, c.repo)
		}
		return ev.PullRequest.Number, nil
	case ev.WorkflowRun != nil:
		return c.workflowRunPullRequest(ctx, ev)
	}
	return 0, nil
}

// workflowRunPullRequest finds the pull request of a workflow_run event.
func (c *Client) workflowRunPullRequest(ctx context.Context, ev *Event) (int, error) {
	run := ev.WorkflowRun
	if run.Event != "pull_request" && run.Event != "pull_request_target" {
		return 0, nil
	}
	// GitHub fills pull_requests for runs in the base repository; an entry
	// whose base is another repository is not ours to comment on.
	repoID := ev.Repository.ID
	if run.Repository.ID != 0 {
		repoID = run.Repository.ID
	}
	var listed, atHead []int
	for _, pr := range run.PullRequests {
		if pr.Number <= 0 || repoID != 0 && pr.BaseRepoID != repoID {
			continue
		}
		listed = append(listed, pr.Number)
		if pr.HeadSHA == run.HeadSHA {
			atHead = append(atHead, pr.Number)
		}
	}
	if n := lowest(atHead); n != 0 {
		return n, nil
	}
	if n := lowest(listed); n != 0 {
		return n, nil
	}

	owner := run.HeadRepository.Owner
	if owner == "" || run.HeadBranch == "" {
		return 0, nil
	}
	op := fmt.Sprintf("finding the pull request of %s:%s", owner, run.HeadBranch)
	opts := &gh.PullRequestListOptions{
		State:       "open",
		Head:        owner + ":" + run.HeadBranch,
		ListOptions: gh.ListOptions{PerPage: MaxPerPage},
	}
	var found []int
	for page := 0; ; page++ {
		if page == maxListPages {
			return 0, fmt.Errorf("%s: more than %d pages of pull requests", op, maxListPages)
		}
		prs, resp, err := c.rest.PullRequests.List(ctx, c.owner, c.repo, opts)
		if err != nil {
			return 0, apiError(op, err)
		}
		for _, pr := range prs {
			if pr.GetHead().GetSHA() == run.HeadSHA && pr.GetNumber() > 0 {
				found = append(found, pr.GetNumber())
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return lowest(found), nil
}

// lowest returns the smallest of ns, 0 when there is none.
func lowest(ns []int) int {
	best := 0
	for _, n := range ns {
		if best == 0 || n < best {
			best = n
		}
	}
	return best
}
