package assemble

import (
	"slices"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Writer is a reportwrite.Writer that takes the spec's cases as a run judges
// them (the engine's Sink): each becomes its entry, as Report would
// assemble it, spooled with its output.
type Writer struct {
	*reportwrite.Writer
}

// NewWriter makes a Writer for the report at path (see reportwrite.NewWriter).
func NewWriter(path string, opt reportwrite.Options) (*Writer, error) {
	w, err := reportwrite.NewWriter(path, opt)
	if err != nil {
		return nil, err
	}
	return &Writer{w}, nil
}

// Case is one judged case as AddCase takes it.
type Case struct {
	// Spec is the spec's case.
	Spec spec.Case
	// Runs holds the case's runs in order (one for a case that ran once;
	// the first is the case's event).
	Runs []RunResult
	// Result is the case's verdict (for more than one run, their fold).
	Result verdict.CaseResult
	// References, for a same_as case, are its reference's runs of the
	// case's invocation (nil for any other case), which go into the entry
	// as reference_events, their output with the case's.
	References []runner.Event
	// Checkers are, for a case with a checker matcher, the checker's run
	// on each stream of each run it checked, in run order, stdout before
	// stderr (nil for any other case), which go into the entry as
	// checker_runs, their output with the case's.
	Checkers []CheckerRun
	// ReusedFrom names the run whose stored evidence Runs are (nil when
	// they ran now); NotReused says why a run given stored reports ran the
	// case now (nil otherwise).
	ReusedFrom *report.Origin
	NotReused  *report.NotReused
}

// CheckerRun is one run of a checker on one stream of one run of a case.
type CheckerRun struct {
	// Checker is the checker's name, Run the case's run (from 0) and
	// Stream "stdout" or "stderr".
	Checker string
	Run     int
	Stream  string
	// ProgramSHA256 is the checker's own digest (its files, without what
	// it checked), and InputSHA256, OutputSHA256 and AnswerSHA256 those of
	// what it was given.
	ProgramSHA256, InputSHA256, OutputSHA256, AnswerSHA256 string
	// Applied is what the checker's containers were built from (nil when
	// its attempt stopped before running anything); BuildImageID and
	// BuildRepoDigest the image its build stage ran ("" without one).
	Applied                       *runner.Applied
	BuildImageID, BuildRepoDigest string
	// Event is the checker's run.
	Event runner.Event
}

// AddCase records the judged case k as case c of program p (see
// reportwrite.Writer.Add). It may be called from several goroutines; the
// output goes to the spool straight from the events, without a copy.
func (w *Writer) AddCase(p, c int, k Case) {
	// Each event's stdout and stderr, in the order the entry holds the
	// events: the case's, each run's (when it ran more than once), each
	// reference's, each checker run's.
	runs, refs := k.Runs, k.References
	streams := make([][]byte, 0, 2+2*len(runs)+2*len(refs))
	if len(runs) > 0 {
		streams = append(streams, runs[0].Event.Stdout.Data, runs[0].Event.Stderr.Data)
	}
	if len(runs) > 1 {
		for r := range runs {
			streams = append(streams, runs[r].Event.Stdout.Data, runs[r].Event.Stderr.Data)
		}
	}
	for _, r := range refs {
		streams = append(streams, r.Stdout.Data, r.Stderr.Data)
	}
	for _, r := range k.Checkers {
		streams = append(streams, r.Event.Stdout.Data, r.Event.Stderr.Data)
	}
	w.Add(p, c, entry(k), streams)
}

// WithoutOutput is k with its events' output dropped (their counts and
// digests stay): what a run keeps of a case once a Writer has spooled it,
// so that its memory does not grow with the output of every case.
func (k Case) WithoutOutput() Case {
	k.Runs = slices.Clone(k.Runs)
	for r := range k.Runs {
		k.Runs[r].Event = dropOutput(k.Runs[r].Event)
	}
	refs := make([]runner.Event, len(k.References))
	for r, ev := range k.References {
		refs[r] = dropOutput(ev)
	}
	if k.References == nil {
		refs = nil
	}
	k.References = refs
	k.Checkers = slices.Clone(k.Checkers)
	for r := range k.Checkers {
		k.Checkers[r].Event = dropOutput(k.Checkers[r].Event)
	}
	return k
}

func dropOutput(ev runner.Event) runner.Event {
	ev.Stdout.Data, ev.Stderr.Data = nil, nil
	return ev
}
