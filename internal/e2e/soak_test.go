package e2e

// The soak test: one generated spec of N invocations (1,000 by
// default) mixing correct and wrong programs with the hostile ones (endless
// loops, memory and fork bombs, output floods, daemonised children, stdin
// games, self-kills, network inspection), run with parallelism, and then:
// no container or volume of the run left, no event missing (every case of
// the spec is in the report with a complete event), every verdict and the
// event fields behind it exactly as expected. It also measures wall time,
// throughput and behaves' peak RSS (in a separate process).
//
// It is not part of the default suite (it takes minutes):
//
//	BEHAVES_SOAK=1 go test -run TestSoak -timeout 60m ./internal/e2e/
//
// BEHAVES_SOAK_N changes the invocation count. Two runs of the same spec,
// one after the other: TestSoak/binary (the built behaves binary as a child
// process, --parallel 4, its peak RSS from its rusage) and
// TestSoak/in-process (behaves in the test process through the harness, the
// default --parallel); -run TestSoak/binary selects one.
//
// Never aim a connection or a DNS lookup at an address outside 127.0.0.0/8
// here: the network programs only inspect interfaces, routes and the
// resolver, and connect to loopback inside the container.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// soakDefaultN is the number of invocations when BEHAVES_SOAK_N is unset.
const soakDefaultN = 1000

// soakGlobFiles is how many sample files one files: glob matches at most.
const soakGlobFiles = 10

// soakProfile is one profile of the generated spec; the event's limits must
// show these values.
type soakProfile struct {
	image         string // "busybox" or "python"
	command       []string
	timeout       time.Duration
	memory        int64
	pids          int64
	outputLimit   int64
	outputCeiling int64
	tmpfs         bool // a 1 MiB /tmp
}

var soakProfiles = map[string]soakProfile{
	"py":       {image: "python", command: []string{"python3", "-I"}, timeout: 20 * time.Second, memory: 64 << 20, pids: 64, outputLimit: 64 << 10, outputCeiling: 4 << 20},
	"py-short": {image: "python", command: []string{"python3", "-I"}, timeout: 2 * time.Second, memory: 64 << 20, pids: 64, outputLimit: 64 << 10, outputCeiling: 4 << 20},
	"py-pids":  {image: "python", command: []string{"python3", "-I"}, timeout: 20 * time.Second, memory: 128 << 20, pids: 32, outputLimit: 64 << 10, outputCeiling: 4 << 20},
	"sh":       {image: "busybox", command: []string{"/bin/sh"}, timeout: 20 * time.Second, memory: 64 << 20, pids: 32, outputLimit: 64 << 10, outputCeiling: 4 << 20, tmpfs: true},
	"sh-short": {image: "busybox", command: []string{"/bin/sh"}, timeout: 2 * time.Second, memory: 64 << 20, pids: 32, outputLimit: 64 << 10, outputCeiling: 4 << 20},
	"sh-flood": {image: "busybox", command: []string{"/bin/sh"}, timeout: 20 * time.Second, memory: 64 << 20, pids: 32, outputLimit: 64 << 10, outputCeiling: 1 << 20},
	"sh-small": {image: "busybox", command: []string{"/bin/sh"}, timeout: 20 * time.Second, memory: 64 << 20, pids: 32, outputLimit: 1 << 10, outputCeiling: 1 << 20},
}

// soakWant is what one case must show.
type soakWant struct {
	verdict  verdict.Verdict
	exit     int
	timedOut bool
	limit    runner.ResourceLimit
	// reason is a prefix of the case's reason; "" checks nothing more
	// (a true case's reason must always be empty).
	reason string
	// stdout, when set, is the exact retained stdout.
	stdout string
}

// soakCase is a case template: the YAML flow-mapping body that follows its
// name, its stdin (inline or a file of soakStdinFiles) and what it must show.
type soakCase struct {
	name      string
	body      string
	stdin     string
	stdinFile string
	want      soakWant
}

// soakKind is one kind of program in the mix.
type soakKind struct {
	name    string
	profile string
	file    string // the program's file name
	source  string
	// glob: delivered as many sample files matched by a files: glob, each
	// with every case; otherwise file: entries of up to chunk cases that
	// cycle through the templates.
	glob   bool
	chunk  int
	weight float64
	cases  []soakCase
}

var (
	soakBigStdin = strings.Repeat(strings.Repeat("x", 63)+"\n", (10<<20)/64)
	soakMiBStdin = strings.Repeat("y", 1<<20)
	// soakStdinFiles are the stdin files of the spec.
	soakStdinFiles = map[string]string{"stdin/big.txt": soakBigStdin, "stdin/one-mib.txt": soakMiBStdin}
	soakHaystack   = strings.Repeat("x", 2000)
)

// Short forms for the expectations below.
var (
	soakTrue    = soakWant{verdict: verdict.True}
	soakTimeout = soakWant{verdict: verdict.False, exit: 137, timedOut: true, reason: "timed out after 2s"}
	soakMemory  = soakWant{verdict: verdict.False, exit: 137, limit: runner.LimitMemory, reason: "killed: memory limit 64MiB"}
)

