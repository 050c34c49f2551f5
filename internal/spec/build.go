package spec

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Build stage defaults: every field but command defaults to the profile's
// value, except these.
const (
	// DefaultBuildOutputSize is what /build may hold after the build.
	DefaultBuildOutputSize = 64 << 20
	// DefaultBuildTmpfsSize is the size of the build's /tmp when the build
	// names no tmpfs of its own: compilers need a writable temporary
	// folder (gcc under a read-only root without /tmp dies with signal 11).
	DefaultBuildTmpfsSize = 64 << 20
)

// buildDir is where the build's output is mounted (writable in the build,
// read-only in every case).
const buildDir = "/build"

var buildKeys = []string{
	"image", "command", "timeout", "memory", "cpus", "pids",
	"output_limit", "output_ceiling", "output_size", "tmpfs",
}

// build parses a profile's build stage. rt holds the profile as parsed so
// far: its image and limits are the build's defaults, and with a build its
// command becomes the full argv prefix of every case.
// cpusPos is set to the build's cpus value's position when it has one.
func (l *loader) build(n *yaml.Node, what string, rt *runner.Profile, cpusPos *Pos) *runner.Build {
	b := &runner.Build{
		Image:         rt.Image,
		Timeout:       rt.Timeout,
		Memory:        rt.Memory,
		CPUs:          rt.CPUs,
		Pids:          rt.Pids,
		OutputLimit:   rt.OutputLimit,
		OutputCeiling: rt.OutputCeiling,
		OutputSize:    DefaultBuildOutputSize,
		Tmpfs:         map[string]int64{"/tmp": DefaultBuildTmpfsSize},
	}
	fs, ok := l.mapping(n, what, `a mapping with at least command, like {command: ["gcc", "-O2", "-o", "/build/main"]}`, buildKeys)
	if !ok {
		return nil
	}
	if f, ok := fs.get("image"); ok {
		if s, ok := l.strLike(f.val, "build image", "name@sha256:<64 hex> or sha256:<64 hex>"); ok {
			if msg := checkImage(s); msg != "" {
				l.errorf(f.val, "build %s", msg)
			} else if msg := l.checkRegistry(s); msg != "" {
				l.errorf(f.val, "build %s", msg)
			} else {
				b.Image = s
			}
		}
	}
	if f, ok := fs.get("command"); ok {
		if cmd, ok := l.stringList(f.val, "build command", `["gcc", "-O2", "-o", "/build/main"]`); ok {
			switch {
			case len(cmd) == 0:
				l.errorf(f.val, "build command must not be empty: give the compiler's argv, like [\"gcc\", \"-O2\", \"-o\", \"/build/main\"] (/program/<program_name> is appended, or goes where a {program} argument stands)")
			case cmd[0] == "":
				l.errorf(f.val.Content[0], "build command[0] must not be empty: it is the executable to run")
			case l.placeholders(f.val, cmd):
				b.Command = cmd
			}
		}
	} else if !fs.misspelt("command") {
		l.errorf(n, "%s is missing required key command: the compiler's argv, like [\"gcc\", \"-O2\", \"-o\", \"/build/main\"] (/program/<program_name> is appended, or goes where a {program} argument stands)", what)
	}
	if f, ok := fs.get("timeout"); ok {
		if d, ok := l.timeoutValue(f.val, "build timeout", "60s or 2m", "60s or 2m"); ok {
			b.Timeout = d
		}
	}
	if f, ok := fs.get("memory"); ok {
		if v, ok := l.memoryValue(f.val, "build memory"); ok {
			b.Memory = v
		}
	}
	if f, ok := fs.get("cpus"); ok {
		*cpusPos = l.pos(f.val)
		if v, ok := l.cpusValue(f.val, "build cpus"); ok {
			b.CPUs = v
		}
	}
	if f, ok := fs.get("pids"); ok {
		if v, ok := l.pidsValue(f.val, "build pids"); ok {
			b.Pids = v
		}
	}
	limitSet := false
	if f, ok := fs.get("output_limit"); ok {
		if v, ok := l.outputLimitValue(f.val, "build output_limit"); ok {
			b.OutputLimit, limitSet = v, true
		}
	}
	if f, ok := fs.get("output_ceiling"); ok {
		if v, ok := l.size(f.val, "build output_ceiling"); ok {
			switch {
			case v > l.opt.Ceilings.MaxOutput:
				l.errorf(f.val, "build output_ceiling %s exceeds --max-output %s: lower it or raise the ceiling", f.val.Value, verdict.FormatSize(l.opt.Ceilings.MaxOutput))
			case v < b.OutputLimit:
				l.errorf(f.val, "build output_ceiling %s is below the build's output_limit %s: raise it to at least output_limit", f.val.Value, verdict.FormatSize(b.OutputLimit))
			default:
				b.OutputCeiling = v
			}
		}
	} else if limitSet || b.OutputCeiling < b.OutputLimit {
		b.OutputCeiling = min(DefaultOutputCeilingFactor*b.OutputLimit, max(l.opt.Ceilings.MaxOutput, b.OutputLimit))
	}
	if f, ok := fs.get("output_size"); ok {
		if v, ok := l.size(f.val, "build output_size"); ok {
			switch {
			case v <= 0:
				l.errorf(f.val, "build output_size must be greater than 0: it is what /build may hold after the build")
			case v > l.opt.Ceilings.MaxOutput:
				l.errorf(f.val, "build output_size %s exceeds --max-output %s: lower it or raise the ceiling", f.val.Value, verdict.FormatSize(l.opt.Ceilings.MaxOutput))
			default:
				b.OutputSize = v
			}
		}
	}
	if f, ok := fs.get("tmpfs"); ok {
		b.Tmpfs = l.tmpfs(f.val, what+".tmpfs")
		l.notOverBuild(f.val, b.Tmpfs)
	}
	return b
}

