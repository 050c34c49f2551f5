package engine

import (
	"sync"

	"github.com/behaves-dev/behaves/internal/assemble"
)

// heldRuns holds the runs of the cases that run more than once until the
// last of a case's runs is in. It is safe for concurrent use.
type heldRuns struct {
	mu   sync.Mutex
	runs map[[2]int]*heldCase
}

type heldCase struct {
	runs []assemble.RunResult
	have []bool // which runs are in
	left int
}

func newHeldRuns() *heldRuns { return &heldRuns{runs: map[[2]int]*heldCase{}} }

// put records run of case c of job (which has k runs) and returns every
// run of the case once all k are in (then it holds them no more), else
// nil.
func (h *heldRuns) put(job, c, run, k int, r assemble.RunResult) []assemble.RunResult {
	if k <= 1 {
		return []assemble.RunResult{r}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	key := [2]int{job, c}
	hc := h.runs[key]
	if hc == nil {
		hc = &heldCase{runs: make([]assemble.RunResult, k), have: make([]bool, k), left: k}
		h.runs[key] = hc
	}
	hc.runs[run], hc.have[run] = r, true
	hc.left--
	if hc.left > 0 {
		return nil
	}
	delete(h.runs, key)
	return hc.runs
}

// take returns the k runs of case c of job held so far and which of them
// are in (the others are zero), and holds them no more.
func (h *heldRuns) take(job, c, k int) ([]assemble.RunResult, []bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := [2]int{job, c}
	hc := h.runs[key]
	delete(h.runs, key)
	if hc == nil {
		return make([]assemble.RunResult, k), make([]bool, k)
	}
	return hc.runs, hc.have
}
