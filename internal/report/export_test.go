package report

import "bytes"

// What the external tests (package report_test, whose reports
// reporttest builds as a run builds them) need of the package's insides.

const (
	MaxNesting   = maxNesting
	ExcerptBytes = excerptBytes
)
