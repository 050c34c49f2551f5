package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// configMapBytes is how many bytes of files one config map holds at most.
// The API refuses a config map over 1 MiB of data, and a request carries
// binary data base64-encoded (4/3 larger) within etcd's default request
// limit of 1.5 MiB. A projected volume cannot join a file from two maps:
// a larger file is delivered in parts (delivered.Assemble).
const configMapBytes = 768 << 10

// pinPattern is an image pinned as behaves runs it: an image ID or a
// registry digest. A tag cannot be resolved without the node.
var pinPattern = regexp.MustCompile(`^(sha256:[0-9a-f]{64}|[^@\s]+@sha256:[0-9a-f]{64})$`)

// Prepare checks each program's profile and image pin and delivers its
// files as config maps; each attempt's pods project them at /program.
func (s *Sandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	var wg sync.WaitGroup
	for i, req := range batch {
		wg.Go(func() {
			a, err := s.prepare(ctx, req)
			if err != nil {
				out[i].Err = err
				return
			}
			out[i].Attempt = a
		})
	}
	wg.Wait()
	return out
}

func (s *Sandbox) prepare(ctx context.Context, req runner.Request) (*Attempt, error) {
	prof, err := runner.CheckProfile(req.Profile, req.Program)
	if err != nil {
		return nil, err
	}
	var build *buildPlan
	if prof.Build != nil {
		if build, err = planBuild(prof, req.Program); err != nil {
			return nil, err
		}
	}
	if !pinPattern.MatchString(prof.Image) {
		return nil, fmt.Errorf("profile %s: image %q is not pinned by ID (sha256:…) or digest (name@sha256:…): a node cannot resolve a tag", prof.Name, prof.Image)
	}
	prog, err := runner.ProgramFiles(req.Program, prof.ProgramName)
	if err != nil {
		return nil, err
	}
	role := RoleProgram
	if req.Checker {
		role = RoleChecker
	}
	a := &Attempt{sb: s, applied: runner.Apply(prof), role: role, programSHA256: req.Program.Digest(), build: build}
	files, err := s.deliver(ctx, prog, nil)
	a.files = files
	if err != nil {
		return nil, errors.Join(err, a.Close(ctx))
	}
	a.settings = a.settingsOf(prof)
	return a, nil
}

// delivered is how a program's files (or a build's output) reach a pod:
// config maps projected read-only where they go, or, when a file is larger
// than a config map holds, parts of every file in config maps, joined by
// an init container into an emptyDir that the pod's container mounts
// read-only (Assemble).
type delivered struct {
	Maps []configMapFiles
	// Assemble says that Maps hold parts and the script that joins them
	// (run by assembleCommand), not the files at their paths; Bytes is then what
	// the joined files take.
	Assemble bool
	Bytes    int64
}

// partsDir is where an assembling init container finds the parts.
const partsDir = "/parts"

