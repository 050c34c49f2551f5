package initspec

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/distribution/reference"

	"github.com/behaves-dev/behaves/internal/gitindex"
)

// TodoComment begins the comment after an image init could not pin; the
// rest names the command that pins it. behaves pin removes it when it
// pins the image (pin.TodoComment is the same text).
const TodoComment = "# TODO: pin this image"

// DefaultImages are the images a spec starts with, as tags (Docker Hub's
// official images), for behaves pin to pin. --image LANG=REF replaces
// them.
var DefaultImages = map[Lang]string{
	Python: "python:3.13-slim",
	Go:     "golang:1.25",
	C:      "gcc:14",
	Shell:  "debian:bookworm-slim",
	Node:   "node:22-slim",
}

// DefaultMaxPrograms is how many programs a spec starts with at most; the
// others are named in Result.LeftOut.
const DefaultMaxPrograms = 30

// Options says where to look and which images to use.
type Options struct {
	// Dir is the folder the spec is written in: the programs are looked
	// for under it, and their paths are relative to it. It must be inside
	// a git work tree.
	Dir string
	// Images replace DefaultImages, per language: a tag, a registry
	// digest (name[:tag]@sha256:…) or a local image ID (sha256:…).
	Images map[Lang]string
	// Resolve, when not nil, returns the digest of a tag's image
	// (pin.Resolver.Digest): an image it resolves is written as
	// name:tag@sha256:<digest>. Nil: nothing is asked, and every tag
	// gets a TODO comment.
	Resolve func(ctx context.Context, ref string) (string, error)
	// MaxPrograms caps the programs written (DefaultMaxPrograms when 0).
	MaxPrograms int
}

// Program is one program entry written.
type Program struct {
	Name, Profile string
	// Path is its file or folder (relative to the spec's folder).
	Path string
}

// Todo is an image written as a tag, to be pinned.
type Todo struct {
	Profile, Ref string
	// Registry is the registry behaves pin must be allowed to ask.
	Registry string
	// Err is why the resolver could not pin it (nil: not asked).
	Err error
}

// Result is a generated spec and what it holds.
type Result struct {
	// Spec is the file's text.
	Spec     []byte
	Langs    []Lang
	Profiles []string
	Programs []Program
	// Todo lists the images written as tags (with a TODO comment): until
	// they are pinned, behaves validate refuses each at its image: line.
	Todo []Todo
	// NoPrograms says no likely program was found: the spec's programs
	// list is empty, which behaves validate refuses until one is listed.
	NoPrograms bool
	// LeftOut are the likely programs beyond MaxPrograms (their paths).
	LeftOut []string
	// Notes say what init passed over, or what a build will need.
	Notes []string
}

// CheckImage returns why ref cannot be a profile's image as init writes
// it, or "": a local image ID (sha256:<64 hex>), or a reference with a
// tag, a digest or both.
func CheckImage(ref string) string {
	if strings.HasPrefix(ref, "sha256:") {
		if !imageIDRE.MatchString(ref) {
			return "a local image ID is sha256: followed by 64 lowercase hex digits"
		}
		return ""
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return fmt.Sprintf("not an image reference: %v", err)
	}
	_, tagged := named.(reference.Tagged)
	_, digested := named.(reference.Digested)
	if !tagged && !digested {
		return "name a tag (python:3.13-slim), a digest (name@sha256:…) or an image ID (sha256:…)"
	}
	return ""
}

var imageIDRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// pinned says whether ref already names one image (an ID or a digest).
func pinned(ref string) bool {
	return strings.HasPrefix(ref, "sha256:") || strings.Contains(ref, "@sha256:")
}

// registryOf is the registry Docker would pull ref from.
func registryOf(ref string) string {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ""
	}
	return strings.ToLower(reference.Domain(named))
}