// soakKinds is the mix, weighted so that most invocations are quick. The
// program texts are those of the hostile and core suites.
var soakKinds = []soakKind{
	// Correct programs: true.
	{name: "correct-py", profile: "py", file: "sum.py", glob: true, weight: 18,
		source: "import sys\nprint(int(sys.argv[1]) + int(sys.argv[2]))\n",
		cases: []soakCase{
			{name: "2+3", body: `args: ["2", "3"], expect: {stdout: {equals: "5"}}`, want: soakTrue},
			{name: "0+0", body: `args: ["0", "0"], expect: {stdout: {equals: "0"}}`, want: soakTrue},
			{name: "negative", body: `args: ["-4", "10"], expect: {stdout: {equals: "6"}}`, want: soakTrue},
			{name: "large", body: `args: ["123456789", "987654321"], expect: {stdout: {equals: "1111111110"}}`, want: soakTrue},
		}},
	{name: "correct-sh", profile: "sh", file: "echo.sh", glob: true, weight: 20,
		source: "if [ \"$1\" = --exit ]; then exit \"$2\"; fi\necho \"[$1] [$2]\"\ncat\n",
		cases: []soakCase{
			{name: "args and stdin", stdin: "line 1\nline 2\n",
				body: `args: ["a b", "c"], stdin: "line 1\nline 2\n", expect: {stdout: {equals: "[a b] [c]\nline 1\nline 2\n", normalize: exact}, stderr: {equals: ""}}`,
				want: soakWant{verdict: verdict.True, stdout: "[a b] [c]\nline 1\nline 2\n"}},
			{name: "args only", body: `args: ["x", "y"], expect: {stdout: {equals: "[x] [y]"}}`, want: soakTrue},
			{name: "exit code 7", body: `args: ["--exit", "7"], expect: {exit_code: 7}`, want: soakWant{verdict: verdict.True, exit: 7}},
			// An exit code (exit codes row): false, a plain exit code.
			{name: "exit code 3, 4 expected", body: `args: ["--exit", "3"], expect: {exit_code: 4}`,
				want: soakWant{verdict: verdict.False, exit: 3, reason: "exit code 3, expected 4"}},
		}},
	// Wrong output: false (and true where the wrong sum happens to agree).
	{name: "wrong-py", profile: "py", file: "wrong.py", glob: true, weight: 12,
		source: "import sys\nprint(int(sys.argv[1]) * int(sys.argv[2]))\n",
		cases: []soakCase{
			{name: "2+3", body: `args: ["2", "3"], expect: {stdout: {equals: "5"}}`, want: soakWant{verdict: verdict.False, reason: "stdout"}},
			{name: "2+2", body: `args: ["2", "2"], expect: {stdout: {equals: "4"}}`, want: soakTrue},
			{name: "1+1", body: `args: ["1", "1"], expect: {stdout: {equals: "2"}}`, want: soakWant{verdict: verdict.False, reason: "stdout"}},
		}},
	{name: "exits", profile: "sh", file: "exits.sh", chunk: 8, weight: 8,
		source: "echo \"code $1\"\nexit \"$1\"\n",
		cases: []soakCase{
			{name: "exit 0", body: `args: ["0"], expect: {stdout: {equals: "code 0"}}`, want: soakTrue},
			{name: "exit 3", body: `args: ["3"], expect: {exit_code: 3}`, want: soakWant{verdict: verdict.True, exit: 3}},
			{name: "exit 1, 0 expected", body: `args: ["1"], expect: {stdout: {equals: "code 1"}}`,
				want: soakWant{verdict: verdict.False, exit: 1, reason: "exit code 1, expected 0"}},
			{name: "exit 255", body: `args: ["255"], expect: {exit_code: 255, stdout: {equals: "code 255"}}`, want: soakWant{verdict: verdict.True, exit: 255}},
		}},
	{name: "syntax-py", profile: "py", file: "syntax.py", chunk: 4, weight: 1.5,
		source: "print('ok'\n",
		cases:  []soakCase{{name: "runs", body: `expect: {stdout: {equals: "ok"}}`, want: soakWant{verdict: verdict.False, exit: 1}}}},
	// Endless programs, stopped at a 2s timeout: false, timed out.
	{name: "loop-py", profile: "py-short", file: "loop.py", chunk: 3, weight: 1.5,
		source: "while True:\n    pass\n",
		cases:  []soakCase{{name: "ends", body: `expect: {stdout: {equals: "done"}}`, want: soakTimeout}}},
	{name: "cpu-loop-sh", profile: "sh-short", file: "cpu_loop.sh", chunk: 3, weight: 1,
		source: "echo started\nwhile :; do :; done\necho done\n",
		cases:  []soakCase{{name: "ends", body: `expect: {stdout: {equals: "done"}}`, want: soakWant{verdict: verdict.False, exit: 137, timedOut: true, reason: "timed out after 2s", stdout: "started\n"}}}},
	{name: "sleep-forever-sh", profile: "sh-short", file: "sleep_forever.sh", chunk: 3, weight: 0.5,
		source: "echo started\nsleep 2147483647\necho done\n",
		cases:  []soakCase{{name: "ends", body: `expect: {stdout: {equals: "done"}}`, want: soakWant{verdict: verdict.False, exit: 137, timedOut: true, reason: "timed out after 2s", stdout: "started\n"}}}},
	{name: "ignores-signals-sh", profile: "sh-short", file: "ignores_signals.sh", chunk: 3, weight: 0.5,
		source: "trap '' TERM INT HUP\nkill -TERM $$; kill -INT $$; kill -HUP $$\necho survived\nwhile :; do sleep 1; done\necho done\n",
		cases:  []soakCase{{name: "ends", body: `expect: {stdout: {equals: "done"}}`, want: soakWant{verdict: verdict.False, exit: 137, timedOut: true, reason: "timed out after 2s", stdout: "survived\n"}}}},
	// Memory: a bomb, and an OOM-killed child under a parent that exits 0.
	{name: "memory-bomb-py", profile: "py", file: "memory_bomb.py", chunk: 4, weight: 2,
		source: memoryBombPy,
		cases:  []soakCase{{name: "survives", body: `expect: {stdout: {equals: "survived"}}`, want: soakMemory}}},
	{name: "oom-child-py", profile: "py", file: "oom_child.py", chunk: 4, weight: 1,
		source: "import subprocess, sys\nr = subprocess.run([sys.executable, \"-I\", \"-c\", \"b = bytearray(512 << 20); print('child survived')\"])\nprint(\"child returncode\", r.returncode)\n",
		cases: []soakCase{{name: "parent exits 0", body: `expect: {stdout: {contains: "child returncode"}}`,
			want: soakWant{verdict: verdict.False, exit: 0, limit: runner.LimitMemory, reason: "killed: memory limit 64MiB", stdout: "child returncode -9\n"}}}},
	// Processes: the classic fork bomb (pids 32, then stopped at the 2s
	// timeout) and a spawner that is refused and exits 0.
	{name: "fork-bomb-sh", profile: "sh-short", file: "fork_bomb.sh", chunk: 3, weight: 1,
		source: forkBombSh,
		cases:  []soakCase{{name: "ends", body: `expect: {stdout: {equals: "done"}}`, want: soakTimeout}}},
	{name: "spawner-py", profile: "py-pids", file: "spawner.py", chunk: 3, weight: 1,
		source: spawnerPy,
		cases:  []soakCase{{name: "is refused", body: `expect: {stdout: {contains: "refused=BlockingIOError/11"}}`, want: soakTrue}}},
	// Output floods past a 1 MiB ceiling: false, resource limit output.
	{name: "flood-sh", profile: "sh-flood", file: "flood.sh", chunk: 6, weight: 3,
		source: "case \"$1\" in\nstdout) yes ;;\nstderr) yes >&2 ;;\nesac\n",
		cases: []soakCase{
			{name: "endless stdout", body: `args: [stdout], expect: {stdout: {contains: "y"}}`,
				want: soakWant{verdict: verdict.False, exit: 137, limit: runner.LimitOutput, reason: "killed: stdout over the ceiling of 1MiB"}},
			{name: "endless stderr", body: `args: [stderr], expect: {stderr: {contains: "y"}}`,
				want: soakWant{verdict: verdict.False, exit: 137, limit: runner.LimitOutput, reason: "killed: stderr over the ceiling of 1MiB"}},
		}},
	// Output over output_limit (1 KiB) but under the ceiling: contains in
	// the kept part is true; equals whose kept part agrees is undetermined;
	// whose kept part differs is false.
	{name: "big-output-sh", profile: "sh-small", file: "big_output.sh", chunk: 6, weight: 5,
		source: "echo needle\nhead -c 200000 /dev/zero | tr '\\0' x\n",
		cases: []soakCase{
			{name: "contains found", body: `expect: {stdout: {contains: "needle"}}`, want: soakTrue},
			{name: "equals kept part agrees", body: `expect: {stdout: {equals: "needle\n` + soakHaystack + `"}}`, want: soakWant{verdict: verdict.Undetermined}},
			{name: "equals kept part differs", body: `expect: {stdout: {equals: "haystack\n` + soakHaystack + `"}}`, want: soakWant{verdict: verdict.False}},
		}},
	// Children that outlive the main process: judged on main alone.
	{name: "daemonised-sh", profile: "sh", file: "daemon.sh", chunk: 4, weight: 3,
		source: `(sleep 2; echo late-subshell) &
setsid sh -c 'sleep 2; echo late-setsid' &
nohup sh -c 'sleep 2; echo late-nohup' &
sleep 100 &
echo main
exit "${1:-0}"
`,
		cases: []soakCase{
			{name: "main exits 0", body: `expect: {stdout: {equals: "main"}}`, want: soakWant{verdict: verdict.True, stdout: "main\n"}},
			{name: "main exits 3", body: `args: ["3"], expect: {exit_code: 3, stdout: {equals: "main"}}`, want: soakWant{verdict: verdict.True, exit: 3, stdout: "main\n"}},
		}},
	// Stdin read to EOF, ignored, closed, or left unread while the program
	// writes first.
	{name: "stdin-sh", profile: "sh", file: "stdin.sh", chunk: 8, weight: 6,
		source: `case "$1" in
cat) cat; echo "<eof>" ;;
ignore) sleep 1; echo ignored ;;
close) exec 0<&-; sleep 1; echo closed ;;
first) head -c 1048576 /dev/zero; wc -c >&2 ;;
esac
`,
		cases: []soakCase{
			{name: "reads to EOF", stdin: "abc\n", body: `args: [cat], stdin: "abc\n", expect: {stdout: {equals: "abc\n<eof>"}}`, want: soakWant{verdict: verdict.True, stdout: "abc\n<eof>\n"}},
			{name: "ignores 10 MiB", stdinFile: "stdin/big.txt", body: `args: [ignore], stdin_file: stdin/big.txt, expect: {stdout: {equals: "ignored"}}`, want: soakTrue},
			{name: "closes it", stdinFile: "stdin/big.txt", body: `args: [close], stdin_file: stdin/big.txt, expect: {stdout: {equals: "closed"}}`, want: soakTrue},
			{name: "writes 1 MiB first", stdinFile: "stdin/one-mib.txt", body: `args: [first], stdin_file: stdin/one-mib.txt, expect: {stderr: {equals: "1048576"}}`, want: soakTrue},
		}},
	// A program that kills itself, one that exits 137: a plain exit code.
	{name: "kill-self-sh", profile: "sh", file: "kill_self.sh", chunk: 6, weight: 3,
		source: "echo before\nkill -9 $$\necho after\n",
		cases: []soakCase{
			{name: "expects 0", body: `expect: {stdout: {equals: "before"}}`, want: soakWant{verdict: verdict.False, exit: 137, reason: "exit code 137, expected 0", stdout: "before\n"}},
			{name: "expects 137", body: `expect: {exit_code: 137, stdout: {equals: "before"}}`, want: soakWant{verdict: verdict.True, exit: 137, stdout: "before\n"}},
		}},
	{name: "exit-137-sh", profile: "sh", file: "exit_137.sh", chunk: 6, weight: 2,
		source: "echo before\nexit 137\n",
		cases: []soakCase{
			{name: "expects 0", body: `expect: {stdout: {equals: "before"}}`, want: soakWant{verdict: verdict.False, exit: 137, reason: "exit code 137, expected 0", stdout: "before\n"}},
			{name: "expects 137", body: `expect: {exit_code: 137, stdout: {equals: "before"}}`, want: soakWant{verdict: verdict.True, exit: 137, stdout: "before\n"}},
		}},
	// Network, by inspection only: only lo, no route, no resolver
	// (network_files none, the default: resolv.conf is empty), nothing
	// listens on loopback, raw and packet sockets are refused.
	{name: "network-sh", profile: "sh", file: "network.sh", chunk: 6, weight: 3,
		source: `ls /sys/class/net
[ -z "$(ip route)" ] && [ ! -s /proc/net/route -o "$(wc -l < /proc/net/route)" -le 1 ] && echo "no route"
ns="$(sed -n 's/^nameserver[ \t]*//p' /etc/resolv.conf | tr '\n' ' ')"
echo "nameservers: ${ns:-none}"
if nc -w 2 127.0.0.1 8080 </dev/null 2>/dev/null; then echo "loopback: open"; else echo "loopback: refused"; fi
`,
		cases: []soakCase{{name: "isolated", body: `expect: {stdout: {equals: "lo\nno route\nnameservers: none\nloopback: refused"}}`, want: soakTrue}}},
	{name: "raw-socket-py", profile: "py", file: "raw_socket.py", chunk: 6, weight: 2,
		source: rawSocketPy,
		cases:  []soakCase{{name: "refused", body: `expect: {stdout: {equals: "raw socket refused\npacket socket refused"}}`, want: soakTrue}}},
	// Writes outside the scratch tmpfs fail.
	{name: "write-root-sh", profile: "sh", file: "write_root.sh", chunk: 6, weight: 2,
		source: `for d in / /usr /program; do
  if echo x > "$d/pwned" 2>/dev/null; then echo "$d written"; else echo "$d refused"; fi
done
echo x > /tmp/scratch && echo "/tmp written"
`,
		cases: []soakCase{{name: "refused", body: `expect: {stdout: {equals: "/ refused\n/usr refused\n/program refused\n/tmp written"}}`, want: soakTrue}}},
}

