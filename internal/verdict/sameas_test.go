package verdict

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

func TestJudgeSameAs(t *testing.T) {
	out := SameAs{Reference: "ref", Streams: []string{"stdout"}, Normalize: NormalizeTrailing}
	both := SameAs{Reference: "ref", Streams: []string{"stdout", "stderr"}, Normalize: NormalizeTrailing}
	exactOut := SameAs{Reference: "ref", Streams: []string{"stdout"}, Normalize: NormalizeExact}
	folded := SameAs{Reference: "ref", Streams: []string{"stdout"}, Normalize: NormalizeTrailing, IgnoreCase: true}
	withErr := func(ev runner.Event, s string) runner.Event {
		ev.Stderr = runner.Stream{Data: []byte(s), Bytes: int64(len(s))}
		return ev
	}
	exit := func(ev runner.Event, code int) runner.Event { ev.ExitCode = intp(code); return ev }
	timedOut := done("a")
	timedOut.TimedOut = true
	lost := runner.Event{SandboxError: "container could not be created"}
	built := runner.Event{BuildFailure: "build failed: exit 1"}

	tests := []struct {
		name   string
		sa     SameAs
		refs   []runner.Event
		ev     runner.Event
		want   Verdict
		reason string // a part of the reason
	}{
		{"same output", out, []runner.Event{done("a b\n")}, done("a b"), True, ""},
		{"different output", out, []runner.Event{done("a b\n")}, done("b a\n"), False, `not the same as reference "ref": stdout`},
		{"different exit code", out, []runner.Event{exit(done("x"), 3)}, done("x"), False, "exit code 0, expected 3"},
		{"same nonzero exit code", out, []runner.Event{exit(done("x"), 3)}, exit(done("x"), 3), True, ""},
		{"stderr not compared by default", out, []runner.Event{withErr(done("x"), "/program/ref.py")}, withErr(done("x"), "/program/cand.py"), True, ""},
		{"stderr compared when listed", both, []runner.Event{withErr(done("x"), "ref")}, withErr(done("x"), "cand"), False, "stderr"},
		{"ignore_case", folded, []runner.Event{done("ABC")}, done("abc"), True, ""},
		{"case kept by default", out, []runner.Event{done("ABC")}, done("abc"), False, "stdout"},
		{"exact sees the trailing newline", exactOut, []runner.Event{done("a\n")}, done("a"), False, "stdout"},
		{"reference not run", out, nil, done("a"), Undetermined, `reference "ref": not run`},
		{"reference lost", out, []runner.Event{lost}, done("a"), Undetermined, `reference "ref": container could not be created`},
		{"reference timed out", out, []runner.Event{timedOut}, done("a"), Undetermined, `reference "ref": timed out`},
		{"reference's build failed", out, []runner.Event{built}, done("a"), Undetermined, `reference "ref": build failed`},
		{"reference nondeterministic", out, []runner.Event{done("1"), done("1"), done("2")}, done("1"), Undetermined,
			`reference "ref" is nondeterministic for this input: run 3 of 3 differs from run 1`},
		{"reference deterministic over runs", out, []runner.Event{done("1"), done("1\n")}, done("1"), True, ""},
		{"a run of the reference unobserved", out, []runner.Event{done("1"), lost}, done("1"), Undetermined, `reference "ref": run 2 of 2:`},
		{"candidate's own build failed is false", out, []runner.Event{lost}, built, False, "build failed"},
		{"candidate unobserved", out, []runner.Event{done("1")}, lost, Undetermined, "container could not be created"},
		{"candidate cut, kept part agrees", out, []runner.Event{done("abcdef")}, cut("abc", 6), Undetermined, "agrees"},
		{"candidate cut, kept part differs", out, []runner.Event{done("abcdef")}, cut("abX", 6), False, "stdout"},
		{"reference cut, candidate agrees", out, []runner.Event{cut("abc\nde", 100)}, done("abc\ndef\n"), Undetermined, "the reference's stdout was cut at"},
		{"reference cut, candidate differs", out, []runner.Event{cut("abc\nde", 100)}, done("abX\ndef\n"), False, "differs from the reference's kept part"},
		{"reference cut, candidate shorter than the certain part", out, []runner.Event{cut("abc\ndef\ngh", 100)}, done("abc"), False, "differs from the reference's kept part"},
		{"both cut, agreeing", out, []runner.Event{cut("abc\nde", 100)}, cut("abc\ndefg", 100), Undetermined, "cut"},
		{"both cut, differing", out, []runner.Event{cut("abc\nde", 100)}, cut("abd\nde", 100), False, "differs"},
		{"exact, reference cut, byte counts differ", exactOut, []runner.Event{cut("abc", 100)}, cut("abc", 99), False, "99 bytes written, the reference wrote 100"},
		{"exact, reference cut, byte counts agree", exactOut, []runner.Event{cut("abc", 100)}, cut("abc", 100), Undetermined, "cut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JudgeSameAs(tt.sa, tt.refs, tt.ev)
			if got.Verdict != tt.want || !strings.Contains(got.Reason, tt.reason) {
				t.Fatalf("got %v %q, want %v with %q", got.Verdict, got.Reason, tt.want, tt.reason)
			}
			if tt.want == True && got.Derived == nil {
				t.Fatal("a true case has no derived expectation")
			}
		})
	}
}

// TestJudgeWithoutReference: Judge alone never passes a same_as case.
func TestJudgeWithoutReference(t *testing.T) {
	got := Judge(Expectation{SameAs: &SameAs{Reference: "ref", Streams: []string{"stdout"}}}, done(""))
	if got.Verdict != Undetermined || !strings.Contains(got.Reason, "not run") {
		t.Fatalf("got %v %q", got.Verdict, got.Reason)
	}
}

// TestJudgeRunDispatch: a same_as case is judged against the reference's runs, any
// other against its own expectation, whatever reference runs are given.
func TestJudgeRunDispatch(t *testing.T) {
	sa := Expectation{SameAs: &SameAs{Reference: "ref", Streams: []string{"stdout"}, Normalize: NormalizeTrailing}}
	plain := Expectation{Stdout: &Matcher{Kind: Equals, Value: "a", Normalize: NormalizeTrailing}}
	refB := []runner.Event{done("b")}
	tests := []struct {
		name string
		exp  Expectation
		refs []runner.Event
		ev   runner.Event
		want Verdict
	}{
		{"same_as, agrees with the reference", sa, refB, done("b"), True},
		{"same_as, differs from the reference", sa, refB, done("a"), False},
		{"same_as, no reference runs", sa, nil, done("b"), Undetermined},
		{"plain, meets its expectation", plain, refB, done("a"), True},
		{"plain, misses it", plain, nil, done("b"), False},
	}
	for _, tt := range tests {
		if got := JudgeRun(tt.exp, tt.refs, tt.ev); got.Verdict != tt.want {
			t.Errorf("%s: got %v %q, want %v", tt.name, got.Verdict, got.Reason, tt.want)
		}
	}
}
