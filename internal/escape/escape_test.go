package escape

import "testing"

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tnl\ncr\r", `tab\tnl\ncr\r`},
		{"esc\x1b[31m", `esc\x1b[31m`},
		{"nul\x00 del\x7f", `nul\x00 del\x7f`},
		{`back\slash`, `back\slash`},
		{"c1 \u0085 \u009b", `c1 \u0085 \u009b`},
		{"bidi \u202a\u202b\u202c\u202d\u202e \u2066\u2067\u2068\u2069 \u200e\u200f\u061c", `bidi \u202a\u202b\u202c\u202d\u202e \u2066\u2067\u2068\u2069 \u200e\u200f\u061c`},
		{"seps \u2028\u2029", `seps \u2028\u2029`},
		{"bad \xff\xc3", `bad \xff\xc3`},
		{"ünïcödé · 日本 ✓", "ünïcödé · 日本 ✓"},
		{"tag \U000e0041", `tag \U000e0041`},
		{`say "hi"`, `say "hi"`},
	}
	for _, tt := range tests {
		if got := esc(tt.in); got != tt.want {
			t.Errorf("esc(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := quote(`say "hi" \n`); got != `"say \"hi\" \\n"` {
		t.Errorf("quote = %s", got)
	}
}
