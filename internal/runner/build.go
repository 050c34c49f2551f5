package runner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// BuildFailure says why an observed build failed, or "" when it succeeded
// (exited 0 within its limits) or was not observed to its end (a sandbox
// error: the build's evidence is incomplete, and its cases undetermined).
// A failed build is evidence about the program: "build failed: exit 1",
// then the compiler's first error line (the first line of stderr, else
// stdout, that mentions "error", else the first non-empty one).
func BuildFailure(ev Event) string {
	if ev.SandboxError != "" {
		return ""
	}
	var why string
	switch {
	case ev.TimedOut:
		why = "timed out"
		if ev.Limits.TimeoutMS > 0 {
			why += " after " + (msDuration(ev.Limits.TimeoutMS))
		}
	case ev.ResourceLimit == LimitMemory:
		why = "killed: memory limit"
	case ev.ResourceLimit == LimitOutput:
		why = "killed: output over the ceiling"
	case ev.ResourceLimit == LimitBuildOutput:
		why = "/build holds more than output_size"
	case ev.ResourceLimit != LimitNone:
		why = "killed: " + string(ev.ResourceLimit) + " limit"
	case ev.ExitCode == nil:
		why = "no exit code observed"
	case *ev.ExitCode != 0:
		why = "exit " + strconv.Itoa(*ev.ExitCode)
	default:
		return ""
	}
	msg := "build failed: " + why
	if line := firstErrorLine(ev.Stderr.Data); line != "" {
		msg += ": " + line
	} else if line := firstErrorLine(ev.Stdout.Data); line != "" {
		msg += ": " + line
	}
	return msg
}

// BuildOutputKept is how much of each of the build's streams the
// observation keeps (and the report shows): the start, where compilers
// write their first errors. The rest is counted (Stream.Bytes) and marked
// (Stream.Truncated), so that a program's build adds a few KiB to behaves'
// memory and its report whatever the build's output_limit, also for
// 10,000 programs.
const BuildOutputKept = 4 << 10

// keepStart keeps at most n bytes of s's data, cut at a UTF-8 boundary
// when the data is text.
func keepStart(s Stream, n int) Stream {
	if len(s.Data) <= n {
		return s
	}
	cut := n
	if utf8.Valid(s.Data) {
		for cut > 0 && !utf8.RuneStart(s.Data[cut]) {
			cut--
		}
	}
	s.Data = append([]byte(nil), s.Data[:cut]...)
	s.Truncated = true
	return s
}

// maxBuildLine bounds the compiler line a reason repeats.
const maxBuildLine = 200

// firstErrorLine is the first line of out that mentions "error" (any
// case, as gcc and rustc write), else the first that starts with a source
// position ("main.go:3:5: undefined: x", as Go writes), else its first
// non-empty line; trimmed and cut to maxBuildLine bytes at a rune
// boundary; "" for empty output.
func firstErrorLine(out []byte) string {
	first, positioned := "", ""
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.Contains(strings.ToLower(l), "error") {
			return cutLine(l)
		}
		if positioned == "" && sourcePosRE.MatchString(l) {
			positioned = l
		}
		if first == "" {
			first = l
		}
	}
	if positioned != "" {
		return cutLine(positioned)
	}
	return cutLine(first)
}

// sourcePosRE matches a line that starts with a compiler's source
// position: file:line: or file:line:col:.
var sourcePosRE = regexp.MustCompile(`^[^\s:]+:\d+(:\d+)?: `)

func cutLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxBuildLine {
		return s
	}
	cut := maxBuildLine
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// msDuration is a millisecond count as a short duration ("60s", "1.5s").
func msDuration(ms int64) string {
	if ms%1000 == 0 {
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}