// Generate looks at what git tracks under opt.Dir and returns a starting
// spec. It writes nothing.
func Generate(ctx context.Context, opt Options) (*Result, error) {
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	root := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			return nil, errNoGit
		}
	}
	repo, err := gitindex.Open(root)
	if err != nil {
		return nil, err
	}
	t, err := scan(root, dir, repo)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(dir)
	if !safeName(base) || !plainRE.MatchString(base) {
		base = "main"
	}
	langs, progs, notes := detect(t, base)
	if t.truncated {
		notes = append(notes, fmt.Sprintf("looked at the first %d files git tracks only", maxFiles))
	}
	max := opt.MaxPrograms
	if max <= 0 {
		max = DefaultMaxPrograms
	}
	res := &Result{Notes: notes}
	slices.SortStableFunc(progs, func(a, b found) int { return strings.Compare(a.where(), b.where()) })
	if len(progs) > max {
		for _, p := range progs[max:] {
			res.LeftOut = append(res.LeftOut, p.where())
		}
		progs = progs[:max]
	}
	for _, l := range Langs {
		if langs[l] {
			res.Langs = append(res.Langs, l)
		}
	}
	if len(res.Langs) == 0 {
		return nil, fmt.Errorf("found no Python, Go, C, shell or Node file among the files git tracks under %s (%d): nothing to start a spec from (write one by hand: the spec's reference is docs/spec.md)", dir, len(t.files))
	}
	images := map[Lang]string{}
	for _, l := range Langs {
		if !langs[l] {
			continue
		}
		ref, ok := opt.Images[l]
		if !ok {
			ref = DefaultImages[l]
		}
		if !pinned(ref) && opt.Resolve != nil {
			digest, err := opt.Resolve(ctx, ref)
			if err == nil {
				images[l] = ref + "@" + digest
				continue
			}
			res.Todo = append(res.Todo, Todo{Profile: string(l), Ref: ref, Registry: registryOf(ref), Err: err})
		} else if !pinned(ref) {
			res.Todo = append(res.Todo, Todo{Profile: string(l), Ref: ref, Registry: registryOf(ref)})
		}
		images[l] = ref
	}
	res.Spec = render(res, langs, progs, images)
	return res, nil
}

// where is a found program's path: its file, its folder, or its
// folder's entry.
func (p found) where() string {
	switch {
	case p.file != "":
		return p.file
	case p.entry != "" && p.dir == ".":
		return p.entry
	case p.entry != "":
		return p.dir + "/" + p.entry
	}
	return p.dir
}

// profile is one profile as written.
type profile struct {
	name string
	key  profileKey
}

// profileName is a profile's key in the spec: the language's, or with
// what sets it apart (python-tool, go-rpn).
func profileName(k profileKey) string {
	switch k.kind {
	case "script", "node", "c", "sh", "bash":
		if k.lang == Shell {
			return k.kind
		}
		return string(k.lang)
	case "dir-main":
		return "python-dir"
	case "module":
		return "python-" + sanitize(k.arg)
	case "go-file":
		return "go"
	case "go-module":
		return "go-module"
	case "go-package":
		return "go-" + sanitize(path.Base(k.arg))
	}
	return string(k.lang)
}

var profileCharRE = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func sanitize(s string) string { return profileCharRE.ReplaceAllString(s, "-") }

