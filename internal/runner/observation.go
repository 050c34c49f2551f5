package runner

// Acquisition says how much of a program's evidence was acquired.
type Acquisition string

// The acquisition states of a program attempt.
const (
	// AcquisitionComplete: every invocation was observed to its end.
	AcquisitionComplete Acquisition = "complete"
	// AcquisitionPartial: some invocations were observed, others were not.
	AcquisitionPartial Acquisition = "partial"
	// AcquisitionError: no invocation was observed.
	AcquisitionError Acquisition = "error"
)

// Job is one program to run with its profile and its invocations.
type Job struct {
	Program     Program
	Profile     Profile
	Invocations []Invocation
	// Checker marks a job that runs a checker program on what other jobs'
	// programs wrote (a spec's checkers:): a sandbox tells its containers
	// apart (the Docker sandbox labels them behaves.role=checker).
	Checker bool
}

// Observation is what one attempt at a job acquired.
type Observation struct {
	// ExecutionID is new for every attempt, also one that stopped early.
	ExecutionID string
	Acquisition Acquisition
	// Reasons say why acquisition is not complete.
	Reasons []string
	// SandboxWarnings list cleanup failures (containers or volumes left),
	// and what the sandbox applied otherwise than the profile asks
	// (Warner).
	SandboxWarnings []string
	// Settings are the container settings applied (zero when Prepare failed).
	Settings Settings
	// Events holds one event per invocation, in the job's order.
	Events []Event
	// Build is the build stage's event when the profile has one and it ran
	// or was due (nil otherwise); of each stream it keeps at most the first
	// BuildOutputKept bytes.
	Build *Event
}
