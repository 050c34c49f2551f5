package evidence

import (
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

var prog = runner.Program{Entry: "main.sh", Files: map[string][]byte{"main.sh": []byte("echo $1\n")}}
var inv = runner.Invocation{Args: []string{"2"}, Stdin: []byte("x\n")}

func parts(d []Difference) []Part {
	var out []Part
	for _, x := range d {
		out = append(out, x.Part)
	}
	return out
}

// TestDiffNamesEachPart: each thing an outcome depends on, changed alone,
// is one difference of its own part, in words that say what is now and
// what was.
func TestDiffNamesEachPart(t *testing.T) {
	t.Parallel()
	build := func(p *runner.Profile) {
		p.Build = &runner.Build{Image: pin, Command: []string{"gcc", "-o", "/build/main"}, Timeout: time.Minute, Memory: 512 << 20, CPUs: 1, Pids: 64,
			OutputLimit: 64 << 10, OutputCeiling: 4 << 20, OutputSize: 16 << 20}
		p.Command = []string{"/build/main"}
	}
	for _, tt := range []struct {
		name    string
		profile func(p *runner.Profile)
		prog    func(p *runner.Program)
		inv     func(i *runner.Invocation)
		part    Part
		msg     string
	}{
		{name: "program", prog: func(p *runner.Program) { p.Files = map[string][]byte{"main.sh": []byte("echo 4\n")} }, part: PartProgram, msg: "changed since the stored run"},
		{name: "image", profile: func(p *runner.Profile) { p.Image = "sha256:" + strings.Repeat("c", 64) }, part: PartImage, msg: "image is"},
		{name: "user", profile: func(p *runner.Profile) { p.User = "1000:1000" }, part: PartUser, msg: `user is "1000:1000"`},
		{name: "runtime", profile: func(p *runner.Profile) { p.Runtime = "runsc" }, part: PartRuntime, msg: `runtime is "runsc"`},
		{name: "network files", profile: func(p *runner.Profile) { p.NetworkFiles = runner.NetworkFilesManaged }, part: PartNetworkFiles, msg: `network_files is "managed"`},
		{name: "env", profile: func(p *runner.Profile) { p.Env = map[string]string{"LANG": "C"} }, part: PartEnv, msg: `env is ["LANG=C"]`},
		{name: "tmpfs", profile: func(p *runner.Profile) { p.Tmpfs = map[string]int64{"/tmp": 2 << 20} }, part: PartTmpfs, msg: "tmpfs /tmp is 2097152 bytes, the stored run had 1048576 bytes"},
		{name: "args", inv: func(i *runner.Invocation) { i.Args = []string{"3"} }, part: PartArgs, msg: `args are ["3"], the stored case had ["2"]`},
		{name: "stdin", inv: func(i *runner.Invocation) { i.Stdin = []byte("y\n") }, part: PartStdin, msg: "stdin changed"},
		{name: "command", profile: func(p *runner.Profile) { p.Command = []string{"/bin/ash"} }, part: PartCommand, msg: `command is ["/bin/ash" "/program/main.sh" "2"]`},
		{name: "timeout", profile: func(p *runner.Profile) { p.Timeout = time.Second }, part: PartLimits, msg: "limits are timeout 1s"},
		{name: "memory", profile: func(p *runner.Profile) { p.Memory = 128 << 20 }, part: PartLimits, msg: "memory 128MiB"},
		{name: "build added", profile: build, part: PartBuild, msg: "stage is new"},
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
			if tt.name == "build added" {
				// The command changed with it, as a build's does.
				d = slices.DeleteFunc(d, func(x Difference) bool { return x.Part == PartCommand })
			}
			if len(d) != 1 || d[0].Part != tt.part || !strings.Contains(d[0].Msg, tt.msg) || d[0].Unrecorded {
				t.Fatalf("differences %+v, want one %s containing %q", d, tt.part, tt.msg)
			}
		})
	}
	if d := Diff(Want(profile(), prog, inv, nil, 0), Want(profile(), prog, inv, nil, 0)); len(d) != 0 {
		t.Errorf("a key differs from itself: %+v", d)
	}
}