// render writes the spec's text.
func render(res *Result, langs map[Lang]bool, progs []found, images map[Lang]string) []byte {
	// Profiles: one per distinct way of running, in the order of Langs,
	// then of their names; a name two keys would share gets a number.
	keys := map[profileKey]string{}
	var profiles []profile
	taken := map[string]bool{}
	for _, l := range Langs {
		var mine []profileKey
		for _, p := range progs {
			if p.lang == l && keys[p.profile] == "" {
				keys[p.profile] = "?"
				mine = append(mine, p.profile)
			}
		}
		if len(mine) == 0 && langs[l] {
			// A language with no program found still gets its profile, so
			// that a program added by hand has one to name.
			mine = append(mine, defaultKey(l))
		}
		slices.SortStableFunc(mine, func(a, b profileKey) int { return strings.Compare(profileName(a), profileName(b)) })
		for _, k := range mine {
			name := profileName(k)
			for i := 2; taken[name]; i++ {
				name = fmt.Sprintf("%s-%d", profileName(k), i)
			}
			taken[name] = true
			keys[k] = name
			profiles = append(profiles, profile{name: name, key: k})
		}
	}
	// Program names: the short one, or the path without its extension
	// where two would share it, or the whole path where those would too.
	count, countLong := map[string]int{}, map[string]int{}
	for _, p := range progs {
		count[p.name]++
		countLong[p.long]++
	}

	var b strings.Builder
	b.WriteString(header)
	todoRegs := map[string]bool{}
	for _, t := range res.Todo {
		if t.Registry != "" {
			todoRegs[t.Registry] = true
		}
	}
	if len(todoRegs) > 0 {
		fmt.Fprintf(&b, "#   behaves pin %s   # pin the image tags to digests (--check: still current?)\n", allowFlags(todoRegs))
	}
	b.WriteString("#   behaves validate   # check this file (no Docker)\n")
	b.WriteString("#   behaves run        # run every case, each in a fresh container\n")
	b.WriteString("version: 1\nprofiles:\n")
	for _, p := range profiles {
		res.Profiles = append(res.Profiles, p.name)
		writeProfile(&b, p, images[p.key.lang])
	}
	if len(progs) == 0 {
		res.NoPrograms = true
		fmt.Fprintf(&b, noPrograms, profiles[0].name)
		return []byte(b.String())
	}
	b.WriteString("programs:\n")
	for i, p := range progs {
		name := p.name
		switch {
		case count[name] > 1 && countLong[p.long] > 1:
			name = p.where()
		case count[name] > 1:
			name = p.long
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  - name: %s\n", scalar(name))
		if p.file != "" {
			fmt.Fprintf(&b, "    file: %s\n", scalar(p.file))
		} else {
			fmt.Fprintf(&b, "    dir: %s\n", scalar(p.dir))
			if p.entry != "" {
				fmt.Fprintf(&b, "    entry: %s\n", scalar(p.entry))
			}
		}
		fmt.Fprintf(&b, "    profile: %s\n", scalar(keys[p.profile]))
		b.WriteString("    cases:\n")
		b.WriteString("      # A placeholder: checks only that it exits 0. Add args or stdin and an\n")
		b.WriteString("      # expect, or let behaves record write what the program does now.\n")
		b.WriteString("      - name: runs\n")
		res.Programs = append(res.Programs, Program{Name: name, Profile: keys[p.profile], Path: p.where()})
	}
	return []byte(b.String())
}

// defaultKey is the profile of a language in which no program was found.
func defaultKey(l Lang) profileKey {
	switch l {
	case Python:
		return profileKey{lang: Python, kind: "script"}
	case Go:
		return profileKey{lang: Go, kind: "go-module"}
	case C:
		return profileKey{lang: C, kind: "c"}
	case Shell:
		return profileKey{lang: Shell, kind: "sh"}
	}
	return profileKey{lang: Node, kind: "node"}
}

const header = `# behaves.yml, written by behaves init from the files git tracks: a profile
# (image and command) per way of running, a program per likely program, and
# one placeholder case each. Give each case its args or stdin and an expect
# (the spec's reference: docs/spec.md), or let behaves record write what the
# programs do now, and review the diff.
#
`

const noPrograms = `# TODO: behaves init found no likely program. List at least one, like:
#   - name: hello
#     file: path/to/hello      # relative to this file; or dir: a folder
#     profile: %s
#     cases:
#       - {name: greets, args: ["Ada"], expect: {stdout: {equals: "Hello, Ada"}}}
programs: []
`

// allowFlags is "--allow-registry A --allow-registry B".
func allowFlags(regs map[string]bool) string {
	var parts []string
	for _, r := range sortedKeys(regs) {
		parts = append(parts, "--allow-registry "+r)
	}
	return strings.Join(parts, " ")
}

// plainRE is what scalar writes unquoted: a name or a path that YAML
// reads back as the same string.
var plainRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`)

// scalar writes s as a YAML string: plain when it reads back as itself
// (not a boolean or null in YAML 1.1 or 1.2), else double-quoted.
func scalar(s string) string {
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "true", "false", "on", "off", "null":
		return q(s)
	}
	if plainRE.MatchString(s) {
		return s
	}
	return q(s)
}

// q writes s as a double-quoted YAML string (JSON's escapes are YAML's).
func q(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}

// list writes a flow list of double-quoted strings.
func list(items ...string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = q(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

const goEnv = `GOCACHE: /tmp/go-cache, GOPATH: /tmp/go, CGO_ENABLED: "0", GOPROXY: "off"`

func writeProfile(b *strings.Builder, p profile, image string) {
	fmt.Fprintf(b, "  %s:\n", scalar(p.name))
	fmt.Fprintf(b, "    image: %s", q(image))
	if !pinned(image) {
		if reg := registryOf(image); reg != "" {
			fmt.Fprintf(b, "  %s: behaves pin --allow-registry %s", TodoComment, reg)
		} else {
			fmt.Fprintf(b, "  %s", TodoComment)
		}
	}
	b.WriteString("\n")
	k := p.key
	switch k.kind {
	case "script":
		fmt.Fprintf(b, "    command: %s   # /program/<file> and a case's args follow\n", list("python3"))
	case "dir-main":
		fmt.Fprintf(b, "    command: %s   # runs the folder's __main__.py\n", list("python3", "/program"))
	case "module":
		fmt.Fprintf(b, "    command: %s   # the package's parent folder is /program, the working directory\n", list("python3", "-m", k.arg))
	case "sh", "bash", "node":
		fmt.Fprintf(b, "    command: %s   # /program/<file> and a case's args follow\n", list(k.kind))
	case "c":
		b.WriteString("    command: [\"/build/main\"]   # what the build wrote; a case's args follow\n")
	case "go-file", "go-module", "go-package":
		bin := "/build/main"
		if k.kind != "go-file" {
			bin = "/build/app"
		}
		fmt.Fprintf(b, "    command: %s   # what the build wrote; a case's args follow\n", list(bin))
	}
	b.WriteString("    timeout: 10s\n    memory: 256MiB\n")
	switch k.kind {
	case "c":
		b.WriteString("    build:                          # once per program; /program/<file> is appended\n")
		b.WriteString("      command: [\"gcc\", \"-O2\", \"-Wall\", \"-o\", \"/build/main\"]\n")
		b.WriteString("      timeout: 120s\n      memory: 512MiB\n")
	case "go-file", "go-module", "go-package":
		b.WriteString("    # Builds have no network: the Go caches go under /tmp, and no module is\n")
		b.WriteString("    # fetched (commit vendor/ with go mod vendor for a module's dependencies).\n")
		env := goEnv
		if k.vendor {
			env += ", GOFLAGS: -mod=vendor"
		}
		fmt.Fprintf(b, "    env: {%s}\n", env)
		b.WriteString("    build:\n")
		switch k.kind {
		case "go-file":
			b.WriteString("      command: [\"go\", \"build\", \"-o\", \"/build/main\"]   # /program/<file> is appended\n")
		case "go-module":
			b.WriteString("      command: [\"go\", \"build\", \"-o\", \"/build/app\"]   # /program, the module's folder, is appended\n")
		case "go-package":
			b.WriteString("      # /program is the module's folder and the working directory: build the\n")
			b.WriteString("      # main package below it (\"{program}\", /program, is only $0 here).\n")
			fmt.Fprintf(b, "      command: %s\n", list("sh", "-c", "exec go build -o /build/app ./"+k.arg, "{program}"))
		}
		b.WriteString("      timeout: 300s\n      memory: 1GiB\n")
		b.WriteString("      pids: 256                     # the go command runs many threads\n")
		b.WriteString("      tmpfs: {/tmp: 256MiB}\n")
	}
}