// soakKey names a case of the report.
type soakKey struct{ program, kase string }

// soakExpected is what one case of the generated spec must show.
type soakExpected struct {
	want    soakWant
	profile string
	source  string // the program file's text
	stdin   string
}

// soakGenerated is a generated spec: its text, its files, and what each of
// its cases must show.
type soakGenerated struct {
	spec     string
	files    map[string]string
	cases    map[soakKey]soakExpected
	programs int
	perKind  map[string]int
}

// soakAllocate splits n invocations over the kinds by weight (largest
// remainder), at least one each when n allows.
func soakAllocate(n int, kinds []soakKind) []int {
	var total float64
	for _, k := range kinds {
		total += k.weight
	}
	counts := make([]int, len(kinds))
	rem := make([]float64, len(kinds))
	left := n
	for i, k := range kinds {
		exact := float64(n) * k.weight / total
		counts[i] = int(exact)
		rem[i] = exact - float64(counts[i])
		left -= counts[i]
	}
	order := make([]int, len(kinds))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for i := 0; left > 0; i++ {
		counts[order[i%len(order)]]++
		left--
	}
	// Every kind at least once: take from the largest.
	for i := range counts {
		if counts[i] > 0 || n < len(kinds) {
			continue
		}
		big := 0
		for j := range counts {
			if counts[j] > counts[big] {
				big = j
			}
		}
		counts[big]--
		counts[i]++
	}
	return counts
}

