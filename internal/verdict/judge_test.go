package verdict

import (
	"reflect"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

func intp(n int) *int { return &n }

// done is the evidence of a run that exited by itself with code 0 and wrote
// out on stdout, all of it kept.
func done(out string) runner.Event {
	return runner.Event{
		ExitCode: intp(0),
		Stdout:   runner.Stream{Data: []byte(out), Bytes: int64(len(out))},
		Limits:   runner.Limits{TimeoutMS: 5000, MemoryBytes: 128 << 20, OutputLimit: 64 << 10, OutputCeiling: 4 << 20},
	}
}

// cut is done with stdout cut after kept, total bytes written.
func cut(kept string, total int64) runner.Event {
	ev := done(kept)
	ev.Stdout.Truncated = true
	ev.Stdout.Bytes = total
	return ev
}

func eq(v string) *Matcher { return &Matcher{Kind: Equals, Value: v} }

func with(m *Matcher, f func(*Matcher)) *Matcher { f(m); return m }

func exact(m *Matcher) *Matcher { return with(m, func(m *Matcher) { m.Normalize = NormalizeExact }) }
func whitespace(m *Matcher) *Matcher {
	return with(m, func(m *Matcher) { m.Normalize = NormalizeWhitespace })
}
func icase(m *Matcher) *Matcher { return with(m, func(m *Matcher) { m.IgnoreCase = true }) }

func contains(v string) *Matcher { return &Matcher{Kind: Contains, Value: v} }
func regex(v string) *Matcher    { return &Matcher{Kind: Regex, Value: v} }

// TestMatchComplete covers every kind, normalisation and ignore_case on
// complete evidence.
func TestMatchComplete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		m      *Matcher
		out    string
		want   Verdict
		reason string // exact case reason when not empty
	}{
		// trailing (the default)
		{"trailing: final newline", eq("5"), "5\n", True, ""},
		{"trailing: CRLF and line-end blanks", eq("a\nb"), "a \t\r\nb\r\n\r\n", True, ""},
		{"trailing: expected value normalised too", eq("a  \nb\n\n"), "a\nb", True, ""},
		{"trailing: explicit", with(eq("5"), func(m *Matcher) { m.Normalize = NormalizeTrailing }), "5\n\n", True, ""},
		{"trailing: inner blank lines kept", eq("a\nb"), "a\n\nb\n", False, `stdout: expected "a\nb", got "a\n\nb"`},
		{"trailing: lone CR kept", eq("a"), "a\r", False, `stdout: expected "a", got "a\r"`},
		{"trailing: CR before CRLF kept", eq("a"), "a\r\r\n", False, `stdout: expected "a", got "a\r"`},
		{"trailing: leading blanks kept", eq("5"), " 5\n", False, `stdout: expected "5", got " 5"`},
		{"trailing: mismatch", eq("5"), "6\n", False, `stdout: expected "5", got "6"`},
		// exact
		{"exact: equal bytes", exact(eq("5\n")), "5\n", True, ""},
		{"exact: newline counts", exact(eq("5")), "5\n", False, `stdout: expected "5", got "5\n"`},
		{"exact: CRLF counts", exact(eq("5\n")), "5\r\n", False, ""},
		// whitespace
		{"whitespace: runs collapsed, ends trimmed", whitespace(eq("a b c")), "  a \t\n b\r\n\n c  \n", True, ""},
		{"whitespace: expected normalised too", whitespace(eq(" a\n\nb ")), "a b", True, ""},
		{"whitespace: unicode spaces", whitespace(eq("a b")), "a\u00a0\u3000b", True, ""},
		{"whitespace: missing space", whitespace(eq("a b")), "ab", False, `stdout: expected "a b", got "ab"`},
		// contains
		{"contains: found", contains("Fizz"), "1\n2\nFizz\n", True, ""},
		{"contains: needle normalised", contains("Fizz  \r\n"), "Fizz \n4", True, ""},
		{"contains: across normalised line ends", contains("a\nb"), "a  \r\nb", True, ""},
		{"contains: exact keeps blanks", exact(contains("a\nb")), "a  \nb", False, `stdout: expected to contain "a\nb", got "a  \nb"`},
		{"contains: whitespace", whitespace(contains("b c")), "a b\n\n c d", True, ""},
		{"contains: empty needle", contains(""), "", True, ""},
		{"contains: not found", contains("Buzz"), "1\n2\n", False, `stdout: expected to contain "Buzz", got "1\n2"`},
		// regex: searched, pattern never normalised
		{"regex: searched", regex(`\d+`), "abc 42 def\n", True, ""},
		{"regex: anchored by the pattern", regex(`^\d+$`), "abc 42\n", False, `stdout: no match for /^\d+$/, got "abc 42"`},
		{"regex: output normalised (trailing)", regex(`5$`), "5 \n\n", True, ""},
		{"regex: pattern not normalised", regex(`5\n`), "5\n", False, ""},
		{"regex: exact output", exact(regex(`5\n$`)), "5\n", True, ""},
		{"regex: whitespace output, pattern kept", whitespace(regex(`a  b`)), "a  b", False, ""},
		{"regex: whitespace output", whitespace(regex(`^a b$`)), " a \n b ", True, ""},
		// ignore_case on each kind
		{"ignore_case: equals", icase(eq("HELLO World")), "hello WORLD\n", True, ""},
		{"ignore_case: equals off", eq("HELLO"), "hello", False, ""},
		{"ignore_case: Kelvin sign", icase(eq("\u212a")), "k", True, ""},
		{"ignore_case: long s", icase(eq("S")), "\u017f", True, ""},
		{"ignore_case: sigma orbit", icase(eq("ΣΑΣ")), "σας", True, ""},
		{"ignore_case: simple folding only", icase(eq("STRASSE")), "straße", False, ""},
		{"ignore_case: contains", icase(contains("WORLD")), "hello world\n", True, ""},
		{"ignore_case: contains off", contains("WORLD"), "hello world\n", False, ""},
		{"ignore_case: regex", icase(regex(`^hello$`)), "HELLO\n", True, ""},
		{"ignore_case: regex off", regex(`^hello$`), "HELLO\n", False, ""},
		{"ignore_case: with whitespace", icase(whitespace(eq("a B"))), "A \n b", True, ""},
		// invalid UTF-8: bytes are compared, never replaced
		{"invalid utf-8: equal bytes", exact(eq("\xff\xfe")), "\xff\xfe", True, ""},
		{"invalid utf-8: different bytes", eq("\xff"), "\xfe", False, `stdout: expected "\xff", got "\xfe"`},
		{"invalid utf-8: not U+FFFD", eq("\ufffd"), "\xff", False, ""},
		{"invalid utf-8: ignore_case keeps bytes", icase(eq("\xff")), "\xfe", False, ""},
		{"invalid utf-8: ignore_case around", icase(eq("A\xffB")), "a\xffb", True, ""},
		{"invalid utf-8: contains", contains("\xfe"), "a\xff\xfe\n", True, ""},
		{"invalid utf-8: whitespace", whitespace(eq("\xff \xfe")), "\xff \n\t\xfe", True, ""},
		{"invalid utf-8: regex", regex(`^\xff`), "\xff", False, ""}, // RE2 reads \xff as U+00FF
		{"invalid utf-8: regex dot", regex(`^a.b$`), "a\xffb", True, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Judge(Expectation{Stdout: tt.m}, done(tt.out))
			if got.Verdict != tt.want {
				t.Fatalf("verdict = %v (%s), want %v", got.Verdict, got.Reason, tt.want)
			}
			if tt.want == True && got.Reason != "" {
				t.Errorf("reason = %q, want empty for true", got.Reason)
			}
			if tt.want != True && got.Reason == "" {
				t.Errorf("empty reason for %v", got.Verdict)
			}
			if tt.reason != "" && got.Reason != tt.reason {
				t.Errorf("reason = %s\nwant     %s", got.Reason, tt.reason)
			}
		})
	}
}

