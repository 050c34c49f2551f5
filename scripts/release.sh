#!/usr/bin/env bash
# Builds a release of behaves from the checked-out commit and pushes its
# action image (docs/action-image.md, "Releasing"):
#
#   bash scripts/release.sh --registry HOST[:PORT] --out DIR [--name NAME] [--allow-dirty]
#
# stdout: the pushed reference HOST[:PORT]/NAME@sha256:DIGEST, as the last
# line. stderr: logs. Into DIR, all written before anything is pushed:
# action.yml (its image that reference), behaves-linux-amd64,
# behaves-linux-arm64, SHA256SUMS, and the bills of materials
# behaves-linux-amd64.cdx.json and behaves-linux-arm64.cdx.json.
#
# A release is a function of the commit alone. This script clones HEAD into
# a temporary folder, builds cmd/release there (so neither uncommitted code
# nor the caller's Go settings shape the program that makes the release),
# and runs it on this work tree (--repo), which it reads only through git:
# cmd/release refuses a tree with changes or untracked files unless
# --allow-dirty (then the version ends in +dirty; the changes are never
# released), refuses a Go other than go.mod's (older or newer), and builds
# in a cleared, pinned environment. Here git runs as it does there, blind
# to the user's and the system's git configuration and to GIT_* variables,
# and cmd/release is built with the same pinned settings
# (internal/release/env.go's pinnedGo: keep the two lists alike).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"

base=(PATH="$PATH" HOME="$HOME")
[ -n "${TMPDIR:-}" ] && base+=(TMPDIR="$TMPDIR")

git_() { env -i "${base[@]}" GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_OPTIONAL_LOCKS=0 LC_ALL=C git "$@"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/behaves-release-sh.XXXXXX")"
trap 'rm -rf "$work"' EXIT
commit="$(git_ -C "$repo" rev-parse HEAD)"
git_ clone --quiet --no-checkout --no-tags "$repo" "$work/src"
git_ -C "$work/src" checkout --quiet --detach "$commit"

# The caller's caches and module sources, as go env resolves them (go env
# -w counts), and nothing else of the caller's Go settings.
locations=(GOCACHE GOMODCACHE GOPROXY GONOPROXY GOPRIVATE GOSUMDB GONOSUMDB GOINSECURE GOAUTH)
mapfile -t values < <(cd "$work" && GOTOOLCHAIN=local go env "${locations[@]}")
goenv=("${base[@]}")
for i in "${!locations[@]}"; do
	[ -n "${values[$i]:-}" ] && goenv+=("${locations[$i]}=${values[$i]}")
done
goenv+=(GOENV=off GOTOOLCHAIN=local GOFLAGS=-mod=readonly GOWORK=off CGO_ENABLED=0
	GOAMD64=v1 GOARM64=v8.0 GOEXPERIMENT= GOFIPS140=off)
(cd "$work/src" && env -i "${goenv[@]}" go build -trimpath -o "$work/release" ./cmd/release)

# cmd/release runs with the caller's environment (the Docker config's
# credentials); it pins its own go and git commands.
status=0
"$work/release" --repo "$repo" "$@" || status=$?
exit "$status"
