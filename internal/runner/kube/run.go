package kube

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Attempt is one prepared program: its config maps, and the pods of its
// invocations, one each.
type Attempt struct {
	sb            *Sandbox
	applied       runner.Applied
	role          string
	programSHA256 string
	settings      runner.Settings
	files         delivered
	// build is the profile's build stage (nil without one); buildFiles
	// hold its output once it ran (Build).
	build      *buildPlan
	buildFiles *delivered
}

// Settings reports what the attempt's pods apply.
func (a *Attempt) Settings() runner.Settings { return a.settings }

// Warnings name what a pod does otherwise than a Docker container under
// the same profile (docs/kubernetes.md), once per program.
func (a *Attempt) Warnings() []string {
	return []string{fmt.Sprintf("kubernetes: the profile's pids %d is not enforced (the node's pod pids limit is); the kubelet adds KUBERNETES_* variables to the environment; /dev/termination-log is writable; the image's VOLUMEs are left to the node's runtime", a.applied.Limits.Pids)}
}

// waitingFaults are the reasons a container waits that no waiting ends:
// the case is undetermined at once.
var waitingFaults = map[string]string{
	"ErrImageNeverPull":          "the image is not on the node (behaves never pulls it: imagePullPolicy Never)",
	"ErrImagePull":               "the node could not pull the image",
	"ImagePullBackOff":           "the node could not pull the image",
	"InvalidImageName":           "the image's name is invalid",
	"CreateContainerConfigError": "the container's configuration was refused",
	"CreateContainerError":       "the container could not be created",
	"RunContainerError":          "the container could not be started",
}

// Run runs one invocation in a pod of its own: create it, follow it until
// its container runs, deliver stdin, follow both log streams apart while
// the timeout runs from the container's start, end the pod at the
// timeout or the output ceiling (its active deadline, brought forward),
// read the exit from its status, delete it and wait until it is gone.
// The event is always the evidence observed; the error is a deletion that
// failed.
func (a *Attempt) Run(ctx context.Context, inv runner.Invocation) (ev runner.Event, err error) {
	s := a.sb
	ev = a.newEvent(&a.settings.Applied, inv)
	if ctx.Err() != nil {
		ev.SandboxError = "interrupted"
		return ev, nil
	}
	name := s.nextName("")
	pod, err := podSpec(name, a.applied, a.files, a.buildFiles, inv, s.owner(a.role))
	if err != nil {
		ev.SandboxError = err.Error()
		return ev, nil
	}
	cctx, cancel := s.cleanupCtx() // a signal must not cancel a creation mid-flight
	created, err := s.api.createPod(cctx, s.opt.Namespace, pod)
	cancel()
	if err != nil {
		ev.SandboxError = fault(ctx, "creating the pod "+name, err)
		if apierrors.IsAlreadyExists(err) || !apierrors.IsBadRequest(err) && !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) {
			return ev, s.deletePod(name) // it may exist after all
		}
		return ev, nil
	}
	defer func() { err = s.deletePod(name) }()

	o := &observer{a: a, name: name, inv: inv, container: ContainerName, limits: a.applied.Limits}
	o.run(ctx, created.ResourceVersion, &ev)
	return ev, nil
}

// newEvent is the event of an invocation of a container built from ap
// (the program's, or its build's), before anything is observed.
func (a *Attempt) newEvent(ap *runner.Applied, inv runner.Invocation) runner.Event {
	return runner.Event{
		Stdout:        runner.Stream{Data: []byte{}},
		Stderr:        runner.Stream{Data: []byte{}},
		StdinSHA256:   sha256Hex(inv.Stdin),
		Command:       append(slices.Clone(ap.Command), inv.Args...),
		ImageDigest:   ap.Image,
		ProgramSHA256: a.programSHA256,
		Limits:        ap.Limits,
		Applied:       ap,
	}
}

// observer follows one container of one pod: the program's, or a build
// pod's init container.
type observer struct {
	a    *Attempt
	name string
	inv  runner.Invocation
	// container is the container followed; init says it is an init
	// container.
	container string
	init      bool
	// limits are what the container runs under.
	limits runner.Limits

	startedAt time.Time
	stdout    *logStream
	stderr    *logStream
	logsDone  sync.WaitGroup

	killOnce sync.Once
	// attached is closed when the attach session that delivers stdin
	// ended (nil without one).
	attached chan struct{}

	mu         sync.Mutex
	timedOut   bool // behaves ended the pod at the timeout
	ceilingHit bool // behaves ended it at the output ceiling
	cancelLogs context.CancelFunc
	stdinBytes int64
	stdinErr   error
}

