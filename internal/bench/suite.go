package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// kind is one of the two trivial programs the suites mix, alternating
// program by program (even programs are shell, odd are Python), so that any
// even number of programs is an even mix.
type kind int

const (
	// kindShell is busybox sh reading a line from stdin and echoing it.
	kindShell kind = iota
	// kindPython is python3 printing its first argument.
	kindPython
	// kindEval is a Python program as evaluation harnesses run them: it
	// defines a function and checks it with a few asserts (the python
	// profile; it prints nothing and exits 0).
	kindEval
)

// kinds are every kind, in the order their programs are delivered.
var kinds = []kind{kindShell, kindPython, kindEval}

func (k kind) String() string {
	switch k {
	case kindPython:
		return "python"
	case kindEval:
		return "eval"
	}
	return "shell"
}

// profile is one runtime profile as the bench writes it into the spec and
// as the floor and the docker CLI loop apply it. The values are the spec's
// (what spec.Load turns into a runner.Profile); every field is written out,
// so that no default of behaves' is assumed here.
type profile struct {
	name          string
	image         string
	command       []string
	timeout       time.Duration
	memory        int64
	cpus          float64
	pids          int64
	outputLimit   int64
	outputCeiling int64
	user          string
	tmpfs         map[string]int64
}

// profiles are the two suite profiles and the one of the output flood.
type profiles struct {
	shell, python, flood profile
}

// newProfiles returns the bench's profiles for the two images. floodCeiling
// is the output ceiling of the flood profile (above the flood's size).
func newProfiles(shellImage, pythonImage string, floodCeiling int64) profiles {
	shell := profile{
		name:          "shell",
		image:         shellImage,
		command:       []string{"/bin/sh"},
		timeout:       10 * time.Second,
		memory:        64 << 20,
		cpus:          1,
		pids:          64,
		outputLimit:   64 << 10,
		outputCeiling: 4 << 20,
		user:          "65534:65534",
		tmpfs:         map[string]int64{},
	}
	python := shell
	python.name = "python"
	python.image = pythonImage
	python.command = []string{"python3", "-I"}
	python.tmpfs = map[string]int64{"/tmp": 16 << 20}
	flood := shell
	flood.name = "flood"
	flood.timeout = 5 * time.Minute
	flood.outputCeiling = floodCeiling
	return profiles{shell: shell, python: python, flood: flood}
}

func (ps profiles) of(k kind) profile {
	if k == kindPython || k == kindEval {
		return ps.python
	}
	return ps.shell
}

// largestMemory is the largest memory limit of the suite profiles (what
// behaves' default parallelism divides the available memory by).
func (ps profiles) largestMemory() int64 {
	return max(ps.shell.memory, ps.python.memory)
}

// invocation is one case: what goes in and what must come out.
type invocation struct {
	program int // index in suite.programs
	kind    kind
	name    string
	args    []string
	stdin   string
	want    string // stdout, without its trailing newline
}

// program is one generated program file and its cases.
type program struct {
	name   string
	kind   kind
	file   string // file name in the suite folder; also the name under /program
	source []byte
	cases  []invocation
}

// suite is a generated set of programs and cases.
type suite struct {
	name     string
	programs []program
}

// programSource is program i's file. The index in a comment makes every
// program's bytes distinct, as generated samples are.
func programSource(i int, k kind) []byte {
	if k == kindEval {
		return fmt.Appendf(nil, `# behaves bench eval program %[1]d
def solution(xs, k):
    """The k largest distinct values of xs, largest first."""
    return sorted(set(xs), reverse=True)[:k]


def check(candidate):
    assert candidate([], 3) == []
    assert candidate([1, 2, 3], 1) == [3]
    assert candidate([4, 4, 1, 2], 2) == [4, 2]
    assert candidate(list(range(%[1]d + 10)), 3) == [%[1]d + 9, %[1]d + 8, %[1]d + 7]


check(solution)
`, i)
	}
	if k == kindPython {
		return fmt.Appendf(nil, "# behaves bench program %d\nimport sys\nprint(sys.argv[1])\n", i)
	}
	return fmt.Appendf(nil, "# behaves bench program %d\nread line\necho \"$line\"\n", i)
}

// newProgram is program i with the given number of cases. Program i and its
// case c are the same in every suite, so that a sample is a subset of a
// larger suite.
func newProgram(i, cases int) program {
	k := kind(i % 2)
	ext := ".sh"
	if k == kindPython {
		ext = ".py"
	}
	p := program{
		name:   fmt.Sprintf("p%03d", i),
		kind:   k,
		file:   fmt.Sprintf("p%03d%s", i, ext),
		source: programSource(i, k),
	}
	for c := range cases {
		token := fmt.Sprintf("p%03d-c%02d", i, c)
		inv := invocation{program: i, kind: k, name: fmt.Sprintf("c%02d", c), want: token}
		if k == kindPython {
			inv.args = []string{token}
		} else {
			inv.stdin = token + "\n"
		}
		p.cases = append(p.cases, inv)
	}
	return p
}

// newEvalProgram is evaluation program i: one case, no input, no output,
// exit code 0.
func newEvalProgram(i int) program {
	return program{
		name:   fmt.Sprintf("e%03d", i),
		kind:   kindEval,
		file:   fmt.Sprintf("e%03d.py", i),
		source: programSource(i, kindEval),
		cases:  []invocation{{program: i, kind: kindEval, name: "check"}},
	}
}

