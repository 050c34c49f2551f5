package github

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s     string
		limit int
		want  string
	}{
		{"hello", 5, "hello"},
		{"hello!", 5, "he…"},
		{"", 3, ""},
		{"ab€cd", 7, "ab€cd"},
		{"ab€cdef", 7, "ab…"},  // "ab€" + "…" would be 8 bytes: the € goes whole
		{"abc€def", 7, "abc…"}, // never half a rune
		{"a€€€", 9, "a€…"},
		{"xyz", 1, "…"}, // a limit below the marker still returns the marker
	} {
		got := cut(tc.s, tc.limit, "…")
		if got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.s, tc.limit, got, tc.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("cut(%q, %d) = %q: not valid UTF-8", tc.s, tc.limit, got)
		}
	}
	long := strings.Repeat("€", 100)
	for limit := 3; limit < 40; limit++ {
		got := cut(long, limit, "…")
		if len(got) > limit || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
			t.Errorf("cut to %d: %q (%d bytes)", limit, got, len(got))
		}
	}
}
