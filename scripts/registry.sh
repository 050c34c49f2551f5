#!/usr/bin/env bash
# Pins a test image by its registry digest for real: starts Debian's
# docker-registry on 127.0.0.1 (loopback only), pushes a busybox-based test
# image to it and prints the reference that TestIntegrationRegistryDigest runs:
#
#   BEHAVES_IMAGE_REGISTRY_DIGEST=127.0.0.1:<port>/behaves-test/busybox@sha256:<64 hex>
#
# The pushed image is not BEHAVES_IMAGE_BUSYBOX itself but a copy of it with
# one more label (behaves-test/busybox-registry, built once per busybox ID and
# cached by tag): a pushed image carries a RepoDigest from then on, and the
# busybox image that the demo and the other tests pin by ID must keep having
# none.
#
# The registry runs in the background and outlives this script: a second call
# finds it through the state file (pid, port, storage folder) and reuses it;
# --stop ends it and deletes its storage. Its port is a free one picked at
# random; its storage is a fresh folder under ${TMPDIR:-/tmp}. The image is
# never pulled back: behaves only needs the digest reference on the local
# image, so the registry is not needed while the tests run.
#
# Usage: bash scripts/registry.sh [--env-file PATH] [--stop]
#   --env-file PATH  append the assignment to PATH (the images env file written
#                    by scripts/images.sh; created if missing), replacing an
#                    older one there; also where BEHAVES_IMAGE_BUSYBOX is read
#                    from when it is not set in the environment
#                    (default ${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env})
#   --stop           stop the registry a previous call started, and exit
# stdout: the assignment. stderr: logs.
# Environment:
#   BEHAVES_IMAGE_BUSYBOX   the busybox test image (sha256:<id>)
#   BEHAVES_REGISTRY_STATE  the state file (default /tmp/behaves-registry.state)
set -euo pipefail
shopt -s inherit_errexit
export DEBIAN_FRONTEND=noninteractive

log() { printf 'registry.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

env_file="${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env}"
stop=0
while [ $# -gt 0 ]; do
	case "$1" in
	--env-file) [ $# -ge 2 ] || die "--env-file needs a path"; env_file="$2"; shift 2 ;;
	--env-file=*) env_file="${1#--env-file=}"; shift ;;
	--stop) stop=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done

state="${BEHAVES_REGISTRY_STATE:-/tmp/behaves-registry.state}"
repo=behaves-test/busybox
tag=ci

# One call at a time: a concurrent call waits, then reuses the registry.
exec 9>"$state.lock"
flock 9

# read_state: sets pid, port and dir from the state file (parsed, never
# sourced); fails when there is none.
read_state() {
	pid="" port="" dir=""
	[ -f "$state" ] || return 1
	local k v
	while IFS='=' read -r k v; do
		case "$k" in
		pid) [[ "$v" =~ ^[0-9]+$ ]] && pid="$v" ;;
		port) [[ "$v" =~ ^[0-9]+$ ]] && port="$v" ;;
		dir) [[ "$v" == /* ]] && dir="$v" ;;
		esac
	done <"$state"
	[ -n "$pid" ] && [ -n "$port" ] && [ -n "$dir" ]
}

# is_registry PID: whether PID is a live docker-registry process.
is_registry() {
	local cmd
	cmd="$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" || return 1
	[[ "$cmd" == *docker-registry\ serve\ * ]]
}

# answers PORT: whether a registry (API v2) answers on 127.0.0.1:PORT. Plain
# bash /dev/tcp, so that no HTTP client is needed.
answers() {
	local line
	{
		exec 3<>"/dev/tcp/127.0.0.1/$1" &&
			printf 'GET /v2/ HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$1" >&3 &&
			IFS= read -r -t 5 line <&3
	} 2>/dev/null || { exec 3>&- 2>/dev/null; return 1; }
	exec 3>&-
	[[ "$line" == "HTTP/1."?" 200"* ]]
}

# running: whether the registry of the state file is alive and answering.
running() {
	read_state && is_registry "$pid" && answers "$port"
}

stop_registry() {
	if read_state; then
		if is_registry "$pid"; then
			kill "$pid" 2>/dev/null || true
			local i
			for i in $(seq 1 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			log "stopped the registry (pid $pid, 127.0.0.1:$port)"
		fi
		case "$dir" in
		"${TMPDIR:-/tmp}"/behaves-registry.*) rm -rf --one-file-system "$dir" ;;
		esac
	fi
	rm -f "$state"
}

if [ "$stop" = 1 ]; then
	stop_registry
	exit 0
fi

ensure_registry_binary() {
	command -v docker-registry >/dev/null && return
	log "installing Debian's docker-registry"
	apt-get update >&2
	apt-get install -y --no-install-recommends docker-registry >&2
	command -v docker-registry >/dev/null || die "docker-registry is not installed"
	# The package's own service (if an init system started one) listens on
	# :5000 with its own configuration; this script never uses it.
}

# start_registry: starts a registry on a free loopback port and writes the state file.
start_registry() {
	ensure_registry_binary
	stop_registry # a stale state file: its process is gone or does not answer
	local try cfg i
	dir="$(mktemp -d "${TMPDIR:-/tmp}/behaves-registry.XXXXXX")"
	mkdir -p "$dir/storage"
	cfg="$dir/config.yml"
	for try in 1 2 3 4 5 6 7 8; do
		port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		[ -z "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] || continue
		# Loopback only, no auth (nothing but this machine can reach it), no
		# debug server, storage in the fresh folder.
		cat >"$cfg" <<-EOF
			version: 0.1
			log:
			  level: warn
			  accesslog:
			    disabled: true
			storage:
			  filesystem:
			    rootdirectory: $dir/storage
			  delete:
			    enabled: true
			http:
			  addr: 127.0.0.1:$port
		EOF
		# setsid: the registry outlives this script and its process group. It
		# keeps no descriptor of ours past stderr (not the lock, not a pipe a
		# CI runner waits on): only its log.
		(
			for fd in /proc/self/fd/*; do
				fd="${fd##*/}"
				[ "$fd" -gt 2 ] && eval "exec $fd>&-"
			done
			exec setsid docker-registry serve "$cfg" >"$dir/registry.log" 2>&1 </dev/null
		) &
		pid=$!
		for i in $(seq 1 100); do
			answers "$port" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null && answers "$port"; then
			printf 'pid=%s\nport=%s\ndir=%s\n' "$pid" "$port" "$dir" >"$state.tmp"
			mv -f "$state.tmp" "$state"
			log "started docker-registry on 127.0.0.1:$port (pid $pid, storage $dir/storage)"
			return
		fi
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		log "the registry did not come up on 127.0.0.1:$port (try $try): $(tail -n 3 "$dir/registry.log" | tr '\n' ' ')"
	done
	rm -rf --one-file-system "$dir"
	die "could not start docker-registry on a loopback port"
}

