package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/spec"
)

// soundRow is one change of the soundness table: a program entry (and its
// own profile) as it was stored, and as the spec has it now.
type soundRow struct {
	// keys are the spec keys the row changes, "profile.tmpfs" and the like
	// (the section is the schema's $defs name).
	keys []string
	// name is the entry's name before the change.
	name string
	// before and after are the row's profile (indented under profiles:
	// as "p_<name>:") and program entry (under programs:), %[1]s the
	// busybox image, %[2]s the python image.
	profBefore, profAfter   string
	entryBefore, entryAfter string
	// lookup, when set, is the program the row's checks look at (the
	// entry's name now, or a name files: makes).
	lookup string
	// part, when set, is what the reuse reason must name: the part of
	// the key the change is ("tmpfs", "env", "reference.env", …);
	// "" for a change that leaves the key as it was (a rename, a new
	// expectation), whose stored run must then be reused.
	part string
}

// baseProfile is every row's profile before its change.
const baseProfile = `image: %[1]q
    command: ["/bin/sh"]
    timeout: 10s
    memory: 64MiB
    cpus: 1
    pids: 64
    output_limit: 4KiB
    output_ceiling: 1MiB
    user: "65534:65534"
    tmpfs: {/tmp: 1MiB, /scratch: 2MiB}
    env: {MODE: a, KEEP: k}
    network_files: none`

// withBuild is baseProfile with a build stage that copies the program to
// /build, which the case then runs.
const withBuild = `image: %[1]q
    command: ["/bin/sh", "/build/probe.sh"]
    timeout: 10s
    memory: 64MiB
    pids: 64
    user: "65534:65534"
    tmpfs: {/tmp: 1MiB}
    env: {MODE: a}
    build: {command: ["/bin/cp", "{program}", "/build/probe.sh"], tmpfs: {/tmp: 1MiB}, output_size: 1MiB, timeout: 10s, memory: 64MiB, cpus: 1, pids: 64, output_limit: 4KiB, output_ceiling: 1MiB}`

// probe prints what its run depends on: every setting a row changes that
// a program can see shows in its output.
const probe = `echo "uid $(id -u) gid $(id -g) argv0 $0 flags $- args $*"
env | grep -E '^(MODE|KEEP|ADDED)=' | sort
grep -E ' /(tmp|scratch|added) ' /proc/mounts | awk '{print $2, $4}' | sort
for f in memory/memory.limit_in_bytes cpu/cpu.cfs_quota_us pids/pids.max; do cat /sys/fs/cgroup/$f 2>/dev/null; done
echo "hosts $(wc -l < /etc/hosts) os $(head -n 1 /etc/os-release 2>/dev/null)"
if echo x > /tmp/w 2>/dev/null; then echo "tmp writable"; else echo "tmp read-only"; fi
echo "stdin $(cat)"
ls /build 2>/dev/null || true
`

