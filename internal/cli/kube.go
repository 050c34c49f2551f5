package cli

import (
	"context"
	"io"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/kube"
)

// KubeSandbox returns the NewSandbox factory for a Kubernetes cluster: the
// kubeconfig given ("" finds it as kubectl does) and the namespace ("":
// kube.DefaultNamespace). cleanup is the parent of every deletion.
func KubeSandbox(cleanup context.Context, kubeconfig, namespace string) func(ctx context.Context, runID string) (runner.Sandbox, io.Closer, error) {
	return func(ctx context.Context, runID string) (runner.Sandbox, io.Closer, error) {
		sb, err := kube.New(ctx, kube.Options{Kubeconfig: kubeconfig, Namespace: namespace, RunID: runID, Cleanup: cleanup})
		if err != nil {
			return nil, nil, err
		}
		return sb, sb, nil
	}
}

// KubeSweeper is the NewSweeper factory for a Kubernetes cluster: the
// kubeconfig given ("" finds it as kubectl does) and the namespace (""
// kube.DefaultNamespace).
func KubeSweeper(kubeconfig, namespace string) func() (runner.Sweeper, error) {
	return func() (runner.Sweeper, error) {
		sw, err := kube.NewSweeper(kubeconfig, namespace, runner.SweepOptions{})
		if err != nil {
			return nil, err
		}
		return sw, nil
	}
}
