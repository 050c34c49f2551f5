package evidence

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/runner"
)

// Difference is one part in which stored evidence is not the spec's now.
type Difference struct {
	Part Part
	// Msg says what the spec has now and what the stored run had, in words
	// a person can act on ("env is ["MODE=b"], the stored run had
	// ["MODE=a"]").
	Msg string
	// Unrecorded is set when the stored run did not record the part (it
	// stopped before it, or came from an earlier behaves): nothing says it
	// differs, nothing says it agrees.
	Unrecorded bool
}

// Diff lists every part in which got (stored) is not want (the spec's),
// the program's parts first, then the run's, then the reference's
// (their Part prefixed "reference.").
func Diff(want, got Key) []Difference {
	d := DiffProgram(want.Program, got.Program)
	d = append(d, DiffRun(want.Run, got.Run)...)
	return append(d, DiffReference(want.References, got.References)...)
}

// DiffReference lists how a same_as case's stored reference runs (got: the
// key of each; nil for a case that had none) differ from the reference's
// runs now (want; nil for a case that is not same_as). Each difference is
// listed once, with its Part prefixed "reference.".
func DiffReference(want, got []Key) []Difference {
	switch {
	case len(want) == 0 && len(got) == 0:
		return nil
	case len(want) == 0:
		return []Difference{{Part: PartReference, Msg: "the stored case was compared with a reference (same_as), the spec's is not"}}
	case len(got) == 0:
		return []Difference{{Part: PartReference, Msg: "the stored case was not same_as: it has no reference runs"}}
	}
	var d []Difference
	if len(want) != len(got) {
		d = append(d, Difference{Part: PartReferenceRuns, Msg: fmt.Sprintf("it runs %d %s for this input, the stored case has %d %s",
			len(want), Times(len(want)), len(got), Times(len(got)))})
	}
	for i, k := range got {
		for _, r := range Diff(want[min(i, len(want)-1)], k) {
			r.Part = PartReference + "." + r.Part
			if !slices.ContainsFunc(d, func(o Difference) bool { return o.Msg == r.Msg }) {
				d = append(d, r)
			}
		}
	}
	return d
}

// DiffProgram lists how a stored program attempt's part of the key differs
// from the spec's: its format, its file, its image, then every field of
// the applied settings, both ways, its build's included.
func DiffProgram(want, got Program) []Difference {
	c := &collector{unrecorded: got.unrecorded, by: "the stored run"}
	c.add(PartFormat, want.Format != got.Format, "this behaves records evidence format %d, the stored run was recorded under format %d by another behaves", want.Format, got.Format)
	c.add(PartProgram, want.SHA256 != got.SHA256, "changed since the stored run%s (sha256 %s, stored %s)", filesChanged(want.Files, got.Files), short(want.SHA256), short(got.SHA256))
	c.add(PartImage, !sameImage(want.Image, got.Image), "image is %q%s, the stored run ran %s", want.Image.Pin, resolved(want.Image), storedImage(got.Image))
	if slices.Contains(got.unrecorded, PartSettings) {
		c.add(PartSettings, false, "")
		return c.d
	}
	diffApplied(c, "", reflect.ValueOf(want.Applied), reflect.ValueOf(got.Applied))
	wb, gb := want.Applied.Build, got.Applied.Build
	switch {
	case wb == nil && gb == nil:
	case wb == nil:
		c.add(PartBuild, true, "build is gone, the stored run built with %q", gb.Command)
	case gb == nil:
		c.add(PartBuild, true, "build is new: the stored run had none")
	default:
		c.add(PartBuildImage, !sameImage(want.BuildImage, got.BuildImage), "build.image is %q%s, the stored build ran %s", want.BuildImage.Pin, resolved(want.BuildImage), storedImage(got.BuildImage))
		diffApplied(c, string(PartBuild)+".", reflect.ValueOf(*wb), reflect.ValueOf(*gb))
	}
	return c.d
}

// maxFilesNamed bounds how many differing files a difference names.
const maxFilesNamed = 3