func (o *observer) run(ctx context.Context, rv string, ev *runner.Event) {
	s := o.a.sb
	w, err := s.api.watchPods(ctx, s.opt.Namespace, metav1.ListOptions{
		FieldSelector: "metadata.name=" + o.name, ResourceVersion: rv})
	if err != nil {
		ev.SandboxError = fault(ctx, "following the pod "+o.name, err)
		return
	}
	defer w.Stop()

	schedule := time.NewTimer(s.opt.ScheduleTimeout)
	defer schedule.Stop()
	var timeout <-chan time.Time
	var lastWaiting string
	for {
		select {
		case <-ctx.Done():
			ev.SandboxError = "interrupted"
			o.stopLogs()
			return
		case <-schedule.C:
			if o.startedAt.IsZero() {
				ev.SandboxError = fmt.Sprintf("the pod %s did not start within %s%s", o.name, s.opt.ScheduleTimeout, lastWaiting)
				return
			}
		case <-timeout:
			timeout = nil
			o.kill(ctx, &o.timedOut)
		case e, ok := <-w.ResultChan():
			if !ok {
				ev.SandboxError = "following the pod " + o.name + ": the API server ended the watch"
				o.stopLogs()
				return
			}
			if e.Type == watch.Error {
				ev.SandboxError = "following the pod " + o.name + ": " + apierrors.FromObject(e.Object).Error()
				o.stopLogs()
				return
			}
			if e.Type == watch.Deleted {
				ev.SandboxError = "the pod " + o.name + " was deleted while it ran"
				o.stopLogs()
				return
			}
			pod, ok := e.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			if why := initFailure(pod, o.container); why != "" {
				ev.SandboxError = why
				return
			}
			st := o.status(pod)
			if st == nil {
				if why := unschedulable(pod); why != "" {
					lastWaiting = ": " + why
				}
				if pod.Status.Phase == corev1.PodFailed {
					ev.SandboxError = fmt.Sprintf("the pod %s failed before its container started: %s %s", o.name, pod.Status.Reason, pod.Status.Message)
					return
				}
				continue
			}
			if wt := st.State.Waiting; wt != nil && st.State.Running == nil && st.State.Terminated == nil {
				if why, fatal := waitingFaults[wt.Reason]; fatal {
					ev.SandboxError = fmt.Sprintf("%s (%s: %s)", why, wt.Reason, wt.Message)
					return
				}
				lastWaiting = ": " + wt.Reason
				continue
			}
			if o.startedAt.IsZero() && (st.State.Running != nil || st.State.Terminated != nil) {
				// behaves' clock starts when it sees the program run: the
				// program gets its whole timeout, or a little more.
				o.startedAt = time.Now()
				timeout = time.After(time.Duration(o.limits.TimeoutMS) * time.Millisecond)
				o.startLogs(ctx)
				if len(o.inv.Stdin) > 0 && st.State.Running != nil {
					o.attached = make(chan struct{})
					go func() {
						defer close(o.attached)
						o.attach(ctx)
					}()
				}
			}
			if t := st.State.Terminated; t != nil {
				o.finish(ctx, pod, t, ev)
				return
			}
		}
	}
}

