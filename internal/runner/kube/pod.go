package kube

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// ContainerName is the name of the one container of a program pod.
const ContainerName = "program"

// StartMargin is added to a program's timeout in its pod's
// activeDeadlineSeconds: the deadline counts from the pod's start (its
// volumes set up, its sandbox made), before the program's own. It is a
// backstop only: behaves' own clock starts when the program's container
// is seen running, and behaves ends the pod at its timeout.
const StartMargin = 60 * time.Second

// ephemeralStorage bounds what a program pod may write to the node's disk
// outside its memory-backed scratch mounts (its logs are the kubelet's):
// the root is read-only, so this is the container's writable layer's few
// files (such as /dev/termination-log).
const ephemeralStorage = 64 << 20

// podSpec is the pod that runs one invocation of a program whose
// containers apply ap, with its files in the config maps files (their
// items by map name, see projectedVolume) and, after a build stage, the
// build's output in the config maps build, read-only at /build; labelled
// and annotated with the run's owner. It is pure: everything it needs is an argument, and of the
// profile it reads only ap, what the evidence key compares.
func podSpec(name string, ap runner.Applied, files delivered, build *delivered, inv runner.Invocation, meta owner) (*corev1.Pod, error) {
	uid, gid, err := parseUser(ap.User)
	if err != nil {
		return nil, err
	}
	env := make([]corev1.EnvVar, 0, len(ap.Env))
	for _, kv := range ap.Env {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, corev1.EnvVar{Name: k, Value: v})
	}
	var mounts []corev1.VolumeMount
	var volumes []corev1.Volume
	var inits []corev1.Container
	storage := int64(ephemeralStorage)
	place := func(name, target string, d delivered) {
		mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: target, ReadOnly: true})
		if !d.Assemble {
			volumes = append(volumes, projectedVolume(name, d.Maps))
			return
		}
		// The files are joined from their parts into an emptyDir by an
		// init container of the pod's own image (its /bin/sh and cat).
		storage += d.Bytes
		volumes = append(volumes, projectedVolume(name+"-parts", d.Maps), corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: resource.NewQuantity(d.Bytes+1<<20, resource.BinarySI)}}})
		inits = append(inits, corev1.Container{Name: "assemble-" + name, Image: ap.Image, ImagePullPolicy: corev1.PullNever,
			Command: slices.Clone(assembleCommand), WorkingDir: target,
			VolumeMounts: []corev1.VolumeMount{{Name: name + "-parts", MountPath: partsDir, ReadOnly: true}, {Name: name, MountPath: target}}})
	}
	place("program", runner.DefaultProgramDir, files)
	if build != nil {
		place("build", BuildDir, *build)
	}
	for i, p := range slices.Sorted(maps.Keys(ap.Tmpfs)) {
		v := "scratch-" + strconv.Itoa(i)
		size := resource.NewQuantity(ap.Tmpfs[p], resource.BinarySI)
		volumes = append(volumes, corev1.Volume{Name: v, VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: size}}})
		mounts = append(mounts, corev1.VolumeMount{Name: v, MountPath: p})
	}
	limits := corev1.ResourceList{
		corev1.ResourceMemory:           *resource.NewQuantity(ap.Limits.MemoryBytes, resource.BinarySI),
		corev1.ResourceCPU:              *resource.NewMilliQuantity(int64(ap.Limits.CPUs*1000+0.5), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(storage, resource.BinarySI),
	}
	deadline := int64((time.Duration(ap.Limits.TimeoutMS)*time.Millisecond + StartMargin + time.Second - 1) / time.Second)
	stdin := len(inv.Stdin) > 0
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: meta.labels(), Annotations: meta.annotations()},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  ptr(false),
			EnableServiceLinks:            ptr(false),
			TerminationGracePeriodSeconds: ptr(int64(0)),
			ActiveDeadlineSeconds:         &deadline,
			Hostname:                      "behaves",
			SecurityContext: &corev1.PodSecurityContext{
				RunAsUser:      &uid,
				RunAsGroup:     &gid,
				RunAsNonRoot:   ptr(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name:            ContainerName,
				Image:           ap.Image,
				ImagePullPolicy: corev1.PullNever,
				// command replaces the image's ENTRYPOINT, and args given
				// (even none) its CMD: the argv is the applied command and
				// the invocation's arguments, as on Docker.
				Command:    slices.Clone(ap.Command),
				Args:       append([]string{}, inv.Args...),
				WorkingDir: runner.DefaultProgramDir,
				Env:        env,
				// Without stdin the program's stdin is /dev/null (at its
				// end at once, as an empty stdin on Docker); with stdin,
				// behaves attaches once and closes it.
				Stdin:                    stdin,
				StdinOnce:                stdin,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				Resources:                corev1.ResourceRequirements{Limits: limits, Requests: limits},
				SecurityContext: &corev1.SecurityContext{
					Privileged:               ptr(false),
					AllowPrivilegeEscalation: ptr(false),
					ReadOnlyRootFilesystem:   ptr(true),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				VolumeMounts: mounts,
			}},
			Volumes: volumes,
		},
	}
	if ap.Runtime != "" {
		pod.Spec.RuntimeClassName = ptr(ap.Runtime)
	}
	main := pod.Spec.Containers[0]
	for _, c := range inits {
		// Hardened and bounded as the program's own container.
		c.SecurityContext = main.SecurityContext.DeepCopy()
		c.Resources = *main.Resources.DeepCopy()
		c.TerminationMessagePolicy = main.TerminationMessagePolicy
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
	}
	return pod, nil
}