// filesChanged names, when both lists are known, the files of want that
// got does not hold alike (": tool/parsing.py changed, tool/new.py
// added"), at most maxFilesNamed and how many more; "" otherwise.
func filesChanged(want, got []runner.ListEntry) string {
	if want == nil || got == nil {
		return ""
	}
	stored := make(map[string]runner.ListEntry, len(got))
	for _, e := range got {
		stored[e.Path] = e
	}
	var named []string
	n := 0
	note := func(s string) {
		if n++; n <= maxFilesNamed {
			named = append(named, s)
		}
	}
	for _, e := range want {
		o, ok := stored[e.Path]
		delete(stored, e.Path)
		switch {
		case !ok:
			note(strconv.Quote(e.Path) + " added")
		case o.Mode != e.Mode:
			note(fmt.Sprintf("%q mode %s (stored %s)", e.Path, e.Mode, o.Mode))
		case o.SHA256 != e.SHA256:
			note(strconv.Quote(e.Path) + " changed")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(stored)) {
		note(strconv.Quote(p) + " removed")
	}
	if n > maxFilesNamed {
		named = append(named, fmt.Sprintf("and %d more", n-maxFilesNamed))
	}
	if len(named) == 0 {
		return ""
	}
	return ": " + strings.Join(named, ", ")
}

// DiffRun lists how a stored invocation's input differs from the spec's.
func DiffRun(want, got Run) []Difference {
	c := &collector{unrecorded: got.unrecorded, by: "the stored run"}
	c.add(PartArgs, !slices.Equal(want.Args, got.Args), "args are %q, the stored case had %q", want.Args, got.Args)
	c.add(PartStdin, want.StdinSHA256 != got.StdinSHA256, "stdin changed (sha256 %s, stored %s)", short(want.StdinSHA256), short(got.StdinSHA256))
	return c.d
}

// appliedSkip are the fields of runner.Applied that DiffProgram compares
// itself: the image (a pin and the ID it resolved to) and the build (a
// part of its own).
var appliedSkip = []string{"image", "build"}

// skipped says whether DiffProgram compares field name of runner.Applied
// (under prefix) itself rather than through diffApplied.
func skipped(prefix, name string) bool {
	return (prefix == "" || prefix == string(PartBuild)+".") && slices.Contains(appliedSkip, name)
}

// diffApplied adds a difference for each field of want (a runner.Applied,
// or a struct inside one) that got does not hold alike, named prefix and
// its JSON name. Structs are walked; maps and lists compare whole, both
// ways, an empty one alike to none.
func diffApplied(c *collector, prefix string, want, got reflect.Value) {
	t := want.Type()
	for i := range t.NumField() {
		name := jsonName(t.Field(i))
		if skipped(prefix, name) {
			continue
		}
		w, g := want.Field(i), got.Field(i)
		if w.Kind() == reflect.Struct {
			diffApplied(c, prefix+name+".", w, g)
			continue
		}
		part := Part(prefix + name)
		if !alike(w, g) {
			c.add(part, true, "%s", describe(part, w, g))
		}
	}
}

// AppliedParts are the parts of a key that are fields of runner.Applied,
// a build's included, in the order Diff compares them.
func AppliedParts() []Part {
	var out []Part
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			name := jsonName(t.Field(i))
			if skipped(prefix, name) {
				continue
			}
			if t.Field(i).Type.Kind() == reflect.Struct {
				walk(prefix+name+".", t.Field(i).Type)
				continue
			}
			out = append(out, Part(prefix+name))
		}
	}
	t := reflect.TypeFor[runner.Applied]()
	walk("", t)
	walk(string(PartBuild)+".", t)
	return out
}

// jsonName is a field's name in a report.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// alike is reflect.DeepEqual, with an empty map or list alike to none.
func alike(w, g reflect.Value) bool {
	switch w.Kind() {
	case reflect.Map, reflect.Slice:
		if w.Len() == 0 && g.Len() == 0 {
			return true
		}
	}
	return reflect.DeepEqual(w.Interface(), g.Interface())
}

// describe says how a field differs: for a map, each key added, removed
// or changed; else both values.
func describe(part Part, w, g reflect.Value) string {
	if w.Kind() != reflect.Map {
		return fmt.Sprintf("%s is %s, the stored run had %s", part, show(w), show(g))
	}
	keys := map[string]reflect.Value{}
	for _, k := range append(w.MapKeys(), g.MapKeys()...) {
		keys[fmt.Sprint(k.Interface())] = k
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(keys)) {
		k := keys[name]
		wv, gv := w.MapIndex(k), g.MapIndex(k)
		switch {
		case !gv.IsValid():
			out = append(out, fmt.Sprintf("%s %s is %v now, the stored run had none", part, name, wv.Interface()))
		case !wv.IsValid():
			out = append(out, fmt.Sprintf("%s %s is gone, the stored run had it (%v)", part, name, gv.Interface()))
		case !reflect.DeepEqual(wv.Interface(), gv.Interface()):
			out = append(out, fmt.Sprintf("%s %s is %v, the stored run had %v", part, name, wv.Interface(), gv.Interface()))
		}
	}
	return strings.Join(out, "; ")
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Slice || v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.Interface())
	}
	return fmt.Sprintf("%v", v.Interface())
}

// sameImage says whether a stored image is the one want pins: the same
// pin, or the pin names the image ID or registry digest the run recorded.
// Where both image IDs are known, they decide.
func sameImage(want, got Image) bool {
	if want.Unresolved != "" {
		return false
	}
	if want.ID != "" && got.ID != "" {
		return want.ID == got.ID
	}
	if got.Pin != "" && want.Pin == got.Pin {
		return true
	}
	if want.Pin == got.ID || want.Pin == got.RepoDigest {
		return want.Pin != ""
	}
	_, digest, ok := strings.Cut(want.Pin, "@")
	_, stored, ok2 := strings.Cut(got.RepoDigest, "@")
	return ok && ok2 && digest == stored
}

// resolved says what the spec's pin is here: the image this engine runs
// for it, or why that is not known.
func resolved(im Image) string {
	switch {
	case im.Unresolved != "":
		return fmt.Sprintf(" (which this engine could not resolve: %s; a registry digest may name an image per platform, and only the one run here answers)", im.Unresolved)
	case im.ID != "" && im.ID != im.Pin:
		return " (" + im.ID + " on this engine)"
	}
	return ""
}

// storedImage names a stored image: its pin, else its ID.
func storedImage(im Image) string {
	if im.Pin != "" {
		return fmt.Sprintf("%q", im.Pin)
	}
	return im.ID
}

// Times is "time" or "times" for n.
func Times(n int) string {
	if n == 1 {
		return "time"
	}
	return "times"
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	if digest == "" {
		return "none"
	}
	return digest
}

// collector gathers the differences of one part of a key, the parts the
// stored side did not record marked so whatever they hold.
type collector struct {
	unrecorded []Part
	by         string // who did not record it: "the stored run", "the stored build"
	d          []Difference
}

// add records part as unrecorded, or, when it differs, as a difference
// whose message is format with args.
func (c *collector) add(part Part, differs bool, format string, args ...any) {
	switch {
	case slices.Contains(c.unrecorded, part):
		c.d = append(c.d, Difference{Part: part, Unrecorded: true, Msg: fmt.Sprintf("%s: not recorded by %s", part, c.by)})
	case differs:
		c.d = append(c.d, Difference{Part: part, Msg: fmt.Sprintf(format, args...)})
	}
}
