package spec

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Binary size units, the only ones a spec may use.
const (
	kib int64 = 1 << 10
	mib int64 = 1 << 20
	gib int64 = 1 << 30
)

var sizeRE = regexp.MustCompile(`^([0-9]+)(B|KiB|MiB|GiB)$`)

// ParseSize parses a size in binary units: "<integer><unit>" with unit B,
// KiB, MiB or GiB. The error says how to write one.
func ParseSize(s string) (int64, error) {
	m := sizeRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("is not a size: write an integer followed by B, KiB, MiB or GiB (binary units only), e.g. 64KiB or 256MiB")
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	unit := map[string]int64{"B": 1, "KiB": kib, "MiB": mib, "GiB": gib}[m[2]]
	if err != nil || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("is too large")
	}
	return n * unit, nil
}

// sizeOf writes a file size for messages: exact in bytes, with a rounded
// binary unit when that reads better.
func sizeOf(n int64) string {
	if n < mib {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d bytes (%.1fMiB)", n, float64(n)/float64(mib))
}

// formatDuration writes a duration without trailing zero units ("10m",
// "1h30m", "5s", "1.5s").
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
