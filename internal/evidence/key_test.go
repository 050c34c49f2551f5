package evidence

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
)

var pin = "sha256:" + strings.Repeat("a", 64)

func profile() runner.Profile {
	return runner.Profile{
		Image: pin, Command: []string{"/bin/sh"}, ProgramName: "main.sh",
		Timeout: 5 * time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20,
		User: "65534:65534", Tmpfs: map[string]int64{"/tmp": 1 << 20}, Env: map[string]string{"LANG": "C.UTF-8"},
	}
}

var prog = runner.Program{Entry: "main.sh", Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo $1\n")})}
var inv = runner.Invocation{Args: []string{"2"}, Stdin: []byte("x\n")}

func parts(d []Difference) []Part {
	var out []Part
	for _, x := range d {
		out = append(out, x.Part)
	}
	return out
}

// TestEveryProfileFieldIsInTheKey is generated from the types: every
// field of runner.Profile and runner.Build, changed, and for a map or a
// pointer also added and removed, changes the key, and Diff names the
// part. A field added to either type fails here until the key holds it
// (runner.Apply) or the test says why no outcome depends on it.
func TestEveryProfileFieldIsInTheKey(t *testing.T) {
	t.Parallel()
	// notInKey are the fields no outcome depends on, and why.
	notInKey := map[string]string{
		"Name": "a name for messages; what the profile applies is compared",
	}
	base := func() runner.Profile {
		p := profile()
		p.Build = &runner.Build{Image: pin, Command: []string{"gcc", "-o", "/build/main"}, Timeout: time.Minute, Memory: 512 << 20, CPUs: 1, Pids: 64,
			OutputLimit: 64 << 10, OutputCeiling: 4 << 20, OutputSize: 16 << 20, Tmpfs: map[string]int64{"/tmp": 1 << 20}}
		return p
	}
	type variant struct {
		name string
		edit func(v reflect.Value) // v: the field, settable
	}
	variants := func(f reflect.StructField) []variant {
		switch f.Type.Kind() {
		case reflect.String:
			return []variant{{"changed", func(v reflect.Value) { v.SetString(v.String() + "x") }}}
		case reflect.Int64:
			return []variant{{"changed", func(v reflect.Value) { v.SetInt(v.Int() + 1000) }}}
		case reflect.Float64:
			return []variant{{"changed", func(v reflect.Value) { v.SetFloat(v.Float() + 0.5) }}}
		case reflect.Slice:
			return []variant{
				{"added", func(v reflect.Value) { v.Set(reflect.Append(v, reflect.ValueOf("--x"))) }},
				{"changed", func(v reflect.Value) { v.Index(0).SetString("x") }},
				{"removed", func(v reflect.Value) { v.Set(v.Slice(0, v.Len()-1)) }},
			}
		case reflect.Map:
			key := func(v reflect.Value) reflect.Value { return v.MapKeys()[0] }
			other := func(v reflect.Value) reflect.Value {
				if v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.Int64 {
					return reflect.ValueOf(int64(7 << 20))
				}
				return reflect.ValueOf("other")
			}
			return []variant{
				{"added", func(v reflect.Value) {
					m := reflect.MakeMap(v.Type())
					for _, k := range v.MapKeys() {
						m.SetMapIndex(k, v.MapIndex(k))
					}
					nk := "/added"
					if v.Type().Elem().Kind() == reflect.String {
						nk = "ADDED"
					}
					m.SetMapIndex(reflect.ValueOf(nk), other(v))
					v.Set(m)
				}},
				{"changed", func(v reflect.Value) {
					m := reflect.MakeMap(v.Type())
					m.SetMapIndex(key(v), other(v))
					v.Set(m)
				}},
				{"removed (all)", func(v reflect.Value) { v.Set(reflect.Zero(v.Type())) }},
			}
		case reflect.Pointer:
			return []variant{{"removed", func(v reflect.Value) { v.Set(reflect.Zero(v.Type())) }}}
		}
		return nil
	}
	check := func(t *testing.T, where string, edit func(p *runner.Profile) reflect.Value, f reflect.StructField) {
		if why, ok := notInKey[f.Name]; ok && where == "Profile" {
			t.Logf("%s.%s: not in the key: %s", where, f.Name, why)
			return
		}
		vs := variants(f)
		if f.Type == reflect.TypeFor[time.Duration]() { // before Int64: a second, not a microsecond
			vs = []variant{{"changed", func(v reflect.Value) { v.SetInt(v.Int() + int64(time.Second)) }}}
		}
		if f.Type == reflect.TypeFor[runner.NetworkFiles]() {
			vs = []variant{{"changed", func(v reflect.Value) { v.SetString(string(runner.NetworkFilesManaged)) }}}
		}
		if len(vs) == 0 {
			t.Fatalf("%s.%s (%s): the test has no way to change it: add one", where, f.Name, f.Type)
		}
		for _, vr := range vs {
			p := base()
			if f.Name == "Build" && where == "Profile" && vr.name == "removed" {
				p.Command = []string{"/bin/sh"}
			}
			vr.edit(edit(&p))
			before := WantProgram(base(), prog)
			d := DiffProgram(WantProgram(p, prog), before)
			if len(d) == 0 {
				t.Errorf("%s.%s %s: the key does not change", where, f.Name, vr.name)
				continue
			}
			for _, x := range d {
				if x.Unrecorded || x.Msg == "" || !slices.Contains(append(AppliedParts(), PartImage, PartBuild, PartBuildImage), x.Part) {
					t.Errorf("%s.%s %s: difference %+v", where, f.Name, vr.name, x)
				}
			}
			// Both ways: the stored run had the change, the spec has not.
			if len(DiffProgram(before, WantProgram(p, prog))) == 0 {
				t.Errorf("%s.%s %s: the key does not change the other way round", where, f.Name, vr.name)
			}
		}
	}
	pt := reflect.TypeFor[runner.Profile]()
	for i := range pt.NumField() {
		f := pt.Field(i)
		t.Run("Profile."+f.Name, func(t *testing.T) {
			check(t, "Profile", func(p *runner.Profile) reflect.Value { return reflect.ValueOf(p).Elem().Field(i) }, f)
		})
	}
	bt := reflect.TypeFor[runner.Build]()
	for i := range bt.NumField() {
		f := bt.Field(i)
		t.Run("Build."+f.Name, func(t *testing.T) {
			check(t, "Build", func(p *runner.Profile) reflect.Value { return reflect.ValueOf(p.Build).Elem().Field(i) }, f)
		})
	}
}

// TestDiffNamesEachPart: a change of one thing is one difference of its
// own part, in words that say what is now and what was.
func TestDiffNamesEachPart(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		profile func(p *runner.Profile)
		prog    func(p *runner.Program)
		inv     func(i *runner.Invocation)
		part    Part
		msg     string
	}{
		{name: "program", prog: func(p *runner.Program) { p.Files = runner.FilesOf(map[string][]byte{"main.sh": []byte("echo 4\n")}) }, part: PartProgram, msg: "changed since the stored run"},
		{name: "image", profile: func(p *runner.Profile) { p.Image = "sha256:" + strings.Repeat("c", 64) }, part: PartImage, msg: "image is"},
		{name: "env", profile: func(p *runner.Profile) { p.Env = map[string]string{"LANG": "C"} }, part: "env", msg: `env is ["LANG=C"], the stored run had ["LANG=C.UTF-8"]`},
		{name: "tmpfs removed", profile: func(p *runner.Profile) { p.Tmpfs = nil }, part: "tmpfs", msg: "tmpfs /tmp is gone, the stored run had it (1048576)"},
		{name: "tmpfs changed", profile: func(p *runner.Profile) { p.Tmpfs = map[string]int64{"/tmp": 2 << 20} }, part: "tmpfs", msg: "tmpfs /tmp is 2097152, the stored run had 1048576"},
		{name: "args", inv: func(i *runner.Invocation) { i.Args = []string{"3"} }, part: PartArgs, msg: `args are ["3"], the stored case had ["2"]`},
		{name: "stdin", inv: func(i *runner.Invocation) { i.Stdin = []byte("y\n") }, part: PartStdin, msg: "stdin changed"},
		{name: "command", profile: func(p *runner.Profile) { p.Command = []string{"/bin/ash"} }, part: "command", msg: `command is ["/bin/ash" "/program/main.sh"]`},
		{name: "timeout", profile: func(p *runner.Profile) { p.Timeout = time.Second }, part: "limits.timeout_ms", msg: "limits.timeout_ms is 1000, the stored run had 5000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stored := Want(profile(), prog, inv, nil, 0)
			p, pr, in := profile(), prog, inv
			if tt.profile != nil {
				tt.profile(&p)
			}
			if tt.prog != nil {
				tt.prog(&pr)
			}
			if tt.inv != nil {
				tt.inv(&in)
			}
			d := Diff(Want(p, pr, in, nil, 0), stored)
			if len(d) != 1 || d[0].Part != tt.part || !strings.Contains(d[0].Msg, tt.msg) || d[0].Unrecorded {
				t.Fatalf("differences %+v, want one %s containing %q", d, tt.part, tt.msg)
			}
		})
	}
	if d := Diff(Want(profile(), prog, inv, nil, 0), Want(profile(), prog, inv, nil, 0)); len(d) != 0 {
		t.Errorf("a key differs from itself: %+v", d)
	}
}

