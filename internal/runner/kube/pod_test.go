package kube

import (
	"os/exec"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// TestPodSpecHardening: the pod of an invocation carries every hardening
// the profile maps to (docs/kubernetes.md), its argv is the program's own,
// and the owner's process is in annotations (a label value cannot hold a
// time or a PID namespace).
func TestPodSpecHardening(t *testing.T) {
	t.Parallel()
	prof := runner.Profile{Name: "py", Image: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Command: []string{"python3", "-I"}, ProgramName: "main.py", Timeout: 5 * time.Second, Memory: 128 << 20, CPUs: 0.5, Pids: 64,
		User: "65534:65533", Tmpfs: map[string]int64{"/tmp": 16 << 20}, Env: map[string]string{"LANG": "C.UTF-8"}, Runtime: "gvisor", Backend: "kubernetes"}
	ap := runner.Apply(prof)
	meta := owner{Owner: runner.Owner{RunID: "0123456789abcdef", Host: "runner:[x]", PID: 42, PIDNamespace: "pid:[4026531836]",
		StartedAt: time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)}, Role: RoleProgram}
	files := []configMapFiles{{Name: "m1", Items: []fileItem{{Key: "f0", Path: "main.py"}, {Key: "f1", Path: "bin/run.sh", Executable: true}}}}
	pod, err := podSpec("p1", ap, delivered{Maps: files}, nil, runner.Invocation{Args: []string{"a", "b"}, Stdin: []byte("x")}, meta)
	if err != nil {
		t.Fatal(err)
	}
	sp := pod.Spec
	c := sp.Containers[0]
	sc, psc := c.SecurityContext, sp.SecurityContext
	checks := []struct {
		what string
		ok   bool
	}{
		{"restartPolicy Never", sp.RestartPolicy == corev1.RestartPolicyNever},
		{"no service account token", sp.AutomountServiceAccountToken != nil && !*sp.AutomountServiceAccountToken},
		{"no service links", sp.EnableServiceLinks != nil && !*sp.EnableServiceLinks},
		{"no host namespaces", !sp.HostNetwork && !sp.HostPID && !sp.HostIPC},
		{"zero grace", sp.TerminationGracePeriodSeconds != nil && *sp.TerminationGracePeriodSeconds == 0},
		{"deadline = timeout + margin", sp.ActiveDeadlineSeconds != nil && *sp.ActiveDeadlineSeconds == 5+int64(StartMargin/time.Second)},
		{"runtime class", sp.RuntimeClassName != nil && *sp.RuntimeClassName == "gvisor"},
		{"uid and gid", *psc.RunAsUser == 65534 && *psc.RunAsGroup == 65533 && *psc.RunAsNonRoot},
		{"seccomp RuntimeDefault", psc.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault},
		{"read-only root", *sc.ReadOnlyRootFilesystem},
		{"no privilege escalation", !*sc.AllowPrivilegeEscalation && !*sc.Privileged},
		{"capabilities dropped", slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) && len(sc.Capabilities.Add) == 0},
		{"never pulled", c.ImagePullPolicy == corev1.PullNever && c.Image == prof.Image},
		{"argv", slices.Equal(append(c.Command, c.Args...), []string{"python3", "-I", "/program/main.py", "a", "b"})},
		{"stdin once", c.Stdin && c.StdinOnce && !c.TTY},
		{"requests = limits", c.Resources.Requests.Memory().Value() == 128<<20 && c.Resources.Limits.Memory().Value() == 128<<20 &&
			c.Resources.Limits.Cpu().MilliValue() == 500 && c.Resources.Requests.Cpu().MilliValue() == 500 && !c.Resources.Limits.StorageEphemeral().IsZero()},
		{"env is the profile's", len(c.Env) == 1 && c.Env[0].Name == "LANG" && c.Env[0].Value == "C.UTF-8"},
		{"labels clean", pod.Labels[runner.LabelHost] == "runner-x" && pod.Labels[runner.LabelRunID] == meta.RunID && pod.Labels[runner.LabelRole] == RoleProgram},
		{"owner in annotations", pod.Annotations[runner.LabelPIDNamespace] == meta.PIDNamespace && pod.Annotations[runner.LabelPID] == "42" && pod.Annotations[runner.LabelHost] == meta.Host},
	}
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("%s: not so in %+v", ch.what, pod)
		}
	}
	if o, err := runner.ParseOwner(pod.Annotations); err != nil || !runner.SameOwner(o, meta.Owner) {
		t.Errorf("the annotations read back as owner %+v (%v), want %+v", o, err, meta.Owner)
	}
	var tmp, prog bool
	for _, m := range c.VolumeMounts {
		for _, v := range sp.Volumes {
			if v.Name != m.Name {
				continue
			}
			switch {
			case m.MountPath == "/tmp" && v.EmptyDir != nil && v.EmptyDir.Medium == corev1.StorageMediumMemory && v.EmptyDir.SizeLimit.Value() == 16<<20 && !m.ReadOnly:
				tmp = true
			case m.MountPath == "/program" && m.ReadOnly && v.Projected != nil:
				items := v.Projected.Sources[0].ConfigMap.Items
				prog = len(items) == 2 && *items[0].Mode == 0o444 && *items[1].Mode == 0o555
			}
		}
	}
	if !tmp || !prog || len(c.VolumeMounts) != 2 {
		t.Errorf("mounts %+v: want /program read-only (0444, 0555 for executables) and /tmp a 16 MiB memory-backed emptyDir, nothing else", c.VolumeMounts)
	}
	pod, _ = podSpec("p2", ap, delivered{Maps: files}, nil, runner.Invocation{}, meta)
	if c := pod.Spec.Containers[0]; c.Stdin || c.StdinOnce {
		t.Errorf("no stdin: want the container's stdin closed (/dev/null), got stdin %v", c.Stdin)
	}
}

// TestShQuote: a program's paths go into the script that joins its parts
// (prepare.go); quoted, each reaches the shell as the path itself,
// whatever it holds.
func TestShQuote(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"a b", "it's", "-rf", "$(id)", "`id`", "a\nb", "x'; rm -rf /; '", `back\slash`, "*"} {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+shQuote(p)).Output()
		if err != nil || string(out) != p {
			t.Errorf("shQuote(%q) = %s: the shell read %q (%v)", p, shQuote(p), out, err)
		}
	}
}