// deliver makes the config maps that hold prog's files, each at most
// configMapBytes of them, in path order. When a file is larger than that,
// every file goes in parts (at most configMapBytes each) with a script
// that joins them (see delivered). modes, when not nil, are the files'
// modes (a build's output); else executables get 0555 and the rest 0444.
func (s *Sandbox) deliver(ctx context.Context, prog runner.Program, modes map[string]int32) (delivered, error) {
	d := delivered{}
	var cur *corev1.ConfigMap
	var curFiles *configMapFiles
	var curBytes int
	flush := func() error {
		if cur == nil {
			return nil
		}
		if ctx.Err() != nil { // no more maps for a run that is ending
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		// A map's creation itself is not cancelled mid-flight: it could
		// then exist without anyone to delete it.
		cctx, cancel := s.cleanupCtx()
		defer cancel()
		err := s.api.createConfigMap(cctx, s.opt.Namespace, cur)
		if err != nil {
			return fmt.Errorf("kubernetes: creating the config map %s of the program's files: %w", cur.Name, err)
		}
		d.Maps = append(d.Maps, *curFiles)
		cur, curFiles = nil, nil
		return nil
	}
	add := func(key, path string, b []byte, executable bool, mode int32) error {
		if cur != nil && curBytes+len(b) > configMapBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		if cur == nil {
			name := s.nextName("-files")
			cur = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: s.owner(RoleFiles).labels(), Annotations: s.owner(RoleFiles).annotations()},
				BinaryData: map[string][]byte{}, Immutable: ptr(true)}
			curFiles = &configMapFiles{Name: name}
			curBytes = 0
		}
		cur.BinaryData[key] = b
		curFiles.Items = append(curFiles.Items, fileItem{Key: key, Path: path, Executable: executable, Mode: mode})
		curBytes += len(b)
		return nil
	}
	paths := slices.Sorted(maps.Keys(prog.Files))
	for _, p := range paths {
		d.Bytes += prog.Files[p].Bytes
		if prog.Files[p].Bytes > configMapBytes {
			d.Assemble = true
		}
	}
	// A config map holds files only: links are made by the joining script.
	links := slices.Sorted(maps.Keys(prog.Links))
	for _, p := range links {
		if err := runner.CheckRelPath(p); err != nil {
			return d, err
		}
		// A program's links must stay inside it (the spec checked them;
		// checked again as on Docker); a build's output (modes given) is
		// delivered as the build left it, as Docker's /build volume is.
		if modes == nil {
			if err := runner.CheckLink(p, prog.Links[p], prog.Links); err != nil {
				return d, err
			}
		}
		d.Assemble = true
	}
	var script strings.Builder
	script.WriteString("set -e\n")
	dirs := map[string]bool{}
	for i, p := range paths {
		f := prog.Files[p]
		b, err := f.ReadAll()
		if err != nil {
			return d, err
		}
		key := "f" + strconv.Itoa(i)
		if !d.Assemble {
			if err := add(key, p, b, prog.Executable[p], modes[p]); err != nil {
				return d, err
			}
			continue
		}
		for dir := path.Dir(p); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			dirs[dir] = true
		}
		var parts []string
		for k := 0; k == 0 || len(b) > 0; k++ {
			n := min(len(b), configMapBytes)
			part := fmt.Sprintf("%s-%04d", key, k)
			if err := add(part, part, b[:n], false, 0); err != nil {
				return d, err
			}
			parts = append(parts, partsDir+"/"+part)
			b = b[n:]
		}
		mode := fileItem{Executable: prog.Executable[p], Mode: modes[p]}.mode()
		fmt.Fprintf(&script, "cat %s > %s\nchmod %o %s\n", strings.Join(parts, " "), shQuote("./"+p), mode, shQuote("./"+p))
	}
	for _, p := range links {
		for dir := path.Dir(p); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			dirs[dir] = true
		}
		fmt.Fprintf(&script, "ln -s %s %s\n", shQuote(prog.Links[p]), shQuote("./"+p))
	}
	if d.Assemble {
		var mk strings.Builder
		for _, dir := range slices.Sorted(maps.Keys(dirs)) {
			fmt.Fprintf(&mk, "mkdir -p %s\n", shQuote("./"+dir))
		}
		text := []byte("set -e\n" + mk.String() + strings.TrimPrefix(script.String(), "set -e\n"))
		for k := 0; k == 0 || len(text) > 0; k++ {
			n := min(len(text), configMapBytes)
			part := fmt.Sprintf("s-%04d", k)
			if err := add(part, part, text[:n], false, 0); err != nil {
				return d, err
			}
			text = text[n:]
		}
	}
	if cur == nil { // a folder program may have no file at all: an empty map
		name := s.nextName("-files")
		cur = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: s.owner(RoleFiles).labels(), Annotations: s.owner(RoleFiles).annotations()}, Immutable: ptr(true)}
		curFiles = &configMapFiles{Name: name}
	}
	return d, flush()
}

// assembleCommand joins the parts (run in the folder the files go to):
// the script's own parts, in order, piped to the image's shell.
var assembleCommand = []string{"/bin/sh", "-c", "cat " + partsDir + "/s-* | /bin/sh"}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// settingsOf is what the attempt's pods apply, for the report.
func (a *Attempt) settingsOf(prof runner.Profile) runner.Settings {
	ap := a.applied
	return runner.Settings{
		Image:        ap.Image,
		ImageID:      ap.Image,
		Entrypoint:   slices.Clone(ap.Command),
		User:         ap.User,
		NetworkMode:  "kubernetes:" + a.sb.opt.Namespace + "/" + DenyAllPolicy,
		NetworkFiles: ap.NetworkFiles,
		Runtime:      ap.Runtime,
		TmpfsBytes:   maps.Clone(ap.Tmpfs),
		ProgramDir:   runner.DefaultProgramDir,
		Env:          slices.Clone(ap.Env),
		Applied:      ap.Clone(),
		Container: runner.Container{
			Hostname:        "behaves",
			NetworkDisabled: true,
			ReadonlyRootfs:  true,
			CapDrop:         []string{"ALL"},
			SecurityOpt:     []string{"no-new-privileges", "seccomp=RuntimeDefault"},
			Memory:          prof.Memory,
			MemorySwap:      prof.Memory,
			NanoCPUs:        int64(prof.CPUs * 1e9),
			ProgramMount:    "projected:configmaps:" + runner.DefaultProgramDir + ":ro",
		},
	}
}

// Close deletes the attempt's config maps.
func (a *Attempt) Close(ctx context.Context) error {
	var errs []error
	all := slices.Clone(a.files.Maps)
	if a.buildFiles != nil {
		all = append(all, a.buildFiles.Maps...)
	}
	for _, m := range all {
		cctx, cancel := a.sb.cleanupCtx()
		err := a.sb.api.deleteConfigMap(cctx, a.sb.opt.Namespace, m.Name)
		cancel()
		if err != nil && !isNotFound(err) {
			errs = append(errs, runner.Leftover(fmt.Errorf("config map %s/%s: %w", a.sb.opt.Namespace, m.Name, err)))
		}
	}
	a.files, a.buildFiles = delivered{}, nil
	return errors.Join(errs...)
}
