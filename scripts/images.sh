#!/usr/bin/env bash
# Builds the local images that behaves' integration tests and demo use, without
# pulling anything from a registry, and prints their image IDs.
#
#   behaves-test/busybox             scratch + Debian's busybox-static (sh, cat, ip, id, dd, ...),
#                                    /etc/passwd and /etc/group with 65534 nobody, an empty /tmp
#   behaves-test/busybox-entrypoint  the busybox image + ENTRYPOINT ["/bin/false"], VOLUME ["/data"],
#                                    ENV BEHAVES_IMAGE_ENV=from-image (behaves must ignore the
#                                    entrypoint and cover the volume)
#   behaves-test/python              debootstrap --variant=minbase --include=python3 bookworm
#                                    (Python with its standard library: json, sqlite3, ...)
#   behaves-test/gcc                 debootstrap --variant=minbase --include=gcc,g++,libc6-dev bookworm
#                                    (the compiler of the build-stage tests and examples/c-build)
#   behaves-test/golang              debootstrap --variant=minbase --include=golang-go bookworm
#                                    (Debian's Go, for the build-stage tests and examples/go-build)
#
# Each image is cached by content: a key computed from its recipe (its build_* function
# in this script) and its inputs (busybox-static's version; the Debian mirror, suite and
# architecture; the base image ID) is stored as the label behaves.cache-key and as the
# tag <repo>:<first 12 hex of the key>. An image whose key matches is reused without
# rebuilding. The Python root file system is also kept as a tarball under
# ${XDG_CACHE_HOME:-$HOME/.cache}/behaves, so a pruned image store costs an import,
# not a debootstrap.
#
# stdout: shell assignments, also written to the env file (atomically):
#   BEHAVES_IMAGE_BUSYBOX=sha256:<64 hex>
#   BEHAVES_IMAGE_PYTHON=sha256:<64 hex>
#   BEHAVES_IMAGE_ENTRYPOINT=sha256:<64 hex>
#   BEHAVES_IMAGE_GCC=sha256:<64 hex>
#   BEHAVES_IMAGE_GOLANG=sha256:<64 hex>
# stderr: logs.
#
# Usage: bash scripts/images.sh [--env-file PATH] [--force] [--only NAME,...]
#   --env-file PATH  where to write the assignments
#                    (default ${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env})
#   --force          rebuild even when a cached image matches
#   --only NAME,...  build (or reuse) only these images, of busybox, entrypoint, python,
#                    gcc, golang (entrypoint implies busybox, its base); only their
#                    assignments are printed and replaced in the env file, the others'
#                    lines are kept (scripts/demo.sh: --only busybox,python)
# Environment:
#   BEHAVES_DEBIAN_MIRROR  Debian mirror for debootstrap (default: the one apt uses,
#                          else http://deb.debian.org/debian)
#   BEHAVES_DEBIAN_SUITE   suite for the Debian images (default bookworm)
#   XDG_CACHE_HOME         the cache lives in ${XDG_CACHE_HOME:-$HOME/.cache}/behaves
# Runs as root (debootstrap needs it; CI runs as root).
set -euo pipefail
shopt -s inherit_errexit # set -e also inside $(...)

log() { printf 'images.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --only is this script's own; the other options are the image scripts' (lib.sh).
only=busybox,entrypoint,python,gcc,golang
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--only) [ $# -ge 2 ] || die "--only needs NAME,... (busybox, entrypoint, python, gcc, golang)"; only="$2"; shift 2 ;;
	--only=*) only="${1#--only=}"; shift ;;
	*) args+=("$1"); shift ;;
	esac
done
image_script_args "${BASH_SOURCE[0]}" ${args[@]+"${args[@]}"}
declare -A want=()
IFS=, read -r -a names <<<"$only"
for n in "${names[@]}"; do
	case "$n" in
	busybox | entrypoint | python | gcc | golang) want[$n]=1 ;;
	*) die "--only: unknown image '$n' (busybox, entrypoint, python, gcc, golang)" ;;
	esac
