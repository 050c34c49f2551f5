package gitindex

import (
	"crypto/sha1"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
)

// FuzzParse feeds arbitrary bytes to Parse. It must never panic, and what
// it accepts must hold only non-empty paths within MaxPathLen. Each input is
// also parsed with its last 20 bytes zeroed (the skipHash trailer), so that
// mutations reach the entry and extension parsers instead of stopping at
// the checksum.
func FuzzParse(f *testing.F) {
	for _, version := range []string{"2", "4"} {
		repo := fixtureRepo(f)
		gittest.WriteFile(f, repo, "intent.txt", "later\n")
		gittest.Git(f, repo, "add", "-N", "intent.txt")
		gittest.Git(f, repo, "update-index", "--index-version", version)
		valid := readFixtureIndex(f, repo)
		f.Add(valid)
		f.Add(withExtension(valid, "link", make([]byte, 20)))
	}
	f.Add(craft{version: 4, mode: ModeRegular, v4Strip: []byte{1}, name: "b", prefixOne: true}.build())
	f.Add([]byte("DIRC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			ix, err := Parse(data)
			if err != nil {
				if ix != nil {
					t.Fatalf("Parse returned an index and an error")
				}
				return
			}
			if ix.Version < 2 || ix.Version > 4 {
				t.Fatalf("accepted version %d", ix.Version)
			}
			for path := range ix.entries {
				if path == "" || len(path) > MaxPathLen {
					t.Fatalf("accepted a path of %d bytes", len(path))
				}
				if strings.IndexByte(path, 0) >= 0 {
					t.Fatalf("accepted a path with a NUL: %q", path)
				}
			}
		}
		check(data)
		if len(data) > sha1.Size {
			zeroed := append([]byte{}, data...)
			clear(zeroed[len(zeroed)-sha1.Size:])
			check(zeroed)
		}
	})
}
