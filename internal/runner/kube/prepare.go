package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/behaves-dev/behaves/internal/runner"
)

// configMapBytes is how many bytes of files one config map holds at most.
// The API refuses a config map over 1 MiB of data, and a request carries
// binary data base64-encoded (4/3 larger) within etcd's default request
// limit of 1.5 MiB. A file larger than this cannot be delivered: a
// projected volume cannot join a file from two maps.
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
	switch {
	case len(req.Program.Links) > 0:
		return nil, errors.New("the kubernetes backend cannot deliver symbolic links (a config map holds files only)")
	case !pinPattern.MatchString(prof.Image):
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
	a.limits = runner.Limits{TimeoutMS: a.applied.Limits.TimeoutMS, MemoryBytes: prof.Memory, CPUs: prof.CPUs, Pids: prof.Pids,
		OutputLimit: prof.OutputLimit, OutputCeiling: prof.OutputCeiling}
	maps, err := s.deliver(ctx, prog)
	a.maps = maps
	if err != nil {
		return nil, errors.Join(err, a.Close(ctx))
	}
	a.settings = a.settingsOf(prof)
	return a, nil
}

// deliver makes the config maps that hold prog's files, each at most
// configMapBytes of them, in path order.
func (s *Sandbox) deliver(ctx context.Context, prog runner.Program) ([]configMapFiles, error) {
	var out []configMapFiles
	var cur *corev1.ConfigMap
	var curFiles *configMapFiles
	var curBytes int
	flush := func() error {
		if cur == nil {
			return nil
		}
		cctx, cancel := s.cleanupCtx()
		defer cancel()
		err := s.api.createConfigMap(cctx, s.opt.Namespace, cur)
		if err != nil {
			return fmt.Errorf("kubernetes: creating the config map %s of the program's files: %w", cur.Name, err)
		}
		out = append(out, *curFiles)
		cur, curFiles = nil, nil
		return nil
	}
	for i, p := range slices.Sorted(maps.Keys(prog.Files)) {
		f := prog.Files[p]
		if f.Bytes > configMapBytes {
			return out, fmt.Errorf("file %q is %d bytes: the kubernetes backend delivers files of at most %d bytes (a config map's limit)", p, f.Bytes, configMapBytes)
		}
		if cur != nil && curBytes+int(f.Bytes) > configMapBytes {
			if err := flush(); err != nil {
				return out, err
			}
		}
		if cur == nil {
			name := s.nextName("-files")
			cur = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: s.owner(RoleFiles).labels(), Annotations: s.owner(RoleFiles).annotations()},
				BinaryData: map[string][]byte{}, Immutable: ptr(true)}
			curFiles = &configMapFiles{Name: name}
			curBytes = 0
		}
		b, err := f.ReadAll()
		if err != nil {
			return out, err
		}
		key := "f" + strconv.Itoa(i)
		cur.BinaryData[key] = b
		curFiles.Items = append(curFiles.Items, fileItem{Key: key, Path: p, Executable: prog.Executable[p]})
		curBytes += len(b)
	}
	if cur == nil { // a folder program may have no file at all: an empty map
		name := s.nextName("-files")
		cur = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: s.owner(RoleFiles).labels(), Annotations: s.owner(RoleFiles).annotations()}, Immutable: ptr(true)}
		curFiles = &configMapFiles{Name: name}
	}
	return out, flush()
}

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
	for _, m := range append(slices.Clone(a.maps), a.buildMaps...) {
		cctx, cancel := a.sb.cleanupCtx()
		err := a.sb.api.deleteConfigMap(cctx, a.sb.opt.Namespace, m.Name)
		cancel()
		if err != nil && !isNotFound(err) {
			errs = append(errs, runner.Leftover(fmt.Errorf("config map %s/%s: %w", a.sb.opt.Namespace, m.Name, err)))
		}
	}
	a.maps, a.buildMaps = nil, nil
	return errors.Join(errs...)
}