done
[ "${#want[@]}" -gt 0 ] || die "--only: name at least one image"

image_script_start images

# ---------------------------------------------------------------- busybox
build_busybox() {
	ensure_packages busybox-static
	local bb=/bin/busybox version arch key id root
	version="$(dpkg-query -W -f='${Version}' busybox-static)"
	arch="$(dpkg --print-architecture)"
	[ -x "$bb" ] || die "$bb not found after installing busybox-static"
	key="$(sha "$(recipe build_busybox)" busybox "$version" "$arch")"
	if id="$(cached_id behaves-test/busybox "$key")"; then
		log "busybox: cached $id (busybox-static $version)"
		printf '%s\n' "$id"
		return
	fi
	log "busybox: building from busybox-static $version"
	root="$work/busybox"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,root,proc,sys,dev}
	install -m 0755 "$bb" "$root/bin/busybox"
	# Every applet as a symlink at the path busybox itself names (bin/sh, sbin/ip, usr/bin/env, ...).
	local applet
	while read -r applet; do
		case "$applet" in
		*/*) ;;
		*) continue ;; # "linuxrc" and the like: no directory, not wanted
		esac
		[ "$applet" = bin/busybox ] && continue
		mkdir -p "$root/$(dirname "$applet")"
		ln -sf /bin/busybox "$root/$applet"
	done < <("$bb" --list-full)
	for applet in sh cat echo ls id ip env head dd sleep; do
		[ -L "$root/bin/$applet" ] || [ -L "$root/sbin/$applet" ] || [ -L "$root/usr/bin/$applet" ] ||
			[ -L "$root/usr/sbin/$applet" ] || die "busybox $version lacks the applet $applet"
	done
	cat >"$root/etc/passwd" <<-'EOF'
		root:x:0:0:root:/root:/bin/sh
		nobody:x:65534:65534:nobody:/nonexistent:/bin/false
	EOF
	cat >"$root/etc/group" <<-'EOF'
		root:x:0:
		nobody:x:65534:
	EOF
	chmod 0644 "$root/etc/passwd" "$root/etc/group"
	chmod 0755 "$root" "$root/etc" "$root/bin" "$root/sbin" "$root/usr" "$root/usr/bin" "$root/usr/sbin"
	chmod 0700 "$root/root"
	chmod 1777 "$root/tmp"
	# Fixed owner and time, sorted entries: the same input gives the same layer.
	tar --sort=name --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$root" -cf "$work/busybox.tar" .
	id="$(docker import \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change "LABEL behaves.cache-key=$key" \
		--change 'LABEL org.opencontainers.image.description="behaves test image: scratch + Debian busybox-static"' \
		--message "behaves scripts/images.sh busybox-static $version" \
		"$work/busybox.tar")"
	tag_image "$id" behaves-test/busybox "$key"
	log "busybox: built $id"
	printf '%s\n' "$id"
}

# ---------------------------------------------------------------- busybox-entrypoint
build_entrypoint() {
	local base="$1" key id
	key="$(sha "$(recipe build_entrypoint)" entrypoint "$base")"
	if id="$(cached_id behaves-test/busybox-entrypoint "$key")"; then
		log "busybox-entrypoint: cached $id"
		printf '%s\n' "$id"
		return
	fi
	log "busybox-entrypoint: committing $base with ENTRYPOINT, VOLUME and ENV"
	# Equivalent to a Dockerfile "FROM <busybox id>" + ENTRYPOINT/VOLUME/ENV, but through
	# create + commit: no builder (the CLI's classic builder is deprecated and BuildKit
	# needs buildx) and nothing is ever pulled. The container is never started.
	local cid
	cid="$(docker create --entrypoint /bin/false "$base")"
	if ! id="$(docker commit \
		--change 'ENTRYPOINT ["/bin/false"]' \
		--change 'VOLUME ["/data"]' \
		--change 'ENV BEHAVES_IMAGE_ENV=from-image' \
		--change "LABEL behaves.cache-key=$key" \
		--change 'LABEL org.opencontainers.image.description="behaves test image: busybox with an ENTRYPOINT, a VOLUME and an ENV"' \
		--message "behaves scripts/images.sh busybox-entrypoint" \
		"$cid")"; then
		docker rm "$cid" >/dev/null || true
		die "docker commit failed"
	fi
	docker rm "$cid" >/dev/null
	tag_image "$id" behaves-test/busybox-entrypoint "$key"
	log "busybox-entrypoint: built $id"
	printf '%s\n' "$id"
}

# ---------------------------------------------------------------- debian roots
# build_debian NAME PACKAGES FILE: behaves-test/NAME, a root from
# debootstrap --variant=minbase --include=PACKAGES (comma-separated) that
# must hold FILE (the check that the packages installed), imported as an
# image. The trimmed root file system is kept as a tarball in the cache, so
# that a pruned image store does not mean another debootstrap.
build_debian() {
	local name="$1" packages="$2" file="$3"
	local suite="${BEHAVES_DEBIAN_SUITE:-bookworm}" mirror arch key id tarball
	mirror="$(debian_mirror)"
	arch="$(dpkg --print-architecture)"
	key="$(sha "$(recipe build_debian debian_tarball debootstrap_root)" "$name" "$packages" "$file" "$mirror" "$suite" "$arch")"
	if id="$(cached_id "behaves-test/$name" "$key")"; then
		log "$name: cached $id ($suite from $mirror)"
		printf '%s\n' "$id"
		return
	fi
	tarball="$(debian_tarball "$name" "$key" "$suite" "$mirror" "$arch" "$packages" "$file")"
	id="$(docker import \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'ENV LANG=C.UTF-8' \
		--change "LABEL behaves.cache-key=$key" \
		--change "LABEL org.opencontainers.image.description=\"behaves test image: debootstrap minbase + ${packages//,/, }\"" \
		--message "behaves scripts/images.sh debootstrap $suite $mirror $name" \
		"$tarball")"
	tag_image "$id" "behaves-test/$name" "$key"
	log "$name: built $id"
	printf '%s\n' "$id"
}

start=$SECONDS
out=()
# add VAR ID: checks the ID and keeps the assignment.
add() {
	[[ "$2" =~ ^sha256:[0-9a-f]{64}$ ]] || die "unexpected image ID for $1: $2"
	out+=("$1=$2")
}
if [ -n "${want[busybox]:-}" ] || [ -n "${want[entrypoint]:-}" ]; then
	busybox_id="$(build_busybox)"
	add BEHAVES_IMAGE_BUSYBOX "$busybox_id"
fi
if [ -n "${want[python]:-}" ]; then
	python_id="$(build_debian python python3 usr/bin/python3)"
	add BEHAVES_IMAGE_PYTHON "$python_id"
fi
if [ -n "${want[entrypoint]:-}" ]; then
	entrypoint_id="$(build_entrypoint "$busybox_id")"
	add BEHAVES_IMAGE_ENTRYPOINT "$entrypoint_id"
fi
if [ -n "${want[gcc]:-}" ]; then
	gcc_id="$(build_debian gcc gcc,g++,libc6-dev usr/bin/gcc)"
	add BEHAVES_IMAGE_GCC "$gcc_id"
fi
if [ -n "${want[golang]:-}" ]; then
	golang_id="$(build_debian golang golang-go usr/bin/go)"
	add BEHAVES_IMAGE_GOLANG "$golang_id"
fi

# Keep the other scripts' lines (registry.sh's digest), and the images not
# built this time: replace only ours.
write_env "$env_file" "${out[@]}"
printf '%s\n' "${out[@]}"
log "done in $((SECONDS - start))s; wrote $env_file"