// TestDiffNamesFiles: when both sides know the program's file list, the
// program's difference names each file added, removed or changed (at
// most three, then how many more).
func TestDiffNamesFiles(t *testing.T) {
	t.Parallel()
	folder := func(files map[string]string, exec ...string) runner.Program {
		p := runner.Program{Folder: true, Files: runner.FilesOf(map[string][]byte{}), Executable: map[string]bool{}}
		for k, v := range files {
			p.Files[k] = runner.BytesFile([]byte(v))
		}
		for _, e := range exec {
			p.Executable[e] = true
		}
		return p
	}
	base := map[string]string{"main.py": "import parsing\n", "parsing.py": "x = 1\n", "util.py": ""}
	with := func(edit func(m map[string]string)) map[string]string {
		m := maps.Clone(base)
		edit(m)
		return m
	}
	stored := Want(profile(), folder(base), inv, nil, 0)
	for _, tt := range []struct {
		name string
		now  runner.Program
		msg  string
	}{
		{"changed", folder(with(func(m map[string]string) { m["parsing.py"] = "x = 2\n" })), `changed since the stored run: "parsing.py" changed (sha256`},
		{"added", folder(with(func(m map[string]string) { m["new.py"] = "" })), `: "new.py" added (`},
		{"removed", folder(with(func(m map[string]string) { delete(m, "util.py") })), `: "util.py" removed (`},
		{"mode", folder(base, "main.py"), `: "main.py" mode 100755 (stored 100644) (`},
		{"many", folder(map[string]string{"a": "", "b": "", "c": "", "d": ""}), `: "a" added, "b" added, "c" added, and 4 more (`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Diff(Want(profile(), tt.now, inv, nil, 0), stored)
			if len(d) != 1 || d[0].Part != PartProgram || !strings.Contains(d[0].Msg, tt.msg) {
				t.Fatalf("differences %+v, want one program difference containing %q", d, tt.msg)
			}
		})
	}
	// A stored report that left its list out is still refused on its
	// digest, without names.
	blind := stored
	blind.Program.Files = nil
	d := Diff(Want(profile(), folder(with(func(m map[string]string) { m["parsing.py"] = "" })), inv, nil, 0), blind)
	if len(d) != 1 || !strings.HasPrefix(d[0].Msg, "changed since the stored run (sha256") {
		t.Errorf("without a stored list: %+v", d)
	}
}