// soakEntry is one program entry of the spec.
type soakEntry struct {
	text string
	pos  float64 // where in the run it goes, 0–1
}

// soakGenerate writes a spec of n invocations: the kinds' entries spread
// evenly over the run (slow and quick programs interleaved).
func soakGenerate(img images, n int) soakGenerated {
	g := soakGenerated{
		files:   map[string]string{},
		cases:   map[soakKey]soakExpected{},
		perKind: map[string]int{},
	}
	maps.Copy(g.files, soakStdinFiles)
	var entries []soakEntry
	counts := soakAllocate(n, soakKinds)
	for ki, k := range soakKinds {
		c := counts[ki]
		g.perKind[k.name] = c
		var kindEntries []string
		ext := path.Ext(k.file)
		// addCases writes the cases of one entry and records them for each
		// program the entry makes.
		addCases := func(sb *strings.Builder, programs map[string]string, templates []soakCase, cycle int) {
			sb.WriteString("    cases:\n")
			for i := range cycle {
				tc := templates[i%len(templates)]
				name := tc.name
				if cycle > len(templates) {
					name = fmt.Sprintf("%s #%d", tc.name, i+1)
				}
				fmt.Fprintf(sb, "      - {name: %s, %s}\n", strconv.Quote(name), tc.body)
				stdin := tc.stdin
				if tc.stdinFile != "" {
					stdin = soakStdinFiles[tc.stdinFile]
				}
				for prog, source := range programs {
					g.cases[soakKey{prog, name}] = soakExpected{want: tc.want, profile: k.profile, source: source, stdin: stdin}
				}
			}
			g.programs += len(programs)
		}
		if k.glob {
			// Sample files under files: globs, every case for each; the
			// remainder as one file: entry.
			full, rest := c/len(k.cases), c%len(k.cases)
			for d := 0; full > 0; d++ {
				nf := min(full, soakGlobFiles)
				full -= nf
				name := fmt.Sprintf("%s-%d", k.name, d)
				programs := map[string]string{}
				for f := range nf {
					base := fmt.Sprintf("s%02d%s", f, ext)
					source := k.source + fmt.Sprintf("# sample %d of %s\n", f, name)
					g.files["samples/"+name+"/"+base] = source
					programs[name+"/"+base] = source
				}
				var sb strings.Builder
				fmt.Fprintf(&sb, "  - name: %s\n    files: \"samples/%s/*%s\"\n    profile: %s\n", name, name, ext, k.profile)
				addCases(&sb, programs, k.cases, len(k.cases))
				kindEntries = append(kindEntries, sb.String())
			}
			if rest > 0 {
				name := k.name + "-rest"
				file := "samples/" + name + ext
				g.files[file] = k.source
				var sb strings.Builder
				fmt.Fprintf(&sb, "  - name: %s\n    file: %s\n    profile: %s\n", name, file, k.profile)
				addCases(&sb, map[string]string{name: k.source}, k.cases, rest)
				kindEntries = append(kindEntries, sb.String())
			}
		} else {
			g.files["programs/"+k.file] = k.source
			for e := 0; c > 0; e++ {
				nc := min(c, k.chunk)
				c -= nc
				name := fmt.Sprintf("%s-%d", k.name, e)
				var sb strings.Builder
				fmt.Fprintf(&sb, "  - name: %s\n    file: programs/%s\n    profile: %s\n", name, k.file, k.profile)
				addCases(&sb, map[string]string{name: k.source}, k.cases, nc)
				kindEntries = append(kindEntries, sb.String())
			}
		}
		for i, text := range kindEntries {
			entries = append(entries, soakEntry{text: text, pos: (float64(i) + 0.5) / float64(len(kindEntries))})
		}
	}
	sort.SliceStable(entries, func(a, b int) bool { return entries[a].pos < entries[b].pos })

	var sb strings.Builder
	sb.WriteString("version: 1\nprofiles:\n")
	for _, name := range slices.Sorted(maps.Keys(soakProfiles)) {
		p := soakProfiles[name]
		image := img.busybox
		if p.image == "python" {
			image = img.python
		}
		cmd, _ := json.Marshal(p.command)
		fmt.Fprintf(&sb, "  %s:\n    image: %q\n    command: %s\n    timeout: %s\n    memory: %dMiB\n    pids: %d\n    output_limit: %dKiB\n    output_ceiling: %dMiB\n",
			name, image, cmd, p.timeout, p.memory>>20, p.pids, p.outputLimit>>10, p.outputCeiling>>20)
		if p.tmpfs {
			sb.WriteString("    tmpfs: {/tmp: 1MiB}\n")
		}
	}
	sb.WriteString("programs:\n")
	for _, e := range entries {
		sb.WriteString(e.text)
	}
	g.spec = sb.String()
	return g
}

