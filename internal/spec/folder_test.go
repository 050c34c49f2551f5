package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// dirSpec is a spec whose one program is the folder dir, with the extra
// program lines (entry, say) indented for a program mapping.
func dirSpec(dir, extra string) string {
	return fmt.Sprintf(`version: 1
profiles:
  py:
    image: %s
    command: [python3, -m, tool]
programs:
  - name: tool
    dir: %s
    profile: py
%s    cases:
      - {name: c, args: ["1"]}
`, testImage, dir, extra)
}

// TestLoadFolder: a dir: entry is one program of every file git tracks
// under the folder, at its path relative to it, executable as git records
// it, with its links as links; untracked files are left out (and named),
// unless --allow-untracked admits them; the report's file is the folder.
func TestLoadFolder(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "tool", "__main__.py"), "from tool import parsing\n")
	write(t, filepath.Join(repo, "tool", "parsing.py"), "X = 1\n")
	write(t, filepath.Join(repo, "tool", "run.sh"), "exec python3 -m tool\n")
	if err := os.Chmod(filepath.Join(repo, "tool", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "parsing.py", filepath.Join(repo, "tool", "alias.py"))
	write(t, filepath.Join(repo, "behaves.yml"), dirSpec("tool", "    entry: run.sh\n"))
	track(t, repo)
	// Written after git add: untracked, so not part of the program.
	write(t, filepath.Join(repo, "tool", "secret.env"), "TOKEN=x\n")
	write(t, filepath.Join(repo, "tool", ".git", "config"), "[core]\n") // never read, tracked or not

	sp, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := sp.Programs[0]
	want := runner.Program{
		Folder: true,
		Entry:  "run.sh",
		Files: runner.FilesOf(map[string][]byte{
			"__main__.py": []byte("from tool import parsing\n"),
			"parsing.py":  []byte("X = 1\n"),
			"run.sh":      []byte("exec python3 -m tool\n"),
		}),
		Executable: map[string]bool{"run.sh": true},
		Links:      map[string]string{"alias.py": "parsing.py"},
	}
	if diff := cmp.Diff(want, p.Program); diff != "" {
		t.Errorf("program (-want +got):\n%s", diff)
	}
	if p.File != "tool" || p.Name != "tool" || p.ID != programID("tool", "tool") {
		t.Errorf("file %q name %q id %q, want the folder's", p.File, p.Name, p.ID)
	}
	if diff := cmp.Diff([]string{"tool/secret.env"}, p.Untracked); diff != "" {
		t.Errorf("untracked (-want +got):\n%s", diff)
	}
	if job := sp.Job(p); job.Profile.ProgramName != "run.sh" || runner.Apply(job.Profile).Command[3] != "/program/run.sh" {
		t.Errorf("job profile %+v: want /program/run.sh appended", job.Profile)
	}

	// --allow-untracked admits it.
	sp, err = Load(filepath.Join(repo, "behaves.yml"), Options{AllowUntracked: []AllowGlob{mustGlob(t, "tool/*.env")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sp.Programs[0].Program.Files["secret.env"]; !ok || len(sp.Programs[0].Untracked) != 0 {
		t.Errorf("--allow-untracked: files %v untracked %v, want secret.env admitted", keysOf(sp.Programs[0].Program.Files), sp.Programs[0].Untracked)
	}
}

// TestLoadFolderWithoutEntry: without entry nothing is appended to the
// command, which says what runs; outside a git work tree every regular
// file is the program's, executable by its own bit.
func TestLoadFolderWithoutEntry(t *testing.T) {
	t.Parallel()
	dir := plainDir(t)
	write(t, filepath.Join(dir, "tool", "__main__.py"), "print(1)\n")
	write(t, filepath.Join(dir, "tool", "bin", "x"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "tool", "bin", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "behaves.yml"), dirSpec("tool", ""))
	sp, err := Load(filepath.Join(dir, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := sp.Programs[0]
	if p.Program.Entry != "" || len(p.Program.Files) != 2 || !p.Program.Executable["bin/x"] || p.Program.Executable["__main__.py"] {
		t.Errorf("program %+v", p.Program)
	}
	if got := runner.Apply(sp.Job(p).Profile).Command; !cmp.Equal(got, []string{"python3", "-m", "tool"}) {
		t.Errorf("command %q, want the profile's alone", got)
	}
}

// TestLoadDirs: a dirs: entry is one folder program per matching folder,
// named <name>/<base name>, in lexical order, grouped for pass@k like a
// files: entry's samples; files the pattern matches are passed over, a
// pattern matching no folder is an error.
func TestLoadDirs(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	for _, c := range []string{"b", "a", "c"} {
		write(t, filepath.Join(repo, "candidates", c, "tool", "__main__.py"), "print('"+c+"')\n")
	}
	write(t, filepath.Join(repo, "candidates", "README.md"), "five candidates\n")
	spec := strings.Replace(dirSpec("x", "    entry: tool/__main__.py\n"), "dir: x", `dirs: "candidates/*"`, 1)
	write(t, filepath.Join(repo, "behaves.yml"), spec)
	track(t, repo)
	sp, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range sp.Programs {
		got = append(got, fmt.Sprintf("%s %s %s %s", p.Name, p.Group, p.File, p.Program.Entry))
	}
	want := []string{"tool/a tool candidates/a tool/__main__.py", "tool/b tool candidates/b tool/__main__.py", "tool/c tool candidates/c tool/__main__.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("programs (-want +got):\n%s", diff)
	}

	write(t, filepath.Join(repo, "none.yml"), strings.Replace(spec, "candidates/*", "candidates/*.md", 1))
	track(t, repo)
	if _, err := Load(filepath.Join(repo, "none.yml"), Options{}); err == nil || !strings.Contains(err.Error(), `dirs "candidates/*.md" matches no folder`) {
		t.Errorf("a pattern matching files only: %v", err)
	}
}

// TestLoadWith: with: delivers files beside every program of its entry,
// at their paths as written (relative to the spec's folder), for one-file
// and folder programs alike; such a program's digest is its file list's.
// A path out of the spec's folder, or one a program's own file takes, is
// refused.
func TestLoadWith(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "harness", "check.py"), "import main\n")
	write(t, filepath.Join(repo, "solution.py"), "print(1)\n")
	write(t, filepath.Join(repo, "candidates", "a", "main.py"), "A\n")
	write(t, filepath.Join(repo, "candidates", "b", "main.py"), "B\n")
	write(t, filepath.Join(repo, "behaves.yml"), fmt.Sprintf(`version: 1
profiles:
  py: {image: %q, command: [python3]}
programs:
  - name: one
    file: solution.py
    with: [harness/check.py]
    profile: py
    cases: [{name: c}]
  - name: many
    dirs: "candidates/*"
    with: [harness/check.py]
    profile: py
    cases: [{name: c}]
`, testImage))
	track(t, repo)
	sp, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Programs) != 3 {
		t.Fatalf("%d programs, want 3", len(sp.Programs))
	}
	for _, p := range sp.Programs {
		if got := fileText(t, p.Program.Files["harness/check.py"]); got != "import main\n" {
			t.Errorf("%s: harness/check.py = %q, want the harness", p.Name, got)
		}
	}
	one := sp.Programs[0].Program
	if one.Entry != "solution.py" || one.Digest() == one.Files["solution.py"].SHA256 || one.Digest() != sha256Hex([]byte(one.FileList())) {
		t.Errorf("one-file program with a harness: entry %q, digest %s; want its file list's", one.Entry, one.Digest())
	}

	write(t, filepath.Join(repo, "cand", "harness"), "a file named like the harness's folder\n")
	track(t, repo)
	for _, tt := range []struct{ program, want string }{
		{`{name: one, file: solution.py, with: ["../x.py"]`, `with "../x.py" is not a clean path inside the spec's folder`},
		{`{name: one, file: solution.py, with: [solution.py]`, `with "solution.py" collides with the file "solution.py"`},
		{`{name: one, dir: cand, with: [harness/check.py]`, `with "harness/check.py" collides with the file "cand"`},
		{`{name: one, file: solution.py, with: [nope.py]`, `with "nope.py" is not a file git tracks`},
	} {
		write(t, filepath.Join(repo, "bad.yml"), fmt.Sprintf("version: 1\nprofiles:\n  py: {image: %q, command: [python3]}\nprograms:\n  - %s, profile: py, cases: [{name: c}]}\n", testImage, tt.program))
		track(t, repo)
		if _, err := Load(filepath.Join(repo, "bad.yml"), Options{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.program, err, tt.want)
		}
	}
}

// TestLoadFolderRefuses: what a dir: entry may not be, each an error at
// the entry's value naming what to change.
func TestLoadFolderRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, repo string)
		spec  string
		opt   Options
		want  string
	}{
		{"missing", nil, dirSpec("nope", ""), Options{}, `dir "nope" does not exist`},
		{"a file", func(t *testing.T, repo string) { write(t, filepath.Join(repo, "f.py"), "x") }, dirSpec("f.py", ""), Options{},
			`dir "f.py" is a file, not a folder`},
		{"nothing tracked", func(t *testing.T, repo string) {
			if err := os.MkdirAll(filepath.Join(repo, "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, dirSpec("empty", ""), Options{}, `dir "empty" holds no file git tracks`},
		{"link out of the folder", func(t *testing.T, repo string) {
			write(t, filepath.Join(repo, "tool", "a.py"), "x")
			write(t, filepath.Join(repo, "other.py"), "x")
			symlink(t, "../other.py", filepath.Join(repo, "tool", "b.py"))
		}, dirSpec("tool", ""), Options{}, `link "b.py" points to "../other.py", outside the program`},
		{"absolute link", func(t *testing.T, repo string) {
			write(t, filepath.Join(repo, "tool", "a.py"), "x")
			symlink(t, "/etc/passwd", filepath.Join(repo, "tool", "b.py"))
		}, dirSpec("tool", ""), Options{}, `link "b.py" points to the absolute path "/etc/passwd"`},
		{"too many files", func(t *testing.T, repo string) {
			for i := range 3 {
				write(t, filepath.Join(repo, "tool", fmt.Sprintf("%d.py", i)), "x")
			}
		}, dirSpec("tool", ""), Options{Ceilings: Ceilings{MaxProgramFiles: 2}}, `holds more than 2 files, above --max-program-files 2`},
		{"too large", func(t *testing.T, repo string) {
			write(t, filepath.Join(repo, "tool", "a.py"), strings.Repeat("x", 600))
			write(t, filepath.Join(repo, "tool", "b.py"), strings.Repeat("x", 600))
		}, dirSpec("tool", ""), Options{Ceilings: Ceilings{MaxProgramSize: 1000}}, `above --max-program-size`},
		{"entry not a file of it", func(t *testing.T, repo string) { write(t, filepath.Join(repo, "tool", "main.py"), "x") },
			dirSpec("tool", "    entry: mian.py\n"), Options{}, `entry "mian.py" is not a file of dir "tool" (did you mean "main.py"?)`},
		{"entry leaves the folder", func(t *testing.T, repo string) { write(t, filepath.Join(repo, "tool", "main.py"), "x") },
			dirSpec("tool", "    entry: ../main.py\n"), Options{}, `entry "../main.py" is not a clean path relative to dir "tool"`},
		{"dir and file", func(t *testing.T, repo string) { write(t, filepath.Join(repo, "tool", "main.py"), "x") },
			dirSpec("tool", "    file: tool/main.py\n"), Options{}, `has both dir and file`},
		{"entry without dir", func(t *testing.T, repo string) { write(t, filepath.Join(repo, "main.py"), "x") },
			strings.Replace(dirSpec("x", "    entry: main.py\n"), "dir: x", "file: main.py", 1), Options{}, `has entry without dir`},
		{"into .git", nil, dirSpec(".git", ""), Options{}, `.git`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := repoDir(t)
			if tt.setup != nil {
				tt.setup(t, repo)
			}
			write(t, filepath.Join(repo, "behaves.yml"), tt.spec)
			track(t, repo)
			_, err := Load(filepath.Join(repo, "behaves.yml"), tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), "behaves.yml:") {
				t.Errorf("err = %v, want it at the spec's position", err)
			}
		})
	}
}

// TestFolderDigest: a folder program's digest is its file list's, which
// the documented recipe recomputes: sha256sum of each file, its git mode,
// sorted by path. Changing a byte, a mode or a path changes it.
func TestFolderDigest(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "tool", "a.py"), "A\n")
	write(t, filepath.Join(repo, "tool", "sub", "b.sh"), "B\n")
	if err := os.Chmod(filepath.Join(repo, "tool", "sub", "b.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a.py", filepath.Join(repo, "tool", "c.py"))
	write(t, filepath.Join(repo, "behaves.yml"), dirSpec("tool", ""))
	track(t, repo)
	sp, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The recipe of docs/verdicts.md, run by a shell in the folder.
	recipe := gittest.Shell(t, filepath.Join(repo, "tool"), folderRecipe)
	prog := sp.Programs[0].Program
	if got := prog.Digest(); got != strings.TrimSpace(recipe) {
		t.Errorf("digest %s, the recipe gives %s; file list:\n%s", got, recipe, prog.FileList())
	}
	changed := prog
	changed.Executable = map[string]bool{}
	if changed.Digest() == prog.Digest() {
		t.Error("a mode changed, the digest did not")
	}
}

// folderRecipe is docs/verdicts.md's recipe for a folder program's
// program_sha256, in a git work tree.
const folderRecipe = `git ls-files -s -- . | while read -r mode _ _ path; do
  if [ "$mode" = 120000 ]; then sum=$(printf %s "$(readlink "$path")" | sha256sum); else sum=$(sha256sum < "$path"); fi
  printf '%s %s %s\n' "$mode" "${sum%% *}" "$path"
done | LC_ALL=C sort -k3 | sha256sum | cut -d' ' -f1`

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// fileText is a program file's bytes, read again through its handle.
func fileText(t testing.TB, f runner.File) string {
	t.Helper()
	b, err := f.ReadAll()
	if err != nil {
		t.Fatalf("reading a program file again: %v", err)
	}
	return string(b)
}
