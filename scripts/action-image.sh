#!/usr/bin/env bash
# Builds the GitHub Action's image from the repository's Dockerfile without any
# registry, the way the runner's `image: Dockerfile` would but offline, and
# prints its image ID.
#
#   behaves-build/go      the builder stage's image, in place of golang:<version>:
#                         a Debian root (debootstrap --variant=minbase
#                         --include=ca-certificates), this machine's Go toolchain
#                         (go env GOROOT) at /usr/local/go, and the module cache
#                         of go.sum at /go/pkg/mod (filled by go mod download,
#                         from this machine's module cache first, then GOPROXY),
#                         and a build cache holding the packages behaves imports
#                         from other modules, built as the Dockerfile builds
#                         (a source change then recompiles only behaves)
#   behaves-action        docker build of the Dockerfile with
#                         BUILDER_IMAGE=<behaves-build/go>, GOPROXY=off and
#                         --network none: nothing is downloaded while it builds
#
# The build context is what the runner's tarball would hold plus your
# uncommitted work: the files git lists (tracked, and untracked but not
# ignored) as they are in the working tree, without .git; the Dockerfile's
# .dockerignore then applies. Without git, every file but .git.
#
# Both images are cached by content, like scripts/images.sh: a key stored as
# the label behaves.cache-key and as the tag <repo>:<first 12 hex of the key>.
# The builder's key: its recipe, the Debian mirror, suite and architecture, the
# Go version, go.sum and the imported packages. The action's key: its recipe, the builder's ID and the
# hash of the whole build context (the Dockerfile and .dockerignore included).
# The Debian root is also kept as a tarball under
# ${XDG_CACHE_HOME:-$HOME/.cache}/behaves. A warm run (nothing changed) takes
# about a second; a change to a source file rebuilds only the binary's layers.
#
# stdout: BEHAVES_IMAGE_ACTION=sha256:<64 hex>, also written to the env file
# (replacing only that line). stderr: logs.
#
# Usage: bash scripts/action-image.sh [--env-file PATH] [--force]
#   --env-file PATH  where to write the assignment
#                    (default ${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env})
#   --force          rebuild even when a cached image matches (docker build
#                    then also runs without its layer cache)
# Environment:
#   BEHAVES_DEBIAN_MIRROR  Debian mirror for debootstrap (default: the one apt uses)
#   BEHAVES_DEBIAN_SUITE   suite of the builder's root (default bookworm)
#   XDG_CACHE_HOME         the cache lives in ${XDG_CACHE_HOME:-$HOME/.cache}/behaves
# Runs as root (debootstrap needs it; CI runs as root). Needs go (the toolchain
# that goes into the builder) and the docker CLI; `docker build` uses the
# classic builder when buildx is missing, which the Dockerfile is written for.
set -euo pipefail
shopt -s inherit_errexit

