package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"

	"github.com/behaves-dev/behaves/internal/runner"
)

// buildDir is where a build stage's volume is mounted: writable in the
// build container, read-only in every invocation's.
const buildDir = "/build"

// buildVolumeMode is the mode of the build volume's root: its owner (the
// build's user) writes, every uid reads and searches.
const buildVolumeMode = 0o755

// buildPlan is a profile's build stage, checked: the profile its container
// runs under (the build's image, command and limits; the program's user,
// env and runtime), its image, and the volume made for its output.
type buildPlan struct {
	// applied is what the build container is built from (runner.Apply's
	// Build).
	applied    runner.Applied
	img        imageInfo
	outputSize int64
	volume     string
}

// planBuild checks a profile's build stage and its image (inspected, never
// pulled, like the program's): a missing build image stops the program
// before anything is made for it. prof is checked already (checkProfile
// with prog); prog is passed on so that the build's program name is
// checked as the program's was: a folder program's entry may be a path
// under a subfolder, or absent ("{program}" is then /program).
func (s *Sandbox) planBuild(ctx context.Context, prof runner.Profile, prog runner.Program) (*buildPlan, error) {
	b := prof.Build
	bp, err := runner.CheckProfile(runner.BuildProfile(prof), prog)
	if err != nil {
		return nil, err
	}
	if b.OutputSize <= 0 {
		return nil, fmt.Errorf("profile %s: the build's output_size must be positive", prof.Name)
	}
	for p := range bp.Tmpfs {
		if p == buildDir || strings.HasPrefix(p, buildDir+"/") {
			return nil, fmt.Errorf("profile %s: the build's tmpfs %q would cover %s", prof.Name, p, buildDir)
		}
	}
	img, err := s.image(ctx, b.Image)
	if err != nil {
		return nil, fmt.Errorf("the build's image: %w", err)
	}
	return &buildPlan{applied: *runner.Apply(prof).Build, img: img, outputSize: b.OutputSize}, nil
}

// buildVolumeLayout is the build volume's part of a delivery archive: its
// root alone, owned by the build's user ("uid:gid", checked) with mode
// 0755, so that the build, which runs as that user with every capability
// dropped, can write there and nowhere else.
func buildVolumeLayout(user string) []archiveEntry {
	uid, gid, _ := strings.Cut(user, ":")
	u, _ := strconv.Atoi(uid)
	g, _ := strconv.Atoi(gid)
	return []archiveEntry{{name: "", dir: true, owned: true, uid: u, gid: g, mode: buildVolumeMode}}
}

// runWithBuild adjusts an invocation's container to a profile with a build
// stage: the build's output is mounted read-only at /build (the command is
// the profile's argv prefix and the invocation's args, no program path:
// runner.Apply).
func runWithBuild(volume string) func(*container.Config, *container.HostConfig) {
	return func(cfg *container.Config, hc *container.HostConfig) {
		hc.Mounts = append(hc.Mounts, mount.Mount{
			Type:          mount.TypeVolume,
			Source:        volume,
			Target:        buildDir,
			ReadOnly:      true,
			VolumeOptions: &mount.VolumeOptions{NoCopy: true},
		})
	}
}

// buildMounts adjusts the build container: /build writable, and the fsize
// ulimit at least output_size (a single file may fill what /build may
// hold, never more than the largest of that and the build's tmpfs).
func buildMounts(b *buildPlan) func(*container.Config, *container.HostConfig) {
	return func(cfg *container.Config, hc *container.HostConfig) {
		hc.Mounts = append(hc.Mounts, mount.Mount{
			Type:          mount.TypeVolume,
			Source:        b.volume,
			Target:        buildDir,
			ReadOnly:      false,
			VolumeOptions: &mount.VolumeOptions{NoCopy: true},
		})
		for _, u := range hc.Ulimits {
			if u != nil && u.Name == "fsize" && u.Soft < b.outputSize {
				u.Soft, u.Hard = b.outputSize, b.outputSize
			}
		}
	}
}

// Build runs the profile's build stage: one container from the build's
// image, hardened like every invocation's (containerConfig), that runs the
// build's command on /program/<program_name> (runner.BuildArgv) with the program volume
// read-only and the build volume writable at /build. When it exited 0
// within its limits, /build is counted (countBuild): past output_size the
// event's resource limit is build_output. The event and error mean what
// Run's do.
func (a *Attempt) Build(ctx context.Context) (runner.Event, error) {
	if a.build == nil {
		return runner.Event{SandboxError: "the profile has no build stage"}, nil
	}
	b := &Attempt{
		sb:            a.sb,
		applied:       a.build.applied,
		img:           a.build.img,
		rt:            a.rt,
		volume:        a.volume,
		programSHA256: a.programSHA256,
		role:          RoleBuild,
		suffix:        "-build",
		adjust:        buildMounts(a.build),
		afterExit: func(ctx context.Context, id string, ev *runner.Event) {
			if ev.TimedOut || ev.ResourceLimit != runner.LimitNone || ev.ExitCode == nil || *ev.ExitCode != 0 {
				return // failed already: what it left does not matter
			}
			n, over, err := a.sb.countBuild(ctx, id, a.build.outputSize)
			if err != nil {
				ev.SandboxError = faultText(ctx, "counting the bytes in "+buildDir, err, a.sb.opt.EngineTimeout)
				return
			}
			ev.BuildOutputBytes = &n
			if over {
				ev.ResourceLimit = runner.LimitBuildOutput
			}
		},
	}
	_, hc := b.config(runner.Invocation{})
	b.limits = limitsFrom(b.applied, hc)
	return b.Run(ctx, runner.Invocation{})
}

// countBuild counts the bytes of the regular files under /build in the
// (exited) container id, and reports whether they pass limit. The engine
// streams /build as a tar archive (CopyFromContainer); the headers' sizes
// are summed and nothing is kept, and reading stops as soon as the sum
// passes limit (n is then the sum so far).
func (s *Sandbox) countBuild(ctx context.Context, id string, limit int64) (n int64, over bool, err error) {
	cctx, cancel := s.engineCtx(ctx)
	defer cancel()
	rc, _, err := s.cli.CopyFromContainer(cctx, id, buildDir+"/.")
	if err != nil {
		return 0, false, err
	}
	defer rc.Close()
	return overSize(rc, limit)
}

// overSize reads a tar stream and sums the sizes of its regular files,
// stopping as soon as the sum passes limit; it skips the file contents
// without keeping them.
func overSize(r io.Reader, limit int64) (sum int64, over bool, err error) {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return sum, false, nil
		}
		if err != nil {
			return sum, false, fmt.Errorf("reading the archive of %s: %w", buildDir, err)
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Size < 0 {
			continue
		}
		sum += hdr.Size
		if sum > limit {
			return sum, true, nil
		}
	}
}
