package initspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/behaves-dev/behaves/internal/gitindex"
	"github.com/behaves-dev/behaves/internal/spec"
)

// maxRead caps what is read of one file to find out whether it is a
// program: a source file larger than this is passed over.
const maxRead = 1 << 20

// maxFiles caps the tracked files looked at.
const maxFiles = 100_000

// repoFile is one file git tracks under the spec's folder.
type repoFile struct {
	// rel is its path relative to the spec's folder, slash-separated.
	rel  string
	exec bool
	size int64
	// aside says the file is under a folder whose files are never
	// programs of their own (skipDir): it is still part of a folder
	// program around it.
	aside bool
}

// tree is what git tracks under the spec's folder.
type tree struct {
	dir   string // the spec's folder
	files []repoFile
	byRel map[string]repoFile
	dirs  map[string]bool // every folder above a tracked file ("." included)
	// truncated says that more than maxFiles files were tracked.
	truncated bool
}

func (t *tree) has(rel string) bool { _, ok := t.byRel[rel]; return ok }

// fitsFolder says whether the files under dir (relative to the spec's
// folder) stay within the default --max-program-files and
// --max-program-size, so that a dir: program of it passes validate.
func (t *tree) fitsFolder(dir string) bool {
	n, size := 0, int64(0)
	for _, f := range t.files {
		if dir == "." || strings.HasPrefix(f.rel, dir+"/") {
			n++
			size += f.size
		}
	}
	return n <= spec.DefaultCeilings.MaxProgramFiles && size <= spec.DefaultCeilings.MaxProgramSize
}

