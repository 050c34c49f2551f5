package terminal

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Progress is a live progress line for a terminal: one line rewritten in
// place with "\r" after every judged case. It prints only counts, never
// program output. Its methods are safe for concurrent use; a disabled
// Progress (or a nil one) prints nothing.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	enabled bool
	total   int
	done    int
	tally   report.Tally
	width   int // widest line written (in runes), to clear it
	closed  bool
}

// NewProgress returns a progress line over total cases written to w. When
// enabled is false (w is not a terminal, or output is for a log), it
// prints nothing.
func NewProgress(w io.Writer, total int, enabled bool) *Progress {
	return &Progress{w: w, total: total, enabled: enabled}
}

// Case records one judged case and redraws the line.
func (p *Progress) Case(v verdict.Verdict) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.tally.Add(v)
	if !p.enabled || p.closed {
		return
	}
	line := fmt.Sprintf("behaves: %d/%d %s · %d true · %d false · %d undetermined",
		p.done, p.total, verdict.Plural(p.total, "case", "cases"), p.tally.True, p.tally.False, p.tally.Undetermined)
	pad := ""
	if n := utf8.RuneCountInString(line); n < p.width {
		pad = strings.Repeat(" ", p.width-n)
	} else {
		p.width = n
	}
	// A progress line is best effort: a failed write is not the run's
	// failure.
	_, _ = io.WriteString(p.w, "\r"+line+pad)
}

// Done clears the line, so what is printed next starts at column 0 of a
// clean line. Later calls to Case print nothing.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	if p.enabled && p.width > 0 {
		_, _ = io.WriteString(p.w, "\r"+strings.Repeat(" ", p.width)+"\r")
	}
}