// TestStoredIgnoresPerRunIdentifiers: two attempts of the same program on
// the same input differ in their run's names (execution ID, volume), never
// in their key; and the key of what the sandbox records (reporttest's
// fixture, which runner/docker checks against the sandbox) is the spec's.
func TestStoredIgnoresPerRunIdentifiers(t *testing.T) {
	t.Parallel()
	prof := reporttest.Profile()
	attempt := func(run string) (*report.Program, *report.Case) {
		st := reporttest.Settings
		st.ProgramMount = "volume:behaves-" + run + "-program:/program:ro"
		op := &report.Program{ID: "p", ExecutionID: "exec-" + run, ProgramSHA256: prog.Digest(), EvidenceFormat: report.EvidenceFormat, Settings: report.SettingsOf(st)}
		w := WantRun(inv)
		oc := &report.Case{Name: "c", Args: inv.Args, Event: report.Event{StdinSHA256: w.StdinSHA256,
			ImageDigest: st.ImageID, ProgramSHA256: op.ProgramSHA256, Limits: report.LimitsOf(reporttest.Limits)}}
		return op, oc
	}
	op1, oc1 := attempt("run-1")
	op2, oc2 := attempt("run-2")
	k1, k2 := Stored(op1, oc1, oc1.Event), Stored(op2, oc2, oc2.Event)
	if d := Diff(k1, k2); len(d) != 0 {
		t.Errorf("two runs' keys differ: %+v", d)
	}
	if d := Diff(Want(prof, prog, inv, nil, 0), k1); len(d) != 0 {
		t.Errorf("the stored key is not the spec's: %+v", d)
	}
}

