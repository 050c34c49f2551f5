#!/usr/bin/env bash
# Makes gVisor's runsc available to the running Docker daemon, for profiles
# with `runtime: runsc`:
#
#   1. installs Debian's runsc package when /usr/bin/runsc is missing;
#   2. merges
#        "runtimes": {
#          "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]},
#          "runsc-netstack": {"path": "/usr/bin/runsc"}
#        }
#      into /etc/docker/daemon.json (created when missing; every other key,
#      other runtimes included, is kept), then sends the running dockerd a
#      SIGHUP, which reloads its runtimes without a restart (running
#      containers are not touched), and waits until `docker info` lists both.
#      runsc is the registration behaves recommends (gVisor's own network
#      stack off: loopback only). runsc-netstack is the same binary with
#      runsc's default network mode, which the tests use to prove that
#      behaves keeps the engine's network sandbox for such a registration
#      (under it gVisor gives no loopback unless the engine sets lo up);
#   3. checks that runsc really runs a container here: the busybox test image
#      under --runtime runsc with the settings behaves uses (no network,
#      read-only root, all capabilities dropped, a memory limit, non-root).
#      runsc-netstack is not checked: Debian bookworm's runsc refuses every
#      container in that mode on kernels whose every network namespace has
#      /proc/sys/net/core/rmem_default (it takes that for the host's).
#
# Idempotent: a daemon that already lists both runtimes with this
# configuration is left alone. Exits non-zero with the reason when runsc cannot run containers
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
# The runtime entries, by name. runsc, the one behaves needs: --network=none,
# the sandbox gets only gVisor's own loopback device, whatever network Docker
# asks for (behaves asks for none). runsc-netstack: runsc's default network
# mode (gVisor's netstack over the container's namespace), for the tests of
# that mode. The platform is runsc's default (ptrace in Debian bookworm's
# runsc; systrap in newer ones): neither needs /dev/kvm.
entries='{"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}, "runsc-netstack": {"path": "/usr/bin/runsc"}}'

[ "$(id -u)" = 0 ] || die "run as root (apt-get and $config need it)"
command -v docker >/dev/null || die "docker CLI not found"
docker info >/dev/null 2>&1 || die "the Docker daemon is not reachable (docker info failed; run scripts/docker-up.sh)"

# has_runtimes: whether the daemon lists every runtime of $entries.
has_runtimes() {
	local names name
	names="$(docker info --format '{{range $name, $_ := .Runtimes}}{{println $name}}{{end}}' 2>/dev/null)" || return 1
	for name in $(jq -rn --argjson e "$entries" '$e | keys[]'); do
		[[ $'\n'"$names"$'\n' == *$'\n'"$name"$'\n'* ]] || return 1
	done
}

# config_entries: the daemon.json entries of the runtimes named in $entries,
# compact ({} when there are none).
config_entries() {
	if [ -s "$config" ]; then
		jq -c --argjson e "$entries" '(.runtimes // {}) | with_entries(select(.key as $k | $e | has($k)))' "$config"
	else
		echo '{}'
	fi
}

# merge_config: writes $config with each runtime of $entries set, keeping
# every other key (other runtimes too); atomically, with the old file's mode.
merge_config() {
	local tmp
	mkdir -p "$(dirname "$config")"
	tmp="$(mktemp "$config.behaves.XXXXXX")"
	if [ -s "$config" ]; then
		jq --argjson e "$entries" '.runtimes = ((.runtimes // {}) + $e)' "$config" >"$tmp" ||
			{ rm -f "$tmp"; die "could not merge the runsc entries into $config"; }
		chmod --reference="$config" "$tmp"
	else
		jq -n --argjson e "$entries" '{runtimes: $e}' >"$tmp"
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
	want="$(jq -cS -n --argjson e "$entries" '$e')"
	have="$(config_entries | jq -cS .)"
	if [ "$have" = "$want" ] && has_runtimes; then
		log "the daemon already lists runsc and runsc-netstack ($config: $have)"
		return
	fi
	if [ "$have" != '{}' ] && [ "$have" != "$want" ]; then
		log "replacing the runsc entries of $config: $have"
	fi
	merge_config
	local pid i
	pid="$(dockerd_pid)"
	log "registered runsc and runsc-netstack in $config; reloading dockerd (pid $pid) with SIGHUP"
	kill -HUP "$pid"
	for i in $(seq 1 50); do
		has_runtimes && { log "the daemon lists runsc and runsc-netstack"; return; }
		sleep 0.2
	done
	die "dockerd did not list runsc and runsc-netstack within 10 s of SIGHUP (its log may say why; $config: $(cat "$config"))"
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
