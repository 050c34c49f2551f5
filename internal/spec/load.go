package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/gitindex"
	"github.com/behaves-dev/behaves/internal/verdict"
	"github.com/behaves-dev/behaves/internal/workfile"
)

// DefaultMaxFileSize is the size cap for every program file and stdin file
// when Options.MaxFileSize is 0: 16 MiB.
const DefaultMaxFileSize int64 = 16 << 20

// MaxSpecSize caps the spec file itself: 16 MiB.
const MaxSpecSize int64 = 16 << 20

// Options for Load.
type Options struct {
	// Ceilings bound what the spec may ask for. A zero field means the
	// DefaultCeilings value for that field.
	Ceilings Ceilings
	// Images overrides profile images by profile name (the CLI's
	// --image NAME=REF), applied before validation; an override naming an
	// unknown profile is an error.
	Images map[string]string
	// MaxFileSize caps every program and stdin file; 0 means
	// DefaultMaxFileSize.
	MaxFileSize int64
	// AllowUntracked admits files git does not track (inside a git work
	// tree) when their path relative to the repository root matches one
	// of these patterns (the CLI's --allow-untracked). Nothing admits a
	// path through .git.
	AllowUntracked []AllowGlob
	// AllowNonGating are the program entry names (path.Match patterns)
	// whose gate: false holds (the CLI's --allow-non-gating). The spec
	// comes from the pull request, which must not take its own program
	// out of the gate: elsewhere gate: false is an error.
	AllowNonGating []string
	// Pull says that the run pulls the images the engine lacks (the CLI's
	// pull command and run --pull-images): then every registry-digest
	// image, --image overrides included, must come from a registry in
	// AllowRegistries, since a pull request's spec could otherwise make
	// the runner fetch anything from anywhere.
	Pull bool
	// AllowRegistries are the registries a pull may fetch from, as
	// host[:port] in the normal form of NormalizeRegistry (the CLI's
	// --allow-registry).
	AllowRegistries []string
	// Backend is the sandbox backend the run uses ("" for Docker): it goes
	// into every profile (runner.Profile.Backend), so that the evidence
	// key tells the backends apart.
	Backend string
}

