package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPartialEvidenceIsSound draws outputs and expected values from a small
// alphabet that holds what normalisation and folding act on (blanks, CR, LF,
// multi-byte runes a cut can split, case pairs, invalid bytes), and checks
// that every prefix of an output, cut or from a stopped run, settles only
// what the whole output settles. FuzzMatch checks the same on random bytes;
// this reaches the interesting corners far more often.
func TestPartialEvidenceIsSound(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "A", "b", " ", "\t", "\r", "\n", "\n", "é", "\u212a", "k", "\u00a0", "\xff", "\xc3"}
	patterns := []string{"a", "a$", "^a", `a\b`, `\Ba`, "a b", `(?m)^b$`, `(?m)a$`, `a\s*b`, `\Aa`, "[^a]", "", "a\r", `é\z`, "(?i)K", `\n\n`}
	rnd := rand.New(rand.NewPCG(8, 8))
	word := func(max int) string {
		var b strings.Builder
		for n := rnd.IntN(max + 1); n > 0; n-- {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	iterations := 100000
	if testing.Short() {
		iterations = 5000
	}
	for range iterations {
		out := word(8)
		m := &Matcher{
			Kind:       fuzzKinds[rnd.IntN(len(fuzzKinds))],
			Normalize:  fuzzNorms[rnd.IntN(len(fuzzNorms))],
			IgnoreCase: rnd.IntN(2) == 0,
		}
		switch {
		case m.Kind == Regex:
			m.Value = patterns[rnd.IntN(len(patterns))]
		case rnd.IntN(2) == 0:
			// Close to the output: a prefix of it and something else.
			m.Value = out[:rnd.IntN(len(out)+1)] + word(3)
		default:
			m.Value = word(6)
		}
		exp := Expectation{Stdout: m}
		full := Judge(exp, done(out)).Checks[1]
		n := rnd.IntN(len(out) + 1)
		partial := []bool{false}
		if n < len(out) {
			partial = append(partial, true)
		}
		for _, isCut := range partial {
			ev := done(out[:n])
			if isCut {
				ev = cut(out[:n], int64(len(out)))
			} else {
				ev.TimedOut = true
			}
			got := Judge(exp, ev).Checks[1]
			if got.Verdict != Undetermined && got.Verdict != full.Verdict {
				t.Fatalf("%+v on the first %d bytes of %q (cut %v) settles %v (%s), but the whole output is %v (%s)",
					*m, n, out, isCut, got.Verdict, got.Reason, full.Verdict, full.Reason)
			}
		}
	}
}
