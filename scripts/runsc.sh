#!/usr/bin/env bash
# Makes gVisor's runsc available to the running Docker daemon, for profiles
# with `runtime: runsc`:
#
#   1. installs Debian's runsc package when /usr/bin/runsc is missing;
#   2. merges
#        "runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}
#      into /etc/docker/daemon.json (created when missing; every other key is
#      kept), then sends the running dockerd a SIGHUP, which reloads its
#      runtimes without a restart (running containers are not touched), and
#      waits until `docker info` lists runsc;
#   3. checks that runsc really runs a container here: the busybox test image
#      under --runtime runsc with the settings behaves uses (no network,
#      read-only root, all capabilities dropped, a memory limit, non-root).
#
# Idempotent: a daemon that already lists runsc with this configuration is
# left alone. Exits non-zero with the reason when runsc cannot run containers
# on this machine. Runs as root (apt-get, /etc/docker). A runsc container costs
# about 1.2 s, so the check runs one container.
#
# Usage: bash scripts/runsc.sh [--env-file PATH]
#   --env-file PATH  where BEHAVES_IMAGE_BUSYBOX is read from when it is not set
#                    (default ${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env})
# Environment:
#   BEHAVES_IMAGE_BUSYBOX  the busybox test image (sha256:<id>) for the check
#   BEHAVES_DOCKER_CONFIG  the daemon's configuration file (default /etc/docker/daemon.json)
set -euo pipefail
shopt -s inherit_errexit
export DEBIAN_FRONTEND=noninteractive

log() { printf 'runsc.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # ensure_packages

env_file="${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env}"
while [ $# -gt 0 ]; do
	case "$1" in
	--env-file) [ $# -ge 2 ] || die "--env-file needs a path"; env_file="$2"; shift 2 ;;
	--env-file=*) env_file="${1#--env-file=}"; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done

runsc=/usr/bin/runsc
config="${BEHAVES_DOCKER_CONFIG:-/etc/docker/daemon.json}"
# The runtime entry behaves needs. --network=none: the sandbox gets only a
# loopback device, whatever network Docker asks for (behaves asks for none).
# The platform is runsc's default (ptrace in Debian bookworm's runsc; systrap
# in newer ones): neither needs /dev/kvm.
entry='{"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}'

[ "$(id -u)" = 0 ] || die "run as root (apt-get and $config need it)"
command -v docker >/dev/null || die "docker CLI not found"
docker info >/dev/null 2>&1 || die "the Docker daemon is not reachable (docker info failed; run scripts/docker-up.sh)"

# has_runsc: whether the daemon lists the runsc runtime.
has_runsc() {
	local names
	names="$(docker info --format '{{range $name, $_ := .Runtimes}}{{println $name}}{{end}}' 2>/dev/null)" || return 1
	[[ $'\n'"$names"$'\n' == *$'\n'runsc$'\n'* ]]
}

# config_entry: the daemon.json runsc entry, compact, or "" when there is none.
config_entry() {
	[ -s "$config" ] || return 0
	jq -c '.runtimes.runsc // empty' "$config"
}

# merge_config: writes $config with runtimes.runsc set to $entry, keeping
# every other key; atomically, with the old file's mode.
merge_config() {
	local tmp
	mkdir -p "$(dirname "$config")"
	tmp="$(mktemp "$config.behaves.XXXXXX")"
	if [ -s "$config" ]; then
		jq --argjson e "$entry" '.runtimes.runsc = $e' "$config" >"$tmp" ||
			{ rm -f "$tmp"; die "could not merge the runsc entry into $config"; }
		chmod --reference="$config" "$tmp"
	else
		jq -n --argjson e "$entry" '{runtimes: {runsc: $e}}' >"$tmp"
		chmod 0644 "$tmp"
	fi
	mv -f "$tmp" "$config"
}

# dockerd_pid: the pid of the local dockerd (its pid file, else the only dockerd).
dockerd_pid() {
	local pid=""
	if [ -r /var/run/docker.pid ]; then
		pid="$(cat /var/run/docker.pid)"
	fi
	if ! [[ "$pid" =~ ^[0-9]+$ ]] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != dockerd ]; then
		pid="$(pidof dockerd || true)"
	fi
	[[ "$pid" =~ ^[0-9]+$ ]] || die "no single local dockerd process to reload (found '$pid'); is DOCKER_HOST remote?"
	printf '%s\n' "$pid"
}

register() {
	ensure_packages jq
	local want have
	if [ -s "$config" ] && ! jq empty "$config" >/dev/null 2>&1; then
		die "$config is not valid JSON: not touching it (dockerd would not start with it either)"
	fi
	want="$(jq -cn --argjson e "$entry" '$e')"
	have="$(config_entry)"
	if [ "$have" = "$want" ] && has_runsc; then
		log "the daemon already lists runsc ($config: $have)"
		return
	fi
	if [ -n "$have" ] && [ "$have" != "$want" ]; then
		log "replacing the runsc entry of $config: $have"
	fi
	merge_config
	local pid i
	pid="$(dockerd_pid)"
	log "registered runsc in $config; reloading dockerd (pid $pid) with SIGHUP"
	kill -HUP "$pid"
	for i in $(seq 1 50); do
		has_runsc && { log "the daemon lists runsc"; return; }
		sleep 0.2
	done
	die "dockerd did not list runsc within 10 s of SIGHUP (its log may say why; $config: $(cat "$config"))"
}

# check: one busybox container under runsc with behaves' hardening.
check() {
	if [ -z "${BEHAVES_IMAGE_BUSYBOX:-}" ] && [ -f "$env_file" ]; then
		BEHAVES_IMAGE_BUSYBOX="$(sed -n 's/^BEHAVES_IMAGE_BUSYBOX=//p' "$env_file" | tail -n1)"
	fi
	local img="${BEHAVES_IMAGE_BUSYBOX:-}" out start
	[[ "$img" =~ ^sha256:[0-9a-f]{64}$ ]] || die "BEHAVES_IMAGE_BUSYBOX is not an image ID (run scripts/images.sh first): '$img'"
	start=$(date +%s%N)
	if ! out="$(docker run --rm --runtime runsc --network none --log-driver none \
		--read-only --cap-drop ALL --security-opt no-new-privileges --user 65534:65534 \
		--memory 64m --memory-swap 64m --init --entrypoint /bin/sh "$img" \
		-c 'echo "runsc ok: $(id -u) $(uname -r)"' 2>&1)"; then
		log "a busybox container under runsc failed: $out"
		log "runsc $("$runsc" --version 2>/dev/null | head -n1); kernel $(uname -r); /dev/kvm $([ -e /dev/kvm ] && echo present || echo absent)"
		die "runsc cannot run containers on this machine (output above)"
	fi
	case "$out" in
	"runsc ok: 65534 "*) ;;
	*) die "unexpected output of the runsc check: $out" ;;
	esac
	log "$out (gVisor's kernel version), $(((($(date +%s%N) - start)) / 1000000)) ms for docker run"
}

if [ ! -x "$runsc" ]; then
	ensure_packages runsc
	[ -x "$runsc" ] || die "the runsc package did not install $runsc"
fi
log "$("$runsc" --version | head -n1)"
register
check
