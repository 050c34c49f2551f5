package docker

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
)

func tarOf(t *testing.T, files map[string]int) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755})
	for name, n := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(n)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(bytes.Repeat([]byte{1}, n)); err != nil {
			t.Fatal(err)
		}
	}
	_ = tw.WriteHeader(&tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestOverSize(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		files map[string]int
		limit int64
		want  bool
		sum   int64
	}{
		{map[string]int{"main": 1000}, 1000, false, 1000},
		{map[string]int{"main": 1001}, 1000, true, 1001},
		{map[string]int{"a": 600, "b": 600}, 1000, true, 1200},
		{map[string]int{"a": 300, "b": 400}, 1000, false, 700},
		{map[string]int{}, 1, false, 0},
	} {
		sum, got, err := overSize(bytes.NewReader(tarOf(t, tt.files)), tt.limit)
		if err != nil || got != tt.want || sum != tt.sum {
			t.Errorf("%v under %d: %d bytes, over %v (%v), want %d, %v", tt.files, tt.limit, sum, got, err, tt.sum, tt.want)
		}
	}
	if _, _, err := overSize(strings.NewReader("not a tar archive, but long enough to hold a header block of 512 bytes"+strings.Repeat("x", 600)), 10); err == nil {
		t.Error("a broken archive is no error")
	}
}

// The build volume's root is the one owned entry of its part of the
// delivery archive: the build's user owns it, mode 0755.
func TestBuildVolumeArchive(t *testing.T) {
	t.Parallel()
	prog, err := programLayout(runner.Program{Files: runner.FilesOf(map[string][]byte{"main.c": []byte("int main(){}")})})
	if err != nil {
		t.Fatal(err)
	}
	b, err := deliveryTar([][]archiveEntry{prog, buildVolumeLayout("1000:1001")})
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(b))
	got := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		got[h.Name] = h
	}
	if h := got["0/main.c"]; h == nil || h.Uid != 0 || h.Mode != programFileMode {
		t.Errorf("program file %+v, want root's, 0444", h)
	}
	h := got["1/"]
	if h == nil || h.Typeflag != tar.TypeDir || h.Uid != 1000 || h.Gid != 1001 || h.Mode != buildVolumeMode {
		t.Errorf("build volume root %+v, want a directory owned by 1000:1001, mode 0755", h)
	}
	if len(got) != 2 {
		t.Errorf("%d entries, want 2", len(got))
	}
}

// With a build, an invocation runs the profile's command and its args (no
// program path) and mounts the build volume read-only at /build; the build
// container runs the build's command on the program, with /build writable
// and an fsize of at least output_size.
func TestBuildContainerConfigs(t *testing.T) {
	t.Parallel()
	prof := runner.Profile{
		Name: "c", Image: "sha256:" + strings.Repeat("a", 64), Command: []string{"/build/main"}, ProgramName: "main.c",
		Timeout: time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 1024, OutputCeiling: 4096, User: "65534:65534",
		Build: &runner.Build{Image: "sha256:" + strings.Repeat("a", 64), Command: []string{"gcc", "-o", "/build/main"},
			Timeout: time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputSize: 256 << 20, Tmpfs: map[string]int64{"/tmp": 64 << 20}},
	}
	img := imageInfo{ID: prof.Image}
	cfg, hc := containerConfig(runner.Apply(prof), img, runcRuntime, "prog-vol", runner.Invocation{Args: []string{"2", "3"}}, nil)
	runWithBuild("build-vol")(cfg, hc)
	if got := strings.Join(append(append([]string{}, cfg.Entrypoint...), cfg.Cmd...), " "); got != "/build/main 2 3" {
		t.Errorf("invocation argv %q, want /build/main 2 3", got)
	}
	if m := hc.Mounts[len(hc.Mounts)-1]; m.Target != buildDir || !m.ReadOnly || m.Source != "build-vol" {
		t.Errorf("invocation build mount %+v, want build-vol read-only at /build", m)
	}

	bp := &buildPlan{applied: *runner.Apply(prof).Build, img: img, outputSize: 256 << 20, volume: "build-vol"}
	cfg, hc = containerConfig(bp.applied, img, runcRuntime, "prog-vol", runner.Invocation{}, nil)
	buildMounts(bp)(cfg, hc)
	if got := strings.Join(append(append([]string{}, cfg.Entrypoint...), cfg.Cmd...), " "); got != "gcc -o /build/main /program/main.c" {
		t.Errorf("build argv %q", got)
	}
	if m := hc.Mounts[len(hc.Mounts)-1]; m.Target != buildDir || m.ReadOnly {
		t.Errorf("build mount %+v, want writable /build", m)
	}
	if m := hc.Mounts[0]; m.Target != programDir || !m.ReadOnly {
		t.Errorf("program mount %+v, want read-only /program", m)
	}
	if fsize, _ := ulimit(hc, "fsize"); fsize != 256<<20 {
		t.Errorf("build fsize %d, want output_size", fsize)
	}
	if !hc.ReadonlyRootfs || hc.NetworkMode != "none" || len(hc.CapDrop) != 1 || hc.LogConfig.Type != "none" {
		t.Errorf("the build container is not hardened like a program's: %+v", hc)
	}

	// {program} says where the path goes: a flag may follow the source.
	prof.Build.Command = []string{"g++", "-o", "/build/main", runner.ProgramPlaceholder, "-lcrypto"}
	bp.applied = *runner.Apply(prof).Build
	cfg, hc = containerConfig(bp.applied, img, runcRuntime, "prog-vol", runner.Invocation{}, nil)
	buildMounts(bp)(cfg, hc)
	if got := strings.Join(append(append([]string{}, cfg.Entrypoint...), cfg.Cmd...), " "); got != "g++ -o /build/main /program/main.c -lcrypto" {
		t.Errorf("build argv with {program} %q, want g++ -o /build/main /program/main.c -lcrypto", got)
	}
}
