// Package junittest checks JUnit XML the way its consumers read it, for
// tests only: the document must be well-formed XML 1.0 to Go's strict
// decoder and to libxml2's xmllint (when it is installed; required under
// BEHAVES_REQUIRE_XMLLINT=1), and it is then parsed by
// github.com/joshdk/go-junit, a JUnit reader used by CI tools.
package junittest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	gojunit "github.com/joshdk/go-junit"
)

// WellFormed reports whether data is a well-formed XML document to Go's
// strict decoder: every token read to the end, the elements balanced.
func WellFormed(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 || roots != 1 {
		return fmt.Errorf("not one balanced root element (depth %d, %d roots)", depth, roots)
	}
	return nil
}

// Xmllint runs xmllint --noout on data. It returns ok=false when xmllint
// is not installed.
func Xmllint(t testing.TB, data []byte) (ok bool, err error) {
	t.Helper()
	bin, lerr := exec.LookPath("xmllint")
	if lerr != nil {
		return false, nil
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--noout", path).CombinedOutput()
	if err != nil {
		return true, fmt.Errorf("xmllint: %v: %s", err, out)
	}
	return true, nil
}

// Check fails t unless data is well-formed (Go's strict decoder, and
// xmllint when installed) and parses as JUnit; it returns the suites.
func Check(t testing.TB, data []byte) []gojunit.Suite {
	t.Helper()
	if err := WellFormed(data); err != nil {
		t.Fatalf("the JUnit file is not well-formed XML: %v", err)
	}
	ok, err := Xmllint(t, data)
	switch {
	case err != nil:
		t.Fatalf("the JUnit file is not well-formed XML: %v", err)
	case !ok && os.Getenv("BEHAVES_REQUIRE_XMLLINT") == "1":
		t.Fatal("xmllint is not installed (apt-get install libxml2-utils) and BEHAVES_REQUIRE_XMLLINT=1")
	case !ok:
		t.Log("xmllint is not installed: checked with Go's strict decoder only")
	}
	suites, err := gojunit.Ingest(data)
	if err != nil {
		t.Fatalf("go-junit cannot read the JUnit file: %v", err)
	}
	return suites
}
