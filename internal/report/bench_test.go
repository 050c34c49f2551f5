package report_test

import (
	"io"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

func BenchmarkRender(b *testing.B) {
	r := reporttest.Big()
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := report.Encode(io.Discard, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
