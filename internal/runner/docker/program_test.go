package docker

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/behaves-dev/behaves/internal/runner"
)

type tarEntry struct {
	Name     string
	Typeflag byte
	Mode     int64
	Uid, Gid int
	Uname    string
	Data     string
}

// deliveryTar is writeDelivery's archive, whole.
func deliveryTar(programs [][]archiveEntry) ([]byte, error) {
	var buf bytes.Buffer
	err := writeDelivery(&buf, programs)
	return buf.Bytes(), err
}

func readTar(t *testing.T, b []byte) []tarEntry {
	t.Helper()
	var out []tarEntry
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeSymlink {
			data = []byte("-> " + hdr.Linkname)
		}
		out = append(out, tarEntry{hdr.Name, hdr.Typeflag, hdr.Mode, hdr.Uid, hdr.Gid, hdr.Uname, string(data)})
	}
}

func TestDeliveryTar(t *testing.T) {
	t.Parallel()
	programs := []runner.Program{
		{Files: runner.FilesOf(map[string][]byte{
			"main.py":        []byte("print(1)\n"),
			"pkg/sub/mod.py": []byte("X = 2\n"),
			"pkg/a.txt":      nil,
		})},
		{Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo 2\n")})},
		// A folder program: an executable file and a link inside it.
		{Folder: true, Files: runner.FilesOf(map[string][]byte{"run.sh": []byte("exec sh lib/x.sh\n"), "lib/x.sh": []byte("echo x\n")}),
			Executable: map[string]bool{"run.sh": true}, Links: map[string]string{"lib/run": "../run.sh"}},
	}
	layouts := make([][]archiveEntry, len(programs))
	for k, prog := range programs {
		var err error
		if layouts[k], err = programLayout(prog); err != nil {
			t.Fatal(err)
		}
	}
	b, err := deliveryTar(layouts)
	if err != nil {
		t.Fatal(err)
	}
	want := []tarEntry{
		{"0/main.py", tar.TypeReg, 0o444, 0, 0, "root", "print(1)\n"},
		{"0/pkg/", tar.TypeDir, 0o555, 0, 0, "root", ""},
		{"0/pkg/a.txt", tar.TypeReg, 0o444, 0, 0, "root", ""},
		{"0/pkg/sub/", tar.TypeDir, 0o555, 0, 0, "root", ""},
		{"0/pkg/sub/mod.py", tar.TypeReg, 0o444, 0, 0, "root", "X = 2\n"},
		{"1/main.sh", tar.TypeReg, 0o444, 0, 0, "root", "echo 2\n"},
		{"2/lib/", tar.TypeDir, 0o555, 0, 0, "root", ""},
		{"2/lib/run", tar.TypeSymlink, 0o777, 0, 0, "root", "-> ../run.sh"},
		{"2/lib/x.sh", tar.TypeReg, 0o444, 0, 0, "root", "echo x\n"},
		{"2/run.sh", tar.TypeReg, 0o555, 0, 0, "root", "exec sh lib/x.sh\n"},
	}
	if diff := cmp.Diff(want, readTar(t, b)); diff != "" {
		t.Errorf("tar entries (-want +got):\n%s", diff)
	}
	again, _ := deliveryTar(layouts)
	if !bytes.Equal(b, again) {
		t.Error("deliveryTar is not deterministic")
	}
}

func TestProgramLayoutRejects(t *testing.T) {
	t.Parallel()
	for _, files := range []map[string][]byte{
		{"": nil},
		{".": nil},
		{"/etc/passwd": nil},
		{"../escape": nil},
		{"a/../../escape": nil},
		{"a//b": nil},
		{"a\x00b": nil},
		{"a": nil, "a/b": nil}, // a file and a directory
	} {
		if _, err := programLayout(runner.Program{Files: runner.FilesOf(files)}); err == nil {
			t.Errorf("programLayout(%q) accepted", keys(files))
		}
	}
	// Links that leave the program, or pass through another link (which
	// the kernel follows before the names after it), are refused; links
	// that stay inside are kept.
	file := map[string][]byte{"a/f": nil}
	for _, tt := range []struct {
		links map[string]string
		ok    bool
	}{
		{map[string]string{"l": "a/f"}, true},
		{map[string]string{"a/l": "../a/f"}, true},
		{map[string]string{"a/l": "f"}, true},
		{map[string]string{"l": "m", "m": "a/f"}, true}, // a chain ends at its last name
		{map[string]string{"l": "/etc/shadow"}, false},
		{map[string]string{"l": ".."}, false},
		{map[string]string{"a/l": "../../x"}, false},
		{map[string]string{"a/l": "f/../../.."}, false},
		{map[string]string{"r": ".", "a/l": "../r/.."}, false}, // through a link, then up: outside
		{map[string]string{"a/l": ""}, false},
		{map[string]string{"a/f": "x"}, false},  // a file and a link
		{map[string]string{"a": "x"}, false},    // a link and a directory
		{map[string]string{"l/x": "a/f"}, true}, // a folder of links
	} {
		_, err := programLayout(runner.Program{Files: runner.FilesOf(file), Links: tt.links})
		if (err == nil) != tt.ok {
			t.Errorf("links %v: err %v, want ok %v", tt.links, err, tt.ok)
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestProgramFiles(t *testing.T) {
	t.Parallel()
	prog := runner.Program{Files: runner.FilesOf(map[string][]byte{"solutions/fizz.py": []byte("E"), "lib/util.py": []byte("U")}), Entry: "solutions/fizz.py"}
	got, err := runner.ProgramFiles(prog, "main.py")
	if err != nil {
		t.Fatal(err)
	}
	want := runner.FilesOf(map[string][]byte{"main.py": []byte("E"), "lib/util.py": []byte("U")})
	if diff := cmp.Diff(want, got.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	if _, err := runner.ProgramFiles(runner.Program{Files: runner.FilesOf(map[string][]byte{"a.py": nil}), Entry: "b.py"}, "main.py"); err == nil || !strings.Contains(err.Error(), "entry") {
		t.Errorf("missing entry: err = %v", err)
	}
	clash := runner.Program{Files: runner.FilesOf(map[string][]byte{"e.py": []byte("E"), "main.py": []byte("other")}), Entry: "e.py"}
	if _, err := runner.ProgramFiles(clash, "main.py"); err == nil {
		t.Error("a program name that clashes with another file was accepted")
	}
	// A folder program keeps every path, its entry's too.
	folder := runner.Program{Folder: true, Entry: "tool/main.py", Files: runner.FilesOf(map[string][]byte{"tool/main.py": []byte("E")}), Executable: map[string]bool{"tool/main.py": true}}
	if got, err := runner.ProgramFiles(folder, "tool/main.py"); err != nil || !cmp.Equal(got, folder) {
		t.Errorf("folder program laid out as %+v, %v; want it as it is", got, err)
	}
	if _, err := runner.ProgramFiles(runner.Program{Folder: true, Entry: "x.py", Files: runner.FilesOf(map[string][]byte{"y.py": nil})}, "x.py"); err == nil {
		t.Error("a folder program without its entry file was accepted")
	}
}

func TestSHA256Hex(t *testing.T) {
	t.Parallel()
	if got := sha256Hex(nil); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("sha256Hex(nil) = %s", got)
	}
}

// TestHelperGroups: one helper per image, at most maxHelperVolumes
// programs and maxHelperBytes of files a helper (a larger program alone),
// the batch's order kept within each.
func TestHelperGroups(t *testing.T) {
	t.Parallel()
	const max = maxHelperBytes
	d := func(img string, size int64) *delivery { return &delivery{img: imageInfo{ID: img}, bytes: size} }
	var ds []*delivery
	for range maxHelperVolumes + 1 {
		ds = append(ds, d("a", 1))
	}
	ds = append(ds, d("b", 1), d("b", max), d("b", 1), d("b", max-1), d("b", 2))
	var got [][]string
	for _, g := range helperGroups(ds) {
		var names []string
		for _, x := range g {
			names = append(names, fmt.Sprintf("%s:%d", x.img.ID, x.bytes))
		}
		got = append(got, names)
	}
	want := [][]string{
		slices.Repeat([]string{"a:1"}, maxHelperVolumes),
		{"a:1"}, // the 33rd
		{"b:1"},
		{fmt.Sprintf("b:%d", max)},          // with b's first it would pass the bound: alone
		{"b:1", fmt.Sprintf("b:%d", max-1)}, // exactly the bound
		{"b:2"},
	}
	if !cmp.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}
