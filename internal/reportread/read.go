package reportread

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"unicode"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/filekind"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// A report read back from disk may come from another workflow (the
// fork-safe pattern: a pull request's author controls that artifact), so
// Read treats it as hostile: bounded in size, every key the format always
// writes present, enums known, numbers in range, and every count and
// verdict recomputed from the cases and compared. A report that was edited
// to turn a false program into a true one fails here, since its counts or
// its program verdicts no longer fold from its cases.

var (
	// runIDPattern bounds the run ID (behaves draws 16 hex digits) to the
	// characters a label value and a log line take without escaping.
	runIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	// digitsPattern is GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT ("" outside
	// Actions).
	digitsPattern = regexp.MustCompile(`^([0-9]{1,20})?$`)
	// shaPattern is a commit ID ("" when unknown).
	shaPattern = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})?$`)
)

// File reads and checks the report at path (see Read), reading at most
// limit bytes of it.
func File(path string, limit int64) (report.Report, error) { return readPath(path, limit, false) }

// RegularFile is File of a path that must name a regular file (a
// symbolic link to one is followed). Anything else (a FIFO, a device, a
// socket, a folder) is refused without waiting on it: the file is opened
// non-blocking, so that opening a FIFO with no writer returns at once, and
// its type is checked on the open file, so that a path swapped after a
// check is caught too.
func RegularFile(path string, limit int64) (report.Report, error) {
	return readPath(path, limit, true)
}

// readPath is File, or with regularOnly RegularFile.
func readPath(path string, limit int64, regularOnly bool) (report.Report, error) {
	flag := os.O_RDONLY
	if regularOnly {
		flag |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return report.Report{}, fmt.Errorf("reading report %s: %w", path, err)
	}
	defer f.Close()
	var size int64
	st, err := f.Stat()
	switch {
	case err == nil && st.Mode().IsRegular():
		size = st.Size()
	case regularOnly && err != nil:
		return report.Report{}, fmt.Errorf("reading report %s: %w", path, err)
	case regularOnly:
		return report.Report{}, fmt.Errorf("reading report %s: it is not a regular file (%s)", path, filekind.Of(st.Mode()))
	}
	r, err := read(f, limit, size)
	if err != nil {
		return report.Report{}, fmt.Errorf("reading report %s: %w", path, err)
	}
	return r, nil
}

// Read decodes a report from untrusted input and checks it: at most limit
// bytes; its shape (checkShape: every key report.Encode writes present, the
// lists and maps within their limits, what decoding it takes bounded by its
// size); schema Schema and tool ToolName; verdicts, acquisitions and resource
// limits among the known values; lines and counts not negative; the run ID
// and the github block in their forms; every program's verdict and reason,
// the counts, the groups and the overall verdict equal to what the cases fold
// to; every reused case's reused_from a run the reuse block lists; every
// event of a program of the current evidence format with the digests of its
// streams (checkDigests); and kept output equal to its recorded size and
// digest. It returns the first problem found. Its memory and time are bounded
// by the input's size (docs/security.md).
func Read(rd io.Reader, limit int64) (report.Report, error) { return read(rd, limit, 0) }

// read is Read with the input's size when it is known (0 otherwise), so
// that the bytes are read into one buffer of that size: io.ReadAll grows
// its buffer as it goes and would hold up to about twice the file.
func read(rd io.Reader, limit, size int64) (report.Report, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(size, 0), limit)+bytes.MinRead+1))
	if _, err := buf.ReadFrom(io.LimitReader(rd, limit+1)); err != nil {
		return report.Report{}, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return report.Report{}, fmt.Errorf("it is larger than %s", verdict.FormatSize(limit))
	}
	// The shape pass first: nothing is decoded before it (see shape.go).
	if err := checkShape(data); err != nil {
		return report.Report{}, err
	}
	var r report.Report
	// Unmarshal, not a Decoder: a Decoder copies the whole value into a
	// buffer of its own before decoding it, a second copy of the file.
	// Unmarshal refuses data after the object too.
	if err := json.Unmarshal(data, &r); err != nil {
		return report.Report{}, fmt.Errorf("not a report: %w", err)
	}
	if err := checkReport(&r); err != nil {
		return report.Report{}, err
	}
	return r, nil
}

// checkReport checks the decoded report's values and recomputes its verdicts.
func checkReport(r *report.Report) error {
	if r.Schema != report.Schema {
		return fmt.Errorf("schema %q is not %q", r.Schema, report.Schema)
	}
	if r.Tool.Name != report.ToolName {
		return fmt.Errorf("tool %q is not %q", r.Tool.Name, report.ToolName)
	}
	for _, f := range r.Filter {
		if f == "" || strings.IndexFunc(f, unicode.IsControl) >= 0 || len(f) > 1024 {
			return fmt.Errorf("filter %s is not a --program pattern", escape.Quote(escape.Shorten(f, 60)))
		}
	}
	if !runIDPattern.MatchString(r.RunID) {
		return fmt.Errorf("run_id %q is not a run ID", r.RunID)
	}
	g := r.GitHub
	if !digitsPattern.MatchString(g.RunID) || !digitsPattern.MatchString(g.RunAttempt) {
		return errors.New("github.run_id and github.run_attempt must be decimal numbers")
	}
	if !shaPattern.MatchString(g.SHA) || !shaPattern.MatchString(g.HeadSHA) {
		return errors.New("github.sha and github.head_sha must be commit IDs")
	}
	if r.DurationMS < 0 {
		return errors.New("duration_ms is negative")
	}
	for i, e := range r.SpecErrors {
		if e.Line < 0 || e.Col < 0 {
			return fmt.Errorf("spec error %d has a negative position", i+1)
		}
	}
	if len(r.SpecErrors) > 0 && (len(r.Programs) > 0 || r.Error == "") {
		return errors.New("a report with spec errors ran nothing and says why in error")
	}
	for i := range r.Programs {
		if err := checkProgram(&r.Programs[i]); err != nil {
			return fmt.Errorf("program %d: %w", i+1, err)
		}
	}
	// counts.*.nondeterministic is absent from a report of an earlier
	// behaves, whose cases have no runs: 0, as recomputed.
	if counts := report.CountsOf(r.Programs); r.Counts != counts {
		return fmt.Errorf("counts %+v are not the programs' and cases' verdicts %+v", r.Counts, counts)
	}
	// groups is absent from a report of an earlier behaves: no groups.
	if err := checkGroups(r); err != nil {
		return err
	}
	// shard is absent from a report of an earlier behaves: not sharded.
	if err := checkShard(r); err != nil {
		return err
	}
	// reuse is absent from a report of an earlier behaves: none.
	if err := checkReuse(r); err != nil {
		return err
	}
	if err := checkDigests(r); err != nil {
		return err
	}
	if want := report.Overall(*r); r.Verdict != want {
		return fmt.Errorf("verdict %s is not what the programs fold to (%s)", r.Verdict, want)
	}
	return nil
}

// sha256Pattern is a SHA-256 as an event records one: 64 lowercase hex
// digits.
var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// checkDigests holds every event of a program recorded under the current
// evidence format to the digests its writer always records (report.EventOf):
// stdout_sha256 and stderr_sha256, also for a stream that kept nothing
// (the digest of no bytes) and for output omitted from the report. Without
// them checkKept would take the kept output as it is, and reuse would
// judge bytes that no digest vouches for. A program of an earlier format
// (0: an earlier behaves, some of which wrote no digests) is read as it
// is; stdin_sha256 and program_sha256 may be "" in any format (a run that
// stopped before it had them), which the evidence key counts as
// unrecorded.
func checkDigests(r *report.Report) error {
	for i := range r.Programs {
		p := &r.Programs[i]
		if p.EvidenceFormat != report.EvidenceFormat {
			continue
		}
		if p.Build != nil {
			if err := eventDigests(fmt.Sprintf("programs[%d].build", i), &p.Build.Event); err != nil {
				return err
			}
		}
		for k := range p.Cases {
			c := &p.Cases[k]
			at := fmt.Sprintf("programs[%d].cases[%d]", i, k)
			if err := eventDigests(at+".event", &c.Event); err != nil {
				return err
			}
			for j := range c.Runs {
				if err := eventDigests(fmt.Sprintf("%s.runs[%d].event", at, j), &c.Runs[j].Event); err != nil {
					return err
				}
			}
			for j := range c.ReferenceEvents {
				if err := eventDigests(fmt.Sprintf("%s.reference_events[%d]", at, j), &c.ReferenceEvents[j]); err != nil {
					return err
				}
			}
			for j := range c.CheckerRuns {
				if err := eventDigests(fmt.Sprintf("%s.checker_runs[%d].event", at, j), &c.CheckerRuns[j].Event); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// eventDigests checks that the event at path records the digest of each
// of its streams.
func eventDigests(path string, e *report.Event) error {
	for _, d := range [...]struct{ field, sum string }{{"stdout_sha256", e.StdoutSHA256}, {"stderr_sha256", e.StderrSHA256}} {
		if !sha256Pattern.MatchString(d.sum) {
			return fmt.Errorf("%s.%s %s is not a SHA-256: evidence_format %d records the digest of every stream", path, d.field, escape.Quote(escape.Shorten(d.sum, 70)), report.EvidenceFormat)
		}
	}
	return nil
}

// checkStdinExcerpt checks a case's stdin excerpt: one encoding, valid
// base64, at most StdinExcerptMax bytes and no more than stdin_size.
func checkStdinExcerpt(c *report.Case) error {
	if c.StdinExcerpt != "" && c.StdinExcerptBase64 != "" {
		return errors.New("both stdin_excerpt and stdin_excerpt_base64")
	}
	n := len(c.StdinExcerpt)
	if c.StdinExcerptBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(c.StdinExcerptBase64)
		if err != nil {
			return fmt.Errorf("stdin_excerpt_base64: %w", err)
		}
		n = len(b)
	}
	switch {
	case c.StdinSize < 0:
		return errors.New("negative stdin_size")
	case n > report.StdinExcerptMax:
		return fmt.Errorf("a stdin excerpt of %d bytes (at most %d)", n, report.StdinExcerptMax)
	case int64(n) > c.StdinSize:
		return fmt.Errorf("a stdin excerpt of %d bytes from a stdin of %d", n, c.StdinSize)
	}
	return nil
}

// checkEvent checks one event's enums, numbers and kept output.
func checkEvent(e *report.Event) error {
	switch e.ResourceLimit {
	case runner.LimitNone, runner.LimitMemory, runner.LimitOutput:
	default:
		return fmt.Errorf("unknown resource_limit %q", e.ResourceLimit)
	}
	return checkEventData(e)
}

// checkEventData checks an event's numbers and kept output (what a
// case's event and a build's share).
func checkEventData(e *report.Event) error {
	if e.DurationMS < 0 || e.StdoutBytes < 0 || e.StderrBytes < 0 || e.StdinBytes < 0 {
		return errors.New("negative size or duration")
	}
	if err := checkKept("stdout", e.Stdout, e.StdoutBase64, e.StdoutKeptBytes, e.StdoutBytes, e.StdoutSHA256, e.StdoutOmitted); err != nil {
		return err
	}
	return checkKept("stderr", e.Stderr, e.StderrBase64, e.StderrKeptBytes, e.StderrBytes, e.StderrSHA256, e.StderrOmitted)
}

// checkKept checks one stream's kept output against its record: at most
// one encoding, valid base64, and, unless the output was omitted, exactly
// kept bytes whose SHA-256 is sum, no more than the stream's total. This
// catches a report damaged or cut on the way, not a forgery: whoever
// rewrites the output can recompute its digest (docs/security.md). A report
// of an earlier behaves has no digest (""): its output is taken as it is.
func checkKept(stream, text, b64 string, kept, total int64, sum string, omitted bool) error {
	if text != "" && b64 != "" {
		return fmt.Errorf("%s both as text and as base64", stream)
	}
	data := []byte(text)
	if b64 != "" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(b64); err != nil {
			return fmt.Errorf("%s_base64: %w", stream, err)
		}
	}
	switch {
	case kept < 0 || kept > total:
		return fmt.Errorf("%s_kept_bytes %d is not between 0 and %s_bytes %d", stream, kept, stream, total)
	case omitted && len(data) > 0:
		return fmt.Errorf("%s is omitted but %d bytes of it are kept", stream, len(data))
	case omitted || sum == "":
		return nil
	case int64(len(data)) != kept:
		return fmt.Errorf("%s holds %d bytes, but %s_kept_bytes says %d: the report was damaged", stream, len(data), stream, kept)
	case sha256Hex(data) != sum:
		return fmt.Errorf("%s is not the output whose SHA-256 %s_sha256 records: the report was damaged", stream, stream)
	}
	return nil
}

// checkRuns checks a case's runs: none (it ran once, or the report is of
// an earlier behaves, which had no runs) and not nondeterministic, or at
// least two, the first the case's own event, each event valid, and the
// case's verdict and nondeterministic what the runs' verdicts fold to
// (verdict.FoldVerdicts). A report edited to turn a run's false into true
// must turn the case too; one that turns only the case fails here.
func checkRuns(c *report.Case) error {
	switch len(c.Runs) {
	case 0:
		if c.Nondeterministic {
			return errors.New("nondeterministic without runs: a case is found nondeterministic from the runs it keeps")
		}
		return nil
	case 1:
		return errors.New("one run in runs: a case that ran once keeps its run in event and runs is []")
	}
	verdicts := make([]verdict.Verdict, len(c.Runs))
	for i := range c.Runs {
		if err := checkEvent(&c.Runs[i].Event); err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		verdicts[i] = c.Runs[i].Verdict
	}
	if !reflect.DeepEqual(c.Runs[0].Event, c.Event) {
		return errors.New("runs[0].event is not the case's event: event is the first run's")
	}
	v, nondet := verdict.FoldVerdicts(verdicts)
	if c.Verdict != v || c.Nondeterministic != nondet {
		return fmt.Errorf("verdict %s (nondeterministic %v) is not what its %d runs fold to (%s, nondeterministic %v)",
			c.Verdict, c.Nondeterministic, len(c.Runs), v, nondet)
	}
	return nil
}

// checkReference checks a case's same_as expectation and its
// reference_events: only a same_as case has reference events (none when its
// reference did not run, and none in a report of an earlier behaves), each
// valid; its streams are stdout and stderr, once each; its normalisation
// is known.
func checkReference(c *report.Case) error {
	sa := c.Expect.SameAs
	if sa == nil {
		if len(c.ReferenceEvents) > 0 && !answerReference(c) {
			return errors.New("reference_events on a case that is neither same_as nor checked with its reference's output as the answer")
		}
		for i := range c.ReferenceEvents {
			if err := checkEvent(&c.ReferenceEvents[i]); err != nil {
				return fmt.Errorf("reference event %d: %w", i+1, err)
			}
		}
		return nil
	}
	if sa.Reference == "" {
		return errors.New("same_as names no reference")
	}
	if len(sa.Streams) == 0 {
		return errors.New("same_as compares no stream")
	}
	seen := map[string]bool{}
	for _, s := range sa.Streams {
		if s != "stdout" && s != "stderr" || seen[s] {
			return fmt.Errorf("same_as streams %q: stdout and stderr, once each", sa.Streams)
		}
		seen[s] = true
	}
	switch sa.Normalize {
	case verdict.NormalizeTrailing, verdict.NormalizeExact, verdict.NormalizeWhitespace:
	default:
		return fmt.Errorf("same_as: unknown normalize %q", sa.Normalize)
	}
	for i := range c.ReferenceEvents {
		if err := checkEvent(&c.ReferenceEvents[i]); err != nil {
			return fmt.Errorf("reference event %d: %w", i+1, err)
		}
	}
	return nil
}

// checkCheckerRuns checks a case's checker_runs (none in a report of an
// earlier behaves): each names the checker of its stream's checker
// matcher (one of the case's expect, or in its list) and one of the case's
// runs, at most once, in run order, stdout before stderr; its digests are
// SHA-256s, its event's program_sha256 is the checker's, and its
// output_sha256 is the checked run's stream's when that is recorded (the
// checker was given what the report says the program wrote); its applied
// settings, when recorded, name an image, and only a checker with a build
// records a build image; when its answer is the reference's output, its
// answer_sha256 is the digest of the first reference event's stream; its
// event is valid.
func checkCheckerRuns(c *report.Case) error {
	runs := c.RunCount()
	last := -1
	for i := range c.CheckerRuns {
		cr := &c.CheckerRuns[i]
		at := fmt.Sprintf("checker run %d", i+1)
		var m *report.MatcherOutcome
		var ev *report.Event
		switch cr.Stream {
		case "stdout":
			m = c.Expect.Stdout
		case "stderr":
			m = c.Expect.Stderr
		default:
			return fmt.Errorf("%s: stream %s is not stdout or stderr", at, escape.Quote(escape.Shorten(cr.Stream, 20)))
		}
		if cr.Run < 0 || cr.Run >= runs {
			return fmt.Errorf("%s: run %d of a case that ran %s", at, cr.Run, verdict.Count(runs, "time", "times"))
		}
		ev = &c.Event
		if len(c.Runs) > 0 {
			ev = &c.Runs[cr.Run].Event
		}
		if cm := checkerMatcher(m); cm == nil || cm.Checker != cr.Checker {
			return fmt.Errorf("%s: checker %s is not the checker of the case's %s matcher", at, escape.Quote(escape.Shorten(cr.Checker, 40)), cr.Stream)
		}
		order := 2 * cr.Run
		if cr.Stream == "stderr" {
			order++
		}
		if order <= last {
			return fmt.Errorf("%s: run %d's %s is not after the one before: checker_runs are in run order, stdout before stderr, each once", at, cr.Run, cr.Stream)
		}
		last = order
		for _, d := range [...]struct{ field, sum string }{
			{"program_sha256", cr.ProgramSHA256}, {"input_sha256", cr.InputSHA256},
			{"output_sha256", cr.OutputSHA256}, {"answer_sha256", cr.AnswerSHA256},
		} {
			if !sha256Pattern.MatchString(d.sum) {
				return fmt.Errorf("%s: %s %s is not a SHA-256", at, d.field, escape.Quote(escape.Shorten(d.sum, 70)))
			}
		}
		// What the checker ran under (part of its key): applied names an
		// image when recorded, and only a checker with a build stage
		// recorded its build's image.
		if cr.Applied != nil && cr.Applied.Image == "" {
			return fmt.Errorf("%s: applied names no image: a checker's applied settings are null when its attempt ran nothing", at)
		}
		if (cr.BuildImageID != "" || cr.BuildRepoDigest != "") && (cr.Applied == nil || cr.Applied.Build == nil) {
			return fmt.Errorf("%s: build_image_id or build_repo_digest of a checker whose applied settings have no build", at)
		}
		if cr.Event.ProgramSHA256 != "" && cr.Event.ProgramSHA256 != cr.ProgramSHA256 {
			return fmt.Errorf("%s: its event's program_sha256 is not the checker's program_sha256", at)
		}
		kept := ev.StdoutSHA256
		if cr.Stream == "stderr" {
			kept = ev.StderrSHA256
		}
		if kept != "" && kept != cr.OutputSHA256 {
			return fmt.Errorf("%s: output_sha256 is not the digest of run %d's %s: the checker was given other output than the report holds", at, cr.Run, cr.Stream)
		}
		if cm := checkerMatcher(m); cm.AnswerReference != "" {
			// Its answer was the reference's first run's stream.
			if len(c.ReferenceEvents) == 0 {
				return fmt.Errorf("%s: its answer is the reference's output, and the case has no reference_events", at)
			}
			ans := c.ReferenceEvents[0].StdoutSHA256
			if cr.Stream == "stderr" {
				ans = c.ReferenceEvents[0].StderrSHA256
			}
			if ans != cr.AnswerSHA256 {
				return fmt.Errorf("%s: answer_sha256 is not the digest of the reference's %s: the checker was given another answer than the report holds", at, cr.Stream)
			}
		}
		if err := checkEvent(&cr.Event); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	return nil
}

// answerReference says whether a checker matcher of c takes its
// reference's output as its answer (answer_reference).
func answerReference(c *report.Case) bool {
	for _, m := range []*report.MatcherOutcome{c.Expect.Stdout, c.Expect.Stderr} {
		if cm := checkerMatcher(m); cm != nil && cm.AnswerReference != "" {
			return true
		}
	}
	return false
}

// checkerMatcher is m's checker matcher: m itself, or the one in its list
// (nil when it has none).
func checkerMatcher(m *report.MatcherOutcome) *report.MatcherOutcome {
	if m == nil {
		return nil
	}
	if m.Kind == verdict.Checker {
		return m
	}
	for i := range m.Matchers {
		if m.Matchers[i].Kind == verdict.Checker {
			return &m.Matchers[i]
		}
	}
	return nil
}

func checkProgram(p *report.Program) error {
	if p.Line < 0 || p.Col < 0 || p.DurationMS < 0 || p.EvidenceFormat < 0 {
		return errors.New("negative line, col, duration_ms or evidence_format")
	}
	// A folder program's folder is its file; renderers annotate files
	// under it, so it is a clean relative path, and its entry one inside.
	if p.Dir != "" && (p.Dir != p.File || !cleanRel(p.Dir)) {
		return fmt.Errorf("dir %q is not a clean relative path equal to file %q", p.Dir, p.File)
	}
	if p.Entry != "" && (p.Dir == "" || !cleanRel(p.Entry)) {
		return fmt.Errorf("entry %q without dir, or not a clean relative path", p.Entry)
	}
	if err := checkFiles(p); err != nil {
		return err
	}
	switch p.Acquisition {
	case runner.AcquisitionComplete, runner.AcquisitionPartial, runner.AcquisitionError, "":
	default:
		return fmt.Errorf("unknown acquisition %q", p.Acquisition)
	}
	if b := p.Build; b != nil {
		switch b.ResourceLimit {
		case runner.LimitNone, runner.LimitMemory, runner.LimitOutput, runner.LimitBuildOutput:
		default:
			return fmt.Errorf("build: unknown resource_limit %q", b.ResourceLimit)
		}
		if b.OutputSize < 0 || b.OutputBytes != nil && *b.OutputBytes < 0 {
			return errors.New("build: negative output_size or output_bytes")
		}
		if err := checkEventData(&b.Event); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	for k := range p.Cases {
		c := &p.Cases[k]
		if c.Line < 0 || c.Col < 0 {
			return fmt.Errorf("case %d: negative line or col", k+1)
		}
		if err := checkEvent(&c.Event); err != nil {
			return fmt.Errorf("case %d: %w", k+1, err)
		}
		if err := checkStdinExcerpt(c); err != nil {
			return fmt.Errorf("case %d: %w", k+1, err)
		}
		if err := checkRuns(c); err != nil {
			return fmt.Errorf("case %d: %w", k+1, err)
		}
		if err := checkReference(c); err != nil {
			return fmt.Errorf("case %d: %w", k+1, err)
		}
		if err := checkCheckerRuns(c); err != nil {
			return fmt.Errorf("case %d: %w", k+1, err)
		}
		if err := checkCaseReuse(c); err != nil {
			return fmt.Errorf("case %d: %w", k+1, err)
		}
	}
	want, reason := report.ProgramVerdict(p.Cases)
	if p.Verdict != want {
		return fmt.Errorf("verdict %s is not what its cases fold to (%s)", p.Verdict, want)
	}
	// The reason is the deciding case's, as the verdict is; a merge's
	// program of a missing shard has no cases and says which shard
	// (checkShard holds it to the shard table).
	if p.Reason != reason && !(len(p.Cases) == 0 && report.MissingShardReason.MatchString(p.Reason)) {
		return fmt.Errorf("reason %s is not what its cases fold to (%q)", escape.Quote(escape.Shorten(p.Reason, 60)), reason)
	}
	return nil
}

// sha256Hex is the lowercase hex SHA-256 of b, as an event records it.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkFiles holds a program's files list to its program_sha256: each
// entry well formed, the list sorted by path with no path twice, and the
// digest recomputed from it (runner.DigestOf) equal to the one recorded.
// A list that disagrees was forged or damaged: reuse and rescore would
// otherwise trust a digest no file vouches for, and renderers would
// annotate files the program never had.
func checkFiles(p *report.Program) error {
	switch {
	case p.FilesOmitted && (len(p.Files) > 0 || p.FileCount <= 0):
		return fmt.Errorf("files_omitted with %d files listed and file_count %d: an omitted list is empty and counts its files", len(p.Files), p.FileCount)
	case p.FilesOmitted:
		return nil
	case len(p.Files) != p.FileCount:
		return fmt.Errorf("file_count %d, but files lists %d", p.FileCount, len(p.Files))
	case len(p.Files) == 0:
		return nil // a report of an earlier behaves, or a program never read
	}
	entries := make([]runner.ListEntry, len(p.Files))
	for i, f := range p.Files {
		at := fmt.Sprintf("files[%d]", i)
		if !cleanRel(f.Path) || !cleanRel(f.Source) {
			return fmt.Errorf("%s: path %q or source %q is not a clean relative path", at, f.Path, f.Source)
		}
		if i > 0 && p.Files[i-1].Path >= f.Path {
			return fmt.Errorf("%s: path %q is not after %q: the list is sorted by path, each once", at, f.Path, p.Files[i-1].Path)
		}
		if !sha256Pattern.MatchString(f.SHA256) || f.Bytes < 0 {
			return fmt.Errorf("%s: sha256 %q is not a lowercase hex SHA-256, or bytes is negative", at, f.SHA256)
		}
		switch f.Mode {
		case runner.ListModeFile, runner.ListModeExecutable:
			if f.Target != "" {
				return fmt.Errorf("%s: a file (mode %s) with a link target", at, f.Mode)
			}
		case runner.ListModeLink:
			if err := runner.CheckLink(f.Path, f.Target, nil); err != nil || f.SHA256 != sha256Hex([]byte(f.Target)) || f.Bytes != int64(len(f.Target)) {
				return fmt.Errorf("%s: link %q: its target is not a relative path inside the program, or sha256 and bytes are not its target's", at, f.Path)
			}
		default:
			return fmt.Errorf("%s: unknown mode %q (100644, 100755 or 120000)", at, f.Mode)
		}
		entries[i] = f.ListEntry()
	}
	if got := runner.DigestOf(entries, p.Dir != ""); got != p.ProgramSHA256 {
		return fmt.Errorf("program_sha256 %s is not the digest of its files (%s): the files list and program_sha256 disagree", escape.Quote(escape.Shorten(p.ProgramSHA256, 70)), got)
	}
	return nil
}

// cleanRel says whether p is a clean, relative, slash-separated path that
// stays inside its root.
func cleanRel(p string) bool {
	return p != "" && p != "." && !path.IsAbs(p) && path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../") &&
		strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) < 0
}
