package kube

// The sweep on a cluster: the pods and config maps of behaves' namespace
// that carry behaves.run-id, grouped by run (runner.GroupRuns), each run's
// owner read from the annotations (a label value cannot hold it all), the
// decision runner.Decide's, as on Docker.

import (
	"context"
	"fmt"
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Sweeper finds what runs left in behaves' namespace and removes it: the
// Kubernetes runner.Sweeper.
type Sweeper struct {
	api *client
	ns  string
	opt runner.SweepOptions
}

var _ runner.Sweeper = (*Sweeper)(nil)

// NewSweeper connects to the cluster the kubeconfig names ("" as kubectl
// finds it) and sweeps namespace ("": DefaultNamespace). The defaults of
// opt are runner.Owner.OrThisProcess's host and PID namespace,
// runner.LocalProcess, time.Now and 30 s per call.
func NewSweeper(kubeconfig, namespace string, opt runner.SweepOptions) (*Sweeper, error) {
	api, err := connect(kubeconfig)
	if err != nil {
		return nil, err
	}
	return newSweeper(api, namespace, opt), nil
}

func newSweeper(api *client, namespace string, opt runner.SweepOptions) *Sweeper {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	own := runner.Owner{Host: opt.Host, PIDNamespace: opt.PIDNamespace}.OrThisProcess()
	opt.Host, opt.PIDNamespace = own.Host, own.PIDNamespace
	if opt.Process == nil {
		opt.Process = runner.LocalProcess
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.ListTimeout <= 0 {
		opt.ListTimeout = 30 * time.Second
	}
	if opt.RemoveTimeout <= 0 {
		opt.RemoveTimeout = 30 * time.Second
	}
	return &Sweeper{api: api, ns: namespace, opt: opt}
}

// Close releases nothing: the client holds no connection of its own.
func (s *Sweeper) Close() error { return nil }

// Plan lists the namespace's pods and config maps labelled behaves.run-id
// (one list each), groups them by run and decides each run with olderThan
// (0: off).
func (s *Sweeper) Plan(ctx context.Context, olderThan time.Duration) ([]runner.Planned, error) {
	sel := metav1.ListOptions{LabelSelector: runner.LabelRunID}
	lctx, cancel := context.WithTimeout(ctx, s.opt.ListTimeout)
	pods, err := s.api.listPods(lctx, s.ns, sel)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("listing the pods of namespace %s labelled %s: %w", s.ns, runner.LabelRunID, err)
	}
	lctx, cancel = context.WithTimeout(ctx, s.opt.ListTimeout)
	cms, err := s.api.listConfigMaps(lctx, s.ns, sel)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("listing the config maps of namespace %s labelled %s: %w", s.ns, runner.LabelRunID, err)
	}
	var found []runner.Found
	add := func(m metav1.ObjectMeta, kind string) {
		labels := maps.Clone(m.Annotations) // the owner, whole
		if labels == nil {
			labels = map[string]string{}
		}
		labels[runner.LabelRunID] = m.Labels[runner.LabelRunID] // what selected it
		found = append(found, runner.Found{Labels: labels, Object: runner.LeftoverObject{Kind: kind, ID: m.Name, Name: m.Name}})
	}
	for _, p := range pods.Items {
		add(p.ObjectMeta, runner.KindPod)
	}
	for _, c := range cms.Items {
		add(c.ObjectMeta, runner.KindConfigMap)
	}
	return runner.Plan(found, s.opt, olderThan), nil
}

// Remove deletes a run's pods (no grace: a running program is killed),
// then its config maps, each within RemoveTimeout on ctx. What is already
// gone counts as removed.
func (s *Sweeper) Remove(ctx context.Context, r runner.LeftoverRun) []runner.Removal {
	out := make([]runner.Removal, 0, len(r.Containers)+len(r.Volumes))
	del := func(l runner.LeftoverObject) runner.Removal {
		rctx, cancel := context.WithTimeout(ctx, s.opt.RemoveTimeout)
		defer cancel()
		var err error
		switch l.Kind {
		case runner.KindPod:
			err = s.api.deletePod(rctx, s.ns, l.ID, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
		case runner.KindConfigMap:
			err = s.api.deleteConfigMap(rctx, s.ns, l.ID)
		default:
			err = fmt.Errorf("not a kind this sweeper removes: %s", l.Kind)
		}
		if err != nil && !isNotFound(err) {
			return runner.Removal{LeftoverObject: l, Err: fmt.Errorf("removing %s %s/%s: %w", l.Kind, s.ns, l.Name, err)}
		}
		return runner.Removal{LeftoverObject: l}
	}
	for _, l := range r.Containers {
		out = append(out, del(l))
	}
	for _, l := range r.Volumes {
		out = append(out, del(l))
	}
	return out
}
