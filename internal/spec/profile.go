package spec

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Profile defaults: every field but image and command has one.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMemory      = 256 << 20 // 256MiB
	DefaultCPUs        = 1.0
	DefaultPids        = 64
	DefaultOutputLimit = 64 << 10 // 64KiB per stream
	// DefaultOutputCeilingFactor: output_ceiling defaults to
	// min(DefaultOutputCeilingFactor × output_limit, --max-output).
	DefaultOutputCeilingFactor = 64
	DefaultUser                = "65534:65534"
	// DefaultNetworkFiles skips the engine's network sandbox where the
	// runtime allows it (see runner.NetworkFilesNone).
	DefaultNetworkFiles = runner.NetworkFilesNone
)

// Limits the engine imposes, checked here so that a spec fails at load
// instead of at run time.
const (
	minMemory = 6 << 20 // Docker refuses a memory limit below 6MiB
	minCPUs   = 0.01    // Docker's smallest CPU quota
	maxCPUs   = 1024
)

var profileKeys = []string{
	"image", "command", "program_name", "timeout", "memory", "cpus", "pids",
	"output_limit", "output_ceiling", "user", "tmpfs", "env", "runtime",
	"network_files", "repeat", "build",
}

var (
	profileNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	runtimeRE     = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)
	envNameRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	tmpfsPathRE   = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	userRE        = regexp.MustCompile(`^([0-9]+):([0-9]+)$`)
	digestRE      = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	// imageNameRE is the Docker reference grammar for a name with an
	// optional tag: [domain[:port]/]path[/path...][:tag].
	imageNameRE = regexp.MustCompile(`^` +
		`(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?` +
		`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*` +
		`(?::[\w][\w.-]{0,127})?$`)
)

// profileState is a parsed profile and whether it is valid.
type profileState struct {
	prof Profile
	ok   bool
	// programName is set when the profile names the program file.
	programName bool
}

// profiles parses the profiles mapping. It returns nil when the mapping
// itself is unusable (so that program entries do not report every profile
// reference as unknown).
func (l *loader) profiles(n *yaml.Node) map[string]*profileState {
	pairs, ok := l.entries(n, "profiles", "a mapping from profile names to profiles")
	if !ok {
		return nil
	}
	if len(pairs) == 0 {
		l.errorf(n, "profiles is empty: define at least one profile with image and command")
		return nil
	}
	out := map[string]*profileState{}
	for _, p := range pairs {
		name := p.key.Value
		if !profileNameRE.MatchString(name) {
			l.errorf(p.key, "profile name %q may contain only letters, digits, '.', '_' and '-'", short(name))
		}
		out[name] = l.profile(name, p.key, p.val)
	}
	return out
}

