package record

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
	"github.com/behaves-dev/behaves/internal/yamledit"
)

// Plan is what Make decided: the files to write and what it could not
// record.
type Plan struct {
	// Changes are the files whose bytes change, the spec first, then the
	// cases files by name.
	Changes []Change
	// Recorded counts the cases given an expectation, Updated the
	// expectations rewritten (Options.Update).
	Recorded, Updated int
	// Problems are the cases record was asked to write and could not, in
	// file order.
	Problems []Problem
	// Notes say what was left alone, one line each.
	Notes []string
}

// Change is one file's new bytes.
type Change struct {
	File *File
	// Edits are the byte edits of File.Data that make Data.
	Edits []yamledit.Edit
	Data  []byte
}

// Problem is a case record was asked to write and could not.
type Problem struct {
	// Pos is where the case is written (its file as behaves names it).
	Pos  spec.Pos
	Case string
	Why  string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: case %q: not recorded: %s", p.Pos.File, p.Pos.Line, p.Case, p.Why)
}

// participant is one program's run of a case text.
type participant struct {
	prog *spec.Program
	c    *report.Case
}

// pending is one planned edit of a case text.
type pending struct {
	t       *text
	exp     Expectation
	replace bool
	edit    yamledit.Edit
}

// Make plans the edits that write what rep's runs show into the cases
// that opt asks for: every case without an expect of the programs
// selected (and not left alone), and with opt.Update every case whose
// expectation the run disproved. rep is the report of a run of (at
// least) the programs Programs returned. An error: a pattern of opt.Named
// names no program.
func (s *Source) Make(rep report.Report, opt Options) (*Plan, error) {
	st, err := s.selection(opt)
	if err != nil {
		return nil, err
	}
	ran := map[string]*report.Program{}
	for i := range rep.Programs {
		ran[rep.Programs[i].ID] = &rep.Programs[i]
	}
	plan := &Plan{}
	parts := map[key][]participant{}
	notRun := map[key][]string{}
	var order []key
	var leftAlone []string
	sameAs, inputs, byChecker, falseKept := 0, 0, 0, 0
	for i := range s.spec.Programs {
		p := &s.spec.Programs[i]
		switch {
		case !st[i].selected:
			continue
		case st[i].leftAlone:
			if e := entryName(p); !slices.Contains(leftAlone, e) {
				leftAlone = append(leftAlone, e)
			}
			continue
		}
		for _, c := range p.Cases {
			switch {
			case fromInputs(c):
				inputs++
				continue
			case c.SameAsPos != (spec.Pos{}):
				sameAs++
				continue
			case checked(c.Expect):
				byChecker++
				continue
			}
			k := key{c.File, c.Pos.Line, c.Pos.Col}
			t := s.texts[k]
			rc := caseNamed(ran[p.ID], c.Name)
			if t.hasExpect() && !opt.Update {
				if rc != nil && rc.Verdict == verdict.False {
					falseKept++
				}
				continue
			}
			if _, seen := parts[k]; !seen && notRun[k] == nil {
				order = append(order, k)
			}
			if rc == nil {
				notRun[k] = append(notRun[k], p.Name)
				continue
			}
			parts[k] = append(parts[k], participant{p, rc})
		}
	}
	slices.SortFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
	})
	edits := map[*File][]pending{}
	for _, k := range order {
		t := s.texts[k]
		problem := func(why string) { plan.Problems = append(plan.Problems, Problem{Pos: t.pos, Case: t.name, Why: why}) }
		if names := notRun[k]; len(names) > 0 {
			problem(fmt.Sprintf("%s did not run", strings.Join(names, ", ")))
			continue
		}
		ps := parts[k]
		if t.hasExpect() && !slices.ContainsFunc(ps, func(p participant) bool { return p.c.Verdict == verdict.False }) {
			continue // not disproved
		}
		if why := s.unrunSamples(ps); why != "" {
			problem(why)
			continue
		}
		exp, why := agree(ps)
		if why == "" {
			why = holdable(exp)
		}
		if why != "" {
			problem(why)
			continue
		}
		e, err := t.edit(exp)
		if err != nil {
			problem(err.Error())
			continue
		}
		edits[t.file] = append(edits[t.file], pending{t: t, exp: exp, replace: t.hasExpect(), edit: e})
	}
	files := make([]*File, 0, len(edits))
	for f := range edits {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b *File) int {
		return cmp.Or(cmp.Compare(s.rank(a.Name), s.rank(b.Name)), cmp.Compare(a.Name, b.Name))
	})
	for _, f := range files {
		ch, done, failed := f.apply(edits[f])
		plan.Problems = append(plan.Problems, failed...)
		for _, p := range done {
			if p.replace {
				plan.Updated++
			} else {
				plan.Recorded++
			}
		}
		if ch != nil {
			plan.Changes = append(plan.Changes, *ch)
		}
	}
	slices.SortStableFunc(plan.Problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(s.rank(a.Pos.File), s.rank(b.Pos.File)), cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line))
	})
	for _, e := range leftAlone {
		plan.Notes = append(plan.Notes, fmt.Sprintf("left alone: %s says gate: false (name it with --program to record it)", escape.Quote(e)))
	}
	if sameAs > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("left alone: %s (their reference's output is their expectation)", verdict.Count(sameAs, "same_as case", "same_as cases")))
	}
	if byChecker > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("left alone: %s a checker judges (the checker is their expectation)", verdict.Count(byChecker, "case", "cases")))
	}
	if inputs > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("left alone: %s an inputs_file made (compared with their reference)", verdict.Count(inputs, "case", "cases")))
	}
	switch {
	case falseKept == 1:
		plan.Notes = append(plan.Notes, "1 case is false against its expectation: behaves record --update rewrites it")
	case falseKept > 1:
		plan.Notes = append(plan.Notes, fmt.Sprintf("%d cases are false against their expectations: behaves record --update rewrites them", falseKept))
	}
	return plan, nil
}

