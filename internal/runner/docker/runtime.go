package docker

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/docker/docker/api/types/system"
)

// ociRuntime is what the engine's registration of an OCI runtime tells the
// container settings.
type ociRuntime struct {
	// GVisor is set when the runtime is gVisor's runsc: its registered
	// path's base name is "runsc" (or, for a shim v2 registration, its type
	// is io.containerd.runsc.*), whatever the name profiles use for it. The
	// name alone proves nothing: the tests register the same binary as
	// runsc and runsc-netstack, and a daemon may call it anything.
	GVisor bool
	// LoopbackWithoutSandbox is set when a container of this runtime still
	// has a loopback interface that is up when the engine skips its network
	// sandbox (Config.NetworkDisabled), so that skipping it costs the
	// program nothing but the engine-managed /etc/hosts and
	// /etc/resolv.conf:
	//   - runc (and any runtime that is not gVisor): the container gets a
	//     new network namespace with only lo, and runc brings lo up;
	//   - gVisor registered with --network=none: gVisor's kernel has its
	//     own loopback and nothing else, whatever the namespace holds;
	//   - gVisor in any other network mode (its default, "sandbox", copies
	//     the namespace's interfaces into its own network stack): the
	//     fresh namespace's lo is down, and gVisor then gives the program
	//     no loopback (as measured on this engine; Debian bookworm's runsc
	//     cannot start a container in that mode on this machine's kernel
	//     at all), so the sandbox is kept. So is it for a shim v2
	//     registration, whose runsc flags are in a file behaves cannot
	//     read.
	LoopbackWithoutSandbox bool
}

// runtimeFrom finds the runtime a profile names ("" for the daemon's
// default) among the engine's registered runtimes (docker info's Runtimes
// and DefaultRuntime; Engine API 1.41 reports each runtime's path and
// runtimeArgs). A named runtime the engine does not list is an error that
// names it. A default the engine does not name or list is taken as runc,
// the engine's own default.
func runtimeFrom(info system.Info, name string) (ociRuntime, error) {
	key := name
	if key == "" {
		key = info.DefaultRuntime
	}
	r, ok := info.Runtimes[key]
	switch {
	case !ok && name == "":
		return ociRuntime{LoopbackWithoutSandbox: true}, nil
	case !ok:
		names := make([]string, 0, len(info.Runtimes))
		for n := range info.Runtimes {
			names = append(names, n)
		}
		sort.Strings(names)
		return ociRuntime{}, fmt.Errorf("the Docker daemon has no runtime %q registered (it has %s): register it in the daemon's configuration, or change the profile's runtime", name, strings.Join(names, ", "))
	}
	gvisor := path.Base(r.Path) == "runsc" || strings.HasPrefix(r.Type, "io.containerd.runsc.")
	if !gvisor {
		return ociRuntime{LoopbackWithoutSandbox: true}, nil
	}
	return ociRuntime{GVisor: true, LoopbackWithoutSandbox: r.Path != "" && runscNetwork(r.Args) == "none"}, nil
}

// runscNetwork is the value of runsc's --network flag in a registration's
// runtimeArgs ("" when it is not set: runsc's default, "sandbox"), read as
// runsc's own flag parser (Go's flag package) reads it: one or two dashes,
// the value after "=" or as the next argument, the last occurrence winning,
// nothing after "--". runtimeArgs are runsc's global flags, which come before
// the command the engine adds: an argument without a dash is the value of
// the flag before it.
func runscNetwork(args []string) string {
	var v string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, value, hasValue := strings.Cut(name, "=")
		if name != "network" {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				break
			}
			i++
			value = args[i]
		}
		v = value
	}
	return v
}

// runtime resolves a profile's runtime ("" for the daemon's default). The
// engine is asked once per sandbox; a failed request is not kept, so the
// next program asks again.
func (s *Sandbox) runtime(ctx context.Context, name string) (ociRuntime, error) {
	s.rtMu.Lock()
	defer s.rtMu.Unlock()
	if s.runtimes == nil {
		ictx, cancel := s.engineCtx(ctx)
		info, err := s.cli.Info(ictx)
		cancel()
		if err != nil {
			return ociRuntime{}, fmt.Errorf("asking the Docker engine for its runtimes: %w", err)
		}
		s.runtimes = &system.Info{Runtimes: info.Runtimes, DefaultRuntime: info.DefaultRuntime}
	}
	return runtimeFrom(*s.runtimes, name)
}
