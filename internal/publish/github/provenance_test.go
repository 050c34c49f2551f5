package github

import (
	"strings"
	"testing"
)

func TestCheckProvenance(t *testing.T) {
	t.Parallel()
	run := readTestEvent(t, "workflow_run", "workflow_run_fork").WorkflowRun
	good := Provenance{RunID: "9000000002", RunAttempt: "2", HeadSHA: forkHeadSHA}
	if err := CheckProvenance(good, run); err != nil {
		t.Fatalf("the run's own report refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Provenance)
		want string
	}{
		{"another run", func(p *Provenance) { p.RunID = "9000000001" }, `github.run_id is "9000000001", the workflow_run's is 9000000002`},
		{"another attempt", func(p *Provenance) { p.RunAttempt = "1" }, "github.run_attempt"},
		{"another head", func(p *Provenance) { p.HeadSHA = headSHA }, "github.head_sha"},
		{"run ID padded", func(p *Provenance) { p.RunID = "09000000002" }, "github.run_id"},
		{"no run ID", func(p *Provenance) { p.RunID = "" }, "records no github.run_id"},
		{"no attempt", func(p *Provenance) { p.RunAttempt = "" }, "records no github.run_attempt"},
		{"no head", func(p *Provenance) { p.HeadSHA = "" }, "records no github.head_sha"},
		{"outside Actions", func(p *Provenance) { *p = Provenance{} }, "records no github.run_id; it records no github.run_attempt"},
		{"forged text is quoted", func(p *Provenance) { p.HeadSHA = "x\n::error::forged" + strings.Repeat("y", 500) }, `"x\n::error::forged`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := good
			tc.edit(&p)
			err := CheckProvenance(p, run)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 400 {
				t.Errorf("error has a line break or is %d bytes long: %q", len(msg), msg)
			}
		})
	}
	if err := CheckProvenance(good, nil); err == nil {
		t.Error("a report accepted without a workflow_run")
	}
}