// profile parses and validates one profile, applying defaults.
func (l *loader) profile(name string, key, n *yaml.Node) *profileState {
	before := len(l.errs)
	what := "profiles." + name
	if !profileNameRE.MatchString(name) {
		what = fmt.Sprintf("profiles[%q]", short(name))
	}
	st := &profileState{prof: Profile{Pos: l.pos(key), CPUsPos: l.pos(key)}}
	rt := runner.Profile{
		Name:         name,
		Timeout:      DefaultTimeout,
		Memory:       DefaultMemory,
		CPUs:         DefaultCPUs,
		Pids:         DefaultPids,
		OutputLimit:  DefaultOutputLimit,
		User:         DefaultUser,
		NetworkFiles: DefaultNetworkFiles,
		Backend:      l.opt.Backend,
	}
	fs, ok := l.mapping(n, what, "a mapping with at least image and command", profileKeys)
	if !ok {
		return st
	}
	st.prof.ImagePos = l.pos(n)
	if f, ok := fs.get("image"); ok {
		st.prof.ImagePos = l.pos(f.val)
	}
	l.image(name, what, n, fs, &rt)

	if f, ok := fs.get("command"); ok {
		if cmd, ok := l.stringList(f.val, "command", `["python3", "-I"]`); ok {
			switch {
			case len(cmd) == 0:
				l.errorf(f.val, "command must not be empty: give the argv the program path is appended to, like [\"python3\", \"-I\"]")
			case cmd[0] == "":
				l.errorf(f.val.Content[0], "command[0] must not be empty: it is the executable to run")
			case l.noPlaceholder(f.val, cmd):
				rt.Command = cmd
			}
		}
	} else if !fs.misspelt("command") {
		l.errorf(n, "%s is missing required key command: the argv the program path is appended to, like [\"python3\", \"-I\"]", what)
	}

	if f, ok := fs.get("program_name"); ok {
		if s, ok := l.text(f.val, "program_name"); ok {
			switch {
			case s == "" || s == "." || s == ".." || strings.ContainsRune(s, '/'):
				l.errorf(f.val, "program_name %q must be a single file name (no '/', not '.' or '..'): the program is placed at /program/<program_name>", short(s))
			case len(s) > 255:
				l.errorf(f.val, "program_name is longer than 255 bytes")
			default:
				rt.ProgramName = s
				st.programName = true
			}
		}
	}

	if f, ok := fs.get("timeout"); ok {
		if d, ok := l.timeoutValue(f.val, "timeout", "5s or 1500ms", "5s, 1500ms or 2m"); ok {
			rt.Timeout = d
		}
	} else if rt.Timeout > l.opt.Ceilings.MaxTimeout {
		l.errorf(key, "the default timeout %s exceeds --max-timeout %s: set a lower timeout in profile %q or raise the ceiling", formatDuration(rt.Timeout), formatDuration(l.opt.Ceilings.MaxTimeout), short(name))
	}

	if f, ok := fs.get("memory"); ok {
		if v, ok := l.memoryValue(f.val, "memory"); ok {
			rt.Memory = v
		}
	} else if rt.Memory > l.opt.Ceilings.MaxMemory {
		l.errorf(key, "the default memory %s exceeds --max-memory %s: set a lower memory in profile %q or raise the ceiling", verdict.FormatSize(rt.Memory), verdict.FormatSize(l.opt.Ceilings.MaxMemory), short(name))
	}

	if f, ok := fs.get("cpus"); ok {
		st.prof.CPUsPos = l.pos(f.val)
		if v, ok := l.cpusValue(f.val, "cpus"); ok {
			rt.CPUs = v
		}
	}

	if f, ok := fs.get("pids"); ok {
		if v, ok := l.pidsValue(f.val, "pids"); ok {
			rt.Pids = v
		}
	} else if rt.Pids > l.opt.Ceilings.MaxPids {
		l.errorf(key, "the default pids %d exceeds --max-pids %d: set a lower pids in profile %q or raise the ceiling", rt.Pids, l.opt.Ceilings.MaxPids, short(name))
	}

	limitOK := true
	if f, ok := fs.get("output_limit"); ok {
		limitOK = false
		if v, ok := l.outputLimitValue(f.val, "output_limit"); ok {
			rt.OutputLimit = v
			limitOK = true
		}
	} else if rt.OutputLimit > l.opt.Ceilings.MaxOutputLimit {
		limitOK = false
		l.errorf(key, "the default output_limit %s exceeds --max-output-limit %s: set a lower output_limit in profile %q or raise the ceiling", verdict.FormatSize(rt.OutputLimit), verdict.FormatSize(l.opt.Ceilings.MaxOutputLimit), short(name))
	}
	if f, ok := fs.get("output_ceiling"); ok {
		if v, ok := l.size(f.val, "output_ceiling"); ok {
			switch {
			case v > l.opt.Ceilings.MaxOutput:
				l.errorf(f.val, "output_ceiling %s exceeds --max-output %s: lower it or raise the ceiling", f.val.Value, verdict.FormatSize(l.opt.Ceilings.MaxOutput))
			case limitOK && v < rt.OutputLimit:
				l.errorf(f.val, "output_ceiling %s is below output_limit %s: raise it to at least output_limit, or the container is killed before the kept output is full", f.val.Value, verdict.FormatSize(rt.OutputLimit))
			default:
				rt.OutputCeiling = v
			}
		}
	} else if limitOK {
		max := l.opt.Ceilings.MaxOutput
		if rt.OutputLimit > max {
			at := key
			if f, ok := fs.get("output_limit"); ok {
				at = f.val
			}
			l.errorf(at, "output_limit %s exceeds --max-output %s: lower it or raise the ceiling", verdict.FormatSize(rt.OutputLimit), verdict.FormatSize(max))
		} else if rt.OutputLimit > max/DefaultOutputCeilingFactor {
			rt.OutputCeiling = max
		} else {
			rt.OutputCeiling = DefaultOutputCeilingFactor * rt.OutputLimit
		}
	}

	if f, ok := fs.get("user"); ok {
		if s, ok := l.strLike(f.val, "user", `"65534:65534" (numeric uid:gid, quoted)`); ok {
			if msg := checkUser(s); msg != "" {
				l.errorf(f.val, "%s", msg)
			} else {
				rt.User = s
			}
		}
	}

	if f, ok := fs.get("tmpfs"); ok {
		rt.Tmpfs = l.tmpfs(f.val, what+".tmpfs")
	}
	if f, ok := fs.get("env"); ok {
		rt.Env = l.env(f.val, what+".env")
	}

	if f, ok := fs.get("runtime"); ok {
		if s, ok := l.str(f.val, "runtime"); ok {
			if s != "" && !runtimeRE.MatchString(s) {
				l.errorf(f.val, "runtime %q must be an OCI runtime name like runsc (letters, digits, '.', '_', '-'), or \"\" for the engine's default", short(s))
			} else {
				rt.Runtime = s
			}
		}
	}

	if f, ok := fs.get("network_files"); ok {
		if s, ok := l.strLike(f.val, "network_files", "none or managed"); ok {
			switch v := runner.NetworkFiles(s); v {
			case runner.NetworkFilesNone, runner.NetworkFilesManaged:
				rt.NetworkFiles = v
			default:
				l.errorf(f.val, "network_files %q must be none (the default: empty /etc/hosts and /etc/resolv.conf, so localhost resolves by address only) or managed (the engine writes them, so localhost resolves by name, at a cost on every start)", short(s))
			}
		}
	}

	if f, ok := fs.get("repeat"); ok {
		st.prof.Repeat = l.repeat(f.val)
	}

	if f, ok := fs.get("build"); ok {
		st.prof.BuildCPUsPos = st.prof.CPUsPos
		rt.Build = l.build(f.val, what+".build", &rt, &st.prof.BuildCPUsPos)
		st.prof.BuildImagePos = st.prof.ImagePos
		if f.val.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(f.val.Content); i += 2 {
				if f.val.Content[i].Value == "image" {
					st.prof.BuildImagePos = l.pos(f.val.Content[i+1])
				}
			}
		}
		if tf, ok := fs.get("tmpfs"); ok {
			l.notOverBuild(tf.val, rt.Tmpfs)
		}
	}

	st.prof.Runtime = rt
	st.ok = len(l.errs) == before
	return st
}

