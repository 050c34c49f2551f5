package reportwrite

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// DefaultMaxReportSize is the default budget of a report's case entries
// and programs' files lists (--max-report-size).
const DefaultMaxReportSize int64 = 256 << 20

// JSON indentation of the report's nesting levels, as report.Encode writes them.
const (
	programIndent = "    "
	caseIndent    = "        "
)

// Options tune a Writer.
type Options struct {
	// MaxSize bounds the bytes of the report's case entries (each case's
	// JSON, its output included) and of its programs' files lists; 0 or
	// less means no bound. Past it, the kept output of cases is omitted:
	// true cases' first, then undetermined ones', false cases' last (see
	// Writer); then the files lists the rest cannot hold (fitFiles).
	MaxSize int64
	// Excerpts is how many cases that are not true keep the start of
	// their output in memory for the terminal, the first in the spec's
	// order (0 means DefaultExcerpts).
	Excerpts int
}

// Writer writes a report whose evidence never has to be in memory at once:
// each case's JSON entry goes to a spool folder next to the report as soon
// as the case is judged (Add), and Commit assembles the report from the
// spool into a temporary file that is renamed over the report's path. In
// memory a case keeps only a summary: everything but the output, plus an
// excerpt for the terminal.
//
// The case entries total at most MaxSize bytes, on disk while running and
// in the report: an entry that does not fit goes in without its output
// (stdout_omitted, stderr_omitted; the byte counts and SHA-256 stay), after
// making room by omitting the output of cases ranked lower, true below
// undetermined below false. Verdicts are judged before; omitting changes
// only what the report shows. Only the entries without output may take the
// report past MaxSize, since none can be dropped.
type Writer struct {
	path  string
	spool string
	opt   Options

	mu       sync.Mutex
	entries  map[[2]int]*entry
	kept     [3][]*entry // entries kept with their output, by rank
	used     int64       // bytes of every entry, as it stands
	omitted  int
	excerpts []*entry // summaries holding an excerpt
	err      error    // the first spool failure: Commit fails with it
	// full holds the entry being added, encoded without its output (which
	// spliceOutput streams in), short the same entry marked omitted.
	full  bytes.Buffer
	short bytes.Buffer
}

// entry is one case as the Writer holds it.
type entry struct {
	key  [2]int      // program, case
	c    report.Case // the summary, or the entry as written when not spooled
	rank int
	file string // the spooled entry with its output; "" when none
	// size and bare are the bytes of the entry with and without its
	// output.
	size, bare int64
}

// NewWriter makes a Writer for the report at path, with its spool folder
// next to it (same file system, so the budget also bounds the disk that
// the spool takes there). Close removes the spool.
func NewWriter(path string, opt Options) (*Writer, error) {
	if opt.Excerpts <= 0 {
		opt.Excerpts = report.DefaultExcerpts
	}
	spool, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.spool")
	if err != nil {
		return nil, fmt.Errorf("making the report's spool folder: %w", err)
	}
	return &Writer{path: path, spool: spool, opt: opt, entries: map[[2]int]*entry{}}, nil
}

// Add records the judged case c of program p: entry is the case's JSON
// entry without its output (each event as report.EventOf makes it: sizes and
// SHA-256, no bytes), and streams the kept stdout and stderr of each of
// its events, in the order the entry holds them (its event, each run's,
// each reference event's). The entry goes to the spool with its output
// (or in without it, see Writer) and a summary stays in memory. It may be
// called from several goroutines. The output is written to the spool
// straight from streams, without a copy, one case at a time.
func (w *Writer) Add(p, c int, entry report.Case, streams [][]byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.add([2]int{p, c}, entry, streams)
}

