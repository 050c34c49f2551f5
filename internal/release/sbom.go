package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// The bill of materials' generator, the go.mod tool.
const cyclonedxGomod = "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod"

// SBOMName is the name of the bill of materials of behaves-linux-arch.
func SBOMName(arch string) string { return "behaves-linux-" + arch + ".cdx.json" }

// buildSBOMTool builds cyclonedx-gomod (the version go.mod's tool line
// pins) for the host it runs on, into dir, in env (goEnv's, without GOOS
// and GOARCH). It returns the program's path.
func buildSBOMTool(ctx context.Context, src, dir string, env []string) (string, error) {
	tool := filepath.Join(dir, "cyclonedx-gomod")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", tool, cyclonedxGomod)
	cmd.Dir = src
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", cyclonedxGomod, err, b)
	}
	return tool, nil
}

// sbom writes into out the CycloneDX bill of materials of the modules
// (and the standard library) linked into behaves for linux/arch: tool
// runs for the host, the go commands it runs see the target (GOOS=linux,
// GOARCH=arch in env, as the build). The main module's version is the
// commit's pseudo-version (the clone has no tags). The bill carries no
// serial number, the commit's time as its timestamp, and the tool's name
// and version without the hashes of its program (they are of this host's
// build of the tool, not of the release).
func sbom(ctx context.Context, tool, src, out, arch string, env []string, at time.Time) error {
	cmd := exec.CommandContext(ctx, tool, "app", "-json", "-output-version", "1.6", "-licenses=false", "-std", "-noserial", "-notimestamp", "-main", ".", ".")
	cmd.Dir = src
	cmd.Env = append(env, "GOOS=linux", "GOARCH="+arch)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cyclonedx-gomod (linux/%s): %v\n%s", arch, err, stderr.Bytes())
	}
	b, err := settleSBOM(stdout.Bytes(), at)
	if err != nil {
		return fmt.Errorf("cyclonedx-gomod (linux/%s): %w", arch, err)
	}
	return os.WriteFile(out, b, 0o644)
}

// settleSBOM is a bill of materials of cyclonedx-gomod's (JSON, spec
// 1.6) with what would differ from one machine to another settled: the
// timestamp is at, the tools carry no hashes. It is written as the tool
// writes it (pretty, HTML escaped).
func settleSBOM(b []byte, at time.Time) ([]byte, error) {
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(b), cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		return nil, fmt.Errorf("reading the bill of materials: %w", err)
	}
	if bom.Metadata == nil {
		bom.Metadata = &cdx.Metadata{}
	}
	bom.SerialNumber = ""
	bom.Metadata.Timestamp = at.UTC().Format(time.RFC3339)
	if tc := bom.Metadata.Tools; tc != nil {
		if tc.Tools != nil { //nolint:staticcheck // cyclonedx-gomod writes the legacy form
			for i := range *tc.Tools { //nolint:staticcheck
				(*tc.Tools)[i].Hashes = nil //nolint:staticcheck
			}
		}
		if tc.Components != nil {
			for i := range *tc.Components {
				(*tc.Components)[i].Hashes = nil
			}
		}
	}
	var out bytes.Buffer
	if err := cdx.NewBOMEncoder(&out, cdx.BOMFileFormatJSON).SetPretty(true).EncodeVersion(&bom, cdx.SpecVersion1_6); err != nil {
		return nil, fmt.Errorf("writing the bill of materials: %w", err)
	}
	return out.Bytes(), nil
}
