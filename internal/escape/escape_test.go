package escape

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

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

// argvCases are commands with every kind of argument Argv quotes.
var argvCases = []struct {
	argv []string
	want string
}{
	{[]string{"python3", "-I", "/program/main.py", "--n=5"}, "python3 -I /program/main.py --n=5"},
	{[]string{"sh", "-c", "echo $HOME; ls *"}, "sh -c 'echo $HOME; ls *'"},
	{[]string{"echo", "two words", "", "it's"}, `echo 'two words' '' 'it'\''s'`},
	{[]string{"A=1", "x=y"}, "'A=1' x=y"},
	{[]string{"printf", "a\nb\n", "a\tb\\ 'q'", "\xff\x01"}, `printf $'a\nb\n' $'a\tb\\ \'q\'' $'\xff\x01'`},
	{[]string{"bidi", "\u202eevil", "caf\u00e9", "~", "#c"}, `bidi $'\u202eevil' 'café' '~' '#c'`},
}

func TestArgv(t *testing.T) {
	t.Parallel()
	for _, tt := range argvCases {
		got := Argv(tt.argv)
		if got != tt.want {
			t.Errorf("Argv(%q) = %s, want %s", tt.argv, got, tt.want)
		}
		if Text(got) != got {
			t.Errorf("Argv(%q) = %q is not inert: Text changes it", tt.argv, got)
		}
	}
}

// TestArgvBashReadsItBack: bash splits what Argv prints into the very
// words it was given.
func TestArgvBashReadsItBack(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tt := range argvCases {
		out, err := exec.Command(bash, "-c", `printf '%s\0' `+Argv(tt.argv)).Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if !slices.Equal(words, tt.argv) {
			t.Errorf("bash read %s as %q, want %q", Argv(tt.argv), words, tt.argv)
		}
	}
}