// soakN reads BEHAVES_SOAK_N.
func soakN(t *testing.T) int {
	t.Helper()
	v := os.Getenv("BEHAVES_SOAK_N")
	if v == "" {
		return soakDefaultN
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("BEHAVES_SOAK_N=%q: want a positive number of invocations", v)
	}
	return n
}

// soakContext bounds one run: generously for a loaded machine (a few
// seconds per invocation and worker), and always ending two minutes before
// the test binary's -timeout, so that behaves is interrupted and removes
// what it made rather than being killed with the test binary.
func soakContext(t *testing.T, n int) (context.Context, context.CancelFunc) {
	t.Helper()
	deadline := time.Now().Add(5*time.Minute + time.Duration(n)*5*time.Second)
	if d, ok := t.Deadline(); ok && d.Add(-2*time.Minute).Before(deadline) {
		deadline = d.Add(-2 * time.Minute)
	}
	return context.WithDeadline(context.Background(), deadline)
}

// TestSoak runs the generated spec twice (see the top of this file). Only
// with BEHAVES_SOAK=1.
func TestSoak(t *testing.T) {
	if os.Getenv("BEHAVES_SOAK") != "1" {
		t.Skip("the soak test runs only with BEHAVES_SOAK=1 (BEHAVES_SOAK=1 go test -run TestSoak -timeout 60m ./internal/e2e/)")
	}
	img := testImages(t)
	n := soakN(t)
	g := soakGenerate(img, n)
	if len(g.cases) != n {
		t.Fatalf("the generated spec has %d cases, want %d", len(g.cases), n)
	}
	t.Logf("soak spec: %d invocations, %d programs, %d kinds: %v", n, g.programs, len(soakKinds), g.perKind)

	// The real binary as a child process at --parallel 4: its own peak
	// RSS, unmixed with the test's.
	t.Run("binary", func(t *testing.T) {
		bin := buildBehaves(t)
		dir := writeTree(t, maps.Clone(g.files))
		specPath := filepath.Join(dir, "behaves.yml")
		if err := os.WriteFile(specPath, []byte(g.spec), 0o644); err != nil {
			t.Fatal(err)
		}
		reportPath := filepath.Join(t.TempDir(), "report.json")
		ctx, cancel := soakContext(t, n)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, "run", "--spec", specPath, "--report", reportPath, "--parallel", "4")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		// Past the deadline behaves is interrupted as a person would
		// (SIGTERM: it removes what it made), not killed.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = time.Minute
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			t.Fatalf("running behaves: %v\nstderr:\n%s", err, indent(soakTail(stderr.String())))
		}
		o := outcome{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
		b, err := os.ReadFile(reportPath)
		if err != nil {
			t.Fatalf("no report (exit %d): %v\nstderr:\n%s", o.code, err, indent(soakTail(o.stderr)))
		}
		if err := json.Unmarshal(b, &o.report); err != nil {
			t.Fatalf("the report is not valid JSON: %v", err)
		}
		dockertest.AssertNothingLeft(t, dockertest.Client(t), o.report.RunID)
		var maxRSS int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			maxRSS = ru.Maxrss // KiB on Linux
		} else {
			t.Errorf("no rusage for the behaves process")
		}
		soakCheck(t, g, o, wall, "4", maxRSS)
	})

	// behaves in the test process, through the harness (which checks
	// leftovers by run ID), at the default parallelism.
	t.Run("in-process", func(t *testing.T) {
		ctx, cancel := soakContext(t, n)
		defer cancel()
		start := time.Now()
		o := runBehaves(t, ctx, g.spec, maps.Clone(g.files))
		wall := time.Since(start)
		soakCheck(t, g, o, wall, fmt.Sprintf("default (%d CPUs)", runtime.NumCPU()), 0)
	})
}

