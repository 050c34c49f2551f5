// Package ghlimits holds GitHub's documented limits on what behaves
// renders and posts, one definition each, for the renderer (publish) and
// the client (publish/github) alike. Each is GitHub's, not a choice: going
// past one loses text silently or gets the whole of it refused. Sizes of
// text are counted in bytes of UTF-8, which are never fewer than the
// characters or UTF-16 units GitHub may count, so a text within a limit
// here is within it whatever GitHub's unit.
package ghlimits

const (
	// CommentBytes bounds an issue or pull request comment body: the API
	// refuses a longer one with "Body is too long (maximum is 65536
	// characters)".
	CommentBytes = 65536

	// CheckRunSummaryBytes bounds a check run's output.summary: "The
	// maximum size is 65535 characters." (REST: Create a check run).
	CheckRunSummaryBytes = 65535
)
