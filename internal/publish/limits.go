package publish

// GitHub's limits on what this package renders. Each is GitHub's, not a
// choice: going past one loses text silently or gets the whole of it
// refused. The comment and check run summary limits are the client's too,
// so they are defined once, in ghlimits.
const (
	// StepSummaryLimit: "The job summary size limit is 1MiB per step"; a
	// larger GITHUB_STEP_SUMMARY is rejected, not cut, so the summary stays
	// strictly below it.
	StepSummaryLimit = 1 << 20
	// AnnotationsPerTypePerStep: the runner keeps 10 annotations of each
	// type (error, warning, notice) per step and drops the rest silently.
	AnnotationsPerTypePerStep = 10
	// AnnotationsPerJob: and at most 50 per job.
	AnnotationsPerJob = 50
	// AnnotationMessageLimit: an annotation's message is cut at 4,096
	// characters.
	AnnotationMessageLimit = 4096
)