// TestSoakSpec checks, without Docker and in the default suite, that the
// generator writes a valid spec of exactly n invocations whose programs,
// cases and profiles are the ones the soak run expects.
func TestSoakSpec(t *testing.T) {
	t.Parallel()
	img := images{busybox: "sha256:" + strings.Repeat("b", 64), python: "sha256:" + strings.Repeat("c", 64)}
	for _, n := range []int{1, len(soakKinds), 100, 1000} {
		g := soakGenerate(img, n)
		files := maps.Clone(g.files)
		files["behaves.yml"] = g.spec
		dir := writeTree(t, files)
		sp, err := spec.Load(filepath.Join(dir, "behaves.yml"), spec.Options{})
		if err != nil {
			t.Fatalf("n=%d: the generated spec does not load: %v\n%s", n, err, soakTail(g.spec))
		}
		cases := 0
		for _, p := range sp.Programs {
			for _, c := range p.Cases {
				cases++
				exp, ok := g.cases[soakKey{p.Name, c.Name}]
				if !ok {
					t.Fatalf("n=%d: %s / %s is not expected", n, p.Name, c.Name)
				}
				source, err := p.Program.Files[p.Program.Entry].ReadAll()
				if err != nil {
					t.Fatalf("n=%d: %s: reading its program again: %v", n, p.Name, err)
				}
				if p.Profile != exp.profile || string(c.Invocation.Stdin) != exp.stdin || string(source) != exp.source {
					t.Errorf("n=%d: %s / %s: profile %q, stdin %d bytes, source %q; want %q, %d bytes, %q",
						n, p.Name, c.Name, p.Profile, len(c.Invocation.Stdin), source, exp.profile, len(exp.stdin), exp.source)
				}
			}
		}
		if cases != n || len(g.cases) != n || len(sp.Programs) != g.programs {
			t.Errorf("n=%d: the spec holds %d cases in %d programs, the generator expects %d in %d", n, cases, len(sp.Programs), len(g.cases), g.programs)
		}
		if n >= len(soakKinds) {
			for k, c := range g.perKind {
				if c == 0 {
					t.Errorf("n=%d: no invocation of %s", n, k)
				}
			}
		}
	}
}