// rank orders files: the spec (named name) first.
func (s *Source) rank(name string) int {
	if name == s.files[""].Name {
		return 0
	}
	return 1
}

// entryName is the name of the program entry p comes from.
func entryName(p *spec.Program) string {
	if p.Group != "" {
		return p.Group
	}
	return p.Name
}

// caseNamed is rp's case named name (nil when rp is nil or has none).
func caseNamed(rp *report.Program, name string) *report.Case {
	if rp == nil {
		return nil
	}
	for i := range rp.Cases {
		if rp.Cases[i].Name == name {
			return &rp.Cases[i]
		}
	}
	return nil
}

// unrunSamples says which samples of the entries among ps did not run
// ("" when all did): one case text serves every sample of an entry, so it
// is recorded only from all of them.
func (s *Source) unrunSamples(ps []participant) string {
	in := map[string]bool{}
	for _, p := range ps {
		in[p.prog.Name] = true
	}
	var missing []string
	var entries []string
	for _, p := range ps {
		if p.prog.Group == "" || slices.Contains(entries, p.prog.Group) {
			continue
		}
		entries = append(entries, p.prog.Group)
		for _, q := range s.spec.Programs {
			if q.Group == p.prog.Group && !in[q.Name] {
				missing = append(missing, q.Name)
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("every sample of %s shares it, and %s did not run (record them together: --program %s)",
		escape.Quote(entries[0]), strings.Join(missing, ", "), entries[0])
}

// agree is what every participant did, when they all did the same, or why
// it cannot be recorded.
func agree(ps []participant) (Expectation, string) {
	var first Expectation
	for i, p := range ps {
		exp, why := observe(p.c)
		if why != "" {
			if len(ps) > 1 {
				why = p.prog.Name + ": " + why
			}
			return Expectation{}, why
		}
		if i == 0 {
			first = exp
			continue
		}
		if d := differ(first, exp, ps[0].prog.Name, p.prog.Name); d != "" {
			who := "the programs that share it disagree"
			if g := p.prog.Group; g != "" && g == ps[0].prog.Group {
				who = "the samples of " + escape.Quote(g) + " disagree"
			}
			return Expectation{}, who + ": " + d
		}
	}
	return first, ""
}

// holdable says why exp cannot be written into a spec ("" when it can):
// a spec holds text, and behaves writes no NUL byte into one.
func holdable(exp Expectation) string {
	for _, s := range []struct{ name, v string }{{"stdout", exp.Stdout}, {"stderr", exp.Stderr}} {
		switch {
		case !utf8.ValidString(s.v):
			return fmt.Sprintf("its %s is not valid UTF-8, and a spec holds only text", s.name)
		case strings.IndexByte(s.v, 0) >= 0:
			return fmt.Sprintf("its %s holds a NUL byte, which behaves does not write into a spec", s.name)
		}
	}
	return ""
}