log() { printf 'action-image.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

image_script_args "${BASH_SOURCE[0]}" "$@"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v go >/dev/null || die "go not found (its toolchain goes into the builder image)"
[ -f "$repo/Dockerfile" ] || die "no Dockerfile in $repo"
image_script_start action-image

# docker_build ARGS...: the classic builder (no buildx here), quiet: prints the
# image ID. Its full log goes to stderr only when it fails.
docker_build() {
	local out
	if ! out="$(DOCKER_BUILDKIT=0 docker build --network none --force-rm "$@" 2>&1)"; then
		printf '%s\n' "$out" >&2
		die "docker build failed"
	fi
	printf '%s\n' "$out" | grep -E '^sha256:[0-9a-f]{64}$' | tail -n 1
}

# ---------------------------------------------------------------- builder
build_builder() {
	local suite="${BEHAVES_DEBIAN_SUITE:-bookworm}" mirror arch goroot goversion deps key id tarball base ctx
	mirror="$(debian_mirror)"
	arch="$(dpkg --print-architecture)"
	goroot="$(go env GOROOT)"
	goversion="$(go env GOVERSION)"
	# The packages behaves imports from other modules, as the Dockerfile builds
	# it: compiled into the builder's build cache, so that a change to behaves
	# recompiles only behaves.
	deps="$(cd "$repo" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go list -deps \
		-f '{{if not .Standard}}{{if ne .Module.Path "'"$(cd "$repo" && go list -m)"'"}}{{.ImportPath}}{{end}}{{end}}' .)" ||
		die "go list -deps failed"
	key="$(sha "$(recipe build_builder debian_tarball debootstrap_root)" builder "$mirror" "$suite" "$arch" \
		"$goversion" "$(go env GOOS)/$(go env GOARCH)" "$(sha256sum <"$repo/go.sum")" "$deps")"
	if id="$(cached_id behaves-build/go "$key")"; then
		log "builder: cached $id ($goversion, $suite)"
		printf '%s\n' "$id"
		return
	fi
	# The root's own key leaves Go and go.sum out: a new go.sum needs no debootstrap.
	tarball="$(debian_tarball builder-root \
		"$(sha "$(recipe debian_tarball debootstrap_root)" builder-root ca-certificates "$mirror" "$suite" "$arch")" \
		"$suite" "$mirror" "$arch" ca-certificates etc/ssl/certs/ca-certificates.crt)"
	base="$(docker import --message "behaves scripts/action-image.sh debootstrap $suite $mirror" "$tarball")"

	# The module cache of exactly go.sum's modules, filled from this machine's
	# module cache when it has them, else from GOPROXY (a file:// proxy answers
	# "not found" for a missing module, and the go command then asks the next).
	ctx="$work/builder"
	mkdir -p "$ctx"
	log "builder: go mod download into a fresh module cache"
	(cd "$repo" && GOMODCACHE="$ctx/mod" GOFLAGS=-mod=mod GOTOOLCHAIN=local \
		GOPROXY="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)" go mod download) ||
		die "go mod download failed"
	log "builder: copying Go $goversion from $goroot"
	mkdir -p "$ctx/go"
	tar -C "$goroot" --exclude=./test --exclude=./.git -cf - . | tar -C "$ctx/go" -xf -
	cat >"$ctx/Dockerfile" <<-EOF
		FROM $base
		COPY go /usr/local/go
		COPY mod /go/pkg/mod
		ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		    GOPATH=/go GOTOOLCHAIN=local GOTELEMETRY=off LANG=C.UTF-8
		LABEL behaves.cache-key=$key \
		    org.opencontainers.image.description="behaves build image: debootstrap minbase + ca-certificates, $goversion, the module cache of go.sum"
		COPY warm /tmp/warm
		# The Dockerfile's build environment (its ENV and flags): the same cache keys.
		RUN cd /tmp/warm && CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" GOPROXY=off \
		    go build -trimpath \$(cat deps.txt) && cd / && rm -rf /tmp/warm && go version
	EOF
	mkdir -p "$ctx/warm"
	cp "$repo/go.mod" "$repo/go.sum" "$ctx/warm/"
	printf '%s\n' "$deps" >"$ctx/warm/deps.txt"
	log "builder: docker build ($(du -sh "$ctx" | cut -f1) of context)"
	# A failed build leaves the imported root untagged and unused: remove it.
	id="$(docker_build -q "$ctx")" || { docker rmi "$base" >/dev/null 2>&1 || true; die "the builder image failed to build"; }
	tag_image "$id" behaves-build/go "$key"
	log "builder: built $id"
	printf '%s\n' "$id"
}

# ---------------------------------------------------------------- action
# context_files: the files of the build context, NUL-separated, relative to
# the repository: git's tracked and untracked-but-not-ignored files that exist
# (a deleted tracked file is left out), or every file but .git without git.
context_files() {
	local f
	if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$repo" ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
			if [ -e "$repo/$f" ] || [ -L "$repo/$f" ]; then printf '%s\0' "$f"; fi
		done
	else
		(cd "$repo" && find . -path ./.git -prune -o \( -type f -o -type l \) -printf '%P\0')
	fi
}

build_action() {
	local builder="$1" ctx key id n
	ctx="$work/action"
	mkdir -p "$ctx"
	context_files | sort -z -u | tar -C "$repo" --null -T - -cf - | tar -C "$ctx" -xf -
	n="$(find "$ctx" -type f | wc -l)"
	# The key covers every byte, name and mode in the context (fixed owner and
	# times): exactly what docker build is given.
	key="$(sha "$(recipe build_action context_files docker_build)" action "$builder" \
		"$(tar --sort=name --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$ctx" -cf - . | sha256sum)")"
	if id="$(cached_id behaves-action "$key")"; then
		log "action: cached $id ($n files in the context)"
		printf '%s\n' "$id"
		return
	fi
	log "action: docker build of the Dockerfile ($n files in the context)"
	local no_cache=()
	[ "$force" = 1 ] && no_cache=(--no-cache)
	id="$(docker_build -q "${no_cache[@]}" --build-arg "BUILDER_IMAGE=$builder" --build-arg GOPROXY=off \
		--label "behaves.cache-key=$key" "$ctx")"
	tag_image "$id" behaves-action "$key"
	log "action: built $id"
	printf '%s\n' "$id"
}

start=$SECONDS
builder_id="$(build_builder)"
action_id="$(build_action "$builder_id")"
for v in "$builder_id" "$action_id"; do
	[[ "$v" =~ ^sha256:[0-9a-f]{64}$ ]] || die "unexpected image ID: $v"
done
line="BEHAVES_IMAGE_ACTION=$action_id"
write_env "$env_file" "$line"
printf '%s\n' "$line"
log "done in $((SECONDS - start))s ($(docker image inspect -f '{{.Size}}' "$action_id" | numfmt --to=iec-i --suffix=B)); wrote $env_file"