// notOverBuild refuses a tmpfs over /build (the build's output volume),
// at the tmpfs key's position.
func (l *loader) notOverBuild(n *yaml.Node, tmpfs map[string]int64) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if _, ok := tmpfs[k.Value]; ok && (k.Value == buildDir || strings.HasPrefix(k.Value, buildDir+"/")) {
			l.errorf(k, "tmpfs path %s would cover %s, where the build's output is mounted: use another folder, like /tmp", k.Value, buildDir)
		}
	}
}

// placeholders checks the {program} placeholders of a build command (n,
// its list node; cmd, its values): a whole argument, at most once. It
// reports whether the command is good. Other text with braces is literal
// (an awk program's '{print $1}').
func (l *loader) placeholders(n *yaml.Node, cmd []string) bool {
	ok, seen := true, -1
	for i, a := range cmd {
		switch {
		case a == runner.ProgramPlaceholder && seen >= 0:
			l.errorf(n.Content[i], "build command has %s twice (arguments %d and %d): the program's path goes in one place; remove one", runner.ProgramPlaceholder, seen+1, i+1)
			ok = false
		case a == runner.ProgramPlaceholder:
			seen = i
		case strings.Contains(a, runner.ProgramPlaceholder):
			l.errorf(n.Content[i], "build command argument %q holds %s inside a longer argument: the placeholder must be a whole argument, like [\"g++\", \"-o\", \"/build/main\", \"%s\", \"-lcrypto\"]", a, runner.ProgramPlaceholder, runner.ProgramPlaceholder)
			ok = false
		}
	}
	return ok
}

// noPlaceholder refuses {program} in a run command (n, its list node):
// the placeholder is a build command's; a run command is followed by the
// program's path, or with a build stage by the case's args alone.
func (l *loader) noPlaceholder(n *yaml.Node, cmd []string) bool {
	for i, a := range cmd {
		if strings.Contains(a, runner.ProgramPlaceholder) {
			l.errorf(n.Content[i], "command argument %q holds %s, which only a build command takes: a run command is followed by /program/<program_name> (or, with a build stage, by the case's args alone); remove it", a, runner.ProgramPlaceholder)
			return false
		}
	}
	return true
}
