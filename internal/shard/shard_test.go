package shard

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/spec"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]Ref{"1/1": {1, 1}, "2/3": {2, 3}, "256/256": {256, 256}} {
		got, err := Parse(s)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "1", "0/3", "4/3", "1/0", "-1/3", "1/257", "a/3", "1/b", "01/3", "+1/3", "1/3/4", " 1/3"} {
		if got, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", s, got)
		}
	}
}

// load is the sum of each shard's invocations.
func loads(items []Item, at []int, n int) []int {
	l := make([]int, n)
	for i, it := range items {
		l[at[i]-1] += it.Cases
	}
	return l
}

func TestAssignGreedyLongestFirst(t *testing.T) {
	t.Parallel()
	// Longest first: 7 (a) → 1, 5 (b) → 2, 4 (c) → 3, then 3 (d) to the
	// lightest, shard 3 (4), making it 7; 2 (e) to shard 2 (5); 1 (f) to
	// shard 1 (7) and shard 2 (7) tie → the lowest, 1.
	items := []Item{{"f", 1}, {"d", 3}, {"a", 7}, {"e", 2}, {"c", 4}, {"b", 5}}
	got := Assign(items, 3)
	want := []int{1, 3, 1, 2, 3, 2}
	if !slices.Equal(got, want) {
		t.Fatalf("Assign = %v, want %v", got, want)
	}
	if l := loads(items, got, 3); !slices.Equal(l, []int{8, 7, 7}) {
		t.Errorf("loads %v, want [8 7 7]", l)
	}
}

func TestAssignTiesByID(t *testing.T) {
	t.Parallel()
	// Equal case counts: the order is the IDs', never the input's.
	items := []Item{{"c", 2}, {"a", 2}, {"d", 2}, {"b", 2}}
	got := Assign(items, 2)
	// a → 1, b → 2, c → 1, d → 2.
	if want := []int{1, 1, 2, 2}; !slices.Equal(got, want) {
		t.Fatalf("Assign = %v, want %v", got, want)
	}
}

// TestAssignDeterministic: the same programs in any order get the same
// shards, and every program gets exactly one shard in 1..n.
func TestAssignDeterministic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	items := make([]Item, 200)
	for i := range items {
		items[i] = Item{ID: fmt.Sprintf("%016x", r.Uint64()), Cases: 1 + r.IntN(9)}
	}
	want := map[string]int{}
	for i, s := range Assign(items, 7) {
		if s < 1 || s > 7 {
			t.Fatalf("item %d on shard %d", i, s)
		}
		want[items[i].ID] = s
	}
	for range 5 {
		shuffled := slices.Clone(items)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i, s := range Assign(shuffled, 7) {
			if want[shuffled[i].ID] != s {
				t.Fatalf("%s moved from shard %d to %d when the input was reordered", shuffled[i].ID, want[shuffled[i].ID], s)
			}
		}
	}
}

// TestAssignBalanced: greedy longest-first keeps every shard within the
// largest item of the lightest one.
func TestAssignBalanced(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n := 1 + r.IntN(8)
		items := make([]Item, r.IntN(60))
		largest := 0
		for i := range items {
			items[i] = Item{ID: fmt.Sprint(i), Cases: r.IntN(20)}
			largest = max(largest, items[i].Cases)
		}
		l := loads(items, Assign(items, n), n)
		if spread := slices.Max(l) - slices.Min(l); spread > largest {
			t.Errorf("trial %d: loads %v spread %d, more than the largest item %d", trial, l, spread, largest)
		}
	}
}

func writeSpec(t *testing.T, dir string, files map[string]string) *spec.Spec {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sp, err := spec.Load(filepath.Join(dir, "behaves.yml"), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

const digestSpec = `version: 1
profiles:
  sh:
    image: "sha256:0000000000000000000000000000000000000000000000000000000000000000"
    command: ["sh"]
programs:
  - name: p
    files: "s*.sh"
    profile: sh
    cases:
      - name: one
        stdin_file: in.txt
        expect: {stdout: {equals: "x"}}
      - name: two
        expect: {stdout: {equals: "y"}}
`

// TestDigest: the digest is the same for the same spec and files, and
// changes with the spec's bytes, a program's bytes, a stdin file's bytes
// and the set of programs a glob finds.
func TestDigest(t *testing.T) {
	t.Parallel()
	base := map[string]string{"behaves.yml": digestSpec, "s1.sh": "echo x", "s2.sh": "echo y", "in.txt": "in"}
	digest := func(change map[string]string) string {
		files := map[string]string{}
		for k, v := range base {
			files[k] = v
		}
		for k, v := range change {
			files[k] = v
		}
		return Digest(writeSpec(t, t.TempDir(), files))
	}
	d := digest(nil)
	if d != digest(nil) {
		t.Fatal("the same spec in another folder gave another digest")
	}
	if !digestPattern(d) {
		t.Fatalf("digest %q is not sha256:<hex>", d)
	}
	for what, change := range map[string]map[string]string{
		"spec bytes":    {"behaves.yml": digestSpec + "# a comment\n"},
		"program bytes": {"s2.sh": "echo z"},
		"stdin file":    {"in.txt": "other"},
		"a new sample":  {"s3.sh": "echo 3"},
	} {
		if digest(change) == d {
			t.Errorf("changing the %s kept the digest", what)
		}
	}
}

func digestPattern(s string) bool {
	if len(s) != len("sha256:")+64 || s[:7] != "sha256:" {
		return false
	}
	for _, c := range s[7:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// TestPlanAndSelect: every program is on exactly one shard, the table is
// in spec order, and Select returns a shard's programs in spec order.
func TestPlanAndSelect(t *testing.T) {
	t.Parallel()
	sp := writeSpec(t, t.TempDir(), map[string]string{"behaves.yml": digestSpec, "s1.sh": "1", "s2.sh": "2", "s3.sh": "3", "in.txt": ""})
	d, table := Plan(sp, 2)
	if d != Digest(sp) {
		t.Error("Plan's digest is not Digest's")
	}
	if len(table) != 3 {
		t.Fatalf("table has %d programs, want 3", len(table))
	}
	total := 0
	for i := 1; i <= 2; i++ {
		sel := Select(sp, table, i)
		total += len(sel)
		for _, p := range sel {
			k := slices.IndexFunc(table, func(e report.ShardProgram) bool { return e.ID == p.ID })
			if k < 0 || table[k].Shard != i {
				t.Errorf("shard %d holds %s, which the table puts on another", i, p.ID)
			}
		}
	}
	if total != 3 {
		t.Errorf("the shards hold %d programs, want 3", total)
	}
	for i, p := range sp.Programs {
		if table[i].ID != p.ID || table[i].Cases != 2 || table[i].Name != p.Name || table[i].File != p.File {
			t.Errorf("table[%d] = %+v, not program %s", i, table[i], p.ID)
		}
	}
}
