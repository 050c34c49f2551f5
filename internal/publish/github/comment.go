package github

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"
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
	// comment; the renderer owns its form. Body must contain it.
	Marker string
	// Body is the rendered markdown. Beyond MaxCommentBytes it is cut.
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
}

// PublishComment posts cm on its pull request. Under CommentUpdate it edits
// the sticky comment: the most recent comment that contains the marker and
// was written by the token's own identity (Login). A comment with the same
// marker by anyone else is left alone, so nobody can make behaves edit, or
// hide its result behind, a look-alike. A 403 or 404 (a fork's read-only
// token) is a *NotPermittedError.
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
	if cm.Marker == "" || !strings.Contains(cm.Body, cm.Marker) {
		return CommentResult{}, errors.New("publishing the comment: the body does not contain its marker, so it could never be found again")
	}
	body := cut(cm.Body, MaxCommentBytes, commentCutMarker)
	if !strings.Contains(body, cm.Marker) {
		return CommentResult{}, fmt.Errorf("publishing the comment: the marker lies beyond the %d bytes kept of the body", MaxCommentBytes)
	}

	if cm.Mode == CommentUpdate {
		existing, err := c.stickyComment(ctx, cm.PR, cm.Marker)
		if err != nil {
			return CommentResult{}, err
		}
		if existing != nil {
			if existing.GetBody() == body {
				return CommentResult{Action: CommentUnchanged, ID: existing.GetID(), URL: existing.GetHTMLURL()}, nil
			}
			edited, _, err := c.rest.Issues.EditComment(ctx, c.owner, c.repo, existing.GetID(), &gh.IssueComment{Body: &body})
			if err != nil {
				return CommentResult{}, apiError(fmt.Sprintf("editing comment %d on #%d", existing.GetID(), cm.PR), err)
			}
			return CommentResult{Action: CommentUpdated, ID: edited.GetID(), URL: edited.GetHTMLURL()}, nil
		}
	}
	created, _, err := c.rest.Issues.CreateComment(ctx, c.owner, c.repo, cm.PR, &gh.IssueComment{Body: &body})
	if err != nil {
		return CommentResult{}, apiError(fmt.Sprintf("creating the comment on #%d", cm.PR), err)
	}
	return CommentResult{Action: CommentCreated, ID: created.GetID(), URL: created.GetHTMLURL()}, nil
}

// stickyComment returns the most recent comment on pr that contains marker
// and was written by the token's identity; nil when there is none. It reads
// every page, so that an older sticky comment is never duplicated.
func (c *Client) stickyComment(ctx context.Context, pr int, marker string) (*gh.IssueComment, error) {
	self, err := c.Login(ctx)
	if err != nil {
		return nil, err
	}
	op := fmt.Sprintf("listing the comments on #%d", pr)
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: MaxPerPage}}
	var found *gh.IssueComment
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("%s: more than %d pages", op, maxListPages)
		}
		comments, resp, err := c.rest.Issues.ListComments(ctx, c.owner, c.repo, pr, opts)
		if err != nil {
			return nil, apiError(op, err)
		}
		// Pages come oldest first, so the last match is the most recent.
		for _, cm := range comments {
			if strings.Contains(cm.GetBody(), marker) && sameLogin(cm.GetUser().GetLogin(), self) {
				found = cm
			}
		}
		if resp.NextPage == 0 {
			return found, nil
		}
		opts.Page = resp.NextPage
	}
}