// Commit writes the report r (as package assemble builds it) atomically
// to the Writer's path: the cases given to Add are taken from the spool,
// the others are added now. It returns r with every case as its summary,
// for the terminal (report.Encode refuses it). On failure the report's path is
// left as it was.
func (w *Writer) Commit(r report.Report) (report.Report, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := report.Normalize(r)
	for i := range out.Programs {
		p := &out.Programs[i]
		cases := make([]report.Case, len(p.Cases))
		for j := range p.Cases {
			e := w.entries[[2]int{i, j}]
			if e == nil {
				c := p.Cases[j]
				e = w.add([2]int{i, j}, report.Summarize(c), caseStreams(&c))
			}
			cases[j] = e.c
		}
		p.Cases = cases
	}
	// The cases given to Add carry what r may not (their runs, and so
	// whether they are nondeterministic): count them as they are.
	out.Counts = report.CountsOf(out.Programs)
	out.Reuse = report.ReuseOf(&out)
	out.OutputOmittedCases = w.omitted
	if err := w.fitFiles(out.Programs); err != nil {
		return out, err
	}
	if w.err != nil {
		return out, fmt.Errorf("writing report %s: %w", w.path, w.err)
	}
	err := writeAtomic(w.path, func(f io.Writer) error { return w.assemble(f, out) })
	return out, err
}

// fitFiles leaves out the programs' files lists that do not fit in what
// the case entries left of the budget, the largest first: each such list
// is emptied and marked files_omitted (its file_count and the digest,
// program_sha256, stay), never cut. A list is what was delivered, which
// the digest already vouches for; a case's output is evidence of what the
// program did, so the cases' entries are served first.
func (w *Writer) fitFiles(ps []report.Program) error {
	if w.opt.MaxSize <= 0 {
		return nil
	}
	sizes := make([]int64, len(ps))
	var total int64
	var buf bytes.Buffer
	for i := range ps {
		buf.Reset()
		if err := encodeAt(&buf, programIndent+"  ", ps[i].Files); err != nil {
			return err
		}
		sizes[i] = int64(buf.Len())
		total += sizes[i]
	}
	room := w.opt.MaxSize - w.used
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	for _, i := range order {
		if total <= room {
			break
		}
		if len(ps[i].Files) == 0 {
			continue
		}
		total -= sizes[i] - 2 // an empty list is "[]"
		ps[i].Files, ps[i].FilesOmitted = []report.ProgramFile{}, true
	}
	return nil
}

// Path is the report's path, where Commit writes it.
func (w *Writer) Path() string { return w.path }

// Close removes the spool folder and what is left in it.
func (w *Writer) Close() error {
	if err := os.RemoveAll(w.spool); err != nil {
		return fmt.Errorf("removing the report's spool folder: %w", err)
	}
	return nil
}

func rank(v verdict.Verdict) int {
	switch v {
	case verdict.False:
		return 2
	case verdict.Undetermined:
		return 1
	default:
		return 0
	}
}

// hasOutput reports whether any of the case's events kept output.
func hasOutput(c *report.Case) bool {
	for _, e := range c.Events() {
		if e.StdoutKeptBytes > 0 || e.StderrKeptBytes > 0 {
			return true
		}
	}
	return false
}

// caseStreams returns the kept bytes of each of c's events, stdout then
// stderr, in the order of events.
func caseStreams(c *report.Case) [][]byte {
	var out [][]byte
	for _, e := range c.Events() {
		out = append(out, e.StdoutData(), e.StderrData())
	}
	return out
}

