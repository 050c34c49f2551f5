package cli

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"testing"
)

// TestRunValuesAlikeAsFlagsAndInputs feeds the same values to behaves
// run's flags and to the action's inputs: each is accepted or refused
// alike, and an accepted one configures the run alike (--parallel 0 and
// the parallel input 0 both mean the default).
func TestRunValuesAlikeAsFlagsAndInputs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"parallel", "0", true}, {"parallel", "3", true}, {"parallel", "-1", false}, {"parallel", "many", false},
		{"fail-on", "false", true}, {"fail-on", "undetermined", true}, {"fail-on", "maybe", false},
		{"max-report-size", "1MiB", true}, {"max-report-size", "0", false}, {"max-report-size", "lots", false},
		{"pass-at", "1,5", true}, {"pass-at", "0,5", false},
		{"shard", "2/3", true}, {"shard", "4/3", false}, {"shard", "x", false},
	} {
		viaFlag := newRunConfig()
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		viaFlag.registerRun(fs)
		flagErr := fs.Parse([]string{"--" + tc.name, tc.value})

		inputs := map[string]string{inputName(tc.name): tc.value, "GITHUB_WORKSPACE": t.TempDir()}
		in, inputErr := readInputs(Env{Getenv: func(k string) string { return inputs[k] }})

		if (flagErr == nil) != tc.ok || (inputErr == nil) != tc.ok {
			t.Errorf("%s=%q: flag error %v, input error %v; want accepted %v by both", tc.name, tc.value, flagErr, inputErr, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		got, want := in.run, viaFlag
		got.reportPath, got.spec = want.reportPath, want.spec // paths resolve against the workspace
		if (got.shard == nil) != (want.shard == nil) || got.shard != nil && *got.shard != *want.shard {
			t.Errorf("%s=%q: shard %v from the input, %v from the flag", tc.name, tc.value, got.shard, want.shard)
		}
		got.shard, want.shard = nil, nil
		if !reflect.DeepEqual(fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want)) {
			t.Errorf("%s=%q: the input configures %+v, the flag %+v", tc.name, tc.value, got, want)
		}
	}
}
