#!/usr/bin/env bash
# Builds a release of behaves from the checked-out commit and pushes its
# action image: a thin wrapper over cmd/release, which does everything
# (docs/action-image.md, "Releasing").
#
#   bash scripts/release.sh --registry HOST[:PORT] --out DIR [--name NAME]
#
# stdout: the pushed reference HOST[:PORT]/NAME@sha256:DIGEST, as the last
# line. stderr: logs. Into DIR: action.yml (its image that reference),
# behaves-linux-amd64, behaves-linux-arm64, SHA256SUMS, sbom.cdx.json.
# The same commit gives the same digest and binaries on any machine with
# go.mod's Go (GOTOOLCHAIN=local: another Go fails rather than builds).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
exec go run ./cmd/release "$@"
