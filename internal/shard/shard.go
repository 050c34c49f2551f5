package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/spec"
)

// MaxCount bounds N in --shard i/N. A GitHub Actions matrix holds at most
// 256 jobs; a larger N is a typo, not a plan.
const MaxCount = 256

// Ref is one shard of N: Index is 1-based.
type Ref struct {
	Index, Count int
}

// String is "i/N".
func (r Ref) String() string { return fmt.Sprintf("%d/%d", r.Index, r.Count) }

// Parse parses "i/N" with 1 ≤ i ≤ N ≤ MaxCount.
func Parse(s string) (Ref, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Ref{}, fmt.Errorf("want i/N (e.g. 2/3), not %q", s)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || strconv.Itoa(i) != is || strconv.Itoa(n) != ns {
		return Ref{}, fmt.Errorf("want i/N with decimal numbers (e.g. 2/3), not %q", s)
	}
	if n < 1 || n > MaxCount {
		return Ref{}, fmt.Errorf("N in %q must be between 1 and %d", s, MaxCount)
	}
	if i < 1 || i > n {
		return Ref{}, fmt.Errorf("i in %q must be between 1 and %d", s, n)
	}
	return Ref{Index: i, Count: n}, nil
}

// Item is one program as the slicing sees it: its ID and how many
// invocations (cases) it holds.
type Item struct {
	ID    string
	Cases int
}

// Assign gives each item a shard in 1..n, balanced by invocation count:
// items are taken longest first (ties by ID, in byte order), each going to
// the shard with the fewest invocations so far (ties to the lowest
// shard). The result is index-aligned with items and depends only on the
// items' IDs and case counts, never on their order, the machine or the
// time: every shard of a run computes the same assignment.
func Assign(items []Item, n int) []int {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if items[a].Cases != items[b].Cases {
			return items[b].Cases - items[a].Cases
		}
		return strings.Compare(items[a].ID, items[b].ID)
	})
	load := make([]int, n)
	out := make([]int, len(items))
	for _, i := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += items[i].Cases
		out[i] = best + 1
	}
	return out
}

// Plan is the shard table of a spec: every program, in spec order, with
// the shard Assign gives it, and the spec's digest.
func Plan(sp *spec.Spec, n int) (digest string, table []report.ShardProgram) {
	items := make([]Item, len(sp.Programs))
	for i, p := range sp.Programs {
		items[i] = Item{ID: p.ID, Cases: len(p.Cases)}
	}
	at := Assign(items, n)
	table = make([]report.ShardProgram, len(sp.Programs))
	for i, p := range sp.Programs {
		table[i] = report.ShardProgram{ID: p.ID, Name: p.Name, Group: p.Group, File: p.File,
			Line: p.Pos.Line, Col: p.Pos.Col, Cases: len(p.Cases), Shard: at[i]}
	}
	return Digest(sp), table
}

// Select returns the spec's programs that table puts on shard i, in spec
// order (table is Plan's, index-aligned with sp.Programs).
func Select(sp *spec.Spec, table []report.ShardProgram, i int) []spec.Program {
	var out []spec.Program
	for k, p := range sp.Programs {
		if table[k].Shard == i {
			out = append(out, p)
		}
	}
	return out
}

// Digest identifies what a spec runs, so that a merge can tell shards of
// one run from shards of different commits: "sha256:" and the SHA-256 of
// a text that lists the spec file's own SHA-256, then for each program (in
// spec order, globs expanded) its ID and the SHA-256 of each of its files,
// and the SHA-256 of each case's stdin (inline, or a stdin_file's bytes).
// Images are left out on purpose: a spec pins them by digest in its own
// bytes, and `--image` overrides name local image IDs, which differ from
// runner to runner for the same build.
func Digest(sp *spec.Spec) string {
	h := sha256.New()
	line := func(w io.Writer, parts ...string) { fmt.Fprintln(w, strings.Join(parts, " ")) }
	line(h, "behaves.shard-digest/v1")
	line(h, "spec", sp.SHA256)
	for _, p := range sp.Programs {
		line(h, "program", strconv.Quote(p.ID), strconv.Itoa(len(p.Cases)))
		names := make([]string, 0, len(p.Program.Files))
		for name := range p.Program.Files {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			// The digest recorded when the file was read: its bytes are
			// not held (runner.File).
			line(h, "file", strconv.Quote(name), p.Program.Files[name].SHA256)
		}
		for _, c := range p.Cases {
			sum := sha256.Sum256(c.Invocation.Stdin)
			line(h, "stdin", hex.EncodeToString(sum[:]))
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