// soakTail returns the end of s, for failure messages.
func soakTail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// soakCheck asserts what every soak run must show and logs its figures:
// the run completed (exit 1: some programs are false, none failed), every
// case of the spec is in the report exactly once with a complete event and
// its expected verdict, and no program has a sandbox warning or incomplete
// acquisition. Leftovers are checked by the caller (by run ID). maxRSSKiB
// is 0 when not measured.
func soakCheck(t *testing.T, g soakGenerated, o outcome, wall time.Duration, parallel string, maxRSSKiB int64) {
	t.Helper()
	n := len(g.cases)
	const maxErrors = 40
	problems := 0
	bad := func(format string, args ...any) {
		t.Helper()
		problems++
		if problems <= maxErrors {
			t.Errorf(format, args...)
		}
	}
	rep := o.report
	if o.code != 1 {
		bad("behaves exited %d, want 1 (some program false, the run itself fine)\nstderr:\n%s", o.code, indent(soakTail(o.stderr)))
	}
	if rep.Error != "" || rep.Interrupted {
		bad("the run failed: error %q, interrupted %v", rep.Error, rep.Interrupted)
	}
	if len(rep.Programs) != g.programs {
		bad("the report has %d programs, the spec %d", len(rep.Programs), g.programs)
	}

	seen := map[soakKey]bool{}
	var wantCounts, gotCounts report.Tally
	timedOut, limits := 0, map[runner.ResourceLimit]int{}
	var runMS int64
	for _, p := range rep.Programs {
		if p.Acquisition != runner.AcquisitionComplete || len(p.AcquisitionReasons) > 0 || len(p.SandboxWarnings) > 0 {
			bad("%s: acquisition %q %q, sandbox warnings %q", p.Name, p.Acquisition, p.AcquisitionReasons, p.SandboxWarnings)
		}
		for _, c := range p.Cases {
			key := soakKey{p.Name, c.Name}
			exp, ok := g.cases[key]
			if !ok {
				bad("%s / %s: a case the spec does not have", p.Name, c.Name)
				continue
			}
			if seen[key] {
				bad("%s / %s: reported twice", p.Name, c.Name)
			}
			seen[key] = true
			wantCounts.Add(exp.want.verdict)
			gotCounts.Add(c.Verdict)
			e := c.Event
			if e.TimedOut {
				timedOut++
			}
			if e.ResourceLimit != "" {
				limits[e.ResourceLimit]++
			}
			runMS += e.DurationMS
			soakCheckCase(bad, p, c, exp)
		}
	}
	missing := 0
	for key := range g.cases {
		if !seen[key] {
			missing++
			bad("%s / %s: missing from the report", key.program, key.kase)
		}
	}
	if rep.Counts.Cases.Total != n || len(seen) != n {
		bad("the report counts %d cases and holds %d of the spec's %d", rep.Counts.Cases.Total, len(seen), n)
	}
	if gotCounts != wantCounts || rep.Counts.Cases != wantCounts {
		bad("verdict counts %+v (report counts %+v), want %+v", gotCounts, rep.Counts.Cases, wantCounts)
	}
	if problems > maxErrors {
		t.Errorf("… and %d more problems", problems-maxErrors)
	}

	rss := "not measured (in-process)"
	if maxRSSKiB > 0 {
		rss = fmt.Sprintf("%.1f MiB", float64(maxRSSKiB)/1024)
	}
	t.Logf("soak figures: N=%d invocations in %d programs, parallel %s", n, len(rep.Programs), parallel)
	t.Logf("  wall time %s, %.2f invocations/s, mean container run %.0f ms", wall.Round(time.Second), float64(n)/wall.Seconds(), float64(runMS)/float64(max(n, 1)))
	t.Logf("  verdicts: %d true, %d false, %d undetermined (all as expected: %v); timed out %d, memory limit %d, output limit %d",
		gotCounts.True, gotCounts.False, gotCounts.Undetermined, problems == 0, timedOut, limits[runner.LimitMemory], limits[runner.LimitOutput])
	t.Logf("  missing events %d, problems %d, peak RSS of behaves %s, leftovers by run ID %s: %s",
		missing, problems, rss, rep.RunID, soakLeftovers(t, rep.RunID))
}