// TestMatchCut covers every rule for a stream cut at the retention limit.
func TestMatchCut(t *testing.T) {
	t.Parallel()
	const agrees = "stdout cut at 64KiB: the kept part agrees, the rest was not kept"
	tests := []struct {
		name   string
		m      *Matcher
		ev     runner.Event
		want   Verdict
		reason string // exact when it does not start with "~"; "~x": contains x
	}{
		// contains
		{"contains: found in the kept part", contains("Fizz"), cut("1\n2\nFizz\n4\n", 1<<20), True, ""},
		{"contains: found in the cut line", contains("Fizz"), cut("1\n2\nFizzBu", 1<<20), True, ""},
		{"contains: not found", contains("Buzz"), cut("1\n2\nFizz\n", 1<<20), Undetermined,
			`stdout cut at 64KiB: "Buzz" not found in the kept part, the rest was not kept`},
		{"contains: needle over a split rune", icase(contains("x\u00e9")), cut("x\xc3", 100), Undetermined, ""},
		{"contains: needle over a maybe-CRLF", exact(contains("a\r")), cut("a\r", 100), True, ""},
		{"contains: trailing, needle over cut blanks", contains("a \tb"), cut("a \t", 100), Undetermined, ""},
		{"contains: whitespace, needle over the cut word", whitespace(contains("a bc")), cut("a b", 100), Undetermined, ""},
		// equals: the kept part agrees
		{"equals: kept part agrees", eq("1\n2\nFizz\n4\nBuzz\n"), cut("1\n2\nFi", 1<<20), Undetermined, agrees},
		{"equals: agrees up to the cut line's blanks", eq("1\n2\nFizz"), cut("1\n2\nFizz \t\r", 1<<20), Undetermined, agrees},
		{"equals: agrees up to a split rune", eq("é"), cut("\xc3", 1<<20), Undetermined, agrees},
		{"equals: blank lines may be all that follows", eq("a"), cut("a\n\n", 100), Undetermined, agrees},
		{"equals: blank lines then more", eq("a\n\nb"), cut("a\n\n", 100), Undetermined, agrees},
		{"equals: nothing kept", eq("anything"), cut("", 100), Undetermined, agrees},
		// equals: a settled difference in the kept part
		{"equals: differs before the last kept line", eq("1\n2\nFizz\n4"), cut("1\n3\nFi", 1<<20), False,
			`stdout: expected "1\n2\nFizz\n4", got "1\n3\nFi" (in the kept part; stdout cut at 64KiB)`},
		{"equals: blank lines cannot vanish before more", eq("a\nb"), cut("a\n\n", 100), False, "~in the kept part"},
		{"equals: expected ends inside the kept part", eq("1\n2"), cut("1\n2\n3\n4", 100), False, ""},
		// The cut line's own text is settled up to its trailing blanks: a
		// stricter rule than "the last line is unknown", and still sound
		// (FuzzMatch checks that no continuation could change the verdict).
		{"equals: differs in the cut line's settled text", eq("1\n2\nFizz"), cut("1\n2\nFoo", 1<<20), False, "~in the kept part"},
		{"equals: one long line that differs", eq("hello"), cut(strings.Repeat("x", 1000), 1<<20), False,
			`stdout byte 0: expected "hello", got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (in the kept part; stdout cut at 64KiB)`},
		{"equals: long output, difference on line 40", eq(lines(1, 100)), cut(strings.Replace(lines(1, 60), "\n40\n", "\nforty\n", 1), 1<<20), False,
			`stdout line 40: expected "40\n41\n42\n43\n44\n45\n46\n47\n48\n49\n50\n51\n52\n53\n54\n55\n56\n57\n58\n59\n"…, got "forty\n41\n42\n43\n44\n45\n46\n47\n48\n49\n50\n51\n52\n53\n54\n55\n56\n57\n58\n"… (in the kept part; stdout cut at 64KiB)`},
		{"equals: ignore_case agrees", icase(eq("HELLO WORLD")), cut("hello wo", 100), Undetermined, agrees},
		{"equals: ignore_case differs", icase(eq("HELLO WORLD")), cut("help\n", 100), False, ""},
		// whitespace
		{"whitespace: agrees", whitespace(eq("a b cd")), cut("a \n b  c", 100), Undetermined, agrees},
		{"whitespace: differs in the settled words", whitespace(eq("a b d")), cut("a b  c", 100), False, ""},
		{"whitespace: word split by the cut", whitespace(eq("a b")), cut("a b", 100), Undetermined, agrees},
		{"whitespace: trailing space may be all", whitespace(eq("a b")), cut("a b  ", 100), Undetermined, agrees},
		{"whitespace: space then more", whitespace(eq("a bc")), cut("a b ", 100), False, ""},
		// exact, with the total byte count
		{"exact: byte count rules it out", exact(eq("hello world")), cut("hello", 20), False,
			`stdout: 20 bytes written, expected 11 ("hello world")`},
		{"exact: byte count rules it out although the kept part agrees", exact(eq("1\n2\n")), cut("1\n", 1<<20), False, "~1048576 bytes written, expected 4"},
		{"exact: byte count fits, kept part agrees", exact(eq("hello world")), cut("hello", 11), Undetermined, agrees},
		{"exact: byte count fits, kept part differs", exact(eq("hello world")), cut("jello", 11), False, "~in the kept part"},
		{"exact: kept bytes are a prefix", exact(eq("ab \r\n")), cut("ab \r", 5), Undetermined, agrees},
		{"exact: kept part is all of expected but more was written", exact(eq("hello")), cut("hello", 0), False,
			`stdout: expected "hello", but the output goes on (in the kept part; stdout cut at 64KiB)`},
		// "kx" (2 bytes) would match "\u212aX" (4 bytes): no byte count rule.
		{"exact ignore_case: no byte count rule", icase(exact(eq("\u212aX"))), cut("k", 2), Undetermined, agrees},
		// regex
		{"regex: found in the kept part", regex(`Fizz\d*`), cut("1\n2\nFizz\n", 1<<20), True, ""},
		{"regex: found, but it looks past the match ($)", regex(`Fizz$`), cut("1\n2\nFizz", 1<<20), Undetermined,
			`stdout cut at 64KiB: /Fizz$/ matches the kept part, but it looks past the match and the rest was not kept`},
		{"regex: found, but it looks past the match (\\b)", regex(`Fizz\b`), cut("1\n2\nFizz\n", 1<<20), Undetermined, ""},
		{"regex: found, multi-line $", regex(`(?m)^Fizz$`), cut("Fizz\n4\n", 1<<20), Undetermined, ""},
		{"regex: not found", regex(`Buzz`), cut("1\n2\n", 1<<20), Undetermined,
			`stdout cut at 64KiB: no match for /Buzz/ in the kept part, the rest was not kept`},
		{"regex: could never match, still undetermined", regex(`^x`), cut("y", 1<<20), Undetermined, ""},
		{"regex: only over the cut line's blanks", regex(`a `), cut("a ", 100), Undetermined, ""},
		{"regex: ignore_case", icase(regex(`fizz`)), cut("FIZZ\n", 100), True, ""},
		// cut without the flag: more written than kept
		{"bytes beyond the kept data count as cut", contains("Buzz"), func() runner.Event {
			ev := done("1\n2\n")
			ev.Stdout.Bytes = 1 << 20
			return ev
		}(), Undetermined, "~cut at 64KiB"},
		{"no output limit recorded", eq("abc"), func() runner.Event {
			ev := cut("ab", 100)
			ev.Limits.OutputLimit = 0
			return ev
		}(), Undetermined, "stdout cut at 2B: the kept part agrees, the rest was not kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Judge(Expectation{Stdout: tt.m}, tt.ev)
			if got.Verdict != tt.want {
				t.Fatalf("verdict = %v (%s), want %v", got.Verdict, got.Reason, tt.want)
			}
			checkReason(t, got.Reason, tt.reason)
		})
	}
}

