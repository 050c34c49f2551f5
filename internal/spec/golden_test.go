package spec

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/spec")

// copyTree copies testdata/spec into a fresh git repository so that the
// root is the same on every machine, and returns the repository's real
// path. Everything is tracked except files/untracked, and a few symlinks
// the behaves repository does not hold are added: files/links/gitconfig
// into .git, files/links/untracked to an untracked file,
// files/links/tracked to a tracked one.
func copyTree(t testing.TB) string {
	t.Helper()
	repo := gittest.NewRepo(t)
	src := filepath.Join("testdata", "spec")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(repo, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"gitconfig": "../../.git/config",
		"untracked": "../untracked/secret.txt",
		"tracked":   "../a.txt",
	} {
		p := filepath.Join(repo, "files", "links", link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	gittest.AddAll(t, repo)
	gittest.Git(t, repo, "rm", "-r", "-q", "--cached", "files/untracked")
	return repo
}

// testOptions reads "# test-options: key=value ..." from a spec's first
// line: max-timeout, max-memory, max-output, max-output-limit, max-cases,
// max-pids, max-file-size, image=NAME=REF, allow-untracked=GLOB and
// allow-registry=HOST (all three repeatable), and pull.
func testOptions(t *testing.T, path string) Options {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	var opt Options
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "# test-options:")
	if !ok {
		return opt
	}
	for _, kv := range strings.Fields(rest) {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "max-timeout":
			opt.Ceilings.MaxTimeout, err = time.ParseDuration(v)
		case "max-memory":
			opt.Ceilings.MaxMemory, err = ParseSize(v)
		case "max-output":
			opt.Ceilings.MaxOutput, err = ParseSize(v)
		case "max-output-limit":
			opt.Ceilings.MaxOutputLimit, err = ParseSize(v)
		case "max-cases":
			opt.Ceilings.MaxCases, err = strconv.Atoi(v)
		case "max-reference-output":
			opt.Ceilings.MaxReferenceOutput, err = ParseSize(v)
		case "max-pids":
			opt.Ceilings.MaxPids, err = strconv.ParseInt(v, 10, 64)
		case "max-file-size":
			opt.MaxFileSize, err = ParseSize(v)
		case "image":
			name, ref, _ := strings.Cut(v, "=")
			if opt.Images == nil {
				opt.Images = map[string]string{}
			}
			opt.Images[name] = ref
		case "pull":
			opt.Pull = true
		case "allow-registry":
			var reg string
			reg, err = NormalizeRegistry(v)
			opt.AllowRegistries = append(opt.AllowRegistries, reg)
		case "allow-untracked":
			var g AllowGlob
			g, err = ParseAllowGlob(v)
			opt.AllowUntracked = append(opt.AllowUntracked, g)
		case "allow-non-gating":
			err = ParseNonGating(v)
			opt.AllowNonGating = append(opt.AllowNonGating, v)
		default:
			err = fmt.Errorf("unknown test option %q", k)
		}
		if err != nil {
			t.Fatalf("%s: test-options: %v", path, err)
		}
	}
	return opt
}

// scrub replaces the temporary repository's path with stable text.
func scrub(s, repo string) string {
	s = strings.ReplaceAll(s, repo+string(filepath.Separator), "")
	return strings.ReplaceAll(s, repo, "<repo>")
}

func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/spec -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
	}
}

func TestGoldenOK(t *testing.T) {
	t.Parallel()
	repo := copyTree(t)
	specs, err := filepath.Glob(filepath.Join("testdata", "spec", "ok", "*.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no ok specs: %v", err)
	}
	for _, src := range specs {
		t.Run(filepath.Base(src), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(repo, "ok", filepath.Base(src))
			s, err := Load(path, testOptions(t, src))
			if err != nil {
				t.Fatalf("Load: %v", scrub(err.Error(), repo))
			}
			checkGolden(t, strings.TrimSuffix(src, ".yaml")+".golden", scrub(dump(t, s), repo))
		})
	}
}

