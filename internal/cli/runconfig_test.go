package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
)

// TestRunValuesAlikeAsFlagsAndInputs feeds the same values to behaves
// run's flags and to the action's inputs: each is accepted or refused
// alike, by the flag.Value that parses it or by run.Config.Validate, the
// one check of a run's whole config, and an accepted one configures the
// run alike (--parallel 0 and the parallel input 0 both mean the default).
func TestRunValuesAlikeAsFlagsAndInputs(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	var reports []string // more stored reports than a run takes
	for i := range report.MaxReuseSources + 1 {
		p := filepath.Join(ws, fmt.Sprintf("r%d.json", i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		reports = append(reports, p)
	}
	// flagOf is the flag an input becomes, where its name differs.
	flagOf := map[string]string{}
	for _, si := range specInputs {
		flagOf[si.input] = si.flag
	}
	type kv struct{ name, value string }
	for _, tc := range []struct {
		values []kv
		ok     bool
	}{
		{[]kv{{"parallel", "0"}}, true}, {[]kv{{"parallel", "3"}}, true}, {[]kv{{"parallel", "-1"}}, false}, {[]kv{{"parallel", "many"}}, false},
		{[]kv{{"fail-on", "false"}}, true}, {[]kv{{"fail-on", "undetermined"}}, true}, {[]kv{{"fail-on", "maybe"}}, false},
		{[]kv{{"max-report-size", "1MiB"}}, true}, {[]kv{{"max-report-size", "0"}}, false}, {[]kv{{"max-report-size", "lots"}}, false},
		{[]kv{{"pass-at", "1,5"}}, true}, {[]kv{{"pass-at", "0,5"}}, false},
		{[]kv{{"shard", "2/3"}}, true}, {[]kv{{"shard", "4/3"}}, false}, {[]kv{{"shard", "x"}}, false},
		// The rules of the whole config: pulling needs a registry, and a
		// run takes at most report.MaxReuseSources stored reports.
		{[]kv{{"pull-images", "true"}}, false},
		{[]kv{{"pull-images", "true"}, {"allowed-registries", "ghcr.io"}}, true},
		{[]kv{{"reuse", strings.Join(reports[:report.MaxReuseSources], "\n")}}, true},
		{[]kv{{"reuse", strings.Join(reports, "\n")}}, false},
	} {
		viaFlag := newRunConfig()
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		viaFlag.spec.register(fs)
		viaFlag.spec.registerPullImages(fs)
		viaFlag.registerRun(fs)
		var args []string
		inputs := map[string]string{"GITHUB_WORKSPACE": ws}
		for _, v := range tc.values {
			name := v.name
			if f, ok := flagOf[name]; ok {
				name = f
			}
			for _, line := range lines(v.value) {
				args = append(args, "--"+name+"="+line)
			}
			inputs[inputName(v.name)] = v.value
		}
		flagErr := fs.Parse(args)
		if flagErr == nil {
			flagErr = viaFlag.library().Validate()
		}
		in, inputErr := readInputs(Env{Getenv: func(k string) string { return inputs[k] }})

		if (flagErr == nil) != tc.ok || (inputErr == nil) != tc.ok {
			t.Errorf("%v: flag error %v, input error %v; want accepted %v by both", tc.values, flagErr, inputErr, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		got, want := in.run, viaFlag
		got.reportPath, got.spec.path = want.reportPath, want.spec.path // paths resolve against the workspace
		if (got.shard == nil) != (want.shard == nil) || got.shard != nil && *got.shard != *want.shard {
			t.Errorf("%v: shard %v from the input, %v from the flag", tc.values, got.shard, want.shard)
		}
		got.shard, want.shard = nil, nil
		if !reflect.DeepEqual(fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want)) {
			t.Errorf("%v: the input configures %+v, the flag %+v", tc.values, got, want)
		}
	}
}

// TestBackendInputs: the kubeconfig input is a workspace path, or, when it
// holds a line break, the kubeconfig itself, written to a file of behaves'
// own (0600) under RUNNER_TEMP (trimmed, as every input); the cluster's inputs need backend
// kubernetes, and only command run takes them.
func TestBackendInputs(t *testing.T) {
	t.Parallel()
	tmp, ws := t.TempDir(), t.TempDir()
	content := "apiVersion: v1\nkind: Config\n"
	read := func(inputs map[string]string) (actionInputs, error) {
		env := map[string]string{"RUNNER_TEMP": tmp, "GITHUB_WORKSPACE": ws}
		for k, v := range inputs {
			env[inputName(k)] = v
		}
		return readInputs(Env{Getenv: func(k string) string { return env[k] }})
	}
	in, err := read(map[string]string{"backend": "kubernetes", "kubeconfig": content, "namespace": "evals"})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(in.run.kubeconfig)
	b, _ := os.ReadFile(in.run.kubeconfig)
	if err != nil || fi.Mode().Perm() != 0o600 || string(b) != strings.TrimSpace(content) || !strings.HasPrefix(in.run.kubeconfig, tmp+string(filepath.Separator)) {
		t.Errorf("kubeconfig content: file %q (%v, mode %v) holding %q; want the content in a 0600 file under RUNNER_TEMP", in.run.kubeconfig, err, fi, b)
	}
	if in.run.backend != BackendKubernetes || in.run.namespace != "evals" {
		t.Errorf("backend %q, namespace %q", in.run.backend, in.run.namespace)
	}
	in, err = read(map[string]string{"backend": "kubernetes", "kubeconfig": "ci/kubeconfig"})
	if err != nil || in.run.kubeconfig != filepath.Join(ws, "ci/kubeconfig") {
		t.Errorf("kubeconfig path: %q, %v; want it in the workspace", in.run.kubeconfig, err)
	}
	for _, bad := range []map[string]string{
		{"namespace": "evals"},
		{"backend": "docker", "kubeconfig": "k"},
		{"backend": "podman"},
		{"command": "publish", "backend": "kubernetes"},
	} {
		if _, err := read(bad); err == nil {
			t.Errorf("inputs %v: accepted", bad)
		}
	}
}
