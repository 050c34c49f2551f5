package spec

import (
	"fmt"
	"path"
	"strings"
	"unicode"
)

// CheckProgramPattern checks a --program pattern: a path.Match pattern
// over program names.
func CheckProgramPattern(s string) error {
	if s == "" || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Errorf("--program %q: give a program's name, or a glob over names (sum, 'samples/*')", s)
	}
	if _, err := path.Match(s, ""); err != nil {
		return fmt.Errorf("--program %q is not a valid glob (use *, ?, [a-z] and \\ to escape)", s)
	}
	return nil
}

// Selects says whether pattern (a --program pattern) names p: its name
// ("sum/typo.go"), or the name of the files:/dirs: entry it is a sample of
// ("sum"), matches it.
func Selects(pattern string, p Program) bool {
	if ok, _ := path.Match(pattern, p.Name); ok {
		return true
	}
	ok, _ := path.Match(pattern, p.Group)
	return ok && p.Group != ""
}

// Select is the spec's programs that any of patterns names (Selects), in
// the spec's order. A pattern that names no program is an error naming
// it, with the programs it could have meant: a typo must not run
// nothing and pass.
func (s *Spec) Select(patterns []string) ([]Program, error) {
	used := make([]bool, len(patterns))
	var out []Program
	for _, p := range s.Programs {
		picked := false
		for i, pat := range patterns {
			if Selects(pat, p) {
				used[i], picked = true, true
			}
		}
		if picked {
			out = append(out, p)
		}
	}
	var names, candidates []string // candidates: names and entry names, for did-you-mean
	seen := map[string]bool{}
	for _, p := range s.Programs {
		names = append(names, p.Name)
		for _, c := range []string{p.Group, p.Name} {
			if c != "" && !seen[c] {
				seen[c] = true
				candidates = append(candidates, c)
			}
		}
	}
	for i, pat := range patterns {
		if !used[i] {
			shown := names
			if len(shown) > 10 {
				shown = append(shown[:10:10], fmt.Sprintf("… %d more", len(names)-10))
			}
			return nil, fmt.Errorf("--program %q names no program of %s%s; programs: %s", pat, s.Path, suggest(pat, candidates), strings.Join(shown, ", "))
		}
	}
	return out, nil
}