func TestGoldenErr(t *testing.T) {
	t.Parallel()
	repo := copyTree(t)
	specs, err := filepath.Glob(filepath.Join("testdata", "spec", "err", "*.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no err specs: %v", err)
	}
	for _, src := range specs {
		t.Run(filepath.Base(src), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(repo, "err", filepath.Base(src))
			s, err := Load(path, testOptions(t, src))
			if err == nil {
				t.Fatalf("Load succeeded, want errors; loaded %d programs", len(s.Programs))
			}
			if s != nil {
				t.Errorf("Load returned a spec with errors")
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load returned %T (%v), want Errors", err, err)
			}
			for _, e := range errs {
				// A problem in a cases file is placed in that file.
				inCasesFile := strings.HasPrefix(e.Pos.File, filepath.Join(repo, "files", "cases")+string(filepath.Separator)) ||
					strings.HasPrefix(e.Pos.File, filepath.Join(repo, "files", "inputs")+string(filepath.Separator))
				if e.Pos.Line <= 0 || (e.Pos.File != path && !inCasesFile) {
					t.Errorf("bad position %+v for %q", e.Pos, e.Msg)
				}
			}
			checkGolden(t, strings.TrimSuffix(src, ".yaml")+".out", scrub(err.Error(), repo)+"\n")
		})
	}
}