// TestReuseIsSound is the soundness table of reuse (a reused verdict must be a fresh run's): for every key of a
// profile, a build, a program entry and a case (from the spec's own
// schema: a key added later fails here until a row covers it), a program
// whose output depends on it is run, then the key is added, changed or
// removed, and the spec is run fresh, with --reuse of the first run's
// report, and rescored from it. Reuse must give every case the verdict
// the fresh run gave, reusing only what the key says is unchanged and
// naming the part that changed; rescore must refuse every changed
// program, naming it.
func TestReuseIsSound(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	rows := soundRows()
	covered := map[string]bool{}
	for _, r := range rows {
		for _, k := range r.keys {
			covered[k] = true
		}
	}
	for _, k := range schemaKeys(t) {
		if !covered[k] {
			t.Errorf("spec key %s: no row of the soundness table changes it; add one", k)
		}
	}

	build := func(after bool) string {
		var profs, entries strings.Builder
		for _, r := range rows {
			prof, entry := r.profBefore, r.entryBefore
			if after {
				prof, entry = r.profAfter, r.entryAfter
			}
			if prof != "" {
				// ROW makes each row's key its own: a stored run of
				// another row with the same settings would answer it,
				// rightly, and hide what this row checks.
				prof = strings.Replace(prof, "env: {", "env: {ROW: "+r.name+", ", 1)
				fmt.Fprintf(&profs, "  p_%s:\n    %s\n", r.name, fmt.Sprintf(prof, img.busybox, img.python))
			}
			if entry != "" {
				fmt.Fprintf(&entries, "%s\n", entry)
			}
		}
		return "version: 1\nprofiles:\n" + profs.String() + "programs:\n" + entries.String()
	}
	files := map[string]string{
		"probe.sh": probe, "other.sh": probe + "echo other\n", "ref.sh": "echo \"$MODE\"\n", "cand.sh": "echo a\n",
		"in.txt": "from a file\n", "in2.txt": "from another file\n",
		"cases.yml":    "- {name: listed, args: [\"1\"], expect: {exit_code: 0}}\n",
		"cases2.yml":   "- {name: listed, args: [\"2\"], expect: {exit_code: 0}}\n",
		"inputs.jsonl": "{\"args\": [\"1\"]}\n", "inputs2.jsonl": "{\"args\": [\"2\"]}\n",
		"glob/g1.sh": probe, "glob2/g1.sh": probe + "echo glob2\n",
		"d1/probe.sh": probe, "d1/other.sh": probe + "echo other\n", "d2/probe.sh": probe + "echo d2\n",
		"dg1/a/probe.sh": probe, "dg2/a/probe.sh": probe + "echo dg2\n",
	}
	before := runBehaves(t, context.Background(), build(false), files)
	if before.code != 0 {
		t.Fatalf("the stored run: exit %d\n%s\n%v", before.code, indent(before.stderr), caseVerdicts(before.report))
	}
	stored := saveReport(t, before)

	// Each case now expects exactly what it printed in the stored run,
	// so that a change of what it prints is a change of its verdict.
	expectStored := func(text string) string {
		for _, p := range before.report.Programs {
			for _, c := range p.Cases {
				if c.Expect.SameAs != nil {
					continue
				}
				marker := "@" + p.Name + "/" + c.Name + "@"
				b, _ := json.Marshal(string(c.Event.StdoutData()))
				text = strings.ReplaceAll(text, marker, string(b))
			}
		}
		return text
	}
	afterSpec := expectStored(build(true))
	fresh := runBehaves(t, context.Background(), afterSpec, files)
	reused := runBehaves(t, context.Background(), afterSpec, files, "--reuse", stored)

	verdicts := func(o outcome) map[string]string {
		out := map[string]string{}
		for _, p := range o.report.Programs {
			for _, c := range p.Cases {
				out[p.Name+"/"+c.Name] = c.Verdict.String() + " " + c.Reason
			}
		}
		return out
	}
	fv, rv := verdicts(fresh), verdicts(reused)
	if len(fv) == 0 || len(fv) != len(rv) {
		t.Fatalf("fresh run %d cases, reuse %d\n%s\n%s", len(fv), len(rv), indent(fresh.stderr), indent(reused.stderr))
	}
	falses := 0
	for name, v := range fv {
		if !strings.HasPrefix(rv[name], strings.SplitN(v, " ", 2)[0]+" ") {
			t.Errorf("%s: fresh %q, reused %q: reuse and a fresh run disagree", name, v, rv[name])
		}
		if !strings.HasPrefix(v, "true") {
			falses++
		}
	}
	if falses < len(rows)/3 {
		t.Errorf("only %d of %d cases changed verdict: the rows' programs do not show what changed", falses, len(fv))
	}

	byName := map[string]report.Program{}
	for _, p := range reused.report.Programs {
		byName[p.Name] = p
	}
	_, rescore := rescorer(t, before, files)
	code, rescored, _ := rescore(afterSpec)
	if code == 0 {
		t.Errorf("rescore accepted a spec whose every row changed:\n%s", indent(rescored))
	}
	for _, r := range rows {
		name := r.name
		if r.lookup != "" {
			name = r.lookup
		}
		p, ok := byName[name]
		if !ok {
			continue // a row of several entries names its own in part
		}
		for _, c := range p.Cases {
			switch {
			case r.part == "" && c.ReusedFrom == nil:
				t.Errorf("%s/%s (%v): the key is unchanged, but it ran again: %+v", name, c.Name, r.keys, c.NotReused)
			case r.part != "" && c.ReusedFrom != nil:
				t.Errorf("%s/%s (%v): reused, want it run again for %s", name, c.Name, r.keys, r.part)
			case r.part != "" && (c.NotReused == nil || !strings.Contains(c.NotReused.Reason, r.part)):
				t.Errorf("%s/%s (%v): ran again for %+v, want the reason to name %s", name, c.Name, r.keys, c.NotReused, r.part)
			}
		}
		if r.part != "" && !strings.Contains(rescored, fmt.Sprintf("%q", name)) {
			t.Errorf("rescore does not name %s (%v), whose key changed:\n%s", name, r.keys, indent(rescored))
		}
	}
	if t.Failed() {
		t.Logf("the spec now:\n%s", indent(afterSpec))
	}
}