// add takes case c, whose events hold no output, with the kept bytes of
// each event's stdout and stderr in streams (in the order of events),
// under key; w.mu is held.
func (w *Writer) add(key [2]int, c report.Case, streams [][]byte) *entry {
	if old := w.entries[key]; old != nil {
		return old // each case is added once; a repeat changes nothing
	}
	evs := c.Events()
	total := 0
	for k, e := range evs {
		var out, errb []byte
		if 2*k+1 < len(streams) {
			out, errb = streams[2*k], streams[2*k+1]
		}
		if (int64(len(out)) != e.StdoutKeptBytes || int64(len(errb)) != e.StderrKeptBytes) && w.err == nil {
			w.err = fmt.Errorf("case %d of program %d: its output is not there to write", key[1], key[0])
		}
		total += len(out) + len(errb)
	}
	if len(streams) != 2*len(evs) && w.err == nil && total > 0 {
		w.err = fmt.Errorf("case %d of program %d: its output does not match its runs", key[1], key[0])
	}
	e := &entry{key: key, rank: rank(c.Verdict), c: report.Summarize(c)}
	w.entries[key] = e
	if e.rank > 0 && len(streams) >= 2 && len(streams[0])+len(streams[1]) > 0 {
		w.keepExcerpt(e, streams[0], streams[1])
	}
	base := w.measure(&w.full, e.c)
	if total == 0 {
		e.size, e.bare = base, base
		w.used += e.size
		return e
	}
	e.size = base
	for _, b := range streams {
		e.size += report.EncodedLen(b)
	}
	e.bare = w.measure(&w.short, omitted(e.c))
	admit := w.err == nil && (w.opt.MaxSize <= 0 || w.used+e.size <= w.opt.MaxSize ||
		w.makeRoom(w.used+e.size-w.opt.MaxSize, e.rank))
	if admit {
		file := filepath.Join(w.spool, strconv.Itoa(key[0])+"-"+strconv.Itoa(key[1])+".json")
		if err := writeFile(file, func(f io.Writer) error { return spliceOutput(f, w.full.Bytes(), streams, eventIndents(&e.c)) }); err != nil {
			w.err = fmt.Errorf("spooling a case: %w", err)
			admit = false
		} else {
			e.file = file
		}
	}
	if !admit {
		w.omit(e)
		w.used += e.bare
		return e
	}
	w.kept[e.rank] = append(w.kept[e.rank], e)
	w.used += e.size
	return e
}

// measure encodes c into buf (reset first) and returns its size.
func (w *Writer) measure(buf *bytes.Buffer, c report.Case) int64 {
	buf.Reset()
	if err := encodeEntry(buf, c); err != nil && w.err == nil {
		w.err = err
	}
	return int64(buf.Len())
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	return errors.Join(err, f.Close())
}

// eventField is the indentation of the case's event's fields in an entry,
// and runEventField that of a run's event's fields (in runs[]).
const (
	eventField    = caseIndent + "    "
	runEventField = caseIndent + "        "
	refEventField = caseIndent + "      "
)

// eventIndents is the indentation of the fields of each of c's events in
// its entry, in the order of Case.Events: the case's event, each run's
// (in runs[]), each reference event (elements of reference_events), each
// checker run's (in checker_runs[]).
func eventIndents(c *report.Case) []string {
	out := make([]string, 0, 1+len(c.Runs)+len(c.ReferenceEvents)+len(c.CheckerRuns))
	out = append(out, eventField)
	for range c.Runs {
		out = append(out, runEventField)
	}
	for range c.ReferenceEvents {
		out = append(out, refEventField)
	}
	for range c.CheckerRuns {
		out = append(out, runEventField)
	}
	return out
}

// spliceOutput writes the entry enc, encoded without its output, with
// streams (each event's stdout and stderr, in the order of Case.Events) in
// place of the empty stdout / stdout_base64 and stderr / stderr_base64
// values (the ones Event.SetOutput would fill), streamed so that no copy of
// the output is made; indents are the indentation of each event's fields
// (eventIndents). Every stream's field is found in order, also an empty
// one's, so that the next stream's search starts past it.
func spliceOutput(f io.Writer, enc []byte, streams [][]byte, indents []string) error {
	for k, data := range streams {
		if k/2 >= len(indents) {
			return fmt.Errorf("encoding report: %d streams for %d events", len(streams), len(indents))
		}
		indent := indents[k/2]
		key := "stdout"
		if k%2 == 1 {
			key = "stderr"
		}
		if !report.AsText(data) {
			key += "_base64"
		}
		marker := []byte("\n" + indent + `"` + key + `": ""`)
		i := bytes.Index(enc, marker)
		if i < 0 {
			return fmt.Errorf("encoding report: no %s field in the entry", key)
		}
		cut := i + len(marker) - 1 // after the opening quote
		if _, err := f.Write(enc[:cut]); err != nil {
			return err
		}
		if err := writeStream(f, data); err != nil {
			return err
		}
		enc = enc[cut:]
	}
	_, err := f.Write(enc)
	return err
}