// dump renders a loaded spec as readable JSON for golden files.
func dump(t *testing.T, s *Spec) string {
	t.Helper()
	pos := func(p Pos) string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }
	// matcher shows what the loader set; the options of the structured
	// matchers only when set.
	type matcher struct {
		Kind       string    `json:"kind"`
		Value      string    `json:"value"`
		IgnoreCase bool      `json:"ignore_case"`
		Normalize  string    `json:"normalize"`
		Unordered  bool      `json:"unordered,omitempty"`
		Lines      bool      `json:"lines,omitempty"`
		Subset     bool      `json:"subset,omitempty"`
		Abs        *float64  `json:"abs,omitempty"`
		Rel        *float64  `json:"rel,omitempty"`
		All        []matcher `json:"all,omitempty"`
		Checker    string    `json:"checker,omitempty"`
		Answer     string    `json:"answer,omitempty"`
		AnswerFile string    `json:"answer_file,omitempty"`
	}
	var toMatcher func(m verdict.Matcher) *matcher
	toMatcher = func(m verdict.Matcher) *matcher {
		d := &matcher{string(m.Kind), m.Value, m.IgnoreCase, string(m.Normalize), m.Unordered, m.Lines, m.Subset, m.Abs, m.Rel, nil, m.Checker, m.Answer, m.AnswerFile}
		for _, sub := range m.All {
			d.All = append(d.All, *toMatcher(sub))
		}
		return d
	}
	type kase struct {
		Name      string   `json:"name"`
		Pos       string   `json:"pos"`
		File      string   `json:"file,omitempty"`
		Args      []string `json:"args"`
		Stdin     *string  `json:"stdin"`
		StdinFile string   `json:"stdin_file"`
		ExitCode  int      `json:"exit_code"`
		Stdout    *matcher `json:"stdout"`
		Stderr    *matcher `json:"stderr"`
		// Repeat is shown when it is not 1.
		Repeat *int            `json:"repeat,omitempty"`
		SameAs *verdict.SameAs `json:"same_as,omitempty"`
	}
	type program struct {
		ID      string            `json:"id"`
		Name    string            `json:"name"`
		File    string            `json:"file"`
		Profile string            `json:"profile"`
		Pos     string            `json:"pos"`
		Entry   string            `json:"entry"`
		Files   map[string]string `json:"files"`
		Cases   []kase            `json:"cases"`
		// Reference is shown when the entry names one.
		Reference string `json:"reference,omitempty"`
		// NotGating is shown when set.
		NotGating bool `json:"not_gating,omitempty"`
	}
	type build struct {
		Image         string            `json:"image"`
		Command       []string          `json:"command"`
		Timeout       string            `json:"timeout"`
		Memory        string            `json:"memory"`
		CPUs          float64           `json:"cpus"`
		Pids          int64             `json:"pids"`
		OutputLimit   string            `json:"output_limit"`
		OutputCeiling string            `json:"output_ceiling"`
		OutputSize    string            `json:"output_size"`
		Tmpfs         map[string]string `json:"tmpfs"`
	}
	sizes := func(m map[string]int64) map[string]string {
		if m == nil {
			return nil
		}
		out := map[string]string{}
		for k, v := range m {
			out[k] = verdict.FormatSize(v)
		}
		return out
	}
	type profile struct {
		Pos           string            `json:"pos"`
		Name          string            `json:"name"`
		Image         string            `json:"image"`
		Command       []string          `json:"command"`
		ProgramName   string            `json:"program_name"`
		Timeout       string            `json:"timeout"`
		Memory        string            `json:"memory"`
		CPUs          float64           `json:"cpus"`
		Pids          int64             `json:"pids"`
		OutputLimit   string            `json:"output_limit"`
		OutputCeiling string            `json:"output_ceiling"`
		User          string            `json:"user"`
		Tmpfs         map[string]string `json:"tmpfs"`
		Env           map[string]string `json:"env"`
		Runtime       string            `json:"runtime"`
		NetworkFiles  string            `json:"network_files"`
		Repeat        int               `json:"repeat,omitempty"`
		Build         *build            `json:"build,omitempty"`
	}
	type checker struct {
		Name    string            `json:"name"`
		File    string            `json:"file"`
		Profile string            `json:"profile"`
		Pos     string            `json:"pos"`
		Entry   string            `json:"entry"`
		Folder  bool              `json:"folder"`
		Files   map[string]string `json:"files"`
		SHA256  string            `json:"sha256"`
	}
	type spec struct {
		Path     string             `json:"path"`
		Root     string             `json:"root"`
		Profiles map[string]profile `json:"profiles"`
		Checkers []checker          `json:"checkers,omitempty"`
		Programs []program          `json:"programs"`
	}
	out := spec{Path: s.Path, Root: s.Root, Profiles: map[string]profile{}}
	for _, c := range s.Checkers {
		files := map[string]string{}
		for k, v := range c.Program.Files {
			files[k] = fileText(t, v)
		}
		out.Checkers = append(out.Checkers, checker{c.Name, c.File, c.Profile, pos(c.Pos), c.Program.Entry, c.Program.Folder, files, c.Program.Digest()})
	}
	for name, p := range s.Profiles {
		r := p.Runtime
		var tmpfs map[string]string
		if r.Tmpfs != nil {
			tmpfs = map[string]string{}
			for k, v := range r.Tmpfs {
				tmpfs[k] = verdict.FormatSize(v)
			}
		}
		out.Profiles[name] = profile{
			Pos: pos(p.Pos), Name: r.Name, Image: r.Image, Command: r.Command, ProgramName: r.ProgramName,
			Timeout: formatDuration(r.Timeout), Memory: verdict.FormatSize(r.Memory), CPUs: r.CPUs, Pids: r.Pids,
			OutputLimit: verdict.FormatSize(r.OutputLimit), OutputCeiling: verdict.FormatSize(r.OutputCeiling),
			User: r.User, Tmpfs: tmpfs, Env: r.Env, Runtime: r.Runtime, NetworkFiles: string(r.NetworkFiles),
			Repeat: p.Repeat,
		}
		if b := r.Build; b != nil {
			dp := out.Profiles[name]
			dp.Build = &build{
				Image: b.Image, Command: b.Command, Timeout: formatDuration(b.Timeout), Memory: verdict.FormatSize(b.Memory),
				CPUs: b.CPUs, Pids: b.Pids, OutputLimit: verdict.FormatSize(b.OutputLimit), OutputCeiling: verdict.FormatSize(b.OutputCeiling),
				OutputSize: verdict.FormatSize(b.OutputSize), Tmpfs: sizes(b.Tmpfs),
			}
			out.Profiles[name] = dp
		}
	}
	for _, p := range s.Programs {
		files := map[string]string{}
		for k, v := range p.Program.Files {
			files[k] = fileText(t, v)
		}
		dp := program{ID: p.ID, Name: p.Name, File: p.File, Profile: p.Profile, Pos: pos(p.Pos), Entry: p.Program.Entry, Files: files, Reference: p.Reference, NotGating: p.NotGating}
		for _, c := range p.Cases {
			var stdin *string
			if c.Invocation.Stdin != nil {
				s := string(c.Invocation.Stdin)
				stdin = &s
			}
			dc := kase{Name: c.Name, Pos: pos(c.Pos), File: c.File, Args: c.Invocation.Args, Stdin: stdin, StdinFile: c.StdinFile, ExitCode: c.Expect.ExitCode}
			if c.Repeat != 1 {
				dc.Repeat = &c.Repeat
			}
			dc.SameAs = c.Expect.SameAs
			if m := c.Expect.Stdout; m != nil {
				dc.Stdout = toMatcher(*m)
			}
			if m := c.Expect.Stderr; m != nil {
				dc.Stderr = toMatcher(*m)
			}
			dp.Cases = append(dp.Cases, dc)
		}
		out.Programs = append(out.Programs, dp)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}