// TestStoredUnrecorded: what a stored run did not record is marked so,
// never taken as agreeing.
func TestStoredUnrecorded(t *testing.T) {
	t.Parallel()
	op := &report.Program{ProgramSHA256: prog.Digest(), EvidenceFormat: report.EvidenceFormat} // stopped before anything ran
	oc := &report.Case{Args: inv.Args, Event: report.Event{SandboxError: "image not present"}}
	d := Diff(Want(profile(), prog, inv, nil, 0), Stored(op, oc, oc.Event))
	want := []Part{PartImage, PartSettings, PartStdin}
	if got := parts(d); !slices.Equal(got, want) {
		t.Fatalf("parts %v, want %v", got, want)
	}
	for _, x := range d {
		if !x.Unrecorded {
			t.Errorf("%s: %q is not marked unrecorded", x.Part, x.Msg)
		}
	}
}

// TestStoredReadsNoBackendField: the key is the sandbox's applied
// settings alone. Without runner.Container (what another backend records)
// the stored key is the same; with more scratch mounts than the profile
// asked for (the image's VOLUMEs, in tmpfs_bytes) too; a tmpfs the stored
// run applied that the spec no longer asks for is a difference.
func TestStoredReadsNoBackendField(t *testing.T) {
	t.Parallel()
	prof := reporttest.Profile()
	w := WantRun(inv)
	stored := func(st runner.Settings) Key {
		op := &report.Program{ProgramSHA256: prog.Digest(), EvidenceFormat: report.EvidenceFormat, Settings: report.SettingsOf(st)}
		oc := &report.Case{Args: inv.Args, Event: report.Event{StdinSHA256: w.StdinSHA256,
			ImageDigest: st.ImageID, ProgramSHA256: op.ProgramSHA256, Limits: report.LimitsOf(reporttest.Limits)}}
		return Stored(op, oc, oc.Event)
	}
	st := reporttest.Settings
	st.Container = runner.Container{}
	if d := Diff(Want(prof, prog, inv, nil, 0), stored(st)); len(d) != 0 {
		t.Errorf("without the backend's block: %+v", d)
	}
	st = reporttest.Settings
	st.TmpfsBytes = map[string]int64{"/tmp": 16 << 20, "/data": 64 << 20}
	if d := Diff(Want(prof, prog, inv, nil, 0), stored(st)); len(d) != 0 {
		t.Errorf("with an image VOLUME's tmpfs: %+v", d)
	}
	noTmpfs := prof
	noTmpfs.Tmpfs = nil
	if got := parts(Diff(Want(noTmpfs, prog, inv, nil, 0), stored(reporttest.Settings))); !slices.Equal(got, []Part{"tmpfs"}) {
		t.Errorf("tmpfs removed from the spec: parts %v, want tmpfs", got)
	}
}

