package junit

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestGateProperty: each program's test suite says whether it gates the
// run.
func TestGateProperty(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	in.Programs[1].Spec.NotGating = true
	data := string(render(t, assemble.Report(in), Options{}))
	if strings.Count(data, `<property name="behaves.gate" value="false"/>`) != 1 || strings.Count(data, `<property name="behaves.gate" value="true"/>`) != 3 {
		t.Errorf("behaves.gate properties: want one false, three true\n%s", data)
	}
}
