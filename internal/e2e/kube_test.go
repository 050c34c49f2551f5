package e2e

import (
	"bytes"
	"context"
	"crypto/md5"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/kube"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// requireKube is the kubeconfig of the test cluster (BEHAVES_KUBECONFIG,
// which .ci/run sets after scripts/k8s.sh up): the test skips without
// one, or fails when CI requires the cluster (BEHAVES_REQUIRE_KUBE=1).
func requireKube(t *testing.T) string {
	t.Helper()
	kc := os.Getenv("BEHAVES_KUBECONFIG")
	if kc != "" {
		return kc
	}
	msg := "no test cluster: BEHAVES_KUBECONFIG is not set (bash scripts/k8s.sh up prints it)"
	if os.Getenv("BEHAVES_REQUIRE_KUBE") == "1" {
		t.Fatal("BEHAVES_REQUIRE_KUBE=1: " + msg)
	}
	t.Skip(msg)
	return ""
}

// kubeInspectSh prints "ok" when the program runs as the profile says and
// nothing more, else what is not so: the same verdict on every backend.
const kubeInspectSh = `fail() { echo "$1"; bad=1; }
[ "$(id -u):$(id -g)" = 65534:65534 ] || fail "uid:gid $(id -u):$(id -g)"
grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/self/status || fail "$(grep CapEff /proc/self/status)"
grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status || fail "$(grep NoNewPrivs /proc/self/status)"
touch /root-write 2>/dev/null && fail "the root is writable"
touch /program/x 2>/dev/null && fail "/program is writable"
echo scratch >/tmp/s && [ "$(cat /tmp/s)" = scratch ] || fail "/tmp is not writable"
# The mounts the program can write to: the profile's /tmp, and what the
# IPC namespace brings on both backends (/dev/shm, /dev/mqueue); on
# Kubernetes also /dev/termination-log (docs/kubernetes.md). /proc's masked
# paths are the runtime's.
w=$(awk '$4 ~ /^rw/ {print $2}' /proc/mounts | sort | while read -r p; do case "$p" in /proc/*|/dev/termination-log) continue ;; esac; [ -w "$p" ] && echo "$p"; done | tr '\n' ' ')
[ "$w" = "/dev/mqueue /dev/shm /tmp " ] || fail "writable mounts: $w"
[ -e /var/run/secrets/kubernetes.io ] && fail "a service-account token is mounted"
ip route 2>/dev/null | grep -q default && fail "a default route: $(ip route)"
env | grep -q '^BEHAVES_\|^KUBECONFIG=\|^HOME=/root' && fail "behaves' environment: $(env | grep '^BEHAVES_\|^KUBECONFIG')"
[ "$LANG" = C.UTF-8 ] || fail "the profile's env is missing: LANG=$LANG"
[ -z "$bad" ] && echo ok
`

// TestKubernetesSameVerdicts runs the e2e suite's core cases once on
// Docker and once on the test cluster (--backend kubernetes) and compares
// each case's verdict, timed_out, resource_limit and reason; the
// inspection case checks the pod's hardening from inside. The Kubernetes
// run leaves no pod or config map behind, and --reuse of the Docker
// report reruns every case on the cluster.
func TestKubernetesSameVerdicts(t *testing.T) {
	t.Parallel()
	kc := requireKube(t)
	img := testImages(t)
	missing := "sha256:" + strings.Repeat("1", 64)
	spec := `version: 1
profiles:
  sh:
    image: ` + img.busybox + `
    command: ["/bin/sh"]
    timeout: 20s
    cpus: 0.25
    memory: 64MiB
    env: {LANG: C.UTF-8}
    tmpfs: {/tmp: 1MiB}
  short:
    image: ` + img.busybox + `
    command: ["/bin/sh"]
    timeout: 2s
    cpus: 0.25
    memory: 64MiB
  small:
    image: ` + img.busybox + `
    command: ["/bin/sh"]
    cpus: 0.25
    output_limit: 1KiB
  missing:
    image: ` + missing + `
    command: ["/bin/sh"]
    cpus: 0.25
programs:
  - name: add
    file: add.sh
    profile: sh
    cases:
      - {name: right, args: ["2", "3"], expect: {stdout: {equals: "5"}}}
      - {name: wrong, args: ["2", "2"], expect: {stdout: {equals: "5"}}}
      - {name: stdin, stdin: "40 2\n", expect: {stdout: {equals: "42"}}}
      - {name: exit code, args: ["x"], expect: {exit_code: 3, stderr: {contains: "not a number"}}}
      - {name: env allowlist, args: ["env"], expect: {stdout: {equals: "LANG=C.UTF-8"}}}
  - name: syntax-error
    file: broken.sh
    profile: sh
    cases:
      - {name: runs, expect: {stdout: {equals: "fine"}}}
  - name: sleeper
    file: sleep.sh
    profile: short
    cases:
      - {name: ends, expect: {stdout: {equals: "done"}}}
  - name: memory-bomb
    file: bomb.sh
    profile: sh
    cases:
      - {name: survives, expect: {stdout: {equals: "survived"}}}
  - name: chatty
    file: chatty.sh
    profile: small
    cases:
      - {name: all of it, expect: {stdout: {equals: ` + strconv.Quote(strings.Repeat("a line of twenty-nine bytes.\n", 100)) + `}}}
  - name: inspect
    file: inspect.sh
    profile: sh
    cases:
      - {name: hardened, expect: {stdout: {equals: "ok"}}}
  - name: bytes
    file: bytes.sh
    profile: sh
    cases:
      - {name: exact, expect: {stdout: {equals: "a\0b\rc\n\td", normalize: exact}, stderr: {equals: "no newline", normalize: exact}}}
  - name: absent
    file: add.sh
    profile: missing
    cases:
      - {name: runs, args: ["1", "1"], expect: {stdout: {equals: "2"}}}
`
	files := map[string]string{
		"add.sh": `case "$1" in
env) env | grep -v '^KUBERNETES_\|^HOSTNAME=\|^PATH=\|^HOME=\|^PWD=\|^SHLVL=\|^_=' | sort; exit 0 ;;
x) echo "not a number" >&2; exit 3 ;;
"") read a b; echo $((a + b)); exit 0 ;;
esac
echo $(($1 + $2))
`,
		"broken.sh":  "if then fi\necho fine\n",
		"sleep.sh":   "sleep 30\necho done\n",
		"bomb.sh":    "awk 'BEGIN { s = \"x\"; while (1) s = s s }'\necho survived\n",
		"chatty.sh":  "i=0; while [ $i -lt 100 ]; do echo 'a line of twenty-nine bytes.'; i=$((i+1)); done\n",
		"inspect.sh": kubeInspectSh,
		// A CR right before a LF is not here: containerd's CRI log path
		// drops it (docs/kubernetes.md).
		"bytes.sh": "printf 'a\\000b\\rc\\n\\td'\nprintf 'no newline' >&2\n",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dockerRun := runBehaves(t, ctx, spec, files)
	dockerReport := filepath.Join(t.TempDir(), "docker.json")
	writeReport(t, dockerReport, dockerRun.report)
	kubeRun := runSpec(t, ctx, spec, files, "--backend", "kubernetes", "--kubeconfig", kc, "--reuse", dockerReport)
	assertNoKubeLeftovers(t, kc, kubeRun.report.RunID)
	if dockerRun.code != kubeRun.code {
		t.Errorf("exit codes differ: docker %d, kubernetes %d\nkubernetes stderr:\n%s", dockerRun.code, kubeRun.code, indent(kubeRun.stderr))
	}

	want := map[string]verdict.Verdict{
		"add/right": verdict.True, "add/wrong": verdict.False, "add/stdin": verdict.True, "add/exit code": verdict.True,
		"add/env allowlist": verdict.True, "syntax-error/runs": verdict.False, "sleeper/ends": verdict.False,
		"memory-bomb/survives": verdict.False, "chatty/all of it": verdict.Undetermined, "inspect/hardened": verdict.True,
		"bytes/exact": verdict.True,
		"absent/runs": verdict.Undetermined,
	}
	docker, k8s := kubeCases(dockerRun.report), kubeCases(kubeRun.report)
	for name, v := range want {
		d, k := docker[name], k8s[name]
		ds, ks := kubeSummary(d, name != "absent/runs"), kubeSummary(k, name != "absent/runs")
		t.Logf("%s: docker %s | kubernetes %s", name, ds, ks)
		if d.Verdict != v {
			t.Errorf("%s on docker: %s, want verdict %s (stdout %q, stderr %q)", name, ds, v, d.Event.StdoutData(), d.Event.StderrData())
		}
		if ds != ks {
			t.Errorf("%s: the backends differ:\n  docker:     %s\n  kubernetes: %s\n  kubernetes stdout %q stderr %q, sandbox error %q",
				name, ds, ks, k.Event.StdoutData(), k.Event.StderrData(), k.Event.SandboxError)
		}
		if k.ReusedFrom != nil {
			t.Errorf("%s: answered on kubernetes by the docker report's evidence", name)
		}
	}
	if !strings.Contains(kubeRun.stdout+kubeRun.stderr, "changed: backend") {
		t.Errorf("the kubernetes run does not say why the docker report answered nothing:\n%s%s", indent(kubeRun.stdout), indent(kubeRun.stderr))
	}
	for _, p := range kubeRun.report.Programs {
		if p.Settings.Applied.Image != "" && p.Settings.Applied.Backend != "kubernetes" {
			t.Errorf("%s: settings.applied.backend %q, want kubernetes", p.Name, p.Settings.Applied.Backend)
		}
		// What a pod does otherwise than a container is said, never
		// dropped: once per program that ran (not the absent image's).
		if p.Settings.Applied.Image != "" && !slices.ContainsFunc(p.SandboxWarnings, func(w string) bool {
			return strings.HasPrefix(w, "kubernetes: the profile's pids") && strings.Contains(w, "KUBERNETES_*")
		}) {
			t.Errorf("%s: sandbox warnings %q do not name what Kubernetes does differently", p.Name, p.SandboxWarnings)
		}
	}
	for _, p := range dockerRun.report.Programs {
		if len(p.SandboxWarnings) > 0 {
			t.Errorf("%s on docker: sandbox warnings %q, want none", p.Name, p.SandboxWarnings)
		}
	}

	// rescore judges the Kubernetes report's evidence again when told where
	// it came from, and refuses it as Docker's.
	kubeReport := filepath.Join(t.TempDir(), "kube.json")
	writeReport(t, kubeReport, kubeRun.report)
	specPath := filepath.Join(writeTree(t, files), "behaves.yml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--backend", "kubernetes"}, kubeRun.code},
		{nil, 2},
	} {
		var out, errOut bytes.Buffer
		argv := append([]string{"rescore", "--spec", specPath, "--report", kubeReport, "--report-out", filepath.Join(t.TempDir(), "r.json")}, tc.args...)
		code := cli.Main(ctx, argv, cli.Env{Stdout: &out, Stderr: &errOut, Getenv: os.Getenv})
		if code != tc.code || tc.code == 2 && !strings.Contains(errOut.String(), "backend") {
			t.Errorf("behaves %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, tc.code, indent(out.String()), indent(errOut.String()))
		}
	}
}

// kubeCases are a report's cases by "program/case".
func kubeCases(r report.Report) map[string]report.Case {
	out := map[string]report.Case{}
	for _, p := range r.Programs {
		for _, c := range p.Cases {
			out[p.Name+"/"+c.Name] = c
		}
	}
	return out
}

// kubeSummary is what must be the same on both backends: the verdict, and
// when the evidence was observed, the stop and the reason (an undetermined
// case's reason names the backend's own fault).
func kubeSummary(c report.Case, withReason bool) string {
	s := "verdict " + c.Verdict.String() + ", timed_out " + strconv.FormatBool(c.Event.TimedOut) +
		", resource_limit " + strconv.Quote(string(c.Event.ResourceLimit))
	if withReason {
		s += ", reason " + strconv.Quote(c.Reason)
	}
	return s
}

func writeReport(t *testing.T, path string, r report.Report) {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the docker report", buf.Bytes())
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// assertNoKubeLeftovers checks that the run left no pod and no config map
// in behaves' namespace.
func assertNoKubeLeftovers(t *testing.T, kubeconfig, runID string) {
	t.Helper()
	if n := kubeObjects(t, kubeClient(t, kubeconfig), metav1.ListOptions{LabelSelector: runner.LabelRunID + "=" + runID}); n > 0 {
		t.Errorf("the kubernetes run %s left %d pods and config maps behind", runID, n)
	}
}

// TestKubernetesSignals runs the real behaves binary on the test cluster
// and signals it while two sleeping cases run. SIGTERM: behaves deletes
// what it made and exits 4 with no pod or config map left. SIGKILL: what
// it left is removed by `behaves gc --backend kubernetes`, which finds the
// dead owner (this host, its PID gone) from the annotations.
func TestKubernetesSignals(t *testing.T) {
	t.Parallel()
	kc := requireKube(t)
	img := testImages(t)
	bin := buildBehaves(t)
	cs := kubeClient(t, kc)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			runID := fmt.Sprintf("%015x%d", time.Now().UnixNano()&0xfffffffffffffff, i)
			dir := writeTree(t, map[string]string{"behaves.yml": strings.Replace(signalSpec(img.busybox), "    memory: 32MiB\n", "    memory: 32MiB\n    cpus: 0.25\n", 1), "sleep.sh": sleepScript})
			reportPath := filepath.Join(t.TempDir(), "report.json")
			cmd := exec.Command(bin, "run", "--spec", filepath.Join(dir, "behaves.yml"), "--report", reportPath,
				"--parallel", "2", "--backend", "kubernetes", "--kubeconfig", kc, "--run-id", runID)
			var stderr syncBuffer
			cmd.Stderr = &stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					<-exited
				}
			})
			sel := metav1.ListOptions{LabelSelector: runner.LabelRunID + "=" + runID}
			deadline := time.Now().Add(time.Minute)
			for {
				pods, err := cs.CoreV1().Pods(kube.DefaultNamespace).List(context.Background(), sel)
				if err != nil {
					t.Fatal(err)
				}
				running := 0
				for _, p := range pods.Items {
					if p.Status.Phase == "Running" {
						running++
					}
				}
				if running >= 2 {
					break
				}
				select {
				case err := <-exited:
					rep, _ := os.ReadFile(reportPath)
					t.Fatalf("behaves exited before two cases ran (%v)\nstderr:\n%s\nreport:\n%.3000s", err, indent(stderr.String()), rep)
				case <-time.After(200 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("two cases did not run within a minute\nstderr:\n%s", indent(stderr.String()))
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(signalExitLimit + 20*time.Second):
				t.Fatalf("behaves did not exit within %s of %v\nstderr:\n%s", signalExitLimit+20*time.Second, sig, indent(stderr.String()))
			}
			if sig == syscall.SIGKILL {
				if n := kubeObjects(t, cs, sel); n == 0 {
					t.Fatalf("SIGKILL left nothing behind: the gc half of this test would prove nothing")
				}
				var out, errOut bytes.Buffer
				code := cli.Main(context.Background(), []string{"gc", "--backend", "kubernetes", "--kubeconfig", kc}, cli.Env{Stdout: &out, Stderr: &errOut, Getenv: os.Getenv})
				if code != 0 || !strings.Contains(out.String(), "removing run "+runID) {
					t.Errorf("behaves gc --backend kubernetes: exit %d, want 0 and the killed run removed\nstdout:\n%s\nstderr:\n%s", code, indent(out.String()), indent(errOut.String()))
				}
			} else {
				if code := cmd.ProcessState.ExitCode(); code != 4 {
					t.Errorf("after SIGTERM behaves exited %d, want 4\nstderr:\n%s", code, indent(stderr.String()))
				}
				// What it observed, as on Docker: no case that did not
				// finish judged, the running ones interrupted.
				checkInterruptedReport(t, readReport(t, reportPath, &stderr))
			}
			if n := kubeObjects(t, cs, sel); n != 0 {
				t.Errorf("after %v: %d pods and config maps of run %s are left", sig, n, runID)
			}
		})
	}
}