// skipDir names the folders whose files are never programs of their own:
// dependencies, test data, caches, and hidden folders (.git, .github, .venv).
func skipDir(name string) bool {
	switch name {
	case "vendor", "node_modules", "testdata", "third_party", "__pycache__", "venv", "site-packages":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// aside says whether a path is under a folder skipDir names.
func aside(rel string) bool {
	dirs := strings.Split(rel, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if skipDir(d) {
			return true
		}
	}
	return false
}

// programFiles are the files that may be programs of their own.
func (t *tree) programFiles() []repoFile {
	out := make([]repoFile, 0, len(t.files))
	for _, f := range t.files {
		if !f.aside {
			out = append(out, f)
		}
	}
	return out
}

// safeName says whether a path's characters can be written into a spec
// without surprise: no control characters, valid UTF-8 (the spec's own
// rule for names and paths), no backslash.
func safeName(p string) bool {
	return strings.IndexFunc(p, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar || r == '\\' }) < 0
}

// scan lists the files git tracks under dir, a folder of the work tree at
// root.
func scan(root, dir string, repo *gitindex.Repo) (*tree, error) {
	t := &tree{dir: dir, byRel: map[string]repoFile{}, dirs: map[string]bool{".": true}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		relRoot, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		relRoot = filepath.ToSlash(relRoot)
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if d.Name() == ".git" || !safeName(rel) {
				return fs.SkipDir
			}
			if ok, err := repo.TrackedDir(relRoot); err != nil || !ok {
				return err
			}
			return nil
		}
		if !d.Type().IsRegular() || !safeName(rel) {
			return nil
		}
		mode, ok, err := repo.Mode(relRoot)
		if err != nil {
			return err
		}
		if !ok || mode == gitindex.ModeSymlink {
			return nil
		}
		if len(t.files) >= maxFiles {
			t.truncated = true
			return fs.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f := repoFile{rel: rel, exec: mode == gitindex.ModeExecutable, size: info.Size(), aside: aside(rel)}
		t.files = append(t.files, f)
		t.byRel[rel] = f
		for d := path.Dir(rel); d != "." && !t.dirs[d]; d = path.Dir(d) {
			t.dirs[d] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the files git tracks under %s: %w", dir, err)
	}
	return t, nil
}

// read returns a file's content, or nil when it is above maxRead or
// cannot be read (it is then not a program to propose).
func (t *tree) read(rel string) []byte {
	p := filepath.Join(t.dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxRead {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRead+1))
	if err != nil || len(data) > maxRead {
		return nil
	}
	return data
}

// firstLine returns a file's first line, read from at most its first
// 256 bytes.
func (t *tree) firstLine(rel string) string {
	p := filepath.Join(t.dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return strings.TrimRight(line, "\r")
}

// Lang is a language init knows.
type Lang string

// The languages init knows; --image LANG=REF names them so.
const (
	Python Lang = "python"
	Go     Lang = "go"
	C      Lang = "c"
	Shell  Lang = "shell"
	Node   Lang = "node"
)

// Langs are the languages in the order a spec lists their profiles.
var Langs = []Lang{Python, Go, C, Shell, Node}

// found is a likely program.
type found struct {
	lang Lang
	// name is the program's name before duplicates are told apart; long
	// is the name that tells it apart (its path).
	name, long string
	// file, or dir (with entry): relative to the spec's folder.
	file, dir, entry string
	// profile is the key of the profile it runs under (see profileFor).
	profile profileKey
}

// profileKey says how a program runs: one profile per distinct key.
type profileKey struct {
	lang Lang
	// kind: "script" (an interpreter, the file appended), "module"
	// (python3 -m pkg), "dir-main" (python3 /program), "go-file",
	// "go-module" (a main package at the module's root), "go-package"
	// (one below it, at sub), "c", "sh", "bash", "node".
	kind string
	// arg is the Python package of "module", the package folder
	// (relative to the module's root) of "go-package".
	arg string
	// vendor says the Go module has vendor/modules.txt tracked.
	vendor bool
}

var (
	mainGuardRE = regexp.MustCompile(`(?m)^if\s+__name__\s*==\s*['"]__main__['"]\s*:`)
	pyImportRE  = regexp.MustCompile(`(?m)^\s*(?:from\s+([A-Za-z_][A-Za-z0-9_]*)\s+import\b|import\s+([A-Za-z_][A-Za-z0-9_]*))`)
	identRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	cMainRE     = regexp.MustCompile(`(?m)^\s*(?:int|void)\s+main\s*\(`)
	shebangRE   = regexp.MustCompile(`^#!\s*(?:/usr/bin/env\s+(?:-S\s+)?)?(?:/\S*/)?(sh|dash|ash|bash|node|nodejs)(?:\s|$)`)
	jsMainRE    = regexp.MustCompile(`require\.main\s*===?\s*module`)
	goRequireRE = regexp.MustCompile(`(?m)^\s*require\b`)
	safePkgRE   = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
)

// isTest says whether a Python file is a test or a build script rather
// than a program.
func isTest(rel string) bool {
	base := path.Base(rel)
	for _, c := range strings.Split(path.Dir(rel), "/") {
		if c == "tests" || c == "test" {
			return true
		}
	}
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" || base == "setup.py" || base == "noxfile.py"
}

// detect finds the languages (by extension and marker file) and the
// likely programs.
func detect(t *tree, base string) (langs map[Lang]bool, progs []found, notes []string) {
	langs = map[Lang]bool{}
	progs = append(progs, detectPython(t, langs)...)
	goProgs, goNotes := detectGo(t, langs, base)
	progs = append(progs, goProgs...)
	notes = append(notes, goNotes...)
	progs = append(progs, detectC(t, langs)...)
	progs = append(progs, detectShebang(t, langs)...)
	progs = append(progs, detectNode(t, langs)...)
	return langs, progs, notes
}

func stem(rel string) string {
	return strings.TrimSuffix(rel, path.Ext(rel))
}

func detectPython(t *tree, langs map[Lang]bool) []found {
	var out []found
	for _, f := range t.programFiles() {
		switch path.Base(f.rel) {
		case "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt":
			langs[Python] = true
		}
		if path.Ext(f.rel) != ".py" {
			continue
		}
		langs[Python] = true
		dir := path.Dir(f.rel)
		if path.Base(f.rel) == "__main__.py" {
			if dir == "." {
				if t.fitsFolder(".") {
					out = append(out, found{lang: Python, name: path.Base(t.dir), long: path.Base(t.dir), dir: ".", profile: profileKey{lang: Python, kind: "dir-main"}})
				}
				continue
			}
			pkg := path.Base(dir)
			if !identRE.MatchString(pkg) || isTest(f.rel) || !t.fitsFolder(path.Dir(dir)) {
				continue
			}
			out = append(out, found{lang: Python, name: pkg, long: dir, dir: path.Dir(dir), profile: profileKey{lang: Python, kind: "module", arg: pkg}})
			continue
		}
		// Inside a package (or beside a __main__.py) a module's relative
		// imports work only with -m: not a script of its own.
		if t.has(path.Join(dir, "__init__.py")) || t.has(path.Join(dir, "__main__.py")) || isTest(f.rel) {
			continue
		}
		src := t.read(f.rel)
		if src == nil || !mainGuardRE.Match(src) {
			continue
		}
		p := found{lang: Python, name: path.Base(stem(f.rel)), long: stem(f.rel), file: f.rel, profile: profileKey{lang: Python, kind: "script"}}
		if importsSibling(t, dir, src) && t.fitsFolder(dir) {
			p.file, p.dir, p.entry = "", dir, path.Base(f.rel)
		}
		out = append(out, p)
	}
	return out
}

// importsSibling says whether a Python script imports a module that sits
// beside it (a .py file or a package folder in its folder), which a
// one-file program would lack.
func importsSibling(t *tree, dir string, src []byte) bool {
	for _, m := range pyImportRE.FindAllSubmatch(src, -1) {
		mod := string(m[1]) + string(m[2])
		if t.has(path.Join(dir, mod+".py")) || t.dirs[path.Join(dir, mod)] {
			return true
		}
	}
	return false
}

func detectGo(t *tree, langs map[Lang]bool, base string) ([]found, []string) {
	mains := map[string][]string{} // folder → its main package's files
	for _, f := range t.programFiles() {
		if path.Base(f.rel) == "go.mod" {
			langs[Go] = true
		}
		if path.Ext(f.rel) != ".go" || strings.HasSuffix(f.rel, "_test.go") {
			continue
		}
		langs[Go] = true
		src := t.read(f.rel)
		if src == nil {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f.rel, src, parser.PackageClauseOnly)
		if err != nil || file.Name.Name != "main" {
			continue
		}
		mains[path.Dir(f.rel)] = append(mains[path.Dir(f.rel)], f.rel)
	}
	var out []found
	var notes []string
	noted := map[string]bool{}
	for _, dir := range sortedKeys(mains) {
		mod := moduleRoot(t, dir)
		name := path.Base(dir)
		if dir == "." {
			name = base
		}
		if mod == "" {
			if len(mains[dir]) != 1 {
				notes = append(notes, fmt.Sprintf("passed over %d main files in %q outside any Go module: a program of several files needs a go.mod", len(mains[dir]), dir))
				continue
			}
			rel := mains[dir][0]
			out = append(out, found{lang: Go, name: path.Base(stem(rel)), long: stem(rel), file: rel, profile: profileKey{lang: Go, kind: "go-file"}})
			continue
		}
		if !t.fitsFolder(mod) {
			notes = append(notes, fmt.Sprintf("passed over the main package in %q: its module's folder is above the default --max-program-files or --max-program-size", dir))
			continue
		}
		vendor := t.has(path.Join(mod, "vendor/modules.txt"))
		if !vendor && !noted[mod] {
			noted[mod] = true
			if src := t.read(path.Join(mod, "go.mod")); src != nil && goRequireRE.Match(src) {
				notes = append(notes, fmt.Sprintf("the Go module in %q requires other modules, and builds have no network: run go mod vendor there and commit vendor/", mod))
			}
		}
		key := profileKey{lang: Go, kind: "go-module", vendor: vendor}
		if dir != mod {
			sub := strings.TrimPrefix(dir, mod+"/")
			if mod == "." {
				sub = dir
			}
			if !safePkgRE.MatchString(sub) {
				notes = append(notes, fmt.Sprintf("passed over the main package in %q: its path has characters a build command would have to quote", dir))
				continue
			}
			key = profileKey{lang: Go, kind: "go-package", arg: sub, vendor: vendor}
		}
		out = append(out, found{lang: Go, name: name, long: dir, dir: mod, profile: key})
	}
	return out, notes
}

// moduleRoot is the nearest folder at or above dir (within the spec's
// folder) that holds a go.mod git tracks, or "".
func moduleRoot(t *tree, dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if t.has(path.Join(d, "go.mod")) {
			return d
		}
		if d == "." {
			return ""
		}
	}
}

func detectC(t *tree, langs map[Lang]bool) []found {
	var out []found
	for _, f := range t.programFiles() {
		switch path.Ext(f.rel) {
		case ".h":
			// A header alone could be C++ as well: it does not say C.
		case ".c":
			langs[C] = true
			if src := t.read(f.rel); src != nil && cMainRE.Match(src) {
				out = append(out, found{lang: C, name: path.Base(stem(f.rel)), long: stem(f.rel), file: f.rel, profile: profileKey{lang: C, kind: "c"}})
			}
		}
	}
	return out
}

// detectShebang finds shell scripts (and Node scripts) by their first
// line: files with a .sh or .bash extension, executable files and files
// without an extension.
func detectShebang(t *tree, langs map[Lang]bool) []found {
	var out []found
	for _, f := range t.programFiles() {
		ext := path.Ext(f.rel)
		if ext == ".sh" || ext == ".bash" {
			langs[Shell] = true
		}
		if ext != ".sh" && ext != ".bash" && ext != "" && !f.exec {
			continue
		}
		m := shebangRE.FindStringSubmatch(t.firstLine(f.rel))
		if m == nil {
			continue
		}
		kind := "sh"
		switch m[1] {
		case "bash":
			kind = "bash"
		case "node", "nodejs":
			continue // detectNode's
		}
		langs[Shell] = true
		out = append(out, found{lang: Shell, name: path.Base(stem(f.rel)), long: stem(f.rel), file: f.rel, profile: profileKey{lang: Shell, kind: kind}})
	}
	return out
}

func detectNode(t *tree, langs map[Lang]bool) []found {
	var out []found
	seen := map[string]bool{}
	// A script of a package (below a package.json) runs with the package's
	// files around it: dir: the package, entry: the script.
	add := func(rel string) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		p := found{lang: Node, name: path.Base(stem(rel)), long: stem(rel), file: rel, profile: profileKey{lang: Node, kind: "node"}}
		for d := path.Dir(rel); ; d = path.Dir(d) {
			if t.has(path.Join(d, "package.json")) {
				if t.fitsFolder(d) {
					p.file, p.dir, p.entry = "", d, strings.TrimPrefix(rel, d+"/")
					if d == "." {
						p.entry = rel
					}
				}
				break
			}
			if d == "." {
				break
			}
		}
		out = append(out, p)
	}
	for _, f := range t.programFiles() {
		if path.Base(f.rel) != "package.json" {
			continue
		}
		langs[Node] = true
		for _, bin := range packageBins(t.read(f.rel)) {
			rel := path.Clean(path.Join(path.Dir(f.rel), bin))
			if t.has(rel) && !strings.HasPrefix(rel, "../") {
				add(rel)
			}
		}
	}
	for _, f := range t.programFiles() {
		switch path.Ext(f.rel) {
		case ".js", ".mjs", ".cjs":
			langs[Node] = true
		default:
			if !f.exec || path.Ext(f.rel) != "" {
				continue
			}
		}
		if m := shebangRE.FindStringSubmatch(t.firstLine(f.rel)); m != nil && (m[1] == "node" || m[1] == "nodejs") {
			add(f.rel)
		} else if src := t.read(f.rel); src != nil && jsMainRE.Match(src) {
			add(f.rel)
		}
	}
	return out
}

// packageBins returns the paths a package.json's "bin" names.
func packageBins(data []byte) []string {
	var pkg struct {
		Bin json.RawMessage `json:"bin"`
	}
	if data == nil || json.Unmarshal(data, &pkg) != nil || len(pkg.Bin) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(pkg.Bin, &one) == nil {
		return []string{one}
	}
	var many map[string]string
	if json.Unmarshal(pkg.Bin, &many) != nil {
		return nil
	}
	var out []string
	for _, k := range sortedKeys(many) {
		if safeName(many[k]) {
			out = append(out, many[k])
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// errNoGit is Generate's error outside a git work tree.
var errNoGit = errors.New("not inside a git work tree: behaves init proposes programs from the files git tracks (git init, git add, then behaves init)")
