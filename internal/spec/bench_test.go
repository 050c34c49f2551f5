package spec

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad loads a spec of 1,000 cases (10 programs × 100 cases).
func BenchmarkLoad(b *testing.B) {
	repo := repoDir(b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\nprofiles:\n  py:\n    image: %s\n    command: [python3, -I]\n    timeout: 5s\nprograms:\n", testImage)
	for p := range 10 {
		write(b, filepath.Join(repo, "solutions", fmt.Sprintf("p%02d.py", p)), "import sys\nprint(sys.stdin.read())\n")
		fmt.Fprintf(&sb, "  - name: prog%02d\n    file: solutions/p%02d.py\n    profile: py\n    cases:\n", p, p)
		for c := range 100 {
			fmt.Fprintf(&sb, "      - name: case %d\n        args: [%q, \"--n\"]\n        stdin: \"line %d\\n\"\n", c, fmt.Sprint(c), c)
			fmt.Fprintf(&sb, "        expect:\n          exit_code: 0\n          stdout: {equals: \"line %d\", normalize: trailing}\n          stderr: {regex: \"^$\"}\n", c)
		}
	}
	path := filepath.Join(repo, "behaves.yml")
	write(b, path, sb.String())
	track(b, repo)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Load(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.Programs) * len(s.Programs[0].Cases); n != 1000 {
			b.Fatalf("loaded %d cases", n)
		}
	}
}