// image sets the profile's image from the --image override or the spec,
// and checks it is pinned.
func (l *loader) image(name, what string, n *yaml.Node, fs fields, rt *runner.Profile) {
	f, inSpec := fs.get("image")
	if ref, ok := l.opt.Images[name]; ok {
		at := n
		if inSpec {
			at = f.val
		}
		if msg := checkImage(ref); msg != "" {
			l.errorf(at, "--image %s=%s: %s", short(name), short(ref), msg)
			return
		}
		if msg := l.checkRegistry(ref); msg != "" {
			l.errorf(at, "--image %s=%s: %s", short(name), short(ref), msg)
			return
		}
		rt.Image = ref
		return
	}
	if !inSpec {
		if fs.misspelt("image") {
			return
		}
		l.errorf(n, "%s is missing required key image: a pinned reference, name@sha256:<64 hex> or sha256:<64 hex>", what)
		return
	}
	s, ok := l.strLike(f.val, "image", "name@sha256:<64 hex> or sha256:<64 hex>")
	if !ok {
		return
	}
	if msg := checkImage(s); msg != "" {
		l.errorf(f.val, "%s", msg)
		return
	}
	if msg := l.checkRegistry(s); msg != "" {
		l.errorf(f.val, "%s", msg)
		return
	}
	rt.Image = s
}