// newEvalSuite is n evaluation programs of one case each.
func newEvalSuite(name string, n int) suite {
	s := suite{name: name}
	for i := range n {
		s.programs = append(s.programs, newEvalProgram(i))
	}
	return s
}

// newSuite is programs × cases invocations.
func newSuite(name string, programs, cases int) suite {
	s := suite{name: name}
	for i := range programs {
		s.programs = append(s.programs, newProgram(i, cases))
	}
	return s
}

// newSuiteN is n invocations in programs of casesPer cases (the last
// program takes the remainder).
func newSuiteN(name string, n, casesPer int) suite {
	s := suite{name: name}
	for i := 0; n > 0; i++ {
		c := min(n, casesPer)
		s.programs = append(s.programs, newProgram(i, c))
		n -= c
	}
	return s
}

// shape is "programs×cases" for the table ("10×5", "3×10+1×4").
func (s suite) shape() string {
	var parts []string
	run, last := 0, -1
	flush := func() {
		if run > 0 {
			parts = append(parts, fmt.Sprintf("%d×%d", run, last))
		}
	}
	for _, p := range s.programs {
		if len(p.cases) != last {
			flush()
			run, last = 0, len(p.cases)
		}
		run++
	}
	flush()
	return strings.Join(parts, "+")
}

// invocations lists the suite's invocations in order.
func (s suite) invocations() []invocation {
	var out []invocation
	for _, p := range s.programs {
		out = append(out, p.cases...)
	}
	return out
}

// size is the number of invocations.
func (s suite) size() int {
	n := 0
	for _, p := range s.programs {
		n += len(p.cases)
	}
	return n
}

// write writes the suite's program files and its behaves.yml into a new
// folder under root and returns the spec's path.
func (s suite) write(root string, ps profiles) (string, error) {
	dir := filepath.Join(root, s.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Generated by cmd/bench.\nversion: 1\nprofiles:\n")
	writeProfile(&b, ps.shell)
	writeProfile(&b, ps.python)
	b.WriteString("programs:\n")
	for _, p := range s.programs {
		if err := os.WriteFile(filepath.Join(dir, p.file), p.source, 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  - name: %s\n    file: %s\n    profile: %s\n    cases:\n", p.name, p.file, ps.of(p.kind).name)
		for _, c := range p.cases {
			fmt.Fprintf(&b, "      - name: %s\n", c.name)
			if len(c.args) > 0 {
				fmt.Fprintf(&b, "        args: %s\n", jsonString(c.args))
			}
			if c.stdin != "" {
				fmt.Fprintf(&b, "        stdin: %s\n", jsonString(c.stdin))
			}
			if c.kind == kindEval {
				// As an eval harness judges: the asserts held.
				b.WriteString("        expect: {exit_code: 0}\n")
				continue
			}
			fmt.Fprintf(&b, "        expect: {exit_code: 0, stdout: {equals: %s}}\n", jsonString(c.want))
		}
	}
	path := filepath.Join(dir, "behaves.yml")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeFloodSpec writes the spec of the output flood: one shell program that
// writes size zero bytes to stdout, with the flood profile (its output
// ceiling above size, so that every byte is drained).
func writeFloodSpec(root string, ps profiles, size int64) (string, error) {
	// A folder per size: the floods' specs and programs must not overwrite
	// each other (the 1 GiB program ran as the 256 MiB flood before).
	dir := filepath.Join(root, floodName(size))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := fmt.Sprintf("head -c %d /dev/zero\n", size)
	if err := os.WriteFile(filepath.Join(dir, "flood.sh"), []byte(src), 0o644); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Generated by cmd/bench.\nversion: 1\nprofiles:\n")
	writeProfile(&b, ps.flood)
	b.WriteString("programs:\n  - name: flood\n    file: flood.sh\n    profile: flood\n    cases:\n")
	b.WriteString("      - name: writes to stdout\n        expect: {exit_code: 0}\n")
	path := filepath.Join(dir, "behaves.yml")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

func writeProfile(b *strings.Builder, p profile) {
	fmt.Fprintf(b, "  %s:\n", p.name)
	fmt.Fprintf(b, "    image: %s\n", jsonString(p.image))
	fmt.Fprintf(b, "    command: %s\n", jsonString(p.command))
	fmt.Fprintf(b, "    timeout: %s\n", p.timeout)
	fmt.Fprintf(b, "    memory: %s\n", specSize(p.memory))
	fmt.Fprintf(b, "    cpus: %g\n", p.cpus)
	fmt.Fprintf(b, "    pids: %d\n", p.pids)
	fmt.Fprintf(b, "    output_limit: %s\n", specSize(p.outputLimit))
	fmt.Fprintf(b, "    output_ceiling: %s\n", specSize(p.outputCeiling))
	fmt.Fprintf(b, "    user: %s\n", jsonString(p.user))
	if len(p.tmpfs) > 0 {
		paths := make([]string, 0, len(p.tmpfs))
		for k := range p.tmpfs {
			paths = append(paths, k)
		}
		sort.Strings(paths)
		b.WriteString("    tmpfs:\n")
		for _, k := range paths {
			fmt.Fprintf(b, "      %s: %s\n", jsonString(k), specSize(p.tmpfs[k]))
		}
	}
}

// specSize writes n bytes in the spec's binary units, exactly.
func specSize(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n > 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// jsonString is v as JSON, which YAML reads as the same string or list.
func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings and string slices always marshal
	}
	return string(b)
}