// finish reads the end of the program from the pod's status and waits for
// both log streams to end.
func (o *observer) finish(ctx context.Context, pod *corev1.Pod, t *corev1.ContainerStateTerminated, ev *runner.Event) {
	ev.Duration = time.Since(o.startedAt)
	if !t.StartedAt.IsZero() && !t.FinishedAt.IsZero() && t.FinishedAt.After(t.StartedAt.Time) {
		// Seconds only: the observed duration is finer, unless it is
		// clearly off (a late watch).
		if d := t.FinishedAt.Sub(t.StartedAt.Time); d > ev.Duration+time.Second {
			ev.Duration = d
		}
	}
	code := int(t.ExitCode)
	ev.ExitCode = &code
	if st := o.status(pod); st != nil && st.ImageID != "" {
		ev.ImageDigest = imageID(st.ImageID)
	}
	done := make(chan struct{})
	go func() {
		o.logsDone.Wait()
		if o.attached != nil {
			<-o.attached
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(o.a.sb.opt.APITimeout):
		o.stopLogs()
		ev.SandboxError = "reading the pod's logs: the API server did not end them within " + o.a.sb.opt.APITimeout.String()
	case <-ctx.Done():
		o.stopLogs()
		ev.SandboxError = "interrupted"
	}
	o.stdout.fill(&ev.Stdout)
	o.stderr.fill(&ev.Stderr)
	if ev.SandboxError == "" {
		if err := errors.Join(o.stdout.err, o.stderr.err); err != nil {
			ev.SandboxError = "reading the pod's logs: " + err.Error()
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	killedHere := o.timedOut || o.ceilingHit
	// behaves' kill ended a running program when the kubelet ended the pod
	// at its deadline (SIGTERM, then SIGKILL after its minimum grace).
	endedByKill := killedHere && pod.Status.Reason == "DeadlineExceeded" && (code == 137 || code == 143)
	switch {
	case t.Reason == "OOMKilled":
		ev.ResourceLimit = runner.LimitMemory
	case o.ceilingHit:
		ev.ResourceLimit = runner.LimitOutput
	}
	ev.TimedOut = o.timedOut && endedByKill
	ev.StdinBytes = o.stdinBytes
	if ev.SandboxError == "" && o.stdinErr != nil {
		ev.SandboxError = "delivering stdin: " + o.stdinErr.Error()
	}
}

// kill ends the pod by bringing its active deadline forward to now: the
// kubelet stops the container (SIGTERM, SIGKILL after its minimum grace
// of 2 s) and the pod's status keeps what happened. why is set first.
func (o *observer) kill(ctx context.Context, why *bool) {
	o.mu.Lock()
	*why = true
	o.mu.Unlock()
	o.killOnce.Do(func() {
		s := o.a.sb
		cctx, cancel := s.cleanupCtx()
		defer cancel()
		patch := []byte(`{"spec":{"activeDeadlineSeconds":1}}`)
		_ = s.api.patchPod(cctx, s.opt.Namespace, o.name, patch)
	})
}

// startLogs follows both streams of the container apart.
func (o *observer) startLogs(ctx context.Context) {
	lctx, cancel := context.WithCancel(ctx)
	o.mu.Lock()
	o.cancelLogs = cancel
	o.mu.Unlock()
	o.stdout = &logStream{keep: o.limits.OutputLimit}
	o.stderr = &logStream{keep: o.limits.OutputLimit}
	for _, st := range []struct {
		name string
		ls   *logStream
	}{{corev1.LogStreamStdout, o.stdout}, {corev1.LogStreamStderr, o.stderr}} {
		o.logsDone.Add(1)
		go func() {
			defer o.logsDone.Done()
			st.ls.err = o.follow(lctx, st.name, st.ls, func() { o.kill(ctx, &o.ceilingHit) })
		}()
	}
}

func (o *observer) stopLogs() {
	o.mu.Lock()
	c := o.cancelLogs
	o.mu.Unlock()
	if c != nil {
		c()
	}
}

// follow reads one stream of the container's log to its end (the
// container's), keeping what ls keeps and counting every byte; past the
// output ceiling it calls over once.
func (o *observer) follow(ctx context.Context, stream string, ls *logStream, over func()) error {
	s := o.a.sb
	rc, err := s.api.podLogs(ctx, s.opt.Namespace, o.name, &corev1.PodLogOptions{Container: o.container, Follow: true, Stream: &stream})
	if err != nil {
		return fmt.Errorf("%s: %w", stream, err)
	}
	defer rc.Close()
	ceiling := o.limits.OutputCeiling
	buf := make([]byte, 32<<10)
	told := false
	for {
		n, err := rc.Read(buf)
		ls.add(buf[:n])
		if ceiling > 0 && ls.bytes > ceiling && !told {
			told = true
			over()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil && told {
				return nil
			}
			return fmt.Errorf("%s: %w", stream, err)
		}
	}
}

// attach delivers stdin through one attach session and closes it
// (stdinOnce). A program that exited first took none of it.
func (o *observer) attach(ctx context.Context) {
	s := o.a.sb
	u := s.api.attachURL(s.opt.Namespace, o.name, &corev1.PodAttachOptions{Container: ContainerName, Stdin: true})
	exec, err := remotecommand.NewSPDYExecutor(s.api.config, http.MethodPost, u)
	if err != nil {
		o.setStdinErr(err)
		return
	}
	r := &countingReader{r: bytes.NewReader(o.inv.Stdin)}
	err = exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: r})
	o.mu.Lock()
	o.stdinBytes = r.n
	o.mu.Unlock()
	if err != nil && r.n < int64(len(o.inv.Stdin)) && !o.terminated(ctx) {
		// A program that ended first took what it took, as on Docker,
		// and so did one behaves was ending already; one that runs on
		// lost its stdin, and whatever it does next (wait for it until
		// its timeout) is not evidence.
		o.mu.Lock()
		killing := o.timedOut || o.ceilingHit
		o.mu.Unlock()
		if !killing {
			o.setStdinErr(err)
		}
	}
}

// terminated says whether the program's container has ended, as the API
// server says now (false when it cannot say).
func (o *observer) terminated(ctx context.Context) bool {
	s := o.a.sb
	actx, cancel := s.apiCtx(ctx)
	defer cancel()
	pod, err := s.api.getPod(actx, s.opt.Namespace, o.name)
	if err != nil {
		return false
	}
	st := o.status(pod)
	return st != nil && st.State.Terminated != nil
}

func (o *observer) setStdinErr(err error) {
	o.mu.Lock()
	o.stdinErr = err
	o.mu.Unlock()
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// logStream is one stream as read: the kept bytes and the count.
type logStream struct {
	keep  int64
	data  []byte
	bytes int64
	err   error
}

func (l *logStream) add(b []byte) {
	l.bytes += int64(len(b))
	if room := l.keep - int64(len(l.data)); room > 0 {
		l.data = append(l.data, b[:min(int64(len(b)), room)]...)
	}
}

func (l *logStream) fill(s *runner.Stream) {
	if l == nil {
		return
	}
	s.Data = append([]byte{}, l.data...)
	s.Bytes = l.bytes
	s.Truncated = l.bytes > int64(len(l.data))
}

// deletePod deletes the pod at once (no grace) and waits until it is gone.
func (s *Sandbox) deletePod(name string) error {
	ctx, cancel := s.cleanupCtx()
	defer cancel()
	ns := s.opt.Namespace
	err := s.api.deletePod(ctx, ns, name, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return runner.Leftover(fmt.Errorf("pod %s/%s: %w", ns, name, err))
	}
	for {
		_, err := s.api.getPod(ctx, ns, name)
		if isNotFound(err) {
			return nil
		}
		if ctx.Err() != nil {
			return runner.Leftover(fmt.Errorf("pod %s/%s: not gone within %s", ns, name, s.opt.APITimeout))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// status is the followed container's status in pod (nil before it has one).
func (o *observer) status(pod *corev1.Pod) *corev1.ContainerStatus {
	list := pod.Status.ContainerStatuses
	if o.init {
		list = pod.Status.InitContainerStatuses
	}
	for i := range list {
		if list[i].Name == o.container {
			return &list[i]
		}
	}
	return nil
}

// initFailure says which init container of pod, other than the one
// followed, ended without success ("" when none did): an assembling one
// whose image has no /bin/sh or cat, for example. The pod never runs its
// program then.
func initFailure(pod *corev1.Pod, followed string) string {
	for _, st := range pod.Status.InitContainerStatuses {
		if st.Name == followed {
			continue
		}
		if t := st.State.Terminated; t != nil && t.ExitCode != 0 {
			why := fmt.Sprintf("the pod's init container %s ended with exit %d (%s)", st.Name, t.ExitCode, t.Reason)
			if strings.HasPrefix(st.Name, "assemble-") {
				why += ": joining files over a config map's size needs /bin/sh and cat in the image (docs/kubernetes.md)"
			}
			return why
		}
		if wt := st.State.Waiting; wt != nil {
			if why, fatal := waitingFaults[wt.Reason]; fatal {
				return fmt.Sprintf("the pod's init container %s: %s (%s: %s)", st.Name, why, wt.Reason, wt.Message)
			}
		}
	}
	return ""
}

// unschedulable says why the scheduler has not placed the pod ("" when it
// has, or has not said).
func unschedulable(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Reason + ": " + c.Message
		}
	}
	return ""
}

// imageID is the ID the runtime reports ("sha256:…"), without the
// "docker-pullable://" or a repository's prefix when it names a digest.
func imageID(id string) string {
	if i := strings.LastIndexByte(id, '@'); i >= 0 {
		return id[i+1:]
	}
	return id
}

func fault(ctx context.Context, what string, err error) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	return what + ": " + err.Error()
}

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