// withDefaults fills zero fields.
func (o Options) withDefaults() Options {
	if o.Ceilings.MaxTimeout <= 0 {
		o.Ceilings.MaxTimeout = DefaultCeilings.MaxTimeout
	}
	if o.Ceilings.MaxMemory <= 0 {
		o.Ceilings.MaxMemory = DefaultCeilings.MaxMemory
	}
	if o.Ceilings.MaxOutput <= 0 {
		o.Ceilings.MaxOutput = DefaultCeilings.MaxOutput
	}
	if o.Ceilings.MaxOutputLimit <= 0 {
		o.Ceilings.MaxOutputLimit = DefaultCeilings.MaxOutputLimit
	}
	if o.Ceilings.MaxCases <= 0 {
		o.Ceilings.MaxCases = DefaultCeilings.MaxCases
	}
	if o.Ceilings.MaxPids <= 0 {
		o.Ceilings.MaxPids = DefaultCeilings.MaxPids
	}
	if o.Ceilings.MaxRepeat <= 0 {
		o.Ceilings.MaxRepeat = DefaultCeilings.MaxRepeat
	}
	o.Ceilings.MaxRepeat = min(o.Ceilings.MaxRepeat, MaxRepeat)
	if o.Ceilings.MaxReferenceOutput <= 0 {
		o.Ceilings.MaxReferenceOutput = DefaultCeilings.MaxReferenceOutput
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.Ceilings.MaxProgramFiles <= 0 {
		o.Ceilings.MaxProgramFiles = DefaultCeilings.MaxProgramFiles
	}
	if o.Ceilings.MaxProgramSize <= 0 {
		o.Ceilings.MaxProgramSize = DefaultCeilings.MaxProgramSize
	}
	return o
}

// Load reads the spec at path, validates it, reads the stdin files it
// names and reads each program file once, keeping its content handle (its
// size and digest; runner.File), not its bytes. Every problem with the spec is returned at once as an
// Errors value (not wrapped); any other error means the spec file itself
// could not be read.
func Load(path string, opt Options) (*Spec, error) {
	opt = opt.withDefaults()
	l := &loader{file: path, opt: opt, cache: map[string]cachedFile{}, handles: map[string]cachedHandle{}, casesFiles: map[string][]Case{}, inputsFiles: map[string][]Case{}}
	real, err := l.locate(path)
	if err != nil {
		return nil, err
	}
	data, err := readSpecFile(real, path, MaxSpecSize)
	if err != nil {
		return nil, err
	}
	doc := l.parse(data, "a spec", "the spec is empty: write a mapping with version: 1, profiles and programs")
	if doc == nil {
		l.errs.sort()
		return nil, l.errs
	}
	spec := l.spec(doc)
	if len(l.errs) > 0 {
		l.errs.sort()
		return nil, l.errs
	}
	sum := sha256.Sum256(data)
	spec.SHA256 = hex.EncodeToString(sum[:])
	return spec, nil
}

// readSpecFile reads the spec file at its real path (no symlink left; path
// is the one given, for messages), refusing anything but a regular file of
// at most max bytes.
func readSpecFile(real, path string, max int64) ([]byte, error) {
	f, fi, err := workfile.Open(real, nil)
	if errors.Is(err, workfile.ErrNotRegular) {
		return nil, fmt.Errorf("reading spec %s: not a regular file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading spec: %w", err)
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("reading spec %s: %s is above the %s cap", path, sizeOf(fi.Size()), verdict.FormatSize(max))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading spec: %w", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("reading spec %s: above the %s cap", path, verdict.FormatSize(max))
	}
	return data, nil
}

// loader holds the state of one Load.
type loader struct {
	file string // the spec path as given, for positions
	opt  Options
	errs Errors
	// dir is the spec's folder and root the repository root, both absolute
	// with symlinks resolved. While a cases file is parsed, file and dir
	// are the cases file's and folder is what messages call dir (see
	// within).
	dir, root string
	folder    string
	// cache holds files already read, by resolved path, and handles the
	// program files already read (their content handles).
	cache   map[string]cachedFile
	handles map[string]cachedHandle
	// repo is what git tracks under the root, nil when the root is not a
	// git work tree (every file under it may be named).
	repo *gitindex.Repo
	// casesFiles holds every cases file parsed, by its path relative to
	// the root as written, so that a file many programs share is read,
	// parsed and reported once.
	casesFiles map[string][]Case
	// inputsFiles holds every inputs file parsed (its #N cases), by its
	// path relative to the root.
	inputsFiles map[string][]Case
	// checkerUses are the checkers the checker matchers name, checked
	// once every checker is known (checkCheckers).
	checkerUses []checkerUse
}

// folderName is what messages call the folder paths are relative to.
func (l *loader) folderName() string {
	if l.folder == "" {
		return "the spec's folder"
	}
	return l.folder
}

// errorf records a problem at n's position.
func (l *loader) errorf(n *yaml.Node, format string, args ...any) {
	l.errorAt(l.pos(n), format, args...)
}

// errorAt records a problem at a position.
func (l *loader) errorAt(p Pos, format string, args ...any) {
	if p.Line <= 0 {
		p.Line, p.Col = 1, 0
	}
	l.errs = append(l.errs, Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// pos is n's position in the spec.
func (l *loader) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: l.file, Line: 1}
	}
	return Pos{File: l.file, Line: n.Line, Col: n.Column}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parse decodes data into a document node, rejecting syntax errors, more
// than one document, and anchors or aliases. It returns the document's
// root node (nil when nothing more can be checked). kind names the file in
// messages ("a spec"), empty is the message for a file without content.
func (l *loader) parse(data []byte, kind, empty string) (root *yaml.Node) {
	defer func() {
		// yaml.v3 recovers its own errors; anything else is a bug in it
		// that must not take the CLI down.
		if r := recover(); r != nil {
			l.errorAt(Pos{File: l.file, Line: 1}, "the YAML parser failed on this file (%v): simplify the YAML", r)
			root = nil
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			l.errorAt(Pos{File: l.file, Line: 1}, "%s", empty)
			return nil
		}
		l.syntaxError(err, data)
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		l.errorAt(Pos{File: l.file, Line: next.Line}, `%s is one YAML document: remove the second document (after "---")`, kind)
	case !errors.Is(err, io.EOF):
		l.syntaxError(err, data)
	}
	l.checkAnchors(&doc)
	if len(doc.Content) == 0 {
		l.errorAt(Pos{File: l.file, Line: 1}, "%s", empty)
		return nil
	}
	return doc.Content[0]
}

// syntaxError records a YAML syntax error. yaml.v3 names the line where
// the enclosing construct began (and leaves it out on the first line), so
// the line reported is the first line at or after it where the YAML read
// so far already fails the same way, or else the line of the first byte
// YAML cannot hold; syntaxProblem then finds the column (yaml.v3 gives
// none), says what to change, and moves to the line before where the
// mistake is there (a key without its ":").
func (l *loader) syntaxError(err error, data []byte) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	from := max(line, 1)
	if line == bytes.Count(data, []byte("\n"))+1 {
		// A construct that began on the first line is reported where the
		// parser stopped, at the end of the file (an unclosed quote).
		from = 1
	}
	if k := firstFailingLine(data, from, err.Error()); k > 0 {
		line = k
	} else if line <= 0 {
		line = badByteLine(data)
	}
	line, col, text := syntaxProblem(data, line, msg)
	l.errorAt(Pos{File: l.file, Line: line, Col: col}, "%s", text)
}

