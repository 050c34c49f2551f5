package release

import (
	"bytes"
	"testing"
	"time"
)

// TestSettleSBOM: of a bill of materials as cyclonedx-gomod writes it, the
// serial number and the tool's hashes (of this host's build of the tool)
// go, the timestamp is the one given, and the rest is written as the tool
// wrote it.
func TestSettleSBOM(t *testing.T) {
	t.Parallel()
	in := `{
  "$schema": "http://cyclonedx.org/schema/bom-1.6.schema.json",
  "bomFormat": "CycloneDX",
  "specVersion": "1.6",
  "serialNumber": "urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79",
  "version": 1,
  "metadata": {
    "timestamp": "2026-12-04T18:00:00Z",
    "tools": [
      {
        "vendor": "CycloneDX",
        "name": "cyclonedx-gomod",
        "version": "v1.10.0",
        "hashes": [
          {
            "alg": "SHA-256",
            "content": "9fc8320576e9407ca4edcf5b926cc5802740efa69b9424fc6b8814abfb536bae"
          }
        ]
      }
    ],
    "component": {
      "bom-ref": "pkg:golang/example.com/m@v0.0.0-20261204022806-d67723cafede?type=module",
      "type": "application",
      "name": "example.com/m",
      "version": "v0.0.0-20261204022806-d67723cafede",
      "purl": "pkg:golang/example.com/m@v0.0.0-20261204022806-d67723cafede?goarch=arm64\u0026goos=linux\u0026type=module"
    }
  }
}
`
	want := `{
  "$schema": "http://cyclonedx.org/schema/bom-1.6.schema.json",
  "bomFormat": "CycloneDX",
  "specVersion": "1.6",
  "version": 1,
  "metadata": {
    "timestamp": "2026-12-04T02:28:06Z",
    "tools": [
      {
        "vendor": "CycloneDX",
        "name": "cyclonedx-gomod",
        "version": "v1.10.0"
      }
    ],
    "component": {
      "bom-ref": "pkg:golang/example.com/m@v0.0.0-20261204022806-d67723cafede?type=module",
      "type": "application",
      "name": "example.com/m",
      "version": "v0.0.0-20261204022806-d67723cafede",
      "purl": "pkg:golang/example.com/m@v0.0.0-20261204022806-d67723cafede?goarch=arm64\u0026goos=linux\u0026type=module"
    }
  }
}
`
	at := time.Date(2026, 12, 4, 3, 28, 6, 0, time.FixedZone("CET", 3600))
	got, err := settleSBOM([]byte(in), at)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("settled:\n%s\nwant:\n%s", got, want)
	}
	if _, err := settleSBOM([]byte("not json"), at); err == nil {
		t.Error("a bill that is not JSON was settled")
	}
}
