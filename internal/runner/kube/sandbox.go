package kube

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// DefaultNamespace is where behaves makes its pods unless told otherwise.
const DefaultNamespace = "behaves"

// DenyAllPolicy is the NetworkPolicy behaves keeps in its namespace: it
// selects every pod there and allows no ingress and no egress. A run
// creates it when it is missing and never deletes it, so a concurrent
// run keeps its protection.
const DenyAllPolicy = "behaves-deny-all"

// Options configure a Sandbox.
type Options struct {
	// Kubeconfig is the kubeconfig file ("" finds it as kubectl does:
	// $KUBECONFIG, then ~/.kube/config).
	Kubeconfig string
	// Namespace is where the run's pods and config maps go (default
	// DefaultNamespace; created when missing).
	Namespace string
	// RunID labels everything the run makes.
	RunID string
	// Host, PID, PIDNamespace and StartedAt name the run's owner (default
	// to this process's).
	Host         string
	PID          int
	PIDNamespace string
	StartedAt    time.Time
	// APITimeout bounds one API call (default 30 s).
	APITimeout time.Duration
	// ScheduleTimeout bounds how long a pod may wait to be scheduled and
	// started before its case is undetermined (default 2 minutes).
	ScheduleTimeout time.Duration
	// Cleanup is the parent of every deletion: it outlives the run's
	// context, and cancelling it abandons the deletions.
	Cleanup context.Context
}

// Sandbox runs each invocation in a pod of its own on a Kubernetes
// cluster.
type Sandbox struct {
	opt    Options
	api    *client
	seq    atomic.Uint64
	prefix string
}

// New connects to the cluster the kubeconfig names, checks that it serves
// what behaves relies on, and makes the namespace and its deny-all network
// policy when they are missing.
func New(ctx context.Context, opt Options) (*Sandbox, error) {
	api, err := connect(opt.Kubeconfig)
	if err != nil {
		return nil, err
	}
	return newSandbox(ctx, api, opt)
}

var runIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

func newSandbox(ctx context.Context, api *client, opt Options) (*Sandbox, error) {
	if !runIDPattern.MatchString(opt.RunID) {
		return nil, errors.New("kubernetes sandbox: a run ID of 16 hex digits is required")
	}
	if opt.Namespace == "" {
		opt.Namespace = DefaultNamespace
	}
	own := runner.Owner{RunID: opt.RunID, Host: opt.Host, PID: opt.PID, PIDNamespace: opt.PIDNamespace, StartedAt: opt.StartedAt}.OrThisProcess()
	opt.Host, opt.PID, opt.PIDNamespace, opt.StartedAt = own.Host, own.PID, own.PIDNamespace, own.StartedAt
	if opt.APITimeout <= 0 {
		opt.APITimeout = 30 * time.Second
	}
	if opt.ScheduleTimeout <= 0 {
		opt.ScheduleTimeout = 2 * time.Minute
	}
	if opt.Cleanup == nil {
		opt.Cleanup = context.Background()
	}
	s := &Sandbox{opt: opt, api: api, prefix: "behaves-" + opt.RunID + "-"}
	if err := s.ensureNamespace(ctx); err != nil {
		return nil, err
	}
	if err := s.checkSplitLogs(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// checkSplitLogs asks the API server for one stream of a pod that does not
// exist. With PodLogsQuerySplitStreams on, it looks the pod up and answers
// NotFound; with it off, it refuses the stream parameter before the
// lookup (Invalid). behaves keeps stdout and stderr apart only through
// that parameter, so it does not run on a cluster without it. (The
// kubelets must have the gate too; that cannot be asked without a pod.)
func (s *Sandbox) checkSplitLogs(ctx context.Context) error {
	actx, cancel := s.apiCtx(ctx)
	defer cancel()
	stream := corev1.LogStreamStderr
	rc, err := s.api.podLogs(actx, s.opt.Namespace, "behaves-probe-"+s.opt.RunID, &corev1.PodLogOptions{Stream: &stream})
	switch {
	case err == nil:
		rc.Close()
		return errors.New("kubernetes: the API server answered a log request for a pod that does not exist; cannot tell whether it keeps stdout and stderr apart")
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		return fmt.Errorf("kubernetes: the cluster does not serve stdout and stderr apart (%v): turn the PodLogsQuerySplitStreams feature gate on in the API server and every kubelet (docs/kubernetes.md)", err)
	}
	return fmt.Errorf("kubernetes: asking the API server whether it serves split log streams: %w", err)
}

// ensureNamespace makes the namespace and the deny-all policy in it when
// either is missing.
func (s *Sandbox) ensureNamespace(ctx context.Context) error {
	ns := s.opt.Namespace
	actx, cancel := s.apiCtx(ctx)
	defer cancel()
	if err := s.api.getNamespace(actx, ns); apierrors.IsNotFound(err) {
		err = s.api.createNamespace(actx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("kubernetes: creating the namespace %q: %w", ns, err)
		}
	} else if err != nil {
		return fmt.Errorf("kubernetes: reading the namespace %q: %w", ns, err)
	}
	pol := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: DenyAllPolicy, Labels: map[string]string{runner.LabelRole: "network-policy"}},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{}, // every pod of the namespace
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
	err := s.api.createNetworkPolicy(actx, ns, pol)
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("kubernetes: creating the network policy %s/%s: %w", ns, DenyAllPolicy, err)
	}
	return nil
}

// Close releases nothing: the REST client holds no connection of its
// own, and every object the run made is deleted by its attempt.
func (s *Sandbox) Close() error { return nil }

func (s *Sandbox) apiCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opt.APITimeout)
}

// cleanupCtx bounds a deletion made on behalf of ctx: it outlives ctx's
// cancellation (a deletion must finish after a signal), under Cleanup.
func (s *Sandbox) cleanupCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.opt.Cleanup, s.opt.APITimeout)
}

func (s *Sandbox) nextName(suffix string) string {
	return s.prefix + strconv.FormatUint(s.seq.Add(1), 10) + suffix
}

func (s *Sandbox) owner(role string) owner {
	return owner{Owner: runner.Owner{RunID: s.opt.RunID, Host: s.opt.Host, PID: s.opt.PID,
		PIDNamespace: s.opt.PIDNamespace, StartedAt: s.opt.StartedAt}, Role: role}
}

// Roles of what a run makes.
const (
	RoleProgram = "program"
	RoleChecker = "checker"
	RoleFiles   = "files"
)
