package report

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Schema names the report format. A reader must check it: a change that
// removes or changes the meaning of a field gets a new version.
const Schema = "behaves.report/v1"

// EvidenceFormat is the version of what a key of evidence (package
// evidence) names and of the sandbox whose evidence it keys. It changes
// when a key starts or stops naming something an outcome depends on, or
// when the sandbox starts running programs in a way that can change what
// they do (a new hardening, another way to deliver stdin), so that
// evidence recorded under another format is never taken for this one's.
// Each program of a report records the format its evidence was recorded
// under (Program.EvidenceFormat).
//
// Format 2: the key is the sandbox's applied settings (runner.Applied),
// compared both ways, and a same_as case records its reference's
// (Case.ReferenceApplied).
const EvidenceFormat = 2

// ToolName is the tool's name in every report.
const ToolName = "behaves"

// Report is the JSON report of one run. Every field is always present in the
// JSON (zero values included, slices as [] and never null), so a reader never
// has to tell a missing key from a zero value.
type Report struct {
	// Schema is always Schema.
	Schema string `json:"schema"`
	Tool   Tool   `json:"tool"`
	// RunID is the run's ID, the one on every container and volume label.
	RunID string `json:"run_id"`
	// Spec is the spec file's path as given to behaves.
	Spec string `json:"spec"`
	// SpecFile is the spec file's path relative to the repository root,
	// slash-separated (what an annotation needs); "" when it cannot be
	// computed.
	SpecFile   string    `json:"spec_file"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	// Verdict is false when any program is false; otherwise undetermined
	// when any program is undetermined, there are no programs, the run was
	// interrupted or failed; otherwise true.
	Verdict verdict.Verdict `json:"verdict"`
	Counts  Counts          `json:"counts"`
	// Interrupted is set when a signal stopped the run.
	Interrupted bool `json:"interrupted"`
	// Error says why the run itself failed ("" otherwise).
	Error string `json:"error"`
	// SpecErrors are the spec's problems when it could not be loaded (then
	// nothing ran, Programs is empty and Error says so); [] otherwise.
	SpecErrors []SpecError `json:"spec_errors"`
	// GitHub names the Actions run the report came from (every field ""
	// outside Actions), so that a publisher handed the report by another
	// workflow can check it against its own event.
	GitHub GitHub `json:"github"`
	// OutputOmittedCases counts the cases whose kept output was left out
	// of the report to stay within its size budget (--max-report-size);
	// their events say so (stdout_omitted, stderr_omitted).
	OutputOmittedCases int `json:"output_omitted_cases"`
	// Groups holds one Group per `files:` entry, in spec order; [] when the
	// spec has none.
	Groups []Group `json:"groups"`
	// Shard is null for a run of the whole spec. A run of one shard (--shard
	// i/N) and a merge of shards (reportmerge.Merge) set it: which shard, the
	// spec's digest and the table of every program's shard (see Shard).
	// reportread.Read accepts a report without the key (an earlier behaves).
	Shard *Shard `json:"shard"`
	// Filter are the --program patterns the run ran only the programs of
	// (empty: the whole spec, or its shard). A filtered report answers
	// for part of the spec: publish posts no check run from it unless
	// told to (--allow-filtered). Absent in reports of an earlier behaves.
	Filter []string `json:"filter"`
	// Reuse is null for a run given no stored reports (--reuse); else what it
	// took from them (see Reuse). reportread.Read accepts a report without
	// the key (an earlier behaves).
	Reuse *Reuse `json:"reuse"`
	// Programs stays the last field: reportwrite.Writer streams it.
	Programs []Program `json:"programs"`
}

// SpecError is one problem with the spec, where it is.
type SpecError struct {
	// File is the spec file's path as given to behaves.
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// GitHub is the GitHub Actions run a report came from.
type GitHub struct {
	// RunID and RunAttempt are GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT.
	RunID      string `json:"run_id"`
	RunAttempt string `json:"run_attempt"`
	// Repository and EventName are GITHUB_REPOSITORY and GITHUB_EVENT_NAME.
	Repository string `json:"repository"`
	EventName  string `json:"event_name"`
	// SHA is GITHUB_SHA (for a pull request, the merge commit).
	SHA string `json:"sha"`
	// HeadSHA is the head commit of the event: the pull request's head, the
	// triggering run's head for workflow_run, else GITHUB_SHA.
	HeadSHA string `json:"head_sha"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Counts counts verdicts over programs and over cases.
type Counts struct {
	Programs Tally `json:"programs"`
	Cases    Tally `json:"cases"`
}

// Tally counts verdicts. Total = True + False + Undetermined.
type Tally struct {
	Total        int `json:"total"`
	True         int `json:"true"`
	False        int `json:"false"`
	Undetermined int `json:"undetermined"`
	// Nondeterministic counts, among the undetermined, the cases found
	// nondeterministic (some runs true, some false), or for programs those
	// with such a case. A report of an earlier behaves has none (0).
	Nondeterministic int `json:"nondeterministic"`
}

// Add counts one verdict.
func (t *Tally) Add(v verdict.Verdict) {
	t.Total++
	switch v {
	case verdict.True:
		t.True++
	case verdict.False:
		t.False++
	default:
		t.Undetermined++
	}
}

// Program is one judged program.
type Program struct {
	// ID is stable across machines and runs (from the spec entry and the
	// program file's path).
	ID   string `json:"id"`
	Name string `json:"name"`
	// Group is the `files:` entry whose sample this program is ("" for a
	// `file:` entry): the key of its Group.
	Group string `json:"group"`
	// File is the program file's path relative to the repository root
	// (a folder program's folder).
	File string `json:"file"`
	// Dir is, for a program that is a folder of files (a spec's dir:), the
	// folder's path relative to the repository root, as File; "" for a
	// program that is one file. Entry is a folder program's entry,
	// relative to its folder ("" without one).
	Dir   string `json:"dir"`
	Entry string `json:"entry"`
	// Files are what was delivered to /program, by path (bytewise): the
	// program's files and links, its with: files too. program_sha256 is
	// computed from them (runner.DigestOf), and Read recomputes it. When
	// the report's size budget (--max-report-size) could not hold the
	// list, it is empty and FilesOmitted says so; FileCount is always its
	// length. Absent (and FileCount 0) in reports of an earlier behaves.
	Files        []ProgramFile `json:"files"`
	FileCount    int           `json:"file_count"`
	FilesOmitted bool          `json:"files_omitted"`
	Profile      string        `json:"profile"`
	// Line and Col locate the program's entry in the spec file.
	Line int `json:"line"`
	Col  int `json:"col"`
	// ExecutionID is new for every attempt.
	ExecutionID string `json:"execution_id"`
	// ProgramSHA256 is the lowercase hex digest of the program file's
	// bytes; for a folder program, of its file list (runner.Program.FileList,
	// docs/verdicts.md).
	ProgramSHA256 string `json:"program_sha256"`
	// EvidenceFormat is the format of the evidence key (package evidence)
	// that this attempt's evidence was recorded under: rescore and reuse
	// take it only under the same format. 0 in a report of an earlier
	// behaves.
	EvidenceFormat int `json:"evidence_format"`
	// NotGating is set for a program the spec says gate: false for and
	// the workflow admitted (--allow-non-gating): its verdict is reported
	// but the run's (Overall) folds only the other programs'. False in
	// reports of an earlier behaves: every program gated.
	NotGating bool            `json:"not_gating"`
	Verdict   verdict.Verdict `json:"verdict"`
	// Reason is one line a person can read; "" when the program is true.
	Reason             string             `json:"reason"`
	Acquisition        runner.Acquisition `json:"acquisition"`
	AcquisitionReasons []string           `json:"acquisition_reasons"`
	SandboxWarnings    []string           `json:"sandbox_warnings"`
	// Settings are the container settings applied (zero when the attempt
	// stopped before running anything).
	Settings Settings `json:"settings"`
	// Build is the evidence of the profile's build stage (null without
	// one; absent from reports of an earlier behaves): the event of the build
	// container, its output kept like a case's (as text or base64, at most
	// the build's output_limit per stream). When the build failed every
	// case is false with the build's reason; when it could not be
	// observed, every case is undetermined.
	Build *BuildStage `json:"build"`
	// DurationMS is the time of the attempt's runs of the program (the
	// caller's measure, else the sum of its cases' run times); the build
	// stage's is apart, in Build, and TimeMS adds the two.
	DurationMS int64  `json:"duration_ms"`
	Cases      []Case `json:"cases"`
}

// SpecPath is the spec file as a reader of the report names it: relative
// to the repository root when the report knows that (SpecFile), else as
// given to behaves (Spec).
func (r *Report) SpecPath() string {
	if r.SpecFile != "" {
		return r.SpecFile
	}
	return r.Spec
}

// CaseFile is the file that holds case c, the one its Line and Col are in:
// its cases or inputs file when it came from one, else the spec
// (SpecPath). Every renderer places a case through it, so that none puts a
// file's case at that line of the spec.
func (r *Report) CaseFile(c *Case) string {
	if c.File != "" {
		return c.File
	}
	return r.SpecPath()
}

// TimeMS is the time the program took: its runs' (DurationMS) and its
// build stage's, which DurationMS leaves out. What a reader is shown as a
// program's time.
func (p *Program) TimeMS() int64 {
	if p.Build == nil {
		return p.DurationMS
	}
	return p.DurationMS + p.Build.DurationMS
}

// Incomplete is true when the attempt's evidence was not all observed:
// its acquisition is known and not complete.
func (p Program) Incomplete() bool {
	return p.Acquisition != "" && p.Acquisition != runner.AcquisitionComplete
}

// Case is one judged case: where it is in the spec, what it expected, what
// happened and the verdict.
type Case struct {
	Name string `json:"name"`
	// File is the cases file that holds the case, relative to the repository
	// root and slash-separated (the program entry's cases_file); "" for a
	// case written in the spec. reportread.Read accepts a case without it (a
	// report of an earlier behaves): written in the spec.
	File string `json:"file"`
	// Line and Col locate the case's entry in its file: File, else the
	// spec file.
	Line int      `json:"line"`
	Col  int      `json:"col"`
	Args []string `json:"args"`
	// StdinFile is the stdin file's path relative to the root ("" for none
	// or inline stdin).
	StdinFile string `json:"stdin_file"`
	// StdinSize is the size of the stdin the spec gave the case (inline or
	// from stdin_file), and StdinExcerpt its first StdinExcerptMax bytes at
	// most, as text or, when that is shorter in JSON, as base64 in
	// StdinExcerptBase64: enough for a reader of the summary to see what the
	// program was given. reportread.Read accepts a case without them (a
	// report of an earlier behaves): no stdin.
	StdinSize          int64           `json:"stdin_size"`
	StdinExcerpt       string          `json:"stdin_excerpt"`
	StdinExcerptBase64 string          `json:"stdin_excerpt_base64"`
	Verdict            verdict.Verdict `json:"verdict"`
	// Reason is one line a person can read; "" when the case is true.
	Reason string `json:"reason"`
	// Nondeterministic is set when the case ran more than once (repeat)
	// and some runs were true, others false: the case is then undetermined
	// (verdict.Fold). reportread.Read accepts a case without it: false.
	Nondeterministic bool `json:"nondeterministic"`
	// Expect holds the expectation with the first run's outcome of each
	// part (the outcome that goes with Event).
	Expect Expect `json:"expect"`
	// Event is the evidence of the case's run, the first run's when it
	// ran more than once.
	Event Event `json:"event"`
	// Runs holds every run of a case that ran more than once (repeat > 1), in
	// order, each with its own verdict; Runs[0].Event is Event. It is [] for
	// a case that ran once (its run is Event), and reportread.Read accepts a
	// case without it (a report of an earlier behaves): one run.
	Runs []Run `json:"runs"`
	// ReferenceEvents holds, for a same_as case, the events of its
	// reference program's runs of the same invocation (args and stdin), in
	// order: what the case was compared with. [] for any other case, and
	// reportread.Read accepts a case without it (a report of an earlier behaves).
	ReferenceEvents []Event `json:"reference_events"`
	// CheckerRuns holds, for a case with a checker matcher, the checker's
	// run on each stream of each run it checked, in run order, stdout
	// before stderr: its evidence, the event's output kept as the case's.
	// A stream the checker did not judge (cut at output_limit, a run that
	// did not finish) has none. [] for any other case, and reportread.Read
	// accepts a case without it (a report of an earlier behaves).
	CheckerRuns []CheckerRun `json:"checker_runs"`
	// ReferenceApplied is, for a same_as case, what the containers of its
	// reference runs were built from (runner.Apply of the reference's
	// profile, as the sandbox applied it): the reference's settings are
	// part of the case's evidence key. null for any other case, and in a
	// report of an earlier behaves.
	ReferenceApplied *Applied `json:"reference_applied"`
	// ReusedFrom names the run and execution whose stored evidence
	// answered the case (behaves run --reuse): its events are theirs,
	// judged again against this run's expectation. Null when it ran now.
	ReusedFrom *Origin `json:"reused_from"`
	// NotReused says why a run given stored reports ran the case now
	// (null when it was reused, or the run was given none).
	NotReused *NotReused `json:"not_reused"`

	// summary marks a case held in memory by a reportwrite.Writer: its event
	// carries no stream bytes, only excerpt (for the terminal). Encode
	// refuses it, so that a summary is never written as if it were the
	// evidence.
	summary bool
	// excerpt holds the start of the kept stdout and stderr of a summary
	// (nil when none was kept in memory).
	excerpt *[2][]byte
}

// CheckerRun is one run of a checker program on one stream of one run of
// a case.
type CheckerRun struct {
	// Checker is the checker's name (the spec's checkers:).
	Checker string `json:"checker"`
	// Run is the case's run it checked, from 0 (the case's event), and
	// Stream the stream, "stdout" or "stderr".
	Run    int    `json:"run"`
	Stream string `json:"stream"`
	// ProgramSHA256 is the checker's digest (as a program's
	// program_sha256, of its own files, without what it checked); the
	// event's program_sha256 is the same. InputSHA256, OutputSHA256 and
	// AnswerSHA256 are the digests of the three files it was given: the
	// case's stdin, the run's kept stream and the answer.
	ProgramSHA256 string `json:"program_sha256"`
	InputSHA256   string `json:"input_sha256"`
	OutputSHA256  string `json:"output_sha256"`
	AnswerSHA256  string `json:"answer_sha256"`
	// Applied is what the checker's containers were built from (its
	// profile's settings as the sandbox applied them, its build's
	// included), and BuildImageID and BuildRepoDigest the image its build
	// stage ran ("" without one): with the event's image_digest and
	// repo_digest and the digests above, the key a stored checker run
	// answers for (behaves rescore judges with a stored checker run whose
	// key is the spec's now). Applied is null when the checker's attempt
	// stopped before running anything.
	Applied         *Applied `json:"applied"`
	BuildImageID    string   `json:"build_image_id"`
	BuildRepoDigest string   `json:"build_repo_digest"`
	// Event is the checker's run: its exit code says what it found.
	Event Event `json:"event"`
}

// Summary says in one line what the checker run did, for the renderers:
// "checker split on stdout of run 2: exit 1: wrong answer …" (the first
// line the checker wrote, verdict.CheckerLine: the checker's words,
// untrusted), or how it ended when it did not exit by itself ("timed out
// after 2s", a sandbox error, a failed build). Run numbers count from 1.
func (cr *CheckerRun) Summary() string {
	e := &cr.Event
	how := "no exit code"
	switch stop := e.Stopped(); {
	case e.SandboxError != "":
		how = "not observed: " + e.SandboxError
	case e.BuildFailure != "":
		how = e.BuildFailure
	case stop != "":
		how = stop
	case e.ExitCode != nil:
		how = "exit " + strconv.Itoa(*e.ExitCode)
	}
	ev, _ := e.RunnerEvent()
	if line := verdict.CheckerLine(ev); line != "" && e.SandboxError == "" && e.BuildFailure == "" {
		how += ": " + line
	}
	return fmt.Sprintf("checker %s on %s of run %d: %s", cr.Checker, cr.Stream, cr.Run+1, how)
}

// CheckerRunsOf are c's checker runs on stream ("stdout" or "stderr").
func (c *Case) CheckerRunsOf(stream string) []CheckerRun {
	var out []CheckerRun
	for _, cr := range c.CheckerRuns {
		if cr.Stream == stream {
			out = append(out, cr)
		}
	}
	return out
}

// MaxCheckerRuns bounds a case's checker runs (reportread.Read refuses
// more): one for each of a case's two streams on each of its runs.
const MaxCheckerRuns = 2 * MaxRuns

// Run is one run of a case that ran more than once: its own verdict and
// reason, judged alone, and its event.
type Run struct {
	Verdict verdict.Verdict `json:"verdict"`
	Reason  string          `json:"reason"`
	Event   Event           `json:"event"`
}

// MaxRuns bounds the runs a case's entry holds, and its reference events
// (reportread.Read refuses more): a case and its reference run at most as
// many times as a spec may ask for (spec.MaxRepeat; package assemble, which
// reads both, has a test that keeps them equal).
const MaxRuns = 100

// RunCount is how many times the case ran: len(Runs), or 1 without Runs.
func (c *Case) RunCount() int { return max(len(c.Runs), 1) }

// Expect is what a case expected, with the outcome of each part.
type Expect struct {
	ExitCode int `json:"exit_code"`
	// ExitCodeVerdict and ExitCodeReason are the exit-code check's outcome
	// (undetermined and "" when it was not checked).
	ExitCodeVerdict verdict.Verdict `json:"exit_code_verdict"`
	ExitCodeReason  string          `json:"exit_code_reason"`
	// Stdout and Stderr are null when the case expects nothing of that
	// stream.
	Stdout *MatcherOutcome `json:"stdout"`
	Stderr *MatcherOutcome `json:"stderr"`
	// SameAs is the case's differential expectation (null for any other
	// case). ExitCode, Stdout and Stderr are then the reference's first
	// run's exit code and kept output for the compared streams, when the
	// reference could answer (else 0 and null). reportread.Read accepts an expect
	// without it (a report of an earlier behaves).
	SameAs *SameAs `json:"same_as"`
}

// SameAs is a same_as expectation as the spec gave it.
type SameAs struct {
	Reference  string            `json:"reference"`
	Streams    []string          `json:"streams"`
	Normalize  verdict.Normalize `json:"normalize"`
	IgnoreCase bool              `json:"ignore_case"`
}

// MatcherOutcome is one stream matcher as written in the spec and its
// outcome.
type MatcherOutcome struct {
	Kind       verdict.Kind      `json:"kind"`
	Value      string            `json:"value"`
	IgnoreCase bool              `json:"ignore_case"`
	Normalize  verdict.Normalize `json:"normalize"`
	// The options of the matchers whose right answers are not one text
	// (additions to behaves.report/v1; false and null for the others):
	// unordered (equals, json), lines and subset (json), the tolerances
	// abs and rel (json, numbers).
	Unordered bool     `json:"unordered"`
	Lines     bool     `json:"lines"`
	Subset    bool     `json:"subset"`
	Abs       *float64 `json:"abs"`
	Rel       *float64 `json:"rel"`
	// Matchers are, for a list of matchers (kind "all"), each one with
	// its outcome, in the spec's order; empty otherwise.
	Matchers []MatcherOutcome `json:"matchers"`
	// Checker is, for a checker matcher (kind "checker"), the checker's
	// name, and AnswerFile the file its answer came from (relative to the
	// repository root; "" for an answer written inline, or none); its
	// Value is the answer. "" for the other kinds (additions to
	// behaves.report/v1).
	Checker    string `json:"checker"`
	AnswerFile string `json:"answer_file"`
	// AnswerReference is, for a checker matcher whose answer is its
	// reference's output (a differential case's, with neither answer nor
	// answer_file), that reference's name: the answer is then the
	// case's reference_events' stream, and Value "". "" otherwise.
	AnswerReference string `json:"answer_reference"`
	// Verdict is undetermined when the matcher was not checked.
	Verdict verdict.Verdict `json:"verdict"`
	Reason  string          `json:"reason"`
	// Expected and Actual are the short display forms the judge produced.
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// Describe names m's kind and options as every renderer shows them:
// "equals, normalize trailing, ignore case", "json, unordered, abs 1e-09",
// "all of 2 matchers". The options of the structured matchers replace
// normalize, which they do not use.
func (m *MatcherOutcome) Describe() string {
	switch m.Kind {
	case verdict.All:
		return fmt.Sprintf("all of %d matchers", len(m.Matchers))
	case verdict.Checker:
		s := "checker " + m.Checker
		switch {
		case m.AnswerFile != "":
			s += ", answer from " + m.AnswerFile
		case m.AnswerReference != "":
			s += ", answer from the reference " + m.AnswerReference
		case m.Value == "":
			s += ", no answer"
		}
		return s
	}
	return strings.Join(append([]string{string(m.Kind)}, m.options()...), ", ")
}

// options are m's options as Describe shows them.
func (m *MatcherOutcome) options() []string {
	var opts []string
	switch m.Kind {
	case verdict.JSON, verdict.Numbers:
	default:
		opts = append(opts, "normalize "+string(m.Normalize))
	}
	if m.IgnoreCase {
		opts = append(opts, "ignore case")
	}
	return append(opts, verdict.Matcher{Unordered: m.Unordered, Lines: m.Lines, Subset: m.Subset, Abs: m.Abs, Rel: m.Rel}.StructuredOptions(" ")...)
}

// ExpectedText is what a renderer shows as m's expected value: its
// value; for a list of matchers, a line for each with its outcome.
func (m *MatcherOutcome) ExpectedText() string {
	if m.Kind != verdict.All {
		return m.Value
	}
	var b strings.Builder
	for i := range m.Matchers {
		sub := &m.Matchers[i]
		if sub.Kind == verdict.Checker {
			fmt.Fprintf(&b, "%d. %s → %s\n", i+1, sub.Describe(), sub.Verdict)
			continue
		}
		opts := ""
		if o := sub.options(); len(o) > 0 {
			opts = " (" + strings.Join(o, ", ") + ")"
		}
		fmt.Fprintf(&b, "%d. %s %s%s → %s\n", i+1, sub.Kind, strconv.Quote(sub.Value), opts, sub.Verdict)
	}
	return b.String()
}

// ExpectedLabel is what a renderer calls m's expected text
// (ExpectedText): "expected", or for a checker matcher "answer", what the
// checker was given to compare with (one right answer, maybe not the only
// one).
func (m *MatcherOutcome) ExpectedLabel() string {
	if m.Kind == verdict.Checker {
		return "answer"
	}
	return "expected"
}

// LinesAlign says whether m's expected value and the output compare line
// by line in order, so that a line diff of the two means something.
func (m *MatcherOutcome) LinesAlign() bool {
	return m.Kind == verdict.Equals && !m.Unordered
}

// Event is the evidence of one invocation.
type Event struct {
	// ExitCode is null unless the container exited.
	ExitCode *int `json:"exit_code"`
	// Stdout is the retained output as text, or StdoutBase64 as base64:
	// whichever is shorter in JSON (text when they are as long; base64
	// when the bytes are not valid UTF-8). The other is "". Control
	// characters cost JSON 6 bytes each ("\u0001"), base64 4 for every 3
	// bytes, so the report never holds more than 4/3 of the kept bytes
	// plus quotes. Both are "" when the output was omitted (StdoutOmitted).
	Stdout          string `json:"stdout"`
	StdoutBase64    string `json:"stdout_base64"`
	Stderr          string `json:"stderr"`
	StderrBase64    string `json:"stderr_base64"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
	// StdoutBytes and StderrBytes count every byte written, retained or not.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	// StdoutKeptBytes and StderrKeptBytes count the retained bytes (at
	// most output_limit), and StdoutSHA256 and StderrSHA256 are their
	// lowercase hex SHA-256: the identity of the evidence, also when the
	// bytes themselves were omitted.
	StdoutKeptBytes int64  `json:"stdout_kept_bytes"`
	StderrKeptBytes int64  `json:"stderr_kept_bytes"`
	StdoutSHA256    string `json:"stdout_sha256"`
	StderrSHA256    string `json:"stderr_sha256"`
	// StdoutOmitted and StderrOmitted are set when the retained bytes
	// were left out of the report to keep it within --max-report-size.
	// The verdict was judged on them before; only the report lacks them.
	StdoutOmitted bool `json:"stdout_omitted"`
	StderrOmitted bool `json:"stderr_omitted"`
	// StdinBytes is how many bytes of stdin the program accepted.
	StdinBytes  int64  `json:"stdin_bytes"`
	StdinSHA256 string `json:"stdin_sha256"`
	// TimedOut is set only when behaves' kill hit a running container.
	TimedOut bool `json:"timed_out"`
	// ResourceLimit is "", "memory" or "output".
	ResourceLimit runner.ResourceLimit `json:"resource_limit"`
	// Command is the full argv that ran.
	Command []string `json:"command"`
	// ImageDigest is the image ID; RepoDigest the registry digest, if any.
	ImageDigest   string `json:"image_digest"`
	RepoDigest    string `json:"repo_digest"`
	DurationMS    int64  `json:"duration_ms"`
	ProgramSHA256 string `json:"program_sha256"`
	Limits        Limits `json:"limits"`
	// SandboxError says why the evidence is incomplete ("" when the run was
	// observed to its end).
	SandboxError string `json:"sandbox_error"`
	// BuildFailure is set on a case that did not run because its program's
	// build failed, and says how ("build failed: exit 1: …"); "" otherwise
	// (and absent from reports of an earlier behaves).
	BuildFailure string `json:"build_failure"`
}

// BuildStage is a program's build stage as it ran: the build container's event
// and the stage's declared output_size and tmpfs (which the event's limits
// do not hold), so that rescore can tell whether the stored build is the
// spec's.
type BuildStage struct {
	Event
	// OutputSize is what /build could hold after the build, in bytes: the
	// declared limit.
	OutputSize int64 `json:"output_size"`
	// OutputBytes is what /build held after the build (the bytes of its
	// regular files), null when it was not counted (a build that failed,
	// or a report of an earlier behaves); past output_size the count
	// stopped, so it is then more than output_size, not the whole.
	OutputBytes *int64 `json:"output_bytes"`
	// Tmpfs are the build's scratch mounts, path → bytes.
	Tmpfs map[string]int64 `json:"tmpfs"`
}

// BuildFailed returns how many cases p's failed build made false and its
// reason, when every case of p is false by it (0 otherwise): such a
// program is shown as its build, once, rather than case by case.
func (p *Program) BuildFailed() (int, string) {
	if p.Build == nil || len(p.Cases) == 0 {
		return 0, ""
	}
	for i := range p.Cases {
		if c := &p.Cases[i]; c.Verdict != verdict.False || c.Event.BuildFailure == "" {
			return 0, ""
		}
	}
	return len(p.Cases), p.Cases[0].Reason
}

// StdinExcerptMax bounds the stdin a case's entry repeats: the spec (or its
// stdin_file) holds the whole of it.
const StdinExcerptMax = 512

// stdinExcerpt is the start of stdin, at most StdinExcerptMax bytes, cut
// at a UTF-8 boundary when stdin is text so that the excerpt stays text.
func stdinExcerpt(stdin []byte) []byte {
	if len(stdin) <= StdinExcerptMax {
		return stdin
	}
	cut := StdinExcerptMax
	if utf8.Valid(stdin) {
		for cut > 0 && !utf8.RuneStart(stdin[cut]) {
			cut--
		}
	}
	return stdin[:cut]
}

// SetStdin records the stdin the spec gives the case: its size, and its
// start (stdinExcerpt) as text or base64, whichever is shorter in JSON.
// Without stdin it leaves the case as it is.
func (c *Case) SetStdin(stdin []byte) {
	if len(stdin) > 0 {
		c.StdinSize = int64(len(stdin))
		c.StdinExcerpt, c.StdinExcerptBase64 = encodeStream(stdinExcerpt(stdin))
	}
}

// StdinExcerptData returns the case's stdin excerpt exactly.
func (c Case) StdinExcerptData() []byte { return streamBytes(c.StdinExcerpt, c.StdinExcerptBase64) }

// StdoutData returns the retained stdout bytes exactly.
func (e Event) StdoutData() []byte { return streamBytes(e.Stdout, e.StdoutBase64) }

// StderrData returns the retained stderr bytes exactly.
func (e Event) StderrData() []byte { return streamBytes(e.Stderr, e.StderrBase64) }

func streamBytes(text, b64 string) []byte {
	if b64 != "" {
		if b, err := base64.StdEncoding.DecodeString(b64); err == nil {
			return b
		}
	}
	return []byte(text)
}

// Folded returns r with everything that folds from its cases folded, as
// reportread.Read recomputes it: each program's verdict and reason, the
// counts, the groups (pass@k for each k of passAt; DefaultPassAt when it is
// empty) and the run's verdict; and with every nil list and map made empty
// (Normalize). It copies what it changes; r's own slices are left alone.
func Folded(r Report, passAt []int) Report {
	r.Programs = slices.Clone(r.Programs)
	for i := range r.Programs {
		p := &r.Programs[i]
		p.Verdict, p.Reason = ProgramVerdict(p.Cases)
	}
	r.Counts = CountsOf(r.Programs)
	r.Reuse = ReuseOf(&r)
	r.Verdict = Overall(r)
	ks := passAt
	if len(ks) == 0 {
		ks = DefaultPassAt
	}
	r.Groups = groups(r.Programs, ks)
	return Normalize(r)
}

// CountsOf counts the programs' and the cases' verdicts.
func CountsOf(programs []Program) Counts {
	var n Counts
	for _, p := range programs {
		n.Programs.Add(p.Verdict)
		nondet := false
		for _, c := range p.Cases {
			n.Cases.Add(c.Verdict)
			if c.Nondeterministic {
				n.Cases.Nondeterministic++
				nondet = true
			}
		}
		if nondet {
			n.Programs.Nondeterministic++
		}
	}
	return n
}

// Overall is the run's verdict: false dominates, then anything that keeps
// the run from being settled makes it undetermined. A run without
// programs is undetermined, except a shard the slicing gave none (more
// shards than programs): the merge judges the whole.
//
// Only gating programs count: a program marked not_gating is judged and
// shown, but neither its false nor its undetermined decides the run's
// verdict (a run whose every program is not gating is true, unless it
// failed).
func Overall(r Report) verdict.Verdict {
	var gating Tally
	for _, p := range r.Programs {
		if !p.NotGating {
			gating.Add(p.Verdict)
		}
	}
	if gating.False > 0 {
		return verdict.False
	}
	if gating.Undetermined > 0 || len(r.Programs) == 0 && !emptyShard(r) || r.Interrupted || r.Error != "" {
		return verdict.Undetermined
	}
	return verdict.True
}

// ProgramVerdict is what a program's cases fold to (verdict.Program): its
// verdict and reason, in Folded and in reportread.Read alike.
func ProgramVerdict(cases []Case) (verdict.Verdict, string) {
	results := make([]verdict.CaseResult, len(cases))
	for j := range cases {
		results[j] = verdict.CaseResult{Verdict: cases[j].Verdict, Reason: cases[j].Reason}
	}
	return verdict.Program(results)
}

// encodeStream returns the retained bytes as text or as base64, whichever
// is shorter once in JSON: text when it is valid UTF-8 and its escaped form
// is no longer than the base64 (ties go to text, which a person can read).
// A program that prints control characters therefore costs the report 4/3
// of its bytes, never the 6 that "\u0001" takes.
func encodeStream(b []byte) (text, b64 string) {
	if AsText(b) {
		return string(b), ""
	}
	return "", base64.StdEncoding.EncodeToString(b)
}

// AsText reports whether encodeStream keeps b as text.
func AsText(b []byte) bool {
	return utf8.Valid(b) && jsonStringLen(b) <= int64(base64.StdEncoding.EncodedLen(len(b)))
}

// EncodedLen is the length of b in the report as encodeStream stores it,
// quotes excluded.
func EncodedLen(b []byte) int64 {
	if AsText(b) {
		return jsonStringLen(b)
	}
	return int64(base64.StdEncoding.EncodedLen(len(b)))
}

// jsonStringLen is the length of b inside a JSON string as encoding/json
// writes it with HTML escaping off: two bytes for the short escapes, six
// for other control characters, invalid bytes (as \ufffd), U+2028 and
// U+2029; the bytes themselves otherwise.
func jsonStringLen(b []byte) int64 {
	var n int64
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += int64(size)
		}
		i += size
	}
	return n
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// VerdictText is the program's verdict as every renderer shows it, with
// "(not gating)" after it for a program whose verdict does not decide the
// run's.
func (p *Program) VerdictText() string {
	if p.NotGating {
		return p.Verdict.String() + " (not gating)"
	}
	return p.Verdict.String()
}

// ProgramFile is one file (or link) delivered as part of a program.
type ProgramFile struct {
	// Path is where it was delivered, relative to /program.
	Path string `json:"path"`
	// Source is the file's path relative to the repository root: a
	// folder program's file is under its dir, a with: file where the
	// spec's with: names it, a one-file program's its file.
	Source string `json:"source"`
	// Mode is git's: "100644", "100755" (executable) or "120000" (a link).
	Mode string `json:"mode"`
	// Bytes and SHA256 are the size and lowercase hex SHA-256 of the
	// bytes delivered (of a link's target text).
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	// Target is a link's target ("" for a file).
	Target string `json:"target"`
}

// ListEntry is f as a line of its program's file list.
func (f ProgramFile) ListEntry() runner.ListEntry {
	return runner.ListEntry{Path: f.Path, Mode: f.Mode, Bytes: f.Bytes, SHA256: f.SHA256, Target: f.Target}
}

// Normalize returns r with every nil slice and map replaced by an empty one,
// so the JSON never says null where a list or object belongs. It copies what
// it changes; r's own slices are left alone.
func Normalize(r Report) Report {
	if r.SpecErrors == nil {
		r.SpecErrors = []SpecError{}
	}
	r.Filter = nonNil(r.Filter)
	if r.Shard != nil {
		sh := *r.Shard
		sh.Programs = append([]ShardProgram{}, sh.Programs...)
		sh.Merged = append([]int{}, sh.Merged...)
		sh.Missing = append([]int{}, sh.Missing...)
		r.Shard = &sh
	}
	if r.Reuse != nil {
		ru := *r.Reuse
		ru.Sources = append([]ReuseSource{}, ru.Sources...)
		ru.NotReused = append([]ReasonCount{}, ru.NotReused...)
		r.Reuse = &ru
	}
	r.Groups = append([]Group{}, r.Groups...) // a copy, never null
	for i := range r.Groups {
		g := &r.Groups[i]
		if g.PassAt == nil {
			g.PassAt = map[string]*float64{}
		}
		if g.PassAtReasons == nil {
			g.PassAtReasons = map[string]string{}
		}
	}
	if r.Programs == nil {
		r.Programs = []Program{}
	} else {
		r.Programs = append([]Program(nil), r.Programs...)
	}
	for i := range r.Programs {
		p := &r.Programs[i]
		p.AcquisitionReasons = nonNil(p.AcquisitionReasons)
		p.SandboxWarnings = nonNil(p.SandboxWarnings)
		p.Files = nonNil(p.Files)
		p.Settings = normalizeSettings(p.Settings)
		if p.Build != nil {
			b := *p.Build
			b.Command = nonNil(b.Command)
			if b.Tmpfs == nil {
				b.Tmpfs = map[string]int64{}
			}
			p.Build = &b
		}
		if p.Cases == nil {
			p.Cases = []Case{}
		} else {
			p.Cases = append([]Case(nil), p.Cases...)
		}
		for j := range p.Cases {
			c := &p.Cases[j]
			c.Args = nonNil(c.Args)
			c.Expect.Stdout = normalizeMatcher(c.Expect.Stdout)
			c.Expect.Stderr = normalizeMatcher(c.Expect.Stderr)
			c.Event.Command = nonNil(c.Event.Command)
			if c.Runs == nil {
				c.Runs = []Run{}
			} else {
				c.Runs = append(c.Runs[:0:0], c.Runs...) // a copy, never null
			}
			for k := range c.Runs {
				c.Runs[k].Event.Command = nonNil(c.Runs[k].Event.Command)
			}
			if c.ReferenceEvents == nil {
				c.ReferenceEvents = []Event{}
			} else {
				c.ReferenceEvents = append(c.ReferenceEvents[:0:0], c.ReferenceEvents...)
			}
			for k := range c.ReferenceEvents {
				c.ReferenceEvents[k].Command = nonNil(c.ReferenceEvents[k].Command)
			}
			if c.CheckerRuns == nil {
				c.CheckerRuns = []CheckerRun{}
			} else {
				c.CheckerRuns = append(c.CheckerRuns[:0:0], c.CheckerRuns...)
			}
			for k := range c.CheckerRuns {
				c.CheckerRuns[k].Event.Command = nonNil(c.CheckerRuns[k].Event.Command)
				if a := c.CheckerRuns[k].Applied; a != nil {
					n := normalizeApplied(*a)
					c.CheckerRuns[k].Applied = &n
				}
			}
		}
	}
	return r
}

func normalizeSettings(s Settings) Settings {
	s.ImageEnv = nonNil(s.ImageEnv)
	s.Entrypoint = nonNil(s.Entrypoint)
	s.DNS = nonNil(s.DNS)
	s.CapDrop = nonNil(s.CapDrop)
	s.SecurityOpt = nonNil(s.SecurityOpt)
	s.Env = nonNil(s.Env)
	if s.Ulimits == nil {
		s.Ulimits = map[string]int64{}
	}
	if s.Tmpfs == nil {
		s.Tmpfs = map[string]string{}
	}
	if s.TmpfsBytes == nil {
		s.TmpfsBytes = map[string]int64{}
	}
	s.Applied = normalizeApplied(s.Applied)
	return s
}

// normalizeApplied is a copy of a with its lists and maps never null.
func normalizeApplied(a Applied) Applied {
	a.Command, a.Env = slices.Clone(nonNil(a.Command)), slices.Clone(nonNil(a.Env))
	a.Tmpfs = maps.Clone(a.Tmpfs)
	if a.Tmpfs == nil {
		a.Tmpfs = map[string]int64{}
	}
	if a.Build != nil {
		b := normalizeApplied(*a.Build)
		a.Build = &b
	}
	return a
}

// normalizeMatcher is a copy of m whose lists are never null.
func normalizeMatcher(m *MatcherOutcome) *MatcherOutcome {
	if m == nil {
		return nil
	}
	c := *m
	c.Matchers = make([]MatcherOutcome, len(m.Matchers))
	for i := range m.Matchers {
		c.Matchers[i] = *normalizeMatcher(&m.Matchers[i])
	}
	return &c
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
