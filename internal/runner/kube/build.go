package kube

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/behaves-dev/behaves/internal/runner"
)

// BuildDir is where a build stage writes its output, and where every
// invocation of the program reads it, read-only.
const BuildDir = "/build"

// The containers of a build pod: the build itself, an init container, and
// then the collector, which streams /build out as a tar archive on its
// stdout.
const (
	BuildContainer   = "build"
	CollectContainer = "collect"
	RoleBuild        = "build"
)

// collectCommand is the collector's argv: tar from the build's own image
// (no helper image reaches the node), so a build image needs a tar.
var collectCommand = []string{"tar", "-c", "-f", "-", "-C", BuildDir, "."}

// buildPlan is a profile's build stage, checked.
type buildPlan struct {
	applied    runner.Applied
	outputSize int64
}

// planBuild checks a profile's build stage as the Docker backend does.
func planBuild(prof runner.Profile, prog runner.Program) (*buildPlan, error) {
	b := prof.Build
	bp, err := runner.CheckProfile(runner.BuildProfile(prof), prog)
	if err != nil {
		return nil, err
	}
	switch {
	case b.OutputSize <= 0:
		return nil, fmt.Errorf("profile %s: the build's output_size must be positive", prof.Name)
	case !pinPattern.MatchString(b.Image):
		return nil, fmt.Errorf("profile %s: the build's image %q is not pinned by ID (sha256:…) or digest (name@sha256:…): a node cannot resolve a tag", prof.Name, b.Image)
	}
	for p := range bp.Tmpfs {
		if p == BuildDir || strings.HasPrefix(p, BuildDir+"/") {
			return nil, fmt.Errorf("profile %s: the build's tmpfs %q would cover %s", prof.Name, p, BuildDir)
		}
	}
	ap := *runner.Apply(prof).Build
	return &buildPlan{applied: ap, outputSize: b.OutputSize}, nil
}

// buildPodSpec is the build's pod: the build command in an init container
// with /program read-only and /build (an emptyDir bounded by output_size)
// writable, then the collector, from the same image and hardened alike,
// with /build read-only.
func buildPodSpec(name string, b *buildPlan, files delivered, meta owner) (*corev1.Pod, error) {
	pod, err := podSpec(name, b.applied, files, nil, runner.Invocation{}, meta)
	if err != nil {
		return nil, err
	}
	build := pod.Spec.Containers[0]
	build.Name = BuildContainer
	build.Args = nil
	collect := *build.DeepCopy()
	build.VolumeMounts = append(build.VolumeMounts, corev1.VolumeMount{Name: "build-output", MountPath: BuildDir})
	// /build is on the node's disk: the build may write output_size there
	// beside what any container may (the kubelet evicts past the sum).
	storage := *resource.NewQuantity(ephemeralStorage+b.outputSize, resource.BinarySI)
	build.Resources.Limits[corev1.ResourceEphemeralStorage] = storage
	build.Resources.Requests[corev1.ResourceEphemeralStorage] = storage
	collect.Name = CollectContainer
	collect.Command = slices.Clone(collectCommand)
	collect.VolumeMounts = []corev1.VolumeMount{{Name: "build-output", MountPath: BuildDir, ReadOnly: true}}
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, build) // after the program's assembly, if any
	pod.Spec.Containers = []corev1.Container{collect}
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "build-output", VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: resource.NewQuantity(b.outputSize, resource.BinarySI)}}})
	return pod, nil
}

// Build runs the profile's build stage in a pod of its own (buildPodSpec),
// takes /build out of it through the collector's stdout, bounded by
// output_size (past it the event's resource limit is build_output), and
// makes config maps of it, which every invocation's pod projects at
// /build. The event and error mean what Run's do.
func (a *Attempt) Build(ctx context.Context) (ev runner.Event, err error) {
	b, s := a.build, a.sb
	if b == nil {
		return runner.Event{SandboxError: "the profile has no build stage"}, nil
	}
	ev = a.newEvent(&b.applied, runner.Invocation{})
	if ctx.Err() != nil {
		ev.SandboxError = "interrupted"
		return ev, nil
	}
	name := s.nextName("-build")
	pod, err := buildPodSpec(name, b, a.files, s.owner(RoleBuild))
	if err != nil {
		ev.SandboxError = err.Error()
		return ev, nil
	}
	cctx, cancel := s.cleanupCtx()
	created, err := s.api.createPod(cctx, s.opt.Namespace, pod)
	cancel()
	if err != nil {
		ev.SandboxError = fault(ctx, "creating the build's pod "+name, err)
		return ev, s.deletePod(name)
	}
	defer func() { err = errors.Join(err, s.deletePod(name)) }()

	o := &observer{a: a, name: name, container: BuildContainer, init: true, limits: b.applied.Limits}
	o.run(ctx, created.ResourceVersion, &ev)
	if ev.SandboxError != "" || ev.TimedOut || ev.ResourceLimit != runner.LimitNone || ev.ExitCode == nil || *ev.ExitCode != 0 {
		return ev, nil // failed already: what it left does not matter
	}
	files, modes, n, over, err := a.collect(ctx, name, created.ResourceVersion)
	switch {
	case err != nil:
		ev.SandboxError = fault(ctx, "taking "+BuildDir+" out of the build's pod", err)
		return ev, nil
	case over:
		ev.BuildOutputBytes = &n
		ev.ResourceLimit = runner.LimitBuildOutput
		return ev, nil
	}
	ev.BuildOutputBytes = &n
	out, err := s.deliver(ctx, files, modes)
	a.buildFiles = &out
	if err != nil {
		ev.SandboxError = "delivering " + BuildDir + ": " + err.Error()
	}
	return ev, nil
}