func checkReason(t *testing.T, got, want string) {
	t.Helper()
	switch {
	case want == "":
	case strings.HasPrefix(want, "~"):
		if !strings.Contains(got, want[1:]) {
			t.Errorf("reason = %s\nwant it to contain %s", got, want[1:])
		}
	case got != want:
		t.Errorf("reason = %s\nwant     %s", got, want)
	}
}

func lines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestJudgeRun covers the exit code, the stopped runs and the sandbox.
func TestJudgeRun(t *testing.T) {
	t.Parallel()
	stdout5 := Expectation{Stdout: eq("5")}
	tests := []struct {
		name   string
		exp    Expectation
		ev     func(ev *runner.Event)
		want   Verdict
		reason string
	}{
		{"all agree", stdout5, func(ev *runner.Event) {}, True, ""},
		{"no matcher: exit code only", Expectation{}, func(ev *runner.Event) { ev.Stdout.Data = []byte("anything") }, True, ""},
		{"expected non-zero exit", Expectation{ExitCode: 3}, func(ev *runner.Event) { ev.ExitCode = intp(3) }, True, ""},
		{"wrong exit code", stdout5, func(ev *runner.Event) { ev.ExitCode = intp(1) }, False, "exit code 1, expected 0"},
		{"wrong exit code with stderr", stdout5, func(ev *runner.Event) {
			ev.ExitCode = intp(1)
			ev.Stderr.Data = []byte("Traceback (most recent call last):\n  File \"main.py\", line 1\nNameError: name 'x' is not defined\n\n")
		}, False, `exit code 1, expected 0; stderr: "NameError: name 'x' is not defined"`},
		{"wrong exit code, cut stderr: last complete line", stdout5, func(ev *runner.Event) {
			ev.ExitCode = intp(2)
			ev.Stderr = runner.Stream{Data: []byte("first\nsecond\nthi"), Truncated: true, Bytes: 100}
		}, False, `exit code 2, expected 0; stderr: "second"`},
		{"wrong exit code, stderr escaped", stdout5, func(ev *runner.Event) {
			ev.ExitCode = intp(1)
			ev.Stderr.Data = []byte("::error::\x1b[31mboom\r")
		}, False, `exit code 1, expected 0; stderr: "::error::\x1b[31mboom"`},
		{"timeout", stdout5, func(ev *runner.Event) { ev.TimedOut, ev.ExitCode = true, intp(137) }, False, "timed out after 5s"},
		{"timeout, sub-second", stdout5, func(ev *runner.Event) { ev.TimedOut, ev.ExitCode, ev.Limits.TimeoutMS = true, nil, 1500 }, False, "timed out after 1.5s"},
		{"memory limit", stdout5, func(ev *runner.Event) { ev.ResourceLimit = runner.LimitMemory; ev.ExitCode = intp(0) }, False, "killed: memory limit 128MiB"},
		{"memory limit, none recorded", stdout5, func(ev *runner.Event) {
			ev.ResourceLimit, ev.Limits.MemoryBytes = runner.LimitMemory, 0
		}, False, "killed: memory limit"},
		{"output limit on stdout", stdout5, func(ev *runner.Event) {
			ev.ResourceLimit, ev.ExitCode = runner.LimitOutput, nil
			ev.Stdout = runner.Stream{Data: []byte("5555"), Truncated: true, Bytes: 4<<20 + 1}
		}, False, "killed: stdout over the ceiling of 4MiB"},
		{"output limit on stderr", stdout5, func(ev *runner.Event) {
			ev.ResourceLimit, ev.ExitCode = runner.LimitOutput, nil
			ev.Stderr = runner.Stream{Data: []byte("eeee"), Truncated: true, Bytes: 5 << 20}
		}, False, "killed: stderr over the ceiling of 4MiB"},
		{"output limit, unknown ceiling", stdout5, func(ev *runner.Event) {
			ev.ResourceLimit, ev.Limits.OutputCeiling, ev.ExitCode = runner.LimitOutput, 0, intp(137)
		}, False, "killed: output over the ceiling"},
		{"output limit, killed by behaves", stdout5, func(ev *runner.Event) {
			ev.ResourceLimit, ev.ExitCode = runner.LimitOutput, intp(137)
			ev.Stdout = runner.Stream{Data: []byte("5555"), Truncated: true, Bytes: 4<<20 + 1}
		}, False, "killed: stdout over the ceiling of 4MiB"},
		{"output limit passed, then a clean exit before the kill", stdout5, func(ev *runner.Event) {
			ev.ResourceLimit, ev.ExitCode = runner.LimitOutput, intp(0)
			ev.Stdout = runner.Stream{Data: []byte("5"), Truncated: true, Bytes: 4<<20 + 1}
		}, False, "wrote stdout over the ceiling of 4MiB, then exited by itself with code 0"},
		{"output limit passed, then an exit code of its own", stdout5, func(ev *runner.Event) {
			ev.ResourceLimit, ev.ExitCode = runner.LimitOutput, intp(3)
			ev.Stderr = runner.Stream{Data: []byte("e"), Truncated: true, Bytes: 5 << 20}
		}, False, "wrote stderr over the ceiling of 4MiB, then exited by itself with code 3"},
		{"unknown limit", stdout5, func(ev *runner.Event) { ev.ResourceLimit = "pids" }, False, "killed: pids limit"},
		{"no exit code", stdout5, func(ev *runner.Event) { ev.ExitCode = nil }, Undetermined, "no exit code observed"},
		{"sandbox error", stdout5, func(ev *runner.Event) {
			ev.SandboxError = "sandbox: creating container: image not present"
			ev.ExitCode = intp(0)
		}, Undetermined, "sandbox: creating container: image not present"},
		{"sandbox error beats a settled mismatch", stdout5, func(ev *runner.Event) {
			ev.SandboxError, ev.TimedOut, ev.ExitCode = "sandbox: waiting: daemon gone\nretry", true, intp(1)
		}, Undetermined, "sandbox: waiting: daemon gone retry"},
		// false dominates undetermined
		{"wrong exit code beats a cut stream", Expectation{Stdout: contains("Buzz")}, func(ev *runner.Event) {
			ev.ExitCode = intp(1)
			ev.Stdout = runner.Stream{Data: []byte("1\n2\n"), Truncated: true, Bytes: 1 << 20}
		}, False, "exit code 1, expected 0"},
		{"a stderr mismatch beats an undetermined stdout", Expectation{Stdout: eq("1\n2\nFizz"), Stderr: eq("")}, func(ev *runner.Event) {
			ev.Stdout = runner.Stream{Data: []byte("1\n2\nF"), Truncated: true, Bytes: 1 << 20}
			ev.Stderr = runner.Stream{Data: []byte("warning\n"), Bytes: 8}
		}, False, `stderr: expected "", got "warning"`},
		{"no exit code and a stdout mismatch", stdout5, func(ev *runner.Event) {
			ev.ExitCode = nil
			ev.Stdout = runner.Stream{Data: []byte("6"), Bytes: 1}
		}, False, `stdout: expected "5", got "6" (in the output so far; the run did not finish)`},
		{"no exit code and a stdout that may continue", stdout5, func(ev *runner.Event) {
			ev.ExitCode = nil
			ev.Stdout = runner.Stream{Data: []byte("5"), Bytes: 1}
		}, Undetermined, "no exit code observed"},
		{"first undetermined reason when nothing is false", Expectation{Stdout: contains("5"), Stderr: contains("y")}, func(ev *runner.Event) {
			ev.ExitCode = nil
			ev.Stderr = runner.Stream{Data: []byte("x"), Truncated: true, Bytes: 1 << 20}
		}, Undetermined, "no exit code observed"},
		{"undetermined stream when the exit code agrees", Expectation{Stdout: contains("5"), Stderr: contains("y")}, func(ev *runner.Event) {
			ev.Stderr = runner.Stream{Data: []byte("x"), Truncated: true, Bytes: 1 << 20}
		}, Undetermined, `stderr cut at 64KiB: "y" not found in the kept part, the rest was not kept`},
		{"invalid matcher", Expectation{Stdout: regex("(")}, func(ev *runner.Event) {}, Undetermined,
			"stdout: invalid matcher: invalid regex /(/: error parsing regexp: missing closing ): `(`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := done("5\n")
			tt.ev(&ev)
			got := Judge(tt.exp, ev)
			if got.Verdict != tt.want {
				t.Fatalf("verdict = %v (%s), want %v", got.Verdict, got.Reason, tt.want)
			}
			checkReason(t, got.Reason, tt.reason)
			if tt.want == True && got.Reason != "" {
				t.Errorf("reason = %q, want empty", got.Reason)
			}
		})
	}
}

