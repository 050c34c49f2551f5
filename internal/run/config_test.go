package run

import (
	"errors"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/shard"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	valid := func() Config {
		return Config{SpecPath: "behaves.yml", ReportPath: "r.json", PullTimeout: time.Minute, MaxReport: 1, MaxReuse: 1, PassAt: []int{1}}
	}
	if err := valid().Validate(); err != nil {
		t.Fatalf("a valid config refused: %v", err)
	}
	for _, tc := range []struct {
		setting string
		mend    func(*Config)
	}{
		{"spec", func(c *Config) { c.SpecPath = "" }},
		{"report", func(c *Config) { c.ReportPath = "" }},
		{"parallel", func(c *Config) { c.Parallel = -1 }},
		{"max-report-size", func(c *Config) { c.MaxReport = 0 }},
		{"max-reuse-size", func(c *Config) { c.MaxReuse = -1 }},
		{"pull-timeout", func(c *Config) { c.PullTimeout = 0 }},
		{"run-id", func(c *Config) { c.RunID = "ABC" }},
		{"reuse", func(c *Config) { c.Reuse = []string{""} }},
		{"pull-images", func(c *Config) { c.Spec.Pull = true }},
		{"pass-at", func(c *Config) { c.PassAt = nil }},
		{"pass-at", func(c *Config) { c.PassAt = []int{5, 1} }},
		{"pass-at", func(c *Config) { c.PassAt = []int{0} }},
		{"shard", func(c *Config) { c.Shard = &shard.Ref{Index: 4, Count: 3} }},
	} {
		c := valid()
		tc.mend(&c)
		var se *SettingError
		if err := c.Validate(); !errors.As(err, &se) || se.Setting != tc.setting {
			t.Errorf("%s: Validate() = %v, want a refusal of %s", tc.setting, err, tc.setting)
		}
	}
}
