package terminal

import (
	"io"
	"testing"

	"github.com/behaves-dev/behaves/internal/reporttest"
)

func BenchmarkRender(b *testing.B) {
	r := reporttest.Big()
	b.Run("terminal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := Write(io.Discard, r, Options{MaxCaseDetails: -1}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