// TestJudgeStoppedStreams: the streams of a stopped run are judged as
// possibly incomplete, and never make the case anything but false.
func TestJudgeStoppedStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    *Matcher
		out  string
		want Verdict
	}{
		{"contains found proves it", contains("ready"), "ready\n", True},
		{"contains not found may come later", contains("done"), "ready\n", Undetermined},
		{"equals agrees so far", eq("1\n2\n3"), "1\n2\n", Undetermined},
		{"equals agrees completely", eq("1\n2"), "1\n2\n", Undetermined},
		{"equals differs", eq("1\n2"), "1\n3\n", False},
		{"exact: may have ended here", exact(eq("ab")), "ab", Undetermined},
		{"regex found", regex(`\d`), "1", True},
		{"regex not found", regex(`\d`), "a", Undetermined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := done(tt.out)
			ev.TimedOut = true
			got := Judge(Expectation{Stdout: tt.m}, ev)
			if got.Verdict != False || got.Reason != "timed out after 5s" {
				t.Errorf("case = %v (%s), want false (timed out after 5s)", got.Verdict, got.Reason)
			}
			ch := got.Checks[1]
			if ch.Verdict != tt.want {
				t.Errorf("stdout check = %v (%s), want %v", ch.Verdict, ch.Reason, tt.want)
			}
			if ch.Verdict == Undetermined && !strings.Contains(ch.Reason, "the run did not finish (timed out after 5s)") {
				t.Errorf("stdout reason = %q, want it to say the run was stopped", ch.Reason)
			}
		})
	}
}

