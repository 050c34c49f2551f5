package actionstest

import (
	"slices"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	t.Parallel()
	log := "a\n  ::error::x\nb ##[warning]y\n::stop-commands::tok\n::error::inert\n##[error]inert\n::tok::\n\t::notice::z\r::debug::w\n"
	var got []string
	for _, c := range Commands(log) {
		got = append(got, c.Name)
	}
	want := []string{"error", "warning", "stop-commands", "tok", "notice", "debug"}
	if !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
}

func TestCheckInert(t *testing.T) {
	t.Parallel()
	const tok = "0123456789abcdef"
	region := "\n::stop-commands::" + tok + "\n::error::inert\n##[add-mask]x\n::" + tok + "::\n"
	for _, tc := range []struct {
		name, log string
		bad       string // "" when the log is inert
	}{
		{"plain text", "hello\nworld\n", ""},
		{"one region", region, ""},
		{"two regions", region + "text\n" + region, ""},
		{"a command", "x\n::error::pwned\n", "::error::pwned"},
		{"a legacy command", "text ##[error]pwned\n", "##[error]pwned"},
		{"after a region", region + "::add-mask::s\n", "::add-mask::s"},
		{"short token", "::stop-commands::short\n::short::\n", "::stop-commands::short"},
		{"unclosed", "::stop-commands::" + tok + "\n", "never closed"},
	} {
		err := CheckInert(tc.log)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%s: got %v, want an error naming %q", tc.name, err, tc.bad)
		}
	}
}
