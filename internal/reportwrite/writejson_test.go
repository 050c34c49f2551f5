package reportwrite_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
)

func TestWriteJSONAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, []byte("old report"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := reporttest.Report()
	if err := reportwrite.WriteJSON(path, r); err != nil {
		t.Fatal(err)
	}
	got := reporttest.Written(t, path)
	var want bytes.Buffer
	if err := report.Encode(&want, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file does not hold the encoded report")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "report.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only report.json", names)
	}
}

func TestWriteJSONFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The target is a folder: the rename fails, and the temporary file
	// must not stay behind.
	path := filepath.Join(dir, "report.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reportwrite.WriteJSON(path, reporttest.Report()); err == nil {
		t.Fatal("writing over a folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %d entries", len(entries))
	}
	if err := reportwrite.WriteJSON(filepath.Join(dir, "missing", "report.json"), reporttest.Report()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing folder: err = %v", err)
	}
}