// A stopped run that wrote nothing: the stream's reason says so instead of
// "the output so far agrees", which reads as a finding; and Stopped says
// how the sandbox stopped a run, never for a program that exited by itself.
func TestJudgeStoppedBeforeWriting(t *testing.T) {
	t.Parallel()
	ev := done("")
	ev.TimedOut, ev.ExitCode = true, intp(137)
	got := Judge(Expectation{Stdout: eq("5")}, ev)
	if ch := got.Checks[1]; ch.Verdict != Undetermined || ch.Reason != "stdout: nothing was written, and the run did not finish (timed out after 5s)" {
		t.Errorf("stdout check = %v (%q)", ch.Verdict, ch.Reason)
	}
	for _, tt := range []struct {
		name string
		set  func(*runner.Event)
		want string
	}{
		{"timeout", func(ev *runner.Event) { ev.TimedOut, ev.ExitCode = true, intp(137) }, "timed out after 5s"},
		{"memory", func(ev *runner.Event) { ev.ResourceLimit, ev.ExitCode = runner.LimitMemory, intp(137) }, "killed: memory limit 128MiB"},
		{"output, killed", func(ev *runner.Event) {
			ev.ResourceLimit, ev.ExitCode = runner.LimitOutput, intp(137)
			ev.Stdout.Bytes = 5 << 20
		}, "killed: stdout over the ceiling of 4MiB"},
		{"output, then exited by itself", func(ev *runner.Event) { ev.ResourceLimit, ev.ExitCode = runner.LimitOutput, intp(3) }, ""},
		{"exited by itself with 137", func(ev *runner.Event) { ev.ExitCode = intp(137) }, ""},
	} {
		ev := done("")
		tt.set(&ev)
		if got := Stopped(ev); got != tt.want {
			t.Errorf("%s: Stopped = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestJudgeChecks(t *testing.T) {
	t.Parallel()
	out, errm := eq("5"), icase(whitespace(contains("warn")))
	ev := done("6\n")
	ev.ExitCode = intp(1)
	ev.Stderr = runner.Stream{Data: []byte("WARN: x\n"), Bytes: 8}
	got := Judge(Expectation{ExitCode: 0, Stdout: out, Stderr: errm}, ev)
	want := []Check{
		{What: "exit_code", Verdict: False, Expected: "0", Actual: "1", Reason: `exit code 1, expected 0; stderr: "WARN: x"`},
		{What: "stdout", Matcher: out, Verdict: False, Expected: `equals "5"`, Actual: `"6\n"`, Reason: `stdout: expected "5", got "6"`},
		{What: "stderr", Matcher: errm, Verdict: True, Expected: `contains "warn" (ignore_case, normalize: whitespace)`, Actual: `"WARN: x\n"`},
	}
	if len(got.Checks) != len(want) {
		t.Fatalf("checks = %+v", got.Checks)
	}
	for i := range want {
		if !reflect.DeepEqual(got.Checks[i], want[i]) {
			t.Errorf("check %d =\n%+v\nwant\n%+v", i, got.Checks[i], want[i])
		}
	}
	if got.Verdict != False || got.Reason != want[0].Reason {
		t.Errorf("case = %v %q", got.Verdict, got.Reason)
	}

	// Only streams with a matcher get a check; a sandbox error keeps every
	// check, undetermined.
	only := Judge(Expectation{Stderr: errm}, runner.Event{SandboxError: "sandbox: boom"})
	if len(only.Checks) != 2 || only.Checks[0].What != "exit_code" || only.Checks[1].What != "stderr" {
		t.Fatalf("checks = %+v", only.Checks)
	}
	for _, ch := range only.Checks {
		if ch.Verdict != Undetermined || ch.Reason != "sandbox: boom" {
			t.Errorf("check %+v, want undetermined with the sandbox error", ch)
		}
	}

	// The display forms are cut and stay on one line.
	long := done(strings.Repeat("line\n", 100))
	ch := Judge(Expectation{Stdout: eq(strings.Repeat("x\r\n", 200))}, long).Checks[1]
	if len(ch.Actual) > 2*actualWidth || !strings.HasSuffix(ch.Actual, "…") || strings.ContainsAny(ch.Actual+ch.Expected+ch.Reason, "\r\n") {
		t.Errorf("display forms not cut to one line: %+v", ch)
	}
}

func TestProgram(t *testing.T) {
	t.Parallel()
	tr := CaseResult{Verdict: True}
	fa := func(r string) CaseResult { return CaseResult{Verdict: False, Reason: r} }
	un := func(r string) CaseResult { return CaseResult{Verdict: Undetermined, Reason: r} }
	tests := []struct {
		name   string
		cases  []CaseResult
		want   Verdict
		reason string
	}{
		{"empty", nil, Undetermined, "no cases"},
		{"all true", []CaseResult{tr, tr, tr}, True, ""},
		{"one false among undetermined", []CaseResult{un("u1"), tr, fa("f1"), un("u2"), fa("f2")}, False, "f1"},
		{"undetermined only", []CaseResult{un("u1"), un("u2")}, Undetermined, "u1"},
		{"true and undetermined", []CaseResult{tr, un("u1")}, Undetermined, "u1"},
		{"zero value is not true", []CaseResult{tr, {}}, Undetermined, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, reason := Program(tt.cases)
			if v != tt.want || reason != tt.reason {
				t.Errorf("Program = %v %q, want %v %q", v, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0B"}, {-1, "-1B"}, {1, "1B"}, {1000, "1000B"}, {1023, "1023B"}, {1024, "1KiB"},
		{1536, "1536B"}, {64 << 10, "64KiB"}, {128 << 20, "128MiB"}, {4 << 20, "4MiB"},
		{1536 << 20, "1536MiB"}, {4 << 30, "4GiB"}, {3 << 40, "3TiB"}, {1 << 50, "1PiB"},
		{1 << 62, "4EiB"}, {1<<63 - 1, "9223372036854775807B"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    Matcher
		want string // "" for valid
	}{
		{Matcher{Kind: Equals, Value: "("}, ""},
		{Matcher{Kind: Contains, Normalize: NormalizeWhitespace}, ""},
		{Matcher{Kind: Regex, Value: `^\d+$`, Normalize: NormalizeExact, IgnoreCase: true}, ""},
		{Matcher{Kind: Regex, Value: "a(b"}, "invalid regex /a(b/: error parsing regexp: missing closing ): `a(b`"},
		{Matcher{Kind: Regex, Value: `\p{Nope}`}, "invalid regex"},
		{Matcher{Kind: Regex, Value: `(?<=a)b`}, "invalid regex"}, // no lookbehind in RE2
		{Matcher{Kind: "matches"}, `unknown matcher kind "matches" (want equals, contains, regex, json, numbers or checker)`},
		{Matcher{}, `unknown matcher kind ""`},
		{Matcher{Kind: Equals, Normalize: "lines"}, `unknown normalize "lines" (want trailing, exact or whitespace)`},
	}
	for _, tt := range tests {
		err := tt.m.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.m, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%+v: error %v, want %q", tt.m, err, tt.want)
		}
	}
}

func TestFoldAgreesWithEqualFold(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"hello", "HELLO"}, {"\u212a", "k"}, {"\u212a", "K"}, {"ſ", "s"}, {"ß", "ẞ"}, {"ß", "ss"},
		{"σ", "ς"}, {"Σ", "ς"}, {"ǅ", "ǆ"}, {"ǅ", "Ǆ"}, {"İ", "i"}, {"ı", "I"}, {"µ", "μ"}, {"Ω", "Ω"},
		{"a", "b"}, {"", ""}, {"Ⴀ", "ⴀ"}, {"𐐀", "𐐨"},
	}
	for _, p := range pairs {
		got := string(fold([]byte(p[0]))) == string(fold([]byte(p[1])))
		if want := strings.EqualFold(p[0], p[1]); got != want {
			t.Errorf("fold(%q) == fold(%q) is %v, strings.EqualFold says %v", p[0], p[1], got, want)
		}
	}
}
