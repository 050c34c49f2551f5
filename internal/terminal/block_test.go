package terminal

import (
	"strings"
	"testing"
)

func TestBlock(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", "(empty)\n"},
		{"a\nb\n", "| a\n| b\n"},
		{"a\n\nb", "| a\n|\n| b\n\\ no newline at end\n"},
		{"\n", "|\n"},
		{strings.Repeat("x\n", 50), strings.Repeat("| x\n", 40) + "… 20 more bytes not shown\n"},
		{strings.Repeat("é", 3000), "| " + strings.Repeat("é", 2048) + "\n… 1904 more bytes not shown\n"},
	}
	for _, tt := range tests {
		var tm term
		tm.block("", []byte(tt.in), true)
		if got := tm.buf.String(); got != tt.want {
			t.Errorf("block(%.20q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