// TestDiffBuild: a build's command, image, limits, output_size and tmpfs
// are parts of their own.
func TestDiffBuild(t *testing.T) {
	t.Parallel()
	withBuild := func(edit func(b *runner.Build)) runner.Profile {
		p := profile()
		p.Command = []string{"/build/main"}
		p.Build = &runner.Build{Image: pin, Command: []string{"gcc", "-o", "/build/main"}, Timeout: time.Minute, Memory: 512 << 20, CPUs: 1, Pids: 64,
			OutputLimit: 64 << 10, OutputCeiling: 4 << 20, OutputSize: 16 << 20}
		if edit != nil {
			edit(p.Build)
		}
		return p
	}
	stored := WantProgram(withBuild(nil), prog)
	for _, tt := range []struct {
		edit func(b *runner.Build)
		part Part
	}{
		{func(b *runner.Build) { b.Command = []string{"cc", "-o", "/build/main"} }, PartBuildCommand},
		{func(b *runner.Build) { b.Image = "sha256:" + strings.Repeat("d", 64) }, PartBuildImage},
		{func(b *runner.Build) { b.Memory = 1 << 30 }, PartBuildLimits},
		{func(b *runner.Build) { b.OutputSize = 1 << 20 }, PartBuildOutput},
		{func(b *runner.Build) { b.Tmpfs = map[string]int64{"/tmp": 1 << 20} }, PartBuildTmpfs},
	} {
		if got := parts(DiffProgram(WantProgram(withBuild(tt.edit), prog), stored)); !slices.Equal(got, []Part{tt.part}) {
			t.Errorf("%s: differences %v", tt.part, got)
		}
	}
	if got := parts(DiffProgram(WantProgram(profile(), prog), stored)); !slices.Equal(got, []Part{PartBuild}) {
		t.Errorf("build removed: differences %v, want build", got)
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
		op := &report.Program{ID: "p", ExecutionID: "exec-" + run, ProgramSHA256: report.ProgramDigest(prog), EvidenceFormat: report.EvidenceFormat, Settings: st}
		w := WantRun(prof, inv)
		oc := &report.Case{Name: "c", Args: inv.Args, Event: report.Event{Command: w.Command, StdinSHA256: w.StdinSHA256,
			ImageDigest: st.ImageID, ProgramSHA256: op.ProgramSHA256, Limits: reporttest.Limits}}
		return op, oc
	}
	op1, oc1 := attempt("run-1")
	op2, oc2 := attempt("run-2")
	k1, k2 := Stored(op1, oc1, oc1.Event, nil), Stored(op2, oc2, oc2.Event, nil)
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
	op := &report.Program{ProgramSHA256: report.ProgramDigest(prog), EvidenceFormat: report.EvidenceFormat} // stopped before anything ran
	oc := &report.Case{Args: inv.Args, Event: report.Event{SandboxError: "image not present"}}
	d := Diff(Want(profile(), prog, inv, nil, 0), Stored(op, oc, oc.Event, nil))
	want := []Part{PartImage, PartUser, PartRuntime, PartNetworkFiles, PartEnv, PartTmpfs, PartStdin, PartCommand, PartLimits}
	if got := parts(d); !slices.Equal(got, want) {
		t.Fatalf("parts %v, want %v", got, want)
	}
	for _, x := range d {
		if !x.Unrecorded {
			t.Errorf("%s: %q is not marked unrecorded", x.Part, x.Msg)
		}
	}
}

// TestStoredReadsNoBackendField: the key is the sandbox's neutral
// settings alone. Without runner.Container (what another backend records)
// the stored key is the same; without tmpfs_bytes, the neutral sizes,
// the tmpfs differs even though the engine's mount options are there.
func TestStoredReadsNoBackendField(t *testing.T) {
	t.Parallel()
	prof := reporttest.Profile()
	w := WantRun(prof, inv)
	stored := func(st runner.Settings) Key {
		op := &report.Program{ProgramSHA256: report.ProgramDigest(prog), EvidenceFormat: report.EvidenceFormat, Settings: st}
		oc := &report.Case{Args: inv.Args, Event: report.Event{Command: w.Command, StdinSHA256: w.StdinSHA256,
			ImageDigest: st.ImageID, ProgramSHA256: op.ProgramSHA256, Limits: reporttest.Limits}}
		return Stored(op, oc, oc.Event, nil)
	}
	st := reporttest.Settings
	st.Container = runner.Container{}
	if d := Diff(Want(prof, prog, inv, nil, 0), stored(st)); len(d) != 0 {
		t.Errorf("without the backend's block: %+v", d)
	}
	st = reporttest.Settings
	st.TmpfsBytes = nil
	if got := parts(Diff(Want(prof, prog, inv, nil, 0), stored(st))); !slices.Equal(got, []Part{PartTmpfs}) {
		t.Errorf("without tmpfs_bytes: parts %v, want tmpfs", got)
	}
}

// TestDiffReference: a same_as case's reference runs are part of its key:
// their count, and each run's program, image and input.
func TestDiffReference(t *testing.T) {
	t.Parallel()
	refProg := runner.Program{Entry: "main.sh", Files: map[string][]byte{"main.sh": []byte("echo ref\n")}}
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
	w := WantRun(prof, inv)
	oc := &report.Case{Args: inv.Args, Event: report.Event{Command: w.Command, StdinSHA256: w.StdinSHA256,
		ImageDigest: reporttest.Settings.ImageID, ProgramSHA256: report.ProgramDigest(prog), Limits: reporttest.Limits}}
	stored := func(format int) Key {
		op := &report.Program{ProgramSHA256: report.ProgramDigest(prog), EvidenceFormat: format, Settings: reporttest.Settings}
		return Stored(op, oc, oc.Event, nil)
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