// writeStream writes b inside a JSON string as report.Event.SetOutput stores it:
// escaped text exactly as encoding/json writes it (HTML escaping off), or
// base64.
func writeStream(w io.Writer, b []byte) error {
	if !report.AsText(b) {
		enc := base64.NewEncoder(base64.StdEncoding, w)
		if _, err := enc.Write(b); err != nil {
			return err
		}
		return enc.Close()
	}
	const hex = "0123456789abcdef"
	start := 0
	flush := func(i int, esc string) error {
		if _, err := w.Write(b[start:i]); err != nil {
			return err
		}
		_, err := io.WriteString(w, esc)
		return err
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c >= 0x20 && c != '"' && c != '\\':
				i++
				continue
			case c == '"' || c == '\\':
				esc = `\` + string(c)
			case c == '\n':
				esc = `\n`
			case c == '\r':
				esc = `\r`
			case c == '\t':
				esc = `\t`
			case c == '\b':
				esc = `\b`
			case c == '\f':
				esc = `\f`
			default:
				esc = `\u00` + string(hex[c>>4]) + string(hex[c&0xF])
			}
			if err := flush(i, esc); err != nil {
				return err
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = `\ufffd`
		case r == '\u2028':
			esc = `\u2028`
		case r == '\u2029':
			esc = `\u2029`
		default:
			i += size
			continue
		}
		if err := flush(i, esc); err != nil {
			return err
		}
		i += size
		start = i
	}
	_, err := w.Write(b[start:])
	return err
}

// makeRoom omits the output of entries ranked below r, the lowest rank and
// then the largest first, until need bytes are free; it omits nothing and
// returns false when that cannot free enough.
func (w *Writer) makeRoom(need int64, r int) bool {
	var free int64
	for k := 0; k < r; k++ {
		for _, e := range w.kept[k] {
			free += e.size - e.bare
		}
	}
	if free < need {
		return false
	}
	for k := 0; k < r && need > 0; k++ {
		slices.SortFunc(w.kept[k], func(a, b *entry) int { return int((b.size - b.bare) - (a.size - a.bare)) })
		for len(w.kept[k]) > 0 && need > 0 {
			e := w.kept[k][0]
			w.kept[k] = w.kept[k][1:]
			if err := os.Remove(e.file); err != nil && w.err == nil {
				w.err = fmt.Errorf("dropping a spooled case: %w", err)
			}
			e.file = ""
			w.omit(e)
			w.used -= e.size - e.bare
			need -= e.size - e.bare
		}
	}
	return true
}

// omit marks e's output as left out of the report.
func (w *Writer) omit(e *entry) {
	e.c = omitted(e.c)
	w.omitted++
}

// omittedAll reports whether every event of c that kept output says it
// was left out.
func omittedAll(c *report.Case) bool {
	for _, e := range c.Events() {
		if e.StdoutKeptBytes > 0 && !e.StdoutOmitted || e.StderrKeptBytes > 0 && !e.StderrOmitted {
			return false
		}
	}
	return true
}

// keepExcerpt gives e's summary the start of its output, when e is among
// the first opt.Excerpts such cases in the spec's order.
func (w *Writer) keepExcerpt(e *entry, out, errb []byte) {
	w.excerpts = append(w.excerpts, e)
	if len(w.excerpts) > w.opt.Excerpts {
		last := 0
		for i, x := range w.excerpts {
			if before(w.excerpts[last].key, x.key) {
				last = i
			}
		}
		if w.excerpts[last] == e {
			w.excerpts = w.excerpts[:len(w.excerpts)-1]
			return
		}
		w.excerpts[last].c.DropExcerpt()
		w.excerpts = slices.Delete(w.excerpts, last, last+1)
	}
	e.c.HoldExcerpt(out, errb)
}

func before(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// omitted returns the summary c marked as having its output left out, in
// every event.
func omitted(c report.Case) report.Case {
	c.Runs = slices.Clone(c.Runs)
	c.ReferenceEvents = slices.Clone(c.ReferenceEvents)
	c.CheckerRuns = slices.Clone(c.CheckerRuns)
	for _, e := range c.Events() {
		e.StdoutOmitted = e.StdoutKeptBytes > 0
		e.StderrOmitted = e.StderrKeptBytes > 0
	}
	return c
}

// encodeEntry writes c as report.Encode would inside a report (indented at the
// cases' level), without the final newline.
func encodeEntry(buf *bytes.Buffer, c report.Case) error {
	return encodeAt(buf, caseIndent, c)
}

func encodeAt(buf *bytes.Buffer, prefix string, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	buf.Truncate(buf.Len() - 1) // the newline Encode adds
	return nil
}

// assemble writes the report: out's header and programs, each case from
// the spool when it was spooled, else encoded from its entry. It removes
// each spooled file once copied, so that the spool and the report never
// hold an entry twice.
func (w *Writer) assemble(f io.Writer, out report.Report) error {
	bw := bufio.NewWriterSize(f, 64<<10)
	var buf bytes.Buffer
	flush := func() error {
		_, err := bw.Write(buf.Bytes())
		buf.Reset()
		return err
	}
	head := out
	head.Programs = []report.Program{}
	if err := encodeAt(&buf, "", head); err != nil {
		return err
	}
	if err := spliceOpen(&buf, "\n}"); err != nil {
		return err
	}
	for i := range out.Programs {
		p := out.Programs[i]
		p.Cases = []report.Case{}
		buf.WriteString(sep(i) + programIndent)
		if err := encodeAt(&buf, programIndent, p); err != nil {
			return err
		}
		if err := spliceOpen(&buf, "\n"+programIndent+"}"); err != nil {
			return err
		}
		for j := range out.Programs[i].Cases {
			buf.WriteString(sep(j) + caseIndent)
			e := w.entries[[2]int{i, j}]
			if e.file == "" {
				if hasOutput(&e.c) && !omittedAll(&e.c) {
					return fmt.Errorf("encoding report: case %d of program %d lost its output", j, i)
				}
				if err := encodeEntry(&buf, e.c); err != nil {
					return err
				}
			}
			if err := flush(); err != nil {
				return err
			}
			if e.file == "" {
				continue
			}
			if err := copyFile(bw, e.file); err != nil {
				return err
			}
			if err := os.Remove(e.file); err != nil {
				return fmt.Errorf("removing a spooled case: %w", err)
			}
			e.file = ""
		}
		closeList(&buf, len(out.Programs[i].Cases), "      ")
		buf.WriteString("\n" + programIndent + "}")
	}
	closeList(&buf, len(out.Programs), "  ")
	buf.WriteString("\n}\n")
	if err := flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// spliceOpen turns the end of an encoded object whose last field is an
// empty list ("[]" + end) into the list's opening "[".
func spliceOpen(buf *bytes.Buffer, end string) error {
	tail := "[]" + end
	if !bytes.HasSuffix(buf.Bytes(), []byte(tail)) {
		return errors.New("encoding report: the list is not the last field")
	}
	buf.Truncate(buf.Len() - len(tail))
	buf.WriteString("[")
	return nil
}

func sep(i int) string {
	if i == 0 {
		return "\n"
	}
	return ",\n"
}

// closeList ends a list of n elements whose closing bracket goes at indent.
func closeList(buf *bytes.Buffer, n int, indent string) {
	if n == 0 {
		buf.WriteString("]")
		return
	}
	buf.WriteString("\n" + indent + "]")
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading a spooled case: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("copying a spooled case: %w", err)
	}
	return nil
}