// checkImage returns why an image reference is not pinned, or "".
func checkImage(s string) string {
	if strings.HasPrefix(s, "sha256:") {
		if !digestRE.MatchString(s) {
			return fmt.Sprintf("image %q: a local image ID is sha256: followed by 64 lowercase hex digits", short(s))
		}
		return ""
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return fmt.Sprintf("image %q is unpinned: pin it by registry digest (%s@sha256:<64 hex>, see docker images --digests) or by local image ID (sha256:<64 hex>, see docker image inspect --format '{{.Id}}')", short(s), short(s))
	}
	name, digest := s[:at], s[at+1:]
	if !digestRE.MatchString(digest) {
		return fmt.Sprintf("image %q: the digest after @ must be sha256: followed by 64 lowercase hex digits", short(s))
	}
	if !imageNameRE.MatchString(name) || len(name) > 255 {
		return fmt.Sprintf("image %q: %q is not a valid image name (lowercase [registry/]path[:tag])", short(s), short(name))
	}
	return ""
}

// checkUser returns why a user is not a numeric uid:gid above 0, or "".
func checkUser(s string) string {
	m := userRE.FindStringSubmatch(s)
	if m == nil {
		return fmt.Sprintf("user %q must be a numeric uid:gid like \"65534:65534\" (names are not resolved)", short(s))
	}
	for i, what := range []string{"uid", "gid"} {
		v, err := strconv.ParseUint(m[i+1], 10, 32)
		if err != nil || v == math.MaxUint32 {
			return fmt.Sprintf("user %q: %s %s is out of range", s, what, m[i+1])
		}
		if v == 0 {
			return fmt.Sprintf("user %q: uid and gid must both be greater than 0 (0 is root)", s)
		}
	}
	return ""
}

// size parses a size string.
func (l *loader) size(n *yaml.Node, what string) (int64, bool) {
	if n.Kind == yaml.AliasNode {
		return 0, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		l.errorf(n, "%s must be a size like 64KiB or 256MiB (B, KiB, MiB or GiB), got %s", what, describe(n))
		return 0, false
	}
	v, err := ParseSize(n.Value)
	if err != nil {
		l.errorf(n, "%s %q %v", what, short(n.Value), err)
		return 0, false
	}
	return v, true
}

