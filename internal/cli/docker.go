package cli

import (
	"context"
	"io"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
)

// DockerSandbox returns the NewSandbox factory for the real Docker engine
// (DOCKER_HOST and friends from the environment, API version negotiated).
// cleanup is the parent of every removal; cancelling it abandons them.
func DockerSandbox(cleanup context.Context) func(ctx context.Context, runID string) (runner.Sandbox, io.Closer, error) {
	return func(ctx context.Context, runID string) (runner.Sandbox, io.Closer, error) {
		sb, err := docker.New(ctx, docker.Options{RunID: runID, Cleanup: cleanup})
		if err != nil {
			return nil, nil, err
		}
		return sb, sb, nil
	}
}

// DockerSweeper is the NewSweeper factory for the real Docker engine
// (DOCKER_HOST and friends from the environment).
func DockerSweeper() (runner.Sweeper, error) {
	sw, err := docker.NewSweeper(runner.SweepOptions{})
	if err != nil {
		return nil, err
	}
	return sw, nil
}