// soakLeftovers describes what is left of runID (normally "0 containers, 0
// volumes"); AssertNothingLeft has already failed the test otherwise.
func soakLeftovers(t *testing.T, runID string) string {
	t.Helper()
	if runID == "" {
		return "no run ID"
	}
	cs, vs := dockertest.Leftovers(t, dockertest.Client(t), runID)
	return fmt.Sprintf("%d containers, %d volumes", len(cs), len(vs))
}

// soakCheckCase asserts one case's verdict and that its event is complete.
func soakCheckCase(bad func(string, ...any), p report.Program, c report.Case, exp soakExpected) {
	e, w := c.Event, exp.want
	prof := soakProfiles[exp.profile]
	where := p.Name + " / " + c.Name
	exit := -1
	if e.ExitCode != nil {
		exit = *e.ExitCode
	}
	if e.SandboxError != "" {
		bad("%s: sandbox error %q", where, e.SandboxError)
	}
	reasonOK := strings.HasPrefix(c.Reason, w.reason) && (w.verdict != verdict.True || c.Reason == "")
	if c.Verdict != w.verdict || exit != w.exit || e.TimedOut != w.timedOut || e.ResourceLimit != w.limit || !reasonOK ||
		(w.stdout != "" && string(e.StdoutData()) != w.stdout) {
		bad("%s: verdict %s, exit %d, timed_out %v, resource_limit %q, reason %q, stdout %q;\n"+
			"want verdict %s, exit %d, timed_out %v, resource_limit %q, reason %q…, stdout %q\nstderr %q",
			where, c.Verdict, exit, e.TimedOut, e.ResourceLimit, c.Reason, soakShort(string(e.StdoutData())),
			w.verdict, w.exit, w.timedOut, w.limit, w.reason, w.stdout, soakShort(string(e.StderrData())))
	}

	// Every field of the event is there and agrees with the spec.
	n := len(prof.command)
	if len(e.Command) != n+1+len(c.Args) || !slices.Equal(e.Command[:n], prof.command) ||
		!strings.HasPrefix(e.Command[n], "/program/") || !slices.Equal(e.Command[n+1:], c.Args) {
		bad("%s: command %q, want %q, /program/…, %q", where, e.Command, prof.command, c.Args)
	}
	if e.ImageDigest == "" || e.ImageDigest != p.Settings.ImageID {
		bad("%s: image digest %q, settings image ID %q", where, e.ImageDigest, p.Settings.ImageID)
	}
	if sum := soakSHA256(exp.source); e.ProgramSHA256 != sum || p.ProgramSHA256 != sum {
		bad("%s: program_sha256 %q (program %q), want %q", where, e.ProgramSHA256, p.ProgramSHA256, sum)
	}
	if sum := soakSHA256(exp.stdin); e.StdinSHA256 != sum {
		bad("%s: stdin_sha256 %q, want %q", where, e.StdinSHA256, sum)
	}
	if e.StdinBytes < 0 || e.StdinBytes > int64(len(exp.stdin)) {
		bad("%s: stdin_bytes %d of %d", where, e.StdinBytes, len(exp.stdin))
	}
	l := e.Limits
	if l.TimeoutMS != prof.timeout.Milliseconds() || l.MemoryBytes != prof.memory || l.Pids != prof.pids ||
		l.OutputLimit != prof.outputLimit || l.OutputCeiling != prof.outputCeiling || l.CPUs <= 0 || l.NoFile <= 0 || l.FileSize <= 0 {
		bad("%s: limits %+v, want timeout %s, memory %d, pids %d, output_limit %d, output_ceiling %d", where, l,
			prof.timeout, prof.memory, prof.pids, prof.outputLimit, prof.outputCeiling)
	}
	if e.DurationMS < 0 || (e.TimedOut && e.DurationMS < prof.timeout.Milliseconds()) {
		bad("%s: duration %d ms (timed out %v after %s)", where, e.DurationMS, e.TimedOut, prof.timeout)
	}
	for _, s := range []struct {
		name      string
		kept      []byte
		bytes     int64
		truncated bool
	}{
		{"stdout", e.StdoutData(), e.StdoutBytes, e.StdoutTruncated},
		{"stderr", e.StderrData(), e.StderrBytes, e.StderrTruncated},
	} {
		k := int64(len(s.kept))
		if k > prof.outputLimit || k > s.bytes || s.truncated != (s.bytes > k) {
			bad("%s: %s kept %d of %d bytes, truncated %v, output_limit %d", where, s.name, k, s.bytes, s.truncated, prof.outputLimit)
		}
	}
}

func soakSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// soakShort cuts s for a failure message.
func soakShort(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
