package record

import (
	"strings"

	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Options says what Make writes.
type Options struct {
	// Update also rewrites the expectations the run disproved (false
	// cases), not only the cases that have none.
	Update bool
	// Named are the --program patterns: only the programs they name are
	// recorded, gate: false entries among them too. None: every program
	// but the gate: false entries.
	Named []string
}

// status is what record does with one of the spec's programs.
type status struct {
	selected  bool // named, or no names given
	leftAlone bool // a gate: false entry no pattern named
	needed    bool // selected, not left alone, with a case to write
}

// selection says, for each of the spec's programs, whether record
// records it and whether it has a case to write. An error: a pattern
// names no program (spec.Select's).
func (s *Source) selection(opt Options) ([]status, error) {
	st := make([]status, len(s.spec.Programs))
	named := map[string]bool{}
	if len(opt.Named) > 0 {
		picked, err := s.spec.Select(opt.Named)
		if err != nil {
			return nil, err
		}
		for _, p := range picked {
			named[p.ID] = true
		}
	}
	for i, p := range s.spec.Programs {
		st[i].selected = len(opt.Named) == 0 || named[p.ID]
		st[i].leftAlone = st[i].selected && p.NotGating && len(opt.Named) == 0
		if !st[i].selected || st[i].leftAlone {
			continue
		}
		for _, c := range p.Cases {
			if fromInputs(c) || c.SameAsPos != (spec.Pos{}) || checked(c.Expect) {
				continue
			}
			if t := s.texts[key{c.File, c.Pos.Line, c.Pos.Col}]; !t.hasExpect() || opt.Update {
				st[i].needed = true
				break
			}
		}
	}
	return st, nil
}

// checked says whether a checker program judges one of e's streams: the
// checker, not an output, is the expectation, which record leaves alone.
func checked(e verdict.Expectation) bool {
	var has func(m *verdict.Matcher) bool
	has = func(m *verdict.Matcher) bool {
		if m == nil {
			return false
		}
		if m.Checker != "" {
			return true
		}
		for i := range m.All {
			if has(&m.All[i]) {
				return true
			}
		}
		return false
	}
	return has(e.Stdout) || has(e.Stderr)
}

// Programs returns the programs a run must run for Make to have what it
// needs, as --program patterns (run.Config.Programs): each program's name
// with its glob characters escaped, so that it names that program alone.
// None: there is nothing to record. An error: a pattern of opt.Named
// names no program (spec.Select's, for the command line to print).
func (s *Source) Programs(opt Options) ([]string, error) {
	st, err := s.selection(opt)
	if err != nil {
		return nil, err
	}
	var names []string
	for i, p := range s.spec.Programs {
		if st[i].needed {
			names = append(names, escapeGlob(p.Name))
		}
	}
	return names, nil
}

// escapeGlob is name as a path.Match pattern that matches name alone.
func escapeGlob(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
