package github

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	gh "github.com/google/go-github/v62/github"

	"github.com/behaves-dev/behaves/internal/ghlimits"
)

// Conclusion is a check run's conclusion, chosen by the caller from the
// gate: required checks count neutral as passing, so it must never stand
// for a result that fails the gate.
type Conclusion string

// The conclusions behaves uses.
const (
	ConclusionSuccess Conclusion = "success"
	ConclusionFailure Conclusion = "failure"
	ConclusionNeutral Conclusion = "neutral"
)

// AnnotationLevel is a check run annotation's level.
type AnnotationLevel string

// The annotation levels the Checks API takes.
const (
	LevelFailure AnnotationLevel = "failure"
	LevelWarning AnnotationLevel = "warning"
	LevelNotice  AnnotationLevel = "notice"
)

// Annotation is one check run annotation, already rendered.
type Annotation struct {
	// Path is relative to the repository root.
	Path string
	// StartLine and EndLine are 1-based; a StartLine below 1 becomes 1 and
	// an EndLine below StartLine becomes StartLine.
	StartLine int
	EndLine   int
	// StartColumn and EndColumn are sent only when the annotation is on one
	// line (the API refuses them otherwise) and StartColumn is at least 1.
	StartColumn int
	EndColumn   int
	Level       AnnotationLevel
	// Title is cut to MaxAnnotationTitleBytes, Message (required) to
	// MaxAnnotationMessageBytes and RawDetails to
	// MaxAnnotationRawDetailsBytes.
	Title      string
	Message    string
	RawDetails string
}

// CheckRun is one rendered check run.
type CheckRun struct {
	// Name is the check's name in the pull request's checks list, from
	// the workflow (never the report); ValidateCheckName says what it may
	// be.
	Name string
	// HeadSHA is the pull request's head (Event.HeadSHA), never GITHUB_SHA,
	// which is the merge commit of a pull_request run.
	HeadSHA    string
	Conclusion Conclusion
	// Title and Summary are the output's; the summary is cut to
	// ghlimits.CheckRunSummaryBytes.
	Title   string
	Summary string
	// DetailsURL links the run (optional).
	DetailsURL string
	// Annotations are sent in their order, the first
	// MaxCheckRunAnnotations of them: put the most useful first.
	Annotations []Annotation
}

// CheckRunResult says what PublishCheckRun did.
type CheckRunResult struct {
	ID  int64
	URL string
	// AnnotationsSent counts the annotations GitHub accepted.
	AnnotationsSent int
	// AnnotationsNotSent counts the annotations past
	// MaxCheckRunAnnotations, which were never sent.
	AnnotationsNotSent int
}

// shaPattern is a commit ID: SHA-1, or SHA-256 in a repository that uses it.
var shaPattern = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// PublishCheckRun creates a completed check run on run.HeadSHA with its
// conclusion, then sends the annotations, at most MaxCheckRunAnnotations: the
// first MaxAnnotationsPerRequest with the create, the rest through updates
// of as many each, so that it makes at most MaxCheckRunRequests requests
// whatever the report. The conclusion
// is set by the create, so a later failure leaves the check's result right
// and only some annotations missing; the result then counts those sent. A
// 403 or 404 (a token without checks: write) is a *NotPermittedError.
func (c *Client) PublishCheckRun(ctx context.Context, run CheckRun) (CheckRunResult, error) {
	if err := run.validate(); err != nil {
		return CheckRunResult{}, fmt.Errorf("publishing the check run: %w", err)
	}
	kept := run.Annotations[:min(len(run.Annotations), MaxCheckRunAnnotations)]
	annotations := make([]*gh.CheckRunAnnotation, len(kept))
	for i, a := range kept {
		annotations[i] = a.api()
	}
	summary := cut(run.Summary, ghlimits.CheckRunSummaryBytes, summaryCutMarker)
	output := func(batch []*gh.CheckRunAnnotation) *gh.CheckRunOutput {
		// The API requires the title and the summary with every output,
		// updates included.
		return &gh.CheckRunOutput{Title: &run.Title, Summary: &summary, Annotations: batch}
	}
	first := annotations[:min(len(annotations), MaxAnnotationsPerRequest)]
	opts := gh.CreateCheckRunOptions{
		Name:       run.Name,
		HeadSHA:    run.HeadSHA,
		Status:     gh.String("completed"),
		Conclusion: gh.String(string(run.Conclusion)),
		Output:     output(first),
	}
	if run.DetailsURL != "" {
		opts.DetailsURL = &run.DetailsURL
	}
	created, _, err := c.rest.Checks.CreateCheckRun(ctx, c.owner, c.repo, opts)
	if err != nil {
		return CheckRunResult{}, apiError(fmt.Sprintf("creating check run %q", run.Name), err)
	}
	res := CheckRunResult{ID: created.GetID(), URL: created.GetHTMLURL(), AnnotationsSent: len(first),
		AnnotationsNotSent: len(run.Annotations) - len(kept)}
	for i := len(first); i < len(annotations); i += MaxAnnotationsPerRequest {
		batch := annotations[i:min(len(annotations), i+MaxAnnotationsPerRequest)]
		_, _, err := c.rest.Checks.UpdateCheckRun(ctx, c.owner, c.repo, res.ID, gh.UpdateCheckRunOptions{
			Name:   run.Name,
			Output: output(batch),
		})
		if err != nil {
			return res, apiError(fmt.Sprintf("sending annotations %d to %d of check run %d", i+1, i+len(batch), res.ID), err)
		}
		res.AnnotationsSent += len(batch)
	}
	return res, nil
}

