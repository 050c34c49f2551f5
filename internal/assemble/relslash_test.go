package assemble

import "testing"

func TestSpecFile(t *testing.T) {
	t.Parallel()
	tests := []struct{ root, path, want string }{
		{".", "behaves.yml", "behaves.yml"},
		{"/repo", "/repo/ci/behaves.yml", "ci/behaves.yml"},
		{"/repo", "/other/behaves.yml", ""},
		{"", "behaves.yml", ""},
	}
	for _, tt := range tests {
		if got := relSlash(tt.root, tt.path); got != tt.want {
			t.Errorf("relSlash(%q, %q) = %q, want %q", tt.root, tt.path, got, tt.want)
		}
	}
}
