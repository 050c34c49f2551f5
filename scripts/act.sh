#!/usr/bin/env bash
# Makes nektos/act ready to run the self-test workflow against the real daemon
# (internal/e2e's TestActSelfTest), without any registry, and prints where
# things are.
#
#   act                  v0.2.89, installed with `go install` into
#                        $(go env GOBIN) (or $(go env GOPATH)/bin) only when
#                        that binary is missing or another version; it comes
#                        through the Go module proxy (GOPROXY)
#   behaves-test/runner  the job container's image for `act -P
#                        ubuntu-latest=<it>`: the python test image
#                        (scripts/images.sh: a Debian minbase root, so bash and
#                        coreutils, which act's `run:` steps and its job
#                        container's `tail -f /dev/null` need) with labels of
#                        its own, committed from a container that is never
#                        started. Cached by content like scripts/images.sh: a
#                        key of its recipe and the python image's ID, stored as
#                        the label behaves.cache-key and the tag
#                        behaves-test/runner:<first 12 hex of the key>.
#
# Needs the python test image: BEHAVES_IMAGE_PYTHON in the env file (run
# scripts/images.sh first; .ci/run does).
#
# stdout: shell assignments, also written to the env file (replacing only
# these lines):
#   BEHAVES_ACT=<absolute path of the act binary>
#   BEHAVES_IMAGE_RUNNER=sha256:<64 hex>
# stderr: logs.
#
# Usage: bash scripts/act.sh [--env-file PATH] [--force]
#   --env-file PATH  where to read BEHAVES_IMAGE_PYTHON and write the assignments
#                    (default ${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env})
#   --force          reinstall act and rebuild the runner image
# Runs as root, like the other image scripts.
set -euo pipefail
shopt -s inherit_errexit

# The act release the test is written against: its JSON log, its handling of
# a local actions/checkout and of a Docker action's post step.
act_version=0.2.89

log() { printf 'act.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

image_script_args "${BASH_SOURCE[0]}" "$@"
command -v go >/dev/null || die "go not found (act is installed with go install)"
image_script_start act

# ---------------------------------------------------------------- act
install_act() {
	local bindir bin got
	bindir="$(go env GOBIN)"
	[ -n "$bindir" ] || bindir="$(go env GOPATH)/bin"
	bin="$bindir/act"
	if [ "$force" != 1 ] && [ -x "$bin" ]; then
		got="$("$bin" --version 2>/dev/null || true)"
		if [ "$got" = "act version $act_version" ]; then
			log "act: $bin is $act_version already"
			printf '%s\n' "$bin"
			return
		fi
		log "act: $bin says \"$got\", not $act_version: reinstalling"
	fi
	log "act: go install github.com/nektos/act@v$act_version"
	GOBIN="$bindir" go install "github.com/nektos/act@v$act_version" >&2 ||
		die "go install of act v$act_version failed"
	got="$("$bin" --version)"
	[ "$got" = "act version $act_version" ] || die "the installed $bin says \"$got\", not act version $act_version"
	printf '%s\n' "$bin"
}

# ---------------------------------------------------------------- runner
build_runner() {
	local base="$1" key id cid
	key="$(sha "$(recipe build_runner)" runner "$base")"
	if id="$(cached_id behaves-test/runner "$key")"; then
		log "runner: cached $id"
		printf '%s\n' "$id"
		return
	fi
	log "runner: committing $base with labels"
	cid="$(docker create --entrypoint /bin/true "$base")"
	if ! id="$(docker commit \
		--change "LABEL behaves.cache-key=$key" \
		--change 'LABEL org.opencontainers.image.description="behaves test image: the job container of act (the python test image: Debian minbase, bash, coreutils)"' \
		--message "behaves scripts/act.sh runner" \
		"$cid")"; then
		docker rm "$cid" >/dev/null || true
		die "docker commit failed"
	fi
	docker rm "$cid" >/dev/null
	# What act needs of its job container: bash for run steps, tail for the
	# container's own command. Checked once, when the image is made.
	if ! docker run --rm --network none --entrypoint /bin/bash "$id" -c 'command -v tail >/dev/null' >&2; then
		docker rmi "$id" >/dev/null 2>&1 || true
		die "the runner image lacks bash or tail"
	fi
	tag_image "$id" behaves-test/runner "$key"
	log "runner: built $id"
	printf '%s\n' "$id"
}

start=$SECONDS
python_id="$(sed -n 's/^BEHAVES_IMAGE_PYTHON=//p' "$env_file" 2>/dev/null | tail -n 1)"
[[ "$python_id" =~ ^sha256:[0-9a-f]{64}$ ]] ||
	die "no BEHAVES_IMAGE_PYTHON in $env_file (run bash scripts/images.sh --env-file $env_file first)"
docker image inspect "$python_id" >/dev/null 2>&1 || die "the python image $python_id is not present (rerun scripts/images.sh)"
act_bin="$(install_act)"
runner_id="$(build_runner "$python_id")"
[[ "$runner_id" =~ ^sha256:[0-9a-f]{64}$ ]] || die "unexpected image ID: $runner_id"
out=(
	"BEHAVES_ACT=$act_bin"
	"BEHAVES_IMAGE_RUNNER=$runner_id"
)
write_env "$env_file" "${out[@]}"
printf '%s\n' "${out[@]}"
log "done in $((SECONDS - start))s; wrote $env_file"