// configMapFiles is one config map of a program's files: its name and,
// by key, the path (relative to /program) and whether it is executable.
type configMapFiles struct {
	Name  string
	Items []fileItem
}

type fileItem struct {
	Key        string
	Path       string
	Executable bool
	// Mode, when not 0, is the file's mode (a build's output keeps the
	// modes the build gave it, as on Docker); else 0555 or 0444.
	Mode int32
}

// mode is the mode the file is delivered with.
func (it fileItem) mode() int32 {
	switch {
	case it.Mode != 0:
		return it.Mode
	case it.Executable:
		return 0o555
	}
	return 0o444
}

// projectedVolume projects config maps of files into one volume, each
// file at its path, 0555 when executable and 0444 otherwise.
func projectedVolume(name string, files []configMapFiles) corev1.Volume {
	sources := make([]corev1.VolumeProjection, 0, len(files))
	for _, cm := range files {
		items := make([]corev1.KeyToPath, 0, len(cm.Items))
		for _, it := range cm.Items {
			mode := it.mode()
			items = append(items, corev1.KeyToPath{Key: it.Key, Path: it.Path, Mode: &mode})
		}
		sources = append(sources, corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}, Items: items}})
	}
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: sources, DefaultMode: ptr(int32(0o444))}}}
}

// parseUser reads a profile's numeric "uid:gid" (both > 0, as the spec
// checks).
func parseUser(u string) (uid, gid int64, err error) {
	a, b, ok := strings.Cut(u, ":")
	uid, err1 := strconv.ParseInt(a, 10, 64)
	gid, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || uid <= 0 || gid <= 0 {
		return 0, 0, fmt.Errorf("user %q is not a numeric uid:gid above 0", u)
	}
	return uid, gid, nil
}

// owner is who made a pod or a config map: a run's owner, as on Docker.
type owner struct {
	runner.Owner
	Role string
}

// labelValue is what a label value may hold: 63 characters of
// [A-Za-z0-9._-], beginning and ending alphanumeric.
var labelUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// cleanLabel makes s a valid label value (a host name is one but for its
// length, or characters a container's hostname may hold).
func cleanLabel(s string) string {
	s = labelUnsafe.ReplaceAllString(s, "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}

// labels are what selects the run's objects: the run ID, the role and the
// host, cleaned. A label value cannot hold ':' or '[' (a PID namespace,
// a time), so the owner's process is in the annotations.
func (o owner) labels() map[string]string {
	return map[string]string{
		runner.LabelRunID: o.RunID,
		runner.LabelRole:  o.Role,
		runner.LabelHost:  cleanLabel(o.Host),
	}
}

// annotations carry the owner as the sweep reads it (runner.ParseOwner):
// the host as it is, the PID, its namespace and the run's start.
func (o owner) annotations() map[string]string { return o.Owner.Labels(o.Role) }

func ptr[T any](v T) *T { return &v }
