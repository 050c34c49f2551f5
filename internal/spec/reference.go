package spec

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/behaves-dev/behaves/internal/runner"
)

// ReferenceInput is one distinct invocation (args and stdin) a reference
// program runs for the same_as cases of its candidates, and for their
// cases whose checker matcher takes the reference's output as its answer
// (verdict.Matcher.AnswerReference).
type ReferenceInput struct {
	// Program is the reference program's index in the list References
	// looked it up in.
	Program int
	// Reference is that program.
	Reference  Program
	Invocation runner.Invocation
	// Repeat is how many times the reference runs it: the largest repeat
	// of the same_as cases that have this invocation, so that the
	// reference can be found nondeterministic too.
	Repeat int
}

// References lists the distinct invocations the reference programs run, in
// the order the spec first asks for them, and, for program p's case c,
// of[p][c]: the index of its input in inputs, or -1 for a case that is
// neither same_as nor checked with the reference's output as its answer. One input is shared by every candidate that has that invocation
// (every sample of a files: entry, every entry naming that reference).
//
// References are looked up by name in all, or in s.Programs when all is
// nil: a shard's run (which holds only its own programs) passes the whole
// spec's programs, so that a reference in another shard still runs here.
func (s *Spec) References(all []Program) (inputs []ReferenceInput, of [][]int) {
	if all == nil {
		all = s.Programs
	}
	return references(s.Programs, all)
}

func references(progs, all []Program) (inputs []ReferenceInput, of [][]int) {
	byName := map[string]int{}
	for i, p := range all {
		byName[p.Name] = i
	}
	seen := map[[32]byte]int{}
	of = make([][]int, len(progs))
	for i, p := range progs {
		of[i] = make([]int, len(p.Cases))
		ref, ok := byName[p.Reference]
		for c, kc := range p.Cases {
			of[i][c] = -1
			if kc.Expect.SameAs == nil && kc.Expect.AnswerReference() == "" || !ok {
				continue
			}
			key := inputKey(ref, kc.Invocation)
			k, dup := seen[key]
			if !dup {
				k = len(inputs)
				seen[key] = k
				inputs = append(inputs, ReferenceInput{Program: ref, Reference: all[ref], Invocation: kc.Invocation})
			}
			rep := kc.Repeat
			if kc.Expect.SameAs == nil {
				rep = 1 // a checker's answer: the reference's first run
			}
			inputs[k].Repeat = max(inputs[k].Repeat, rep, 1)
			of[i][c] = k
		}
	}
	return inputs, of
}

// inputKey identifies an invocation of reference program ref: a digest of
// the program's index, each argument with its length, and stdin.
func inputKey(ref int, inv runner.Invocation) [32]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(ref))
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], uint64(len(inv.Args)))
	h.Write(n[:])
	for _, a := range inv.Args {
		binary.BigEndian.PutUint64(n[:], uint64(len(a)))
		h.Write(n[:])
		h.Write([]byte(a))
	}
	h.Write(inv.Stdin)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// referenceLoad is how many invocations the references run and the most
// output those runs may hold in memory (runs × 2 streams × the reference
// profile's output_limit).
func referenceLoad(progs []Program, profiles map[string]*profileState) (runs int, held int64) {
	inputs, _ := references(progs, progs)
	for _, in := range inputs {
		runs += in.Repeat
		limit := int64(0)
		if st := profiles[in.Reference.Profile]; st != nil {
			limit = st.prof.Runtime.OutputLimit
		}
		held += int64(in.Repeat) * 2 * limit
	}
	return runs, held
}

// ReferenceJobs are the jobs that run the reference inputs: one per
// reference program, its inputs' runs one after the other. at[k] is the
// (job, first invocation) of input k.
func (s *Spec) ReferenceJobs(inputs []ReferenceInput) (jobs []runner.Job, at [][2]int) {
	jobOf := map[int]int{}
	at = make([][2]int, len(inputs))
	for k, in := range inputs {
		j, ok := jobOf[in.Program]
		if !ok {
			j = len(jobs)
			jobOf[in.Program] = j
			job := s.Job(in.Reference)
			job.Invocations = nil
			jobs = append(jobs, job)
		}
		at[k] = [2]int{j, len(jobs[j].Invocations)}
		for range max(in.Repeat, 1) {
			jobs[j].Invocations = append(jobs[j].Invocations, in.Invocation)
		}
	}
	return jobs, at
}