// tmpfs parses the scratch mounts: absolute clean paths to sizes.
func (l *loader) tmpfs(n *yaml.Node, what string) map[string]int64 {
	pairs, ok := l.entries(n, what, "a mapping from absolute paths to sizes, like {/tmp: 16MiB}")
	if !ok {
		return nil
	}
	out := map[string]int64{}
	for _, p := range pairs {
		dir := p.key.Value
		switch {
		case !strings.HasPrefix(dir, "/") || path.Clean(dir) != dir:
			l.errorf(p.key, "tmpfs path %q must be an absolute, clean path like /tmp", short(dir))
			continue
		case !tmpfsPathRE.MatchString(dir):
			l.errorf(p.key, "tmpfs path %q may contain only letters, digits, '.', '_', '-' and '/'", short(dir))
			continue
		case dir == "/":
			l.errorf(p.key, "tmpfs cannot cover /: the root file system stays read-only; use a folder like /tmp")
			continue
		case dir == "/program" || strings.HasPrefix(dir, "/program/"):
			l.errorf(p.key, "tmpfs path %s would cover /program, where the program is mounted read-only", dir)
			continue
		case under(dir, "/proc") || under(dir, "/sys") || under(dir, "/dev"):
			l.errorf(p.key, "tmpfs path %s would cover a kernel file system (/proc, /sys, /dev)", dir)
			continue
		}
		v, ok := l.size(p.val, "tmpfs size")
		if !ok {
			continue
		}
		if v <= 0 {
			l.errorf(p.val, "tmpfs size for %s must be greater than 0", dir)
			continue
		}
		out[dir] = v
	}
	return out
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// env parses the profile's environment.
func (l *loader) env(n *yaml.Node, what string) map[string]string {
	pairs, ok := l.entries(n, what, "a mapping from variable names to strings, like {LANG: C.UTF-8}")
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, p := range pairs {
		k := p.key.Value
		if !envNameRE.MatchString(k) {
			l.errorf(p.key, "env name %q must be letters, digits and '_', not starting with a digit", short(k))
			continue
		}
		v, ok := l.text(p.val, "env "+k)
		if !ok {
			continue
		}
		out[k] = v
	}
	return out
}

// The limits a profile and its build stage share: each parses its value,
// checks it against Docker's range and the --max-… ceiling, and records an
// error naming label (the key, "build …" for the build's) when it is wrong.

// timeoutValue parses a timeout; like and eg are the examples the two
// messages give.
func (l *loader) timeoutValue(n *yaml.Node, label, like, eg string) (time.Duration, bool) {
	s, ok := l.strLike(n, label, like)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		l.errorf(n, "%s %q is not a duration: write a number with a unit, e.g. %s", label, short(s), eg)
	case d <= 0:
		l.errorf(n, "%s %s must be greater than 0", label, s)
	case d > l.opt.Ceilings.MaxTimeout:
		l.errorf(n, "%s %s exceeds --max-timeout %s: lower it or raise the ceiling", label, s, formatDuration(l.opt.Ceilings.MaxTimeout))
	default:
		return d, true
	}
	return 0, false
}

func (l *loader) memoryValue(n *yaml.Node, label string) (int64, bool) {
	v, ok := l.size(n, label)
	if !ok {
		return 0, false
	}
	switch {
	case v < minMemory:
		l.errorf(n, "%s %s is below Docker's minimum of %s", label, n.Value, verdict.FormatSize(minMemory))
	case v > l.opt.Ceilings.MaxMemory:
		l.errorf(n, "%s %s exceeds --max-memory %s: lower it or raise the ceiling", label, n.Value, verdict.FormatSize(l.opt.Ceilings.MaxMemory))
	default:
		return v, true
	}
	return 0, false
}

func (l *loader) cpusValue(n *yaml.Node, label string) (float64, bool) {
	v, ok := l.number(n, label)
	if !ok {
		return 0, false
	}
	if v < minCPUs || v > maxCPUs {
		l.errorf(n, "%s %s must be between %v and %v (e.g. 0.5 for half a core)", label, n.Value, minCPUs, maxCPUs)
		return 0, false
	}
	return v, true
}

func (l *loader) pidsValue(n *yaml.Node, label string) (int64, bool) {
	v, ok := l.integer(n, label)
	if !ok {
		return 0, false
	}
	switch {
	case v <= 0:
		l.errorf(n, "%s %d must be greater than 0 (a process limit of 0 would mean unlimited)", label, v)
	case v > l.opt.Ceilings.MaxPids:
		l.errorf(n, "%s %d exceeds --max-pids %d: lower it or raise the ceiling", label, v, l.opt.Ceilings.MaxPids)
	default:
		return v, true
	}
	return 0, false
}

func (l *loader) outputLimitValue(n *yaml.Node, label string) (int64, bool) {
	v, ok := l.size(n, label)
	if !ok {
		return 0, false
	}
	switch {
	case v <= 0:
		l.errorf(n, "%s must be greater than 0", label)
	case v > l.opt.Ceilings.MaxOutputLimit:
		l.errorf(n, "%s %s exceeds --max-output-limit %s: lower it or raise the ceiling", label, n.Value, verdict.FormatSize(l.opt.Ceilings.MaxOutputLimit))
	default:
		return v, true
	}
	return 0, false
}