// syntaxSearchBudget bounds the bytes firstFailingLine parses.
const syntaxSearchBudget = 8 << 20

// firstFailingLine returns the smallest k >= from such that the first k
// lines of data fail to parse with the same message (ignoring the line
// yaml.v3 puts in it), or 0 if there is none within the budget.
func firstFailingLine(data []byte, from int, want string) int {
	want = syntaxMessage(want)
	budget := syntaxSearchBudget
	line, end := 1, 0
	for end < len(data) && budget > 0 {
		nl := bytes.IndexByte(data[end:], '\n')
		if nl < 0 {
			end = len(data)
		} else {
			end += nl + 1
		}
		if line >= from {
			budget -= end
			if err := parseAll(data[:end]); err != nil && syntaxMessage(err.Error()) == want {
				return line
			}
		}
		line++
	}
	return 0
}

// syntaxMessage is a yaml.v3 error's text without "yaml: " and the line
// (which it leaves out for the first line).
func syntaxMessage(s string) string {
	if m := yamlLineRE.FindStringSubmatch(s); m != nil {
		return m[2]
	}
	return strings.TrimPrefix(s, "yaml: ")
}

// parseAll parses every document in data, returning the first error.
func parseAll(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// badByteLine returns the line of the first byte that is not valid UTF-8 or
// is a control character YAML refuses, or 1 when there is none (yaml.v3
// leaves the line out for problems on the first line).
func badByteLine(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		switch {
		case r == '\n':
			line++
		case r == '\t' || r == '\r' || r == 0x85 || r == 0xFEFF:
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == 0xFFFE || r == 0xFFFF:
			return line
		}
		i += size
	}
	return 1
}

// checkAnchors reports every anchor and the first use of each alias name:
// the spec is plain data, and an alias bomb must not make the loader expand
// anything.
func (l *loader) checkAnchors(n *yaml.Node) {
	l.walkAnchors(n, map[string]bool{})
}

func (l *loader) walkAnchors(n *yaml.Node, aliases map[string]bool) {
	if n == nil {
		return
	}
	if n.Kind == yaml.AliasNode {
		if !aliases[n.Value] {
			aliases[n.Value] = true
			l.errorf(n, "alias *%s: anchors and aliases are not supported; write the value out (every use of *%s is refused)", short(n.Value), short(n.Value))
		}
		return // never follow an alias
	}
	if n.Anchor != "" {
		l.errorf(n, "anchor &%s: anchors and aliases are not supported; write the value out", short(n.Anchor))
	}
	for _, c := range n.Content {
		l.walkAnchors(c, aliases)
	}
}
