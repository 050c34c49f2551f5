package ghpublish

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/exitcode"
	"github.com/behaves-dev/behaves/internal/report"
)

// TestConclusion guards the check run's conclusion: neutral only for an
// undetermined result that passes the gate.
func TestConclusion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		verdict string
		code    int
		want    string
	}{
		{"true", exitcode.True, "success"},
		{"false", exitcode.False, "failure"},
		{"undetermined", exitcode.Undetermined, "failure"},
		{"undetermined", exitcode.True, "neutral"},
		{"undetermined", exitcode.RunFailed, "failure"},
	} {
		var rep report.Report
		if err := rep.Verdict.UnmarshalText([]byte(tt.verdict)); err != nil {
			t.Fatal(err)
		}
		if got := conclusion(rep, tt.code); string(got) != tt.want {
			t.Errorf("conclusion(%s, exit %d) = %s, want %s", tt.verdict, tt.code, got, tt.want)
		}
	}
}
