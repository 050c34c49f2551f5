package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/behaves-dev/behaves/internal/report"
)

// The comment marker is "<!--\tbehaves:comment v1 spec=<64 hex>\t-->",
// with two raw tabs: escape.Text turns every tab into "\t", and all
// report text in a comment goes through it, so no report text can contain
// a marker anywhere in the body, not only on its first line.
const (
	markerPrefix = "<!--\tbehaves:comment v1 spec="
	markerSuffix = "\t-->"
)

// Marker returns the hidden line that starts every comment for r's spec:
// the SHA-256 of the spec's repository-relative path (the path as given
// when the report has none), so that each spec has one sticky comment and
// no report text appears in the marker.
func Marker(r report.Report) string {
	key := r.SpecFile
	if key == "" {
		key = r.Spec
	}
	sum := sha256.Sum256([]byte(key))
	return markerPrefix + hex.EncodeToString(sum[:]) + markerSuffix
}

// ParseMarker returns the spec digest of a comment body written by Comment.
// It reads the body's first line only (ended by "\n" or "\r\n", as GitHub
// may return it), which must be exactly a marker: 64 lowercase hex digits,
// nothing before or after. Comment never puts report text on that line,
// and report text cannot hold the marker's tabs anyway.
// Whether the comment's author is the token's own identity is the caller's
// check.
func ParseMarker(body string) (specSHA256 string, ok bool) {
	line, _, _ := strings.Cut(body, "\n")
	line = strings.TrimSuffix(line, "\r")
	digest, found := strings.CutPrefix(line, markerPrefix)
	if !found {
		return "", false
	}
	digest, found = strings.CutSuffix(digest, markerSuffix)
	if !found || len(digest) != sha256.Size*2 {
		return "", false
	}
	for i := 0; i < len(digest); i++ {
		if c := digest[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return digest, true
}
