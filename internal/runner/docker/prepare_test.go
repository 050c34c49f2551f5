package docker

import (
	"context"

	"github.com/behaves-dev/behaves/internal/runner"
)

// prepareOne prepares one program, as a batch of one.
func prepareOne(ctx context.Context, sb *Sandbox, prog runner.Program, prof runner.Profile) (runner.Attempt, error) {
	r := sb.Prepare(ctx, []runner.Request{{Program: prog, Profile: prof}})[0]
	return r.Attempt, r.Err
}