// collect waits for the build pod's collector to end and reads /build
// from its stdout: a tar archive of regular files and folders, whose
// files' sizes are summed against output_size (reading stops past it).
func (a *Attempt) collect(ctx context.Context, name, rv string) (files runner.Program, modes map[string]int32, n int64, over bool, err error) {
	s := a.sb
	st, err := a.waitCollector(ctx, name, rv)
	if err != nil {
		return files, nil, 0, false, err
	}
	if t := st.State.Terminated; t == nil || t.ExitCode != 0 {
		code := "no exit"
		if t != nil {
			code = fmt.Sprintf("exit %d (%s)", t.ExitCode, t.Reason)
		}
		return files, nil, 0, false, fmt.Errorf("the collector (%s in the build's image) ended with %s: the kubernetes backend needs tar in the build image (docs/kubernetes.md)", strings.Join(collectCommand, " "), code)
	}
	stream := corev1.LogStreamStdout
	rc, err := s.api.podLogs(ctx, s.opt.Namespace, name, &corev1.PodLogOptions{Container: CollectContainer, Stream: &stream})
	if err != nil {
		return files, nil, 0, false, err
	}
	defer rc.Close()
	files = runner.Program{Files: map[string]runner.File{}, Executable: map[string]bool{}, Folder: true}
	modes = map[string]int32{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, modes, n, false, nil
		}
		if err != nil {
			return files, nil, n, false, fmt.Errorf("reading the archive of %s: %w", BuildDir, err)
		}
		p := strings.TrimPrefix(path.Clean("/"+hdr.Name), "/")
		switch hdr.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeSymlink:
			if files.Links == nil {
				files.Links = map[string]string{}
			}
			files.Links[p] = hdr.Linkname
			continue
		case tar.TypeReg:
		default:
			return files, nil, n, false, fmt.Errorf("%s/%s is not a regular file, a folder or a symbolic link: the kubernetes backend delivers no devices", BuildDir, p)
		}
		n += hdr.Size
		if n > a.build.outputSize {
			return files, nil, n, true, nil
		}
		b, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			return files, nil, n, false, fmt.Errorf("reading %s/%s: %w", BuildDir, p, err)
		}
		files.Files[p] = runner.BytesFile(b)
		if hdr.Mode&0o111 != 0 {
			files.Executable[p] = true
		}
		// The mode the build gave it, as Docker's read-only /build shows
		// it (the permission bits only: no set-id bit reaches a pod). On
		// Docker the build's user owns the file and the program, the same
		// user, gets the owner's bits; a projected file is root's, so the
		// owner's read and execute bits are given to others too (0700
		// shows as 0705; write means nothing on a read-only mount).
		m := int32(hdr.Mode & 0o777)
		modes[p] = m | (m>>6)&0o5
		if modes[p] == 0 {
			modes[p] = 0o400 | 0o004
		}
	}
}

// waitCollector follows the build pod until its collector has ended, and
// returns the collector's status.
func (a *Attempt) waitCollector(ctx context.Context, name, rv string) (*corev1.ContainerStatus, error) {
	s := a.sb
	w, err := s.api.watchPods(ctx, s.opt.Namespace, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: rv})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	o := &observer{a: a, name: name, container: CollectContainer}
	deadline := time.NewTimer(s.opt.ScheduleTimeout)
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, fmt.Errorf("the collector did not end within %s", s.opt.ScheduleTimeout)
		case e, ok := <-w.ResultChan():
			if !ok || e.Type == watch.Error || e.Type == watch.Deleted {
				return nil, errors.New("the API server ended the watch of the build's pod")
			}
			pod, ok := e.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			st := o.status(pod)
			if st == nil {
				continue
			}
			if wt := st.State.Waiting; wt != nil {
				if why, fatal := waitingFaults[wt.Reason]; fatal {
					return nil, fmt.Errorf("the collector (%s) %s (%s: %s); the kubernetes backend needs tar in the build image", strings.Join(collectCommand, " "), why, wt.Reason, wt.Message)
				}
				continue
			}
			if st.State.Terminated != nil {
				return st, nil
			}
		}
	}
}