if running; then
	log "reusing docker-registry on 127.0.0.1:$port (pid $pid)"
else
	start_registry
fi

# ---------------------------------------------------------------- the image
if [ -z "${BEHAVES_IMAGE_BUSYBOX:-}" ] && [ -f "$env_file" ]; then
	BEHAVES_IMAGE_BUSYBOX="$(sed -n 's/^BEHAVES_IMAGE_BUSYBOX=//p' "$env_file" | tail -n1)"
fi
base="${BEHAVES_IMAGE_BUSYBOX:-}"
[[ "$base" =~ ^sha256:[0-9a-f]{64}$ ]] || die "BEHAVES_IMAGE_BUSYBOX is not an image ID (run scripts/images.sh first): '$base'"
docker image inspect "$base" >/dev/null 2>&1 || die "the busybox image $base is not present (run scripts/images.sh)"

# The copy of busybox that gets pushed: one label more, so another image ID.
# Committed from a never-started container, it keeps that container's
# ENTRYPOINT ["/bin/true"], which behaves ignores like any image ENTRYPOINT.
copy_repo=behaves-test/busybox-registry
copy_tag="${base#sha256:}"
copy_tag="${copy_tag:0:12}"
if copy="$(docker image inspect -f '{{index .Config.Labels "behaves.registry-base"}} {{.Id}}' "$copy_repo:$copy_tag" 2>/dev/null)" &&
	[ "${copy%% *}" = "$base" ]; then
	copy="${copy#* }"
else
	cid="$(docker create --entrypoint /bin/true "$base")"
	if ! copy="$(docker commit \
		--change "LABEL behaves.registry-base=$base" \
		--change 'LABEL org.opencontainers.image.description="behaves test image: busybox, pushed to a loopback registry to test name@sha256 pins"' \
		--message "behaves scripts/registry.sh" "$cid")"; then
		docker rm "$cid" >/dev/null || true
		die "docker commit failed"
	fi
	docker rm "$cid" >/dev/null
	docker tag "$copy" "$copy_repo:$copy_tag"
	log "built $copy_repo:$copy_tag ($copy) from $base"
fi

name="127.0.0.1:$port/$repo"
# Tags of registries that are gone (another port) are dropped.
docker image ls --format '{{.Repository}}:{{.Tag}}' | while read -r old; do
	case "$old" in
	"$name:$tag") ;;
	127.0.0.1:*/"$repo:$tag") docker rmi "$old" >/dev/null 2>&1 || true ;;
	esac
done
docker tag "$copy" "$name:$tag"
docker push "$name:$tag" >&2 || die "docker push $name:$tag failed (registry log: $dir/registry.log)"

ref="$(docker image inspect -f '{{range .RepoDigests}}{{println .}}{{end}}' "$copy" | grep -m1 "^$name@sha256:" || true)"
[[ "$ref" =~ ^127\.0\.0\.1:[0-9]+/behaves-test/busybox@sha256:[0-9a-f]{64}$ ]] || die "no repo digest for $name after the push"

line="BEHAVES_IMAGE_REGISTRY_DIGEST=$ref"
mkdir -p "$(dirname "$env_file")"
{ [ ! -f "$env_file" ] || grep -v '^BEHAVES_IMAGE_REGISTRY_DIGEST=' "$env_file" || true; printf '%s\n' "$line"; } >"$env_file.tmp.$$"
mv -f "$env_file.tmp.$$" "$env_file"
log "wrote $env_file"
printf '%s\n' "$line"