// validate checks what only a bug in the caller gets wrong, before anything
// is sent.
func (run CheckRun) validate() error {
	if err := ValidateCheckName(run.Name); err != nil {
		return fmt.Errorf("the name: %w", err)
	}
	switch {
	case !shaPattern.MatchString(run.HeadSHA):
		return fmt.Errorf("head SHA %s is not a commit ID", quote(run.HeadSHA))
	case run.Conclusion != ConclusionSuccess && run.Conclusion != ConclusionFailure && run.Conclusion != ConclusionNeutral:
		return fmt.Errorf("conclusion %s: want success, failure or neutral", quote(string(run.Conclusion)))
	case run.Title == "" || run.Summary == "":
		return errors.New("the API requires a title and a summary")
	}
	for i, a := range run.Annotations {
		switch {
		case a.Path == "":
			return fmt.Errorf("annotation %d has no path", i+1)
		case a.Message == "":
			return fmt.Errorf("annotation %d has no message", i+1)
		case a.Level != LevelFailure && a.Level != LevelWarning && a.Level != LevelNotice:
			return fmt.Errorf("annotation %d: level %s: want failure, warning or notice", i+1, quote(string(a.Level)))
		}
	}
	return nil
}

// MaxCheckNameRunes bounds a check run's name. The API states no limit;
// the checks list shows a name on one short line, and a branch protection
// rule must name it exactly.
const MaxCheckNameRunes = 100

// ValidateCheckName checks a check run's name as the workflow gives it
// (publish's --check-name, the action's check-name): not empty, without
// surrounding space, at most MaxCheckNameRunes characters, and printable
// throughout (no control, format or bidi character, no line break), so
// that what the checks list shows is what a branch protection rule names.
// The error never repeats the name.
func ValidateCheckName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("empty: a check run needs a name")
	case strings.TrimSpace(name) != name:
		return errors.New("starts or ends with space")
	case !utf8.ValidString(name):
		return errors.New("is not UTF-8")
	case utf8.RuneCountInString(name) > MaxCheckNameRunes:
		return fmt.Errorf("%d characters, more than %d", utf8.RuneCountInString(name), MaxCheckNameRunes)
	}
	i := 0
	for _, r := range name {
		i++
		if !unicode.IsPrint(r) {
			return fmt.Errorf("character %d is %U, which is not printable (a control, format or separator character)", i, r)
		}
	}
	return nil
}

// api converts a to go-github's form, within the API's rules and limits.
func (a Annotation) api() *gh.CheckRunAnnotation {
	start := max(a.StartLine, 1)
	end := max(a.EndLine, start)
	out := &gh.CheckRunAnnotation{
		Path:            gh.String(a.Path),
		StartLine:       gh.Int(start),
		EndLine:         gh.Int(end),
		AnnotationLevel: gh.String(string(a.Level)),
		Message:         gh.String(cut(a.Message, MaxAnnotationMessageBytes, annotationCutMarker)),
	}
	// "Annotations only support start_column and end_column on the same
	// line. Omit this parameter if start_line and end_line have different
	// values."
	if start == end && a.StartColumn >= 1 {
		out.StartColumn = gh.Int(a.StartColumn)
		out.EndColumn = gh.Int(max(a.EndColumn, a.StartColumn))
	}
	if a.Title != "" {
		out.Title = gh.String(cut(a.Title, MaxAnnotationTitleBytes, annotationCutMarker))
	}
	if a.RawDetails != "" {
		out.RawDetails = gh.String(cut(a.RawDetails, MaxAnnotationRawDetailsBytes, annotationCutMarker))
	}
	return out
}
