package github

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/behaves-dev/behaves/internal/ghlimits"
)

// CommentMode says how PublishComment posts: the action's comment input.
type CommentMode string

// The comment modes.
const (
	// CommentUpdate edits the sticky comment in place, creating it the
	// first time.
	CommentUpdate CommentMode = "update"
	// CommentNew posts a new comment every time.
	CommentNew CommentMode = "new"
	// CommentOff posts nothing.
	CommentOff CommentMode = "off"
)

// ParseCommentMode parses the comment input; the caller substitutes the
// default for an empty input.
func ParseCommentMode(s string) (CommentMode, error) {
	switch m := CommentMode(s); m {
	case CommentUpdate, CommentNew, CommentOff:
		return m, nil
	}
	return "", fmt.Errorf("comment %q: want update, new or off", s)
}

// Comment is one rendered pull request comment.
type Comment struct {
	// PR is the pull request's number, from the event (PullRequestNumber).
	PR int
	// Marker identifies the comment of one spec, e.g. a hidden HTML
	// comment; the renderer owns its form. It is one line, and Body's first
	// line must be exactly it: that is how the comment is found again.
	Marker string
	// Body is the rendered markdown. Beyond ghlimits.CommentBytes it is cut.
	Body string
	Mode CommentMode
}

// CommentAction is what PublishComment did.
type CommentAction string

// The comment actions.
const (
	CommentCreated   CommentAction = "created"
	CommentUpdated   CommentAction = "updated"
	CommentUnchanged CommentAction = "unchanged" // the sticky comment already said it
	CommentSkipped   CommentAction = "skipped"   // mode off
)

// CommentResult says what PublishComment did, and to which comment.
type CommentResult struct {
	Action CommentAction
	// ID and URL name the comment (zero when skipped).
	ID  int64
	URL string
	// Others counts the other comments that are also ours (Updated or
	// Unchanged only): the sticky comment is the oldest, and these newer
	// ones are left as they are.
	Others int
}

// PublishComment posts cm on its pull request. Under CommentUpdate it edits
// the sticky comment: the oldest comment whose first line is exactly the
// marker and that was written by the token's own identity (Login). A
// comment with the marker elsewhere (another bot quoting it; every
// workflow's GITHUB_TOKEN is the same bot) or by anyone else is left
// alone, so nobody can make behaves edit, or hide its result behind, a
// look-alike. The oldest, because it is the one the thread's readers met
// first and the one a newer duplicate cannot displace; the newer ones are
// counted (Others). A 403 or 404 (a fork's read-only token) is a
// *NotPermittedError.
func (c *Client) PublishComment(ctx context.Context, cm Comment) (CommentResult, error) {
	if cm.Mode == CommentOff {
		return CommentResult{Action: CommentSkipped}, nil
	}
	if cm.Mode != CommentUpdate && cm.Mode != CommentNew {
		return CommentResult{}, fmt.Errorf("publishing the comment: mode %q: want update, new or off", cm.Mode)
	}
	if cm.PR <= 0 {
		return CommentResult{}, fmt.Errorf("publishing the comment: no pull request (%d)", cm.PR)
	}
	if cm.Marker == "" || strings.ContainsAny(cm.Marker, "\r\n") || firstLine(cm.Body) != cm.Marker {
		return CommentResult{}, errors.New("publishing the comment: the body's first line is not its marker, so it could never be found again")
	}
	if len(cm.Marker) >= ghlimits.CommentBytes/2 {
		return CommentResult{}, fmt.Errorf("publishing the comment: a marker of %d bytes", len(cm.Marker))
	}
	body := cut(cm.Body, ghlimits.CommentBytes, commentCutMarker)

	if cm.Mode == CommentUpdate {
		existing, others, err := c.stickyComment(ctx, cm.PR, cm.Marker)
		if err != nil {
			return CommentResult{}, err
		}
		if existing != nil {
			if existing.GetBody() == body {
				return CommentResult{Action: CommentUnchanged, ID: existing.GetID(), URL: existing.GetHTMLURL(), Others: others}, nil
			}
			edited, _, err := c.rest.Issues.EditComment(ctx, c.owner, c.repo, existing.GetID(), &gh.IssueComment{Body: &body})
			if err != nil {
				return CommentResult{}, apiError(fmt.Sprintf("editing comment %d on #%d", existing.GetID(), cm.PR), err)
			}
			return CommentResult{Action: CommentUpdated, ID: edited.GetID(), URL: edited.GetHTMLURL(), Others: others}, nil
		}
	}
	created, _, err := c.rest.Issues.CreateComment(ctx, c.owner, c.repo, cm.PR, &gh.IssueComment{Body: &body})
	if err != nil {
		return CommentResult{}, apiError(fmt.Sprintf("creating the comment on #%d", cm.PR), err)
	}
	return CommentResult{Action: CommentCreated, ID: created.GetID(), URL: created.GetHTMLURL()}, nil
}

// stickyComment returns the oldest comment on pr whose first line is
// exactly marker and that was written by the token's identity (nil when
// there is none), and how many newer ones are ours too. It reads every
// page, so that the count is whole.
func (c *Client) stickyComment(ctx context.Context, pr int, marker string) (found *gh.IssueComment, others int, err error) {
	self, err := c.Login(ctx)
	if err != nil {
		return nil, 0, err
	}
	op := fmt.Sprintf("listing the comments on #%d", pr)
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: MaxPerPage}}
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, 0, fmt.Errorf("%s: more than %d pages", op, maxListPages)
		}
		comments, resp, err := c.rest.Issues.ListComments(ctx, c.owner, c.repo, pr, opts)
		if err != nil {
			return nil, 0, apiError(op, err)
		}
		// Pages come oldest first, so the first match is the oldest.
		for _, cm := range comments {
			if firstLine(cm.GetBody()) != marker || !sameLogin(cm.GetUser().GetLogin(), self) {
				continue
			}
			if found == nil {
				found = cm
			} else {
				others++
			}
		}
		if resp.NextPage == 0 {
			return found, others, nil
		}
		opts.Page = resp.NextPage
	}
}

// firstLine is body's first line, ended by "\n" or "\r\n" (GitHub may
// return either).
func firstLine(body string) string {
	line, _, _ := strings.Cut(body, "\n")
	return strings.TrimSuffix(line, "\r")
}
