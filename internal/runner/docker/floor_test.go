package docker

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker/floor"
)

// TestNewFloorNeedsTheKey: the zero key opens no floor (and asks no
// engine).
func TestNewFloorNeedsTheKey(t *testing.T) {
	t.Parallel()
	if f, err := NewFloor(context.Background(), Options{RunID: "r"}, floor.Key{}); err == nil {
		f.Close()
		t.Fatal("NewFloor with the zero key: no error")
	}
}

// TestFloorVariants checks that every floor sets the network fields
// itself, whatever behaves' configuration says, and changes nothing else
// but what its variant switches off; and that behaves' own attempt is
// left as it was.
func TestFloorVariants(t *testing.T) {
	t.Parallel()
	source := []byte("import sys\nprint(sys.argv[1])\n")
	inv := runner.Invocation{Args: []string{"a1"}}
	sb := &Sandbox{}
	a := &Attempt{sb: sb, applied: runner.Apply(testProfile()), img: testImage(), rt: runcRuntime, volume: "vol1", role: RoleProgram}
	f := &Floor{sb: sb}
	build := func(v *floor.Variant) (*container.Config, *container.HostConfig) {
		if v == nil {
			return a.config(inv)
		}
		cfg, hc, err := f.Config(a, *v, source, inv)
		if err != nil {
			t.Fatal(err)
		}
		return cfg, hc
	}
	for _, on := range []bool{false, true} {
		// Both starting points: the engine's network sandbox set up (as
		// behaves once ran every container) and skipped (as it does now).
		cfg, hc := build(nil)
		cfg.NetworkDisabled, hc.DNS = on, nil
		if on {
			hc.DNS = []string{"10.0.0.1"}
		}
		(&floorView{}).apply(cfg, hc)
		if !cfg.NetworkDisabled || hc.DNS != nil || hc.NetworkMode != "none" {
			t.Errorf("the floor: NetworkDisabled %v, DNS %v, mode %q; want true, none, none", cfg.NetworkDisabled, hc.DNS, hc.NetworkMode)
		}
		cfg, hc = build(nil)
		cfg.NetworkDisabled = !on
		(&floorView{Variant: floor.Variant{NetworkSandbox: true}}).apply(cfg, hc)
		if cfg.NetworkDisabled || !slices.Equal(hc.DNS, []string{"127.0.0.1"}) || hc.NetworkMode != "none" {
			t.Errorf("the old floor: NetworkDisabled %v, DNS %v, mode %q; want false, [127.0.0.1], none", cfg.NetworkDisabled, hc.DNS, hc.NetworkMode)
		}
	}

	// The floor is behaves' configuration but for the network fields.
	skip := func(cfg *container.Config, hc *container.HostConfig) {
		cfg.NetworkDisabled, hc.DNS, hc.NetworkMode = true, nil, "none"
	}
	for _, tc := range []struct {
		v      floor.Variant
		change func(*container.Config, *container.HostConfig)
	}{
		{floor.Variant{}, func(*container.Config, *container.HostConfig) {}},
		{floor.Variant{NoInit: true}, func(_ *container.Config, hc *container.HostConfig) { hc.Init = boolPtr(false) }},
		{floor.Variant{NoTmpfs: true}, func(_ *container.Config, hc *container.HostConfig) { hc.Tmpfs = nil }},
		{floor.Variant{IPC: "none"}, func(_ *container.Config, hc *container.HostConfig) { hc.IpcMode, hc.ShmSize = "none", 0 }},
		{floor.Variant{IPC: "host"}, func(_ *container.Config, hc *container.HostConfig) { hc.IpcMode, hc.ShmSize = "host", 0 }},
		{floor.Variant{NoVolume: true}, func(cfg *container.Config, hc *container.HostConfig) {
			hc.Mounts, cfg.WorkingDir = nil, "/"
			cfg.Entrypoint = []string{"python3", "-I"}
			cfg.Cmd = []string{"-c", string(source), "a1"}
		}},
		{floor.Variant{OOMWatch: true}, func(*container.Config, *container.HostConfig) {}},
	} {
		cfg, hc := build(&tc.v)
		wc, wh := build(nil)
		skip(wc, wh)
		tc.change(wc, wh)
		if !reflect.DeepEqual(cfg, wc) || !reflect.DeepEqual(hc, wh) {
			t.Errorf("%+v: got\n%+v\n%+v\nwant\n%+v\n%+v", tc.v, cfg, hc, wc, wh)
		}
	}
	if _, hc := build(nil); len(hc.Tmpfs) == 0 || len(hc.Mounts) != 1 || hc.Init == nil || !*hc.Init || hc.IpcMode != "private" {
		t.Fatalf("behaves' configuration changed: the variants above switch off what is no longer there: %+v", hc)
	}
	if a.floor != nil || !a.watchesOOM() {
		t.Error("a floor's view changed behaves' own attempt")
	}
	for _, v := range []floor.Variant{{}, {OOMWatch: true}} {
		fa, err := f.attempt(a, v, source)
		if err != nil || fa.watchesOOM() != v.OOMWatch || fa.volume != a.volume {
			t.Errorf("%+v: the view watches OOM %v on volume %q (%v); want %v on %q", v, fa.watchesOOM(), fa.volume, err, v.OOMWatch, a.volume)
		}
	}
	// An attempt of another sandbox is not the floor's.
	if _, err := f.attempt(&Attempt{sb: &Sandbox{}}, floor.Variant{}, nil); err == nil {
		t.Error("another sandbox's attempt: no error")
	}
}