func kubeClient(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// kubeObjects counts the pods and config maps sel selects in behaves'
// namespace.
func kubeObjects(t *testing.T, cs kubernetes.Interface, sel metav1.ListOptions) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods(kube.DefaultNamespace).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	maps, err := cs.CoreV1().ConfigMaps(kube.DefaultNamespace).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	return len(pods.Items) + len(maps.Items)
}

// TestKubernetesLeastPrivilege runs behaves as a service account holding
// exactly the permissions docs/kubernetes.md lists (a Role in a namespace
// of its own, a ClusterRole for namespaces), with a token from the
// TokenRequest API: a run with stdin, a timeout and a memory kill, and gc,
// work under them.
func TestKubernetesLeastPrivilege(t *testing.T) {
	t.Parallel()
	kc := requireKube(t)
	img := testImages(t)
	admin, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubeClient(t, kc)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ns := fmt.Sprintf("behaves-rbac-%d", time.Now().UnixNano()%1e9)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	name := ns + "-runner"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
	})
	rule := func(group string, resources []string, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: verbs}
	}
	// The list of docs/kubernetes.md, "Permissions (RBAC)".
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
		rule("", []string{"pods"}, "create", "get", "watch", "patch", "delete", "list"),
		rule("", []string{"pods/log"}, "get"),
		rule("", []string{"pods/attach"}, "create"),
		rule("", []string{"configmaps"}, "create", "delete", "list"),
		rule("networking.k8s.io", []string{"networkpolicies"}, "create"),
	}}
	steps := []func() error{
		func() error {
			_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			return err
		},
		func() error { _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); return err },
		func() error {
			_, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name},
				Rules: []rbacv1.PolicyRule{rule("", []string{"namespaces"}, "get", "create")}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name}}, metav1.CreateOptions{})
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptrTo(int64(600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData, CertificateAuthority: admin.CAFile}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "x"
	restricted := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, restricted); err != nil {
		t.Fatal(err)
	}

	spec := `version: 1
profiles:
  sh:
    image: ` + img.busybox + `
    command: ["/bin/sh"]
    timeout: 2s
    cpus: 0.25
    memory: 32MiB
programs:
  - name: echo
    file: echo.sh
    profile: sh
    cases:
      - {name: stdin, stdin: "hi\n", expect: {stdout: {equals: "hi"}}}
      - {name: sleeps, args: ["sleep"], expect: {stdout: {equals: "hi"}}}
`
	files := map[string]string{"echo.sh": "[ \"$1\" = sleep ] && sleep 30\nread x; echo \"$x\"\n"}
	o := runSpec(t, ctx, spec, files, "--backend", "kubernetes", "--kubeconfig", restricted, "--namespace", ns)
	cases := kubeCases(o.report)
	if c := cases["echo/stdin"]; c.Verdict != verdict.True {
		t.Errorf("echo/stdin under the listed permissions: %s (%s; sandbox error %q)\nstderr:\n%s", c.Verdict, c.Reason, c.Event.SandboxError, indent(o.stderr))
	}
	if c := cases["echo/sleeps"]; c.Verdict != verdict.False || !c.Event.TimedOut {
		t.Errorf("echo/sleeps under the listed permissions: %s, timed_out %v (%s; sandbox error %q)", c.Verdict, c.Event.TimedOut, c.Reason, c.Event.SandboxError)
	}
	var out, errOut bytes.Buffer
	if code := cli.Main(ctx, []string{"gc", "--backend", "kubernetes", "--kubeconfig", restricted, "--namespace", ns}, cli.Env{Stdout: &out, Stderr: &errOut, Getenv: os.Getenv}); code != 0 {
		t.Errorf("behaves gc under the listed permissions: exit %d\nstdout:\n%s\nstderr:\n%s", code, indent(out.String()), indent(errOut.String()))
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestKubernetesBuilds runs programs with a build stage on Docker and on
// the test cluster and compares them: a build that succeeds (its output,
// a folder of files, delivered to every case at /build), one that fails
// (a compile error: false), and one that leaves more in /build than
// output_size (build_output). The build image is busybox: its tar is what
// takes /build out of the build's pod.
func TestKubernetesBuilds(t *testing.T) {
	t.Parallel()
	kc := requireKube(t)
	img := testImages(t)
	build := `["/bin/sh", "-c", "if grep -q ERROR \"$0\"; then echo 'compile error' >&2; exit 1; fi; cp \"$0\" /build/prog.sh && mkdir -p /build/lib && echo data > /build/lib/d && if grep -q BIG \"$0\"; then head -c 3000 /dev/zero > /build/big; fi; echo built", "{program}"]`
	spec := `version: 1
profiles:
  sh:
    image: ` + img.busybox + `
    command: ["/bin/sh", "/build/prog.sh"]
    cpus: 0.25
    memory: 64MiB
    build:
      command: ` + build + `
      cpus: 0.25
      output_size: 2KiB
programs:
  - name: good
    file: good.sh
    profile: sh
    cases:
      - {name: right, args: ["2"], expect: {stdout: {equals: "2 data"}}}
      - {name: wrong, args: ["3"], expect: {stdout: {equals: "2 data"}}}
  - name: broken
    file: broken.sh
    profile: sh
    cases:
      - {name: runs, expect: {stdout: {equals: "x"}}}
  - name: big
    file: big.sh
    profile: sh
    cases:
      - {name: runs, expect: {stdout: {equals: "x"}}}
`
	files := map[string]string{
		"good.sh":   "echo \"$1 $(cat /build/lib/d)\"\n",
		"broken.sh": "# ERROR\necho x\n",
		"big.sh":    "# BIG\necho x\n",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dockerRun := runBehaves(t, ctx, spec, files)
	kubeRun := runSpec(t, ctx, spec, files, "--backend", "kubernetes", "--kubeconfig", kc)
	assertNoKubeLeftovers(t, kc, kubeRun.report.RunID)
	want := map[string]verdict.Verdict{"good/right": verdict.True, "good/wrong": verdict.False, "broken/runs": verdict.False, "big/runs": verdict.False}
	docker, k8s := kubeCases(dockerRun.report), kubeCases(kubeRun.report)
	for name, v := range want {
		d, k := docker[name], k8s[name]
		ds, ks := kubeSummary(d, true), kubeSummary(k, true)
		t.Logf("%s: docker %s | kubernetes %s", name, ds, ks)
		if d.Verdict != v || ds != ks {
			t.Errorf("%s: want verdict %s on both backends alike:\n  docker:     %s\n  kubernetes: %s (sandbox error %q)", name, v, ds, ks, k.Event.SandboxError)
		}
	}
	for _, p := range kubeRun.report.Programs {
		b := p.Build
		if b == nil {
			t.Errorf("%s: no build in the kubernetes report", p.Name)
			continue
		}
		switch p.Name {
		case "good":
			if b.OutputBytes == nil || *b.OutputBytes != int64(len(files["good.sh"])+len("data\n")) {
				t.Errorf("good: build output_bytes %v, want the bytes of /build (prog.sh and lib/d)", b.OutputBytes)
			}
		case "big":
			if b.ResourceLimit != "build_output" {
				t.Errorf("big: build resource_limit %q, want build_output", b.ResourceLimit)
			}
		}
	}
}

// TestKubernetesLargeFiles: a folder program holding a file larger than a
// config map (2.5 MiB), and a build whose output is (1.5 MiB), reach the
// pods whole, joined from their parts by an init container of the pod's
// own image, with the same verdicts as on Docker.
func TestKubernetesLargeFiles(t *testing.T) {
	t.Parallel()
	kc := requireKube(t)
	img := testImages(t)
	blob := make([]byte, 5<<19)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range blob {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		blob[i] = byte(x)
	}
	sum := fmt.Sprintf("%x", md5.Sum(blob))
	spec := `version: 1
profiles:
  sh:
    image: ` + img.busybox + `
    command: ["/bin/sh"]
    cpus: 0.25
  built:
    image: ` + img.busybox + `
    command: ["/bin/sh", "-c", "wc -c < /build/alias; ls -l /build/blob | cut -c1-10"]
    cpus: 0.25
    build:
      command: ["/bin/sh", "-c", "head -c 1500000 /dev/zero | tr '\\0' x > /build/blob && chmod 755 /build/blob && ln -s blob /build/alias", "{program}"]
      cpus: 0.25
      output_size: 4MiB
programs:
  - name: folder
    dir: prog
    entry: run.sh
    profile: sh
    cases:
      - {name: whole, expect: {stdout: {equals: "` + sum + `  data/blob.bin\n-r--r--r--\nthrough a link"}}}
  - name: build
    file: prog/run.sh
    profile: built
    cases:
      - {name: whole, expect: {stdout: {equals: "1500000\n-rwxr-xr-x"}}}
`
	files := map[string]string{
		"prog/run.sh":        "md5sum data/blob.bin\nls -l data/blob.bin | cut -c1-10\ncat link/d.txt\n",
		"prog/data/blob.bin": string(blob),
		"prog/data/d.txt":    "through a link\n",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := writeTree(t, files)
	// A link of the folder program: git records it, as the spec reads
	// folders from git.
	if err := os.Symlink("data", filepath.Join(dir, "prog", "link")); err != nil {
		t.Fatal(err)
	}
	gittest.Init(t, dir)
	gittest.Commit(t, dir, "a folder program with a link")
	dockerRun := runSpecIn(t, ctx, dir, spec)
	dockertest.AssertNothingLeft(t, dockertest.Client(t), dockerRun.report.RunID)
	kubeRun := runSpecIn(t, ctx, dir, spec, "--backend", "kubernetes", "--kubeconfig", kc)
	assertNoKubeLeftovers(t, kc, kubeRun.report.RunID)
	docker, k8s := kubeCases(dockerRun.report), kubeCases(kubeRun.report)
	for _, name := range []string{"folder/whole", "build/whole"} {
		d, k := docker[name], k8s[name]
		t.Logf("%s: docker %s | kubernetes %s", name, kubeSummary(d, true), kubeSummary(k, true))
		if d.Verdict != verdict.True || k.Verdict != verdict.True {
			t.Errorf("%s: docker %s (%s), kubernetes %s (%s; sandbox error %q); want true on both", name, d.Verdict, d.Reason, k.Verdict, k.Reason, k.Event.SandboxError)
		}
	}
}
