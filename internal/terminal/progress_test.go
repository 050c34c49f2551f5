package terminal

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// lockedBuffer is a bytes.Buffer safe for concurrent writes, so that the
// race detector checks Progress and not the test's writer.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestProgress(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewProgress(&buf, 200, true)
	p.Case(verdict.True)
	p.Case(verdict.False)
	p.Case(verdict.Undetermined)
	want := "\rbehaves: 1/200 cases · 1 true · 0 false · 0 undetermined" +
		"\rbehaves: 2/200 cases · 1 true · 1 false · 0 undetermined" +
		"\rbehaves: 3/200 cases · 1 true · 1 false · 1 undetermined"
	if got := buf.String(); got != want {
		t.Errorf("progress = %q, want %q", got, want)
	}
	buf.Reset()
	p.Done()
	width := len([]rune("behaves: 3/200 cases · 1 true · 1 false · 1 undetermined"))
	if got, want := buf.String(), "\r"+strings.Repeat(" ", width)+"\r"; got != want {
		t.Errorf("Done wrote %q, want %q", got, want)
	}
	buf.Reset()
	p.Case(verdict.True)
	p.Done()
	if buf.Len() != 0 {
		t.Errorf("after Done: %q", buf.String())
	}
}

func TestProgressDisabled(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewProgress(&buf, 3, false)
	p.Case(verdict.True)
	p.Done()
	if buf.Len() != 0 {
		t.Errorf("a disabled progress line printed %q", buf.String())
	}
	var nilp *Progress
	nilp.Case(verdict.True)
	nilp.Done()
}

func TestProgressConcurrent(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	const n = 300
	p := NewProgress(&buf, n, true)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Case(verdict.Verdict(i % 3))
		}()
	}
	wg.Wait()
	out := buf.String()
	if !strings.HasSuffix(out, "\rbehaves: 300/300 cases · 100 true · 100 false · 100 undetermined") {
		t.Errorf("last line = %q", out[strings.LastIndex(out, "\r"):])
	}
	if strings.Count(out, "\r") != n {
		t.Errorf("%d redraws, want %d", strings.Count(out, "\r"), n)
	}
	p.Done()
}
