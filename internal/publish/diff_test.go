package publish

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestUnifiedDiff checks the diff against diff -u itself, when the
// machine has it: the hunks, their ranges and context are the same.
func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	tests := []struct{ want, got string }{
		{"1\n2\nFizz\n4\nBuzz\n", "1\n2\n3\n4\n5\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", "a\nb\nX\nd\ne\nf\ng\nh\ni\nj\nk\nY\nm\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\n", "a\nB\nc\nd\ne\nf\ng\nH\n"},
		{"", "only actual\n"},
		{"only expected\n", ""},
		{"same\nhead\n", "same\nhead\nand more\n"},
	}
	diff, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("no diff on this machine to compare with")
	}
	dir := t.TempDir()
	for _, tt := range tests {
		w, g := filepath.Join(dir, "expected"), filepath.Join(dir, "actual")
		if err := os.WriteFile(w, []byte(tt.want), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(g, []byte(tt.got), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(diff, "-u", "--label", "expected", "--label", "actual", w, g).Output()
		if got := string(unifiedDiff([]byte(tt.want), []byte(tt.got), false)); got != string(out) {
			t.Errorf("%q → %q:\n%s\ndiff -u says:\n%s", tt.want, tt.got, got, out)
		}
	}
}