// schemaKeys are every key of a profile, a build, a program entry and a
// case, as "section.key", from the spec's own schema.
func schemaKeys(t *testing.T) []string {
	t.Helper()
	b, err := spec.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, def := range []string{"profile", "build", "program", "case"} {
		props := s.Defs[def].Properties
		if len(props) == 0 {
			t.Fatalf("the schema has no %s keys", def)
		}
		for k := range props {
			out = append(out, def+"."+k)
		}
	}
	slices.Sort(out)
	return out
}

// soundRows is the table. Each row has its own profile p_<name> and
// entry, so one run holds them all; a case expects @program/case@, which
// becomes what it printed in the stored run.
func soundRows() []soundRow {
	entry := func(name, file, extra, caseText string) string {
		return fmt.Sprintf("  - name: %s\n    file: %s\n    profile: p_%s\n%s    cases:\n      - %s", name, file, name, extra, caseText)
	}
	dirEntry := func(name, dir, caseText string) string {
		return fmt.Sprintf("  - name: %s\n    %s\n    profile: p_%s\n    cases:\n      - %s", name, dir, name, caseText)
	}
	probeCase := func(name string) string {
		return fmt.Sprintf(`{name: c, args: ["x"], stdin: "in", expect: {stdout: {equals: @%s/c@}}}`, name)
	}
	plain := func(name string) string {
		return entry(name, "probe.sh", "", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`)
	}
	after := func(name string) string { return entry(name, "probe.sh", "", probeCase(name)) }
	profRow := func(name, key, part, profAfter string) soundRow {
		return soundRow{keys: []string{key}, name: name, profBefore: baseProfile, profAfter: profAfter,
			entryBefore: plain(name), entryAfter: after(name), part: part}
	}
	edit := func(from, to string) string {
		if !strings.Contains(baseProfile, from) {
			panic(from)
		}
		return strings.Replace(baseProfile, from, to, 1)
	}
	buildEdit := func(from, to string) string {
		if !strings.Contains(withBuild, from) {
			panic(from)
		}
		return strings.Replace(withBuild, from, to, 1)
	}
	buildRow := func(name, key, part, profAfter string) soundRow {
		return soundRow{keys: []string{key}, name: name, profBefore: withBuild, profAfter: profAfter,
			entryBefore: plain(name), entryAfter: after(name), part: part}
	}
	rows := []soundRow{
		profRow("image", "profile.image", "image", edit(`image: %[1]q`, `image: %[2]q`)),
		profRow("command", "profile.command", "command", edit(`command: ["/bin/sh"]`, `command: ["/bin/sh", "-e"]`)),
		profRow("program_name", "profile.program_name", "command", edit(`command: ["/bin/sh"]`, `command: ["/bin/sh"]
    program_name: main.sh`)),
		profRow("timeout", "profile.timeout", "limits.timeout_ms", edit(`timeout: 10s`, `timeout: 9s`)),
		profRow("memory", "profile.memory", "limits.memory_bytes", edit(`memory: 64MiB`, `memory: 32MiB`)),
		profRow("cpus", "profile.cpus", "limits.cpus", edit(`cpus: 1`, `cpus: 0.5`)),
		profRow("pids", "profile.pids", "limits.pids", edit(`pids: 64`, `pids: 32`)),
		profRow("output_limit", "profile.output_limit", "limits.output_limit", edit(`output_limit: 4KiB`, `output_limit: 64B`)),
		profRow("output_ceiling", "profile.output_ceiling", "limits.output_ceiling", edit(`output_ceiling: 1MiB`, `output_ceiling: 8KiB`)),
		profRow("user", "profile.user", "user", edit(`user: "65534:65534"`, `user: "1000:1000"`)),
		profRow("tmpfs_changed", "profile.tmpfs", "tmpfs", edit(`/tmp: 1MiB`, `/tmp: 3MiB`)),
		profRow("tmpfs_added", "profile.tmpfs", "tmpfs", edit(`/scratch: 2MiB}`, `/scratch: 2MiB, /added: 1MiB}`)),
		profRow("tmpfs_one_removed", "profile.tmpfs", "tmpfs", edit(`tmpfs: {/tmp: 1MiB, /scratch: 2MiB}`, `tmpfs: {/scratch: 2MiB}`)),
		profRow("tmpfs_all_removed", "profile.tmpfs", "tmpfs", edit("\n    tmpfs: {/tmp: 1MiB, /scratch: 2MiB}", "")),
		profRow("env_changed", "profile.env", "env", edit(`MODE: a`, `MODE: b`)),
		profRow("env_added", "profile.env", "env", edit(`KEEP: k}`, `KEEP: k, ADDED: "1"}`)),
		profRow("env_removed", "profile.env", "env", edit(`{MODE: a, KEEP: k}`, `{MODE: a}`)),
		profRow("runtime", "profile.runtime", "runtime", edit(`network_files: none`, "network_files: none\n    runtime: runc")),
		profRow("network_files", "profile.network_files", "network_files", edit(`network_files: none`, `network_files: managed`)),
		profRow("repeat", "profile.repeat", "repeat", edit(`network_files: none`, "network_files: none\n    repeat: 2")),
		profRow("build_added", "profile.build", "command", withBuild),
		buildRow("build_removed", "profile.build", "command", baseProfile),
		buildRow("build_image", "build.image", "build.image", buildEdit(`build: {command`, `build: {image: %[2]q, command`)),
		buildRow("build_command", "build.command", "build.command", buildEdit(`["/bin/cp", "{program}"`, `["/bin/cp", "-p", "{program}"`)),
		buildRow("build_timeout", "build.timeout", "build.limits.timeout_ms", buildEdit(`timeout: 10s, memory`, `timeout: 9s, memory`)),
		buildRow("build_memory", "build.memory", "build.limits.memory_bytes", buildEdit(`memory: 64MiB, cpus`, `memory: 32MiB, cpus`)),
		buildRow("build_cpus", "build.cpus", "build.limits.cpus", buildEdit(`cpus: 1,`, `cpus: 0.5,`)),
		buildRow("build_pids", "build.pids", "build.limits.pids", buildEdit(`pids: 64, output_limit`, `pids: 32, output_limit`)),
		buildRow("build_output_limit", "build.output_limit", "build.limits.output_limit", buildEdit(`output_limit: 4KiB, output_ceiling`, `output_limit: 2KiB, output_ceiling`)),
		buildRow("build_output_ceiling", "build.output_ceiling", "build.limits.output_ceiling", buildEdit(`output_ceiling: 1MiB}`, `output_ceiling: 8KiB}`)),
		buildRow("build_output_size", "build.output_size", "build.output_size", buildEdit(`output_size: 1MiB`, `output_size: 16B`)),
		buildRow("build_tmpfs_removed", "build.tmpfs", "build.tmpfs", buildEdit(`tmpfs: {/tmp: 1MiB}, output_size`, `tmpfs: {/scratch: 1MiB}, output_size`)),

		// A program entry's keys.
		// A changed program has no stored run on its input.
		{keys: []string{"program.file"}, name: "file", profBefore: baseProfile, profAfter: baseProfile, part: "no stored run",
			entryBefore: plain("file"), entryAfter: entry("file", "other.sh", "", probeCase("file"))},
		{keys: []string{"program.files"}, name: "files", lookup: "files/g1.sh", profBefore: baseProfile, profAfter: baseProfile, part: "no stored run",
			entryBefore: "  - name: files\n    files: glob/*.sh\n    profile: p_files\n    cases:\n      - {name: c, expect: {exit_code: 0}}",
			entryAfter:  "  - name: files\n    files: glob2/*.sh\n    profile: p_files\n    cases:\n      - {name: c, expect: {exit_code: 0}}"},
		// A folder program: another folder has another id and digest;
		// another entry is another command over the same files; another
		// with: file is another file list under the same id.
		{keys: []string{"program.dir"}, name: "dir", profBefore: baseProfile, profAfter: baseProfile, part: "no stored run",
			entryBefore: dirEntry("dir", "dir: d1\n    entry: probe.sh", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`),
			entryAfter:  dirEntry("dir", "dir: d2\n    entry: probe.sh", probeCase("dir"))},
		{keys: []string{"program.entry"}, name: "entry", profBefore: baseProfile, profAfter: baseProfile, part: "command",
			entryBefore: dirEntry("entry", "dir: d1\n    entry: probe.sh", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`),
			entryAfter:  dirEntry("entry", "dir: d1\n    entry: other.sh", probeCase("entry"))},
		{keys: []string{"program.dirs"}, name: "dirs", lookup: "dirs/a", profBefore: baseProfile, profAfter: baseProfile, part: "no stored run",
			entryBefore: dirEntry("dirs", "dirs: dg1/*\n    entry: probe.sh", `{name: c, expect: {exit_code: 0}}`),
			entryAfter:  dirEntry("dirs", "dirs: dg2/*\n    entry: probe.sh", `{name: c, expect: {exit_code: 0}}`)},
		{keys: []string{"program.with"}, name: "with", profBefore: baseProfile, profAfter: baseProfile, part: "program",
			entryBefore: entry("with", "probe.sh", "    with: [in.txt]\n", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`),
			entryAfter:  entry("with", "probe.sh", "    with: [in2.txt]\n", probeCase("with"))},
		{keys: []string{"program.entry"}, name: "entry_removed", profBefore: baseProfile, profAfter: baseProfile, part: "command",
			entryBefore: dirEntry("entry_removed", "dir: d1\n    entry: probe.sh", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`),
			entryAfter:  dirEntry("entry_removed", "dir: d1", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`)},
		{keys: []string{"program.with"}, name: "with_added", profBefore: baseProfile, profAfter: baseProfile, part: "program",
			entryBefore: plain("with_added"),
			entryAfter:  entry("with_added", "probe.sh", "    with: [in.txt]\n", probeCase("with_added"))},
		{keys: []string{"program.with"}, name: "with_removed", profBefore: baseProfile, profAfter: baseProfile, part: "program",
			entryBefore: entry("with_removed", "probe.sh", "    with: [in.txt]\n", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`),
			entryAfter:  after("with_removed")},
		{keys: []string{"program.profile"}, name: "profile", profBefore: baseProfile, profAfter: edit(`MODE: a`, `MODE: c`), part: "env",
			entryBefore: plain("profile"), entryAfter: after("profile")},
		// Names and expectations are not in the key: the stored run is
		// reused, and judged against the expectation now.
		{keys: []string{"program.name", "program.cases", "case.name", "case.expect"}, name: "renamed", lookup: "renamed2", profBefore: baseProfile, profAfter: baseProfile, part: "",
			entryBefore: plain("renamed"), entryAfter: strings.Replace(entry("renamed", "probe.sh", "", `{name: other, args: ["x"], stdin: "in", expect: {stdout: {contains: "uid"}}}`), "name: renamed", "name: renamed2", 1)},
		// Whether a program gates the run is not evidence: its stored run
		// answers. (gate: false needs the workflow's --allow-non-gating,
		// which the table's runs do not give: gate: true, the default
		// written out, is the edit.)
		{keys: []string{"program.gate"}, name: "gate", profBefore: baseProfile, profAfter: baseProfile, part: "",
			entryBefore: plain("gate"), entryAfter: entry("gate", "probe.sh", "    gate: true\n", `{name: c, args: ["x"], stdin: "in", expect: {exit_code: 0}}`)},
		{keys: []string{"program.cases_file"}, name: "cases_file", profBefore: baseProfile, profAfter: baseProfile, part: "args",
			entryBefore: "  - name: cases_file\n    file: probe.sh\n    profile: p_cases_file\n    cases_file: cases.yml",
			entryAfter:  "  - name: cases_file\n    file: probe.sh\n    profile: p_cases_file\n    cases_file: cases2.yml"},
		{keys: []string{"program.inputs_file"}, name: "inputs_file", profBefore: baseProfile, profAfter: baseProfile, part: "args",
			entryBefore: "  - name: ref_in\n    file: ref.sh\n    profile: p_inputs_file\n    cases:\n      - {name: own, expect: {exit_code: 0}}\n  - name: inputs_file\n    file: cand.sh\n    profile: p_inputs_file\n    reference: ref_in\n    inputs_file: inputs.jsonl",
			entryAfter:  "  - name: ref_in\n    file: ref.sh\n    profile: p_inputs_file\n    cases:\n      - {name: own, expect: {exit_code: 0}}\n  - name: inputs_file\n    file: cand.sh\n    profile: p_inputs_file\n    reference: ref_in\n    inputs_file: inputs2.jsonl"},
		// A differential case switched to another reference entry: the
		// same file, another profile (MODE a or b).
		{keys: []string{"program.reference"}, name: "reference", profBefore: baseProfile, profAfter: baseProfile, part: "reference.env",
			entryBefore: refEntries + "\n  - name: reference\n    file: cand.sh\n    profile: p_reference\n    reference: ref_a\n    cases:\n      - {name: c, expect: {same_as: reference}}",
			entryAfter:  refEntries + "\n  - name: reference\n    file: cand.sh\n    profile: p_reference\n    reference: ref_b\n    cases:\n      - {name: c, expect: {same_as: reference}}"},
		// A new entry sharing a program with another's, against the other
		// reference: the stored comparison with ref_a must not answer it.
		{keys: []string{"program.reference"}, name: "ref_b", lookup: "newcand", profBefore: edit(`MODE: a`, `MODE: b`), profAfter: edit(`MODE: a`, `MODE: b`), part: "reference.env",
			entryAfter: "  - name: newcand\n    file: cand.sh\n    profile: p_reference\n    reference: ref_b\n    cases:\n      - {name: c, expect: {same_as: reference}}"},

		// A case's keys.
		{keys: []string{"case.args"}, name: "args", profBefore: baseProfile, profAfter: baseProfile, part: "args",
			entryBefore: plain("args"), entryAfter: entry("args", "probe.sh", "", `{name: c, args: ["y"], stdin: "in", expect: {exit_code: 0}}`)},
		{keys: []string{"case.stdin"}, name: "stdin", profBefore: baseProfile, profAfter: baseProfile, part: "stdin",
			entryBefore: plain("stdin"), entryAfter: entry("stdin", "probe.sh", "", `{name: c, args: ["x"], stdin: "other", expect: {stdout: {equals: @stdin/c@}}}`)},
		{keys: []string{"case.stdin_file"}, name: "stdin_file", profBefore: baseProfile, profAfter: baseProfile, part: "stdin",
			entryBefore: entry("stdin_file", "probe.sh", "", `{name: c, stdin_file: in.txt, expect: {exit_code: 0}}`),
			entryAfter:  entry("stdin_file", "probe.sh", "", `{name: c, stdin_file: in2.txt, expect: {stdout: {equals: @stdin_file/c@}}}`)},
		{keys: []string{"case.repeat"}, name: "case_repeat", profBefore: baseProfile, profAfter: baseProfile, part: "repeat",
			entryBefore: plain("case_repeat"), entryAfter: entry("case_repeat", "probe.sh", "", `{name: c, args: ["x"], stdin: "in", repeat: 2, expect: {exit_code: 0}}`)},
	}
	return rows
}

// refEntries are the two reference entries of the differential rows: one
// file, profiles p_reference (MODE a) and p_ref_b (MODE b).
const refEntries = "  - name: ref_a\n    file: ref.sh\n    profile: p_reference\n    cases:\n      - {name: own, expect: {exit_code: 0}}\n  - name: ref_b\n    file: ref.sh\n    profile: p_ref_b\n    cases:\n      - {name: own, expect: {exit_code: 0}}"
