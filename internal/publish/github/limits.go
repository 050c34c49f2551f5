package github

import "unicode/utf8"

// GitHub's limits. Sizes of text are counted here in bytes of UTF-8, which
// are never fewer than the characters or UTF-16 units GitHub may count, so a
// text within the limit here is within it whatever GitHub's unit. The
// comment and check run summary limits are the renderer's too, so they are
// defined once, in ghlimits.
const (
	// MaxAnnotationsPerRequest is how many annotations one check run create
	// or update takes: "The Checks API limits the number of annotations to a
	// maximum of 50 per API request. To create more than 50 annotations, you
	// have to make multiple requests to the Update a check run endpoint."
	MaxAnnotationsPerRequest = 50

	// MaxAnnotationMessageBytes bounds an annotation's message: "The maximum
	// size is 64 KB." (REST: Create a check run, output.annotations).
	MaxAnnotationMessageBytes = 64 << 10

	// MaxAnnotationRawDetailsBytes bounds an annotation's raw_details: "The
	// maximum size is 64 KB."
	MaxAnnotationRawDetailsBytes = 64 << 10

	// MaxAnnotationTitleBytes bounds an annotation's title: "The maximum
	// size is 255 characters."
	MaxAnnotationTitleBytes = 255

	// MaxEventBytes bounds the event payload read from GITHUB_EVENT_PATH:
	// GitHub caps webhook payloads at 25 MB ("Payloads are capped at 25
	// MB", Webhook events and payloads), and the Actions event file holds
	// one.
	MaxEventBytes = 25 << 20

	// MaxPerPage is the largest page a REST list endpoint returns: per_page
	// is at most 100 (REST: Using pagination in the REST API).
	MaxPerPage = 100
)

// Bounds of behaves' own, not GitHub's.
const (
	// MaxCheckRunRequests bounds the requests one check run takes: a create
	// and at most 24 updates. A GITHUB_TOKEN has 1,000 requests an hour per
	// repository, and a report (which a fork's pull request may have
	// written) must not spend them: without a ceiling, 50,000 false cases
	// took 1,001 requests.
	MaxCheckRunRequests = 25

	// MaxCheckRunAnnotations is how many annotations a check run carries at
	// most: MaxAnnotationsPerRequest in each of MaxCheckRunRequests. The
	// rest are not sent; the summaries count them.
	MaxCheckRunAnnotations = MaxCheckRunRequests * MaxAnnotationsPerRequest

	// maxListPages bounds the pages read when listing comments or pull
	// requests (10,000 items at MaxPerPage), so that a huge thread cannot
	// keep publishing busy; past it the listing fails rather than guess.
	maxListPages = 100

	// maxGraphQLResponseBytes bounds the answer to the viewer query, a few
	// dozen bytes when all is well.
	maxGraphQLResponseBytes = 1 << 20
)

// cutMarkers say that GitHub's limit cut a text.
const (
	commentCutMarker    = "\n\n… (cut: GitHub's comment size limit)"
	summaryCutMarker    = "\n\n… (cut: GitHub's check run summary limit)"
	annotationCutMarker = "…"
)

// cut returns s when it has at most limit bytes, else its longest prefix
// that ends on a rune boundary and leaves room for marker, followed by
// marker. The result never has more than limit bytes when limit is at least
// len(marker).
func cut(s string, limit int, marker string) string {
	if len(s) <= limit {
		return s
	}
	n := max(0, limit-len(marker))
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + marker
}