// TestDiffReference: a same_as case's reference runs are part of its key:
// their count, and each run's program, image and input.
func TestDiffReference(t *testing.T) {
	t.Parallel()
	refProg := runner.Program{Entry: "main.sh", Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo ref\n")})}
	ref := Want(profile(), refProg, inv, nil, 0)
	want := Want(profile(), prog, inv, &ref, 2)
	if d := Diff(want, Want(profile(), prog, inv, &ref, 2)); len(d) != 0 {
		t.Fatalf("a same_as key differs from itself: %+v", d)
	}
	if got := parts(Diff(want, Want(profile(), prog, inv, &ref, 3))); !slices.Equal(got, []Part{PartReferenceRuns}) {
		t.Errorf("3 reference runs for 2: %v", got)
	}
	edited := Want(profile(), prog, inv, nil, 0) // the reference's program is now the candidate's
	if got := parts(Diff(want, Want(profile(), prog, inv, &edited, 2))); !slices.Equal(got, []Part{PartReference + "." + PartProgram}) {
		t.Errorf("reference program changed: %v", got)
	}
	if got := parts(Diff(want, Want(profile(), prog, inv, nil, 0))); !slices.Equal(got, []Part{PartReference}) {
		t.Errorf("stored case had no reference: %v", got)
	}
	if got := parts(Diff(Want(profile(), prog, inv, nil, 0), want)); !slices.Equal(got, []Part{PartReference}) {
		t.Errorf("stored case had a reference the spec's has not: %v", got)
	}
}

// TestFormat: evidence recorded under another format never matches, and
// a report of a behaves that recorded no format has it unrecorded.
func TestFormat(t *testing.T) {
	t.Parallel()
	prof := reporttest.Profile()
	w := WantRun(inv)
	oc := &report.Case{Args: inv.Args, Event: report.Event{StdinSHA256: w.StdinSHA256,
		ImageDigest: reporttest.Settings.ImageID, ProgramSHA256: prog.Digest(), Limits: report.LimitsOf(reporttest.Limits)}}
	stored := func(format int) Key {
		op := &report.Program{ProgramSHA256: prog.Digest(), EvidenceFormat: format, Settings: report.SettingsOf(reporttest.Settings)}
		return Stored(op, oc, oc.Event)
	}
	want := Want(prof, prog, inv, nil, 0)
	if d := Diff(want, stored(report.EvidenceFormat)); len(d) != 0 {
		t.Fatalf("the same format differs: %+v", d)
	}
	d := Diff(want, stored(report.EvidenceFormat+1))
	if got := parts(d); !slices.Equal(got, []Part{PartFormat}) || d[0].Unrecorded || !strings.Contains(d[0].Msg, "format") {
		t.Errorf("another format: %+v, want one recorded difference of format", d)
	}
	d = Diff(want, stored(0))
	if got := parts(d); !slices.Equal(got, []Part{PartFormat}) || !d[0].Unrecorded {
		t.Errorf("no format recorded: %+v, want format unrecorded", d)
	}
}

// TestRegistryDigestIsTheImageRunHere: a registry digest may name an
// index, one image per platform. Stored evidence answers for it only when
// this engine runs the image the stored run ran; without an engine to ask,
// or when it cannot resolve the pin, never.
func TestRegistryDigestIsTheImageRunHere(t *testing.T) {
	t.Parallel()
	index := "registry.example/python@sha256:" + strings.Repeat("e", 64)
	amd64, arm64 := "sha256:"+strings.Repeat("1", 64), "sha256:"+strings.Repeat("2", 64)
	prof := profile()
	prof.Image = index
	stored := Want(prof, prog, inv, nil, 0)
	stored.Program.Image = Image{Pin: index, ID: amd64, RepoDigest: index} // what an amd64 run records
	for _, tt := range []struct {
		name    string
		resolve func(string) (string, error)
		want    []Part
		msg     string
	}{
		{"the same platform's image", func(string) (string, error) { return amd64, nil }, nil, ""},
		{"another platform's image", func(string) (string, error) { return arm64, nil }, []Part{PartImage}, arm64 + " on this engine"},
		{"no engine", nil, []Part{PartImage}, "no engine to resolve it on"},
		{"not on this engine", func(string) (string, error) { return "", errors.New("image not present") }, []Part{PartImage}, "image not present"},
	} {
		want := Want(prof, prog, inv, nil, 0)
		ResolveImages(&want, tt.resolve)
		d := Diff(want, stored)
		if got := parts(d); !slices.Equal(got, tt.want) || (tt.msg != "" && !strings.Contains(d[0].Msg, tt.msg)) {
			t.Errorf("%s: differences %+v, want %v naming %q", tt.name, d, tt.want, tt.msg)
		}
	}
	// An ID pin is its own image: nothing to ask.
	want := Want(profile(), prog, inv, nil, 0)
	ResolveImages(&want, nil)
	if want.Program.Image.ID != pin || want.Program.Image.Unresolved != "" {
		t.Errorf("an ID pin resolved to %+v", want.Program.Image)
	}
}
