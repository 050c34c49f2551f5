package run

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/shard"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// ErrPullNeedsRegistry refuses a run that pulls with no registry allowed.
// Pulling from nowhere is refused rather than allowed everywhere: the
// images are named by the spec, which a pull request may edit.
var ErrPullNeedsRegistry = errors.New("pulling needs the registries a pull may fetch from; none is allowed by default")

// SettingError is Validate's refusal of one setting, named as behaves
// run's flag names it (the action's input of that name, or the input
// that becomes the flag).
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return "--" + e.Setting + ": " + e.Err.Error() }

func (e *SettingError) Unwrap() error { return e.Err }

// Validate checks cfg, the one check of a run's config: behaves run calls
// it on its flags and behaves action on its inputs (both parsed by the
// same flag.Values), so a value is accepted or refused alike whichever way
// it comes. It refuses, as a *SettingError, a missing spec or report path,
// a negative parallel (0 means the default), a size bound or pull timeout
// that is not positive, a pass@k list verdict.ParsePassAt would refuse, a
// shard outside 1 ≤ i ≤ N ≤ shard.MaxCount, an empty or excess --reuse
// (at most report.MaxReuseSources), a run ID behaves would not draw, and
// pulling with no registry allowed (ErrPullNeedsRegistry).
func (cfg Config) Validate() error {
	bad := func(setting string, format string, a ...any) error {
		return &SettingError{Setting: setting, Err: fmt.Errorf(format, a...)}
	}
	switch {
	case cfg.SpecPath == "":
		return bad("spec", "a path, not \"\"")
	case cfg.ReportPath == "":
		return bad("report", "a path, not \"\"")
	case cfg.Parallel < 0:
		return bad("parallel", "want a number of 0 (the default: fits the CPUs and the profiles' memory) or more, not %d", cfg.Parallel)
	case cfg.MaxReport <= 0:
		return bad("max-report-size", "must be greater than 0, not %d", cfg.MaxReport)
	case cfg.MaxReuse <= 0:
		return bad("max-reuse-size", "must be greater than 0, not %d", cfg.MaxReuse)
	case cfg.PullTimeout <= 0:
		return bad("pull-timeout", "must be greater than 0, not %s", cfg.PullTimeout)
	case cfg.RunID != "" && !IDPattern.MatchString(cfg.RunID):
		return bad("run-id", "want 16 lowercase hex digits, not %q", cfg.RunID)
	case len(cfg.Reuse) > report.MaxReuseSources:
		return bad("reuse", "%d reports, at most %d", len(cfg.Reuse), report.MaxReuseSources)
	case slices.Contains(cfg.Reuse, ""):
		return bad("reuse", "a path, not \"\"")
	case cfg.Spec.Pull && len(cfg.Spec.AllowRegistries) == 0:
		return &SettingError{Setting: "pull-images", Err: ErrPullNeedsRegistry}
	}
	if len(cfg.PassAt) == 0 {
		return bad("pass-at", "at least one k")
	}
	ks := make([]string, len(cfg.PassAt))
	for i, k := range cfg.PassAt {
		ks[i] = strconv.Itoa(k)
	}
	// The list as given must be the list ParsePassAt makes of it:
	// each k in range, no repeat, in order, not too many.
	if parsed, err := verdict.ParsePassAt(strings.Join(ks, ",")); err != nil {
		return &SettingError{Setting: "pass-at", Err: err}
	} else if !slices.Equal(parsed, cfg.PassAt) {
		return bad("pass-at", "want each k once, in increasing order, not %v", cfg.PassAt)
	}
	if cfg.Shard != nil {
		if _, err := shard.Parse(cfg.Shard.String()); err != nil {
			return &SettingError{Setting: "shard", Err: err}
		}
	}
	return nil
}
