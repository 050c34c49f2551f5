#!/usr/bin/env bash
# Brings a real single-node Kubernetes cluster up on this machine, offline, and
# tears it down: the first piece of the Kubernetes backend (issue 40).
#
# Nothing is pulled from a registry; the network is the Go module proxy and
# the Debian mirror apt uses, and only when the cache is cold:
#   - kube-apiserver, kube-controller-manager, kube-scheduler and kubelet of
#     k8s.io/kubernetes@$BEHAVES_K8S_VERSION (default v1.36.3), built with Go
#     from a scratch module that requires k8s.io/kubernetes and replaces its
#     staging modules with their v0.x releases (go install cannot: its go.mod
#     replaces them with local paths); kept in
#     ${XDG_CACHE_HOME:-$HOME/.cache}/behaves/k8s-<version>-<recipe key>
#     (cold: about 5 minutes and 4 GB of module and build caches);
#   - etcd (etcd-server) and the CNI plugins (containernetworking-plugins) from
#     Debian, by apt-get download + dpkg-deb -x (not installed), in the same cache;
#   - a pause image: a tiny static Go program (waits for signals, reaps
#     children) packed here as a one-layer image.
# It runs a SECOND containerd (Debian's binary, already there for Docker) with
# its own root, state, socket and config: Docker and its containerd are never
# touched. The pause image and the busybox test image (BEHAVES_IMAGE_BUSYBOX,
# from docker save) are imported into its k8s.io namespace.
#
# Everything listens on 127.0.0.1, except the kubelet's API (the apiserver
# fetches logs there), which listens on the machine's own address, the node
# IP. Pods get an address from a CNI bridge without gateway (no default route,
# no address on the host side); there is no kube-proxy, no DNS, and iptables is
# left alone. Certificates (ECDSA P-256, openssl) and the state live in the
# state folder, each component's PID in <state>/pids, its log in <state>/logs.
#
# Usage: bash scripts/k8s.sh up|down|status
#   up      start the cluster (or reuse the running one), wait for the node to be
#           Ready, run the smoke check (one hardened pod: uid 65534, read-only
#           root, no capabilities, no privilege escalation, no service account
#           token, 64Mi; checks its exit code and its stdout and stderr apart)
#           and print KUBECONFIG=<state>/kubeconfig (an admin identity)
#   status  whether every component is alive and the node Ready; runs the smoke
#           check again; prints the KUBECONFIG line; fails when not up
#   down    stop every component by the PID it recorded (never by name), the
#           pods' shims of the second containerd, and delete the state folder,
#           the second containerd's root and state, and what the kubelet and
#           CNI write outside it (/var/lib/cni/results entries of its network,
#           /var/log/pods and /var/log/containers entries, /var/lib/kubelet,
#           the shims' sockets, the kubepods cgroups, the bridge); harmless when
#           nothing runs
# When up fails, what it started keeps running for inspection (logs in
# <state>/logs); down removes it. The smoke check talks to the apiserver with
# curl (no kubectl is built).
# stdout: the KUBECONFIG assignment (up, status). stderr: logs.
# Environment:
#   BEHAVES_K8S_VERSION   Kubernetes version (default v1.36.3; stay on 1.36: 1.37
#                         needs containerd 2, and cgroup v1 support is going away)
#   BEHAVES_K8S_STATE     the state folder (default ${TMPDIR:-/tmp}/behaves-k8s)
#   BEHAVES_K8S_PORT      the apiserver's port on 127.0.0.1 (default 6443)
#   BEHAVES_IMAGE_BUSYBOX the busybox test image for the smoke check (default: from
#                         ${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env})
# Runs as root (containerd, kubelet, cgroups).
set -euo pipefail
shopt -s inherit_errexit
export DEBIAN_FRONTEND=noninteractive

log() { printf 'k8s.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd="${1:-}"
case "$cmd" in
up | down | status) ;;
-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
*) die "usage: scripts/k8s.sh up|down|status (see --help)" ;;
esac
[ $# -le 1 ] || die "too many arguments"
[ "$(id -u)" = 0 ] || die "run as root"

k8s_version="${BEHAVES_K8S_VERSION:-v1.36.3}"
[[ "$k8s_version" =~ ^v1\.[0-9]+\.[0-9]+$ ]] || die "BEHAVES_K8S_VERSION is not v1.N.N: $k8s_version"
state="${BEHAVES_K8S_STATE:-${TMPDIR:-/tmp}/behaves-k8s}"
case "$state" in /*/*) ;; *) die "BEHAVES_K8S_STATE must be an absolute folder below /: $state" ;; esac
state="${state%/}"
port="${BEHAVES_K8S_PORT:-6443}"
[[ "$port" =~ ^[0-9]+$ ]] || die "BEHAVES_K8S_PORT is not a number: $port"
cache_dir="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/behaves"
node=behaves-k8s
net=behaves-k8s         # the CNI network's name (its /var/lib/cni/results entries start with it)
bridge=bhv-k8s0         # the CNI bridge
pod_cidr=10.250.0.0/24  # host-local IPAM
svc_cidr=10.251.0.0/24  # the apiserver's service range (no kube-proxy: only the API's own records)
svc_ip=10.251.0.1
etcd_port=32379
etcd_peer=32380
sock="$state/containerd.sock"
pause_ref=behaves.local/k8s-pause:1

mkdir -p "$cache_dir"
# One call at a time on this machine (a concurrent call waits).
exec 9>"$cache_dir/k8s.lock"
flock 9
work=""
trap remove_work EXIT

api() { # api METHOD PATH [curl args...]: the apiserver as the admin
	local m="$1" p="$2"
	shift 2
	curl -sS --fail-with-body --max-time 30 --cacert "$state/pki/ca.crt" \
		--cert "$state/pki/admin.crt" --key "$state/pki/admin.key" \
		-X "$m" "https://127.0.0.1:$port$p" "$@"
}

# ---------------------------------------------------------------- builds (cached)

# build_binaries DIR: the four components of k8s.io/kubernetes@$k8s_version.
build_binaries() {
	local out="$1" mod gomod minor ld
	mod="$work/build"
	mkdir -p "$mod"
	gomod="$(cd "$mod" && go mod download -json "k8s.io/kubernetes@$k8s_version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
	[ -f "$gomod" ] || die "go mod download k8s.io/kubernetes@$k8s_version named no go.mod"
	{
		printf 'module behaves.local/k8sbuild\n\ngo 1.26\n\nrequire k8s.io/kubernetes %s\n\n' "$k8s_version"
		sed -n 's:^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/.*:replace \1 => \1 '"${k8s_version/v1./v0.}"':p' "$gomod"
	} >"$mod/go.mod"
	cat >"$mod/tools.go" <<-'GO'
		package k8sbuild

		import (
			_ "k8s.io/kubernetes/cmd/kube-apiserver"
			_ "k8s.io/kubernetes/cmd/kube-controller-manager"
			_ "k8s.io/kubernetes/cmd/kube-scheduler"
			_ "k8s.io/kubernetes/cmd/kubelet"
		)
	GO
	log "go mod tidy (k8s.io/kubernetes@$k8s_version; about 730 MB of modules when cold)"
	(cd "$mod" && go mod tidy >&2) || die "go mod tidy failed"
	minor="${k8s_version#v1.}"
	minor="${minor%%.*}"
	ld="-s -w"
	ld+=" -X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
	ld+=" -X k8s.io/client-go/pkg/version.gitVersion=$k8s_version -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
	log "go build of the four components (about 270 s when cold)"
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	(cd "$mod" && CGO_ENABLED=0 go build -trimpath -ldflags "$ld" -o "$out.tmp/" \
		k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
		k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet >&2) || die "go build failed"
	rm -rf "$out"
	mv "$out.tmp" "$out"
}

# debian_extract PACKAGE DIR: PACKAGE's files (the candidate version) in DIR, not installed.
debian_extract() {
	local pkg="$1" out="$2" deb
	mkdir -p "$work/deb-$pkg"
	(cd "$work/deb-$pkg" && apt-get download "$pkg" >&2 2>/dev/null) ||
		{ apt-get update >&2 && (cd "$work/deb-$pkg" && apt-get download "$pkg" >&2); } || die "apt-get download $pkg failed"
	deb="$(ls "$work/deb-$pkg"/*.deb)"
	rm -rf "$out.tmp"
	dpkg-deb -x "$deb" "$out.tmp"
	rm -rf "$out"
	mv "$out.tmp" "$out"
}

# build_pause TARBALL: the sandbox ("pause") image as a docker archive named $pause_ref:
# a static program that waits for SIGINT or SIGTERM and reaps its children.
build_pause() {
	local out="$1" d="$work/pause" diff cfg
	mkdir -p "$d/src" "$d/root" "$d/img"
	cat >"$d/src/main.go" <<-'GO'
		// The sandbox process of a pod: holds its namespaces, reaps orphans, exits on SIGINT or SIGTERM.
		package main

		import (
			"os"
			"os/signal"
			"syscall"
		)

		func main() {
			c := make(chan os.Signal, 8)
			signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
			for s := range c {
				if s != syscall.SIGCHLD {
					os.Exit(0)
				}
				for {
					var st syscall.WaitStatus
					if pid, err := syscall.Wait4(-1, &st, syscall.WNOHANG, nil); pid <= 0 || err != nil {
						break
					}
				}
			}
		}
	GO
	printf 'module pause\n\ngo 1.21\n' >"$d/src/go.mod"
	(cd "$d/src" && CGO_ENABLED=0 GOFLAGS='' go build -trimpath -ldflags '-s -w' -o "$d/root/pause" .) || die "building the pause program failed"
	tar --sort=name --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$d/root" -cf "$d/layer.tar" pause
	diff="$(sha256sum "$d/layer.tar" | cut -d' ' -f1)"
	mkdir -p "$d/img/$diff"
	mv "$d/layer.tar" "$d/img/$diff/layer.tar"
	printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"],"User":"65535:65535"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$diff" >"$d/img/config.json"
	cfg="$(sha256sum "$d/img/config.json" | cut -d' ' -f1)"
	mv "$d/img/config.json" "$d/img/$cfg.json"
	printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$cfg" "$pause_ref" "$diff" >"$d/img/manifest.json"
	tar --sort=name --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$d/img" -cf "$out.tmp" .
	mv "$out.tmp" "$out"
}

# prepare: sets bin (the four components), etcd_bin and cni_bin, building or
# extracting what the cache lacks; pause_tar.
prepare() {
	local key
	[ "$(dpkg --print-architecture)" = amd64 ] || die "only amd64 is supported"
	command -v go >/dev/null || die "go not found"
	# The module proxy only, never a repository directly.
	GOPROXY="$(go env GOPROXY)"
	GOPROXY="${GOPROXY%[,|]direct}"
	case "$GOPROXY" in "" | direct | off) GOPROXY=https://proxy.golang.org ;; esac
	export GOPROXY GOFLAGS=-mod=mod
	for c in containerd containerd-shim-runc-v2 runc ctr openssl curl jq; do
		command -v "$c" >/dev/null || die "$c not found"
	done
	key="$(recipe build_binaries | cut -c1-12)"
	bin="$cache_dir/k8s-$k8s_version-$key"
	if [ -x "$bin/kubelet" ] && [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-controller-manager" ] && [ -x "$bin/kube-scheduler" ]; then
		log "reusing the components in $bin"
	else
		work="$(mktemp -d "${TMPDIR:-/tmp}/behaves-k8s-build.XXXXXX")"
		build_binaries "$bin"
		local old
		for old in "$cache_dir"/k8s-v*; do
			[ "$old" = "$bin" ] || [ ! -d "$old" ] || { rm -rf "$old"; log "removed the stale $old"; }
		done
	fi
	[ -n "$work" ] || work="$(mktemp -d "${TMPDIR:-/tmp}/behaves-k8s-build.XXXXXX")"
	etcd_bin="$cache_dir/k8s-etcd-server"
	[ -x "$etcd_bin/usr/bin/etcd" ] || { log "extracting Debian's etcd-server"; debian_extract etcd-server "$etcd_bin"; }
	etcd_bin="$etcd_bin/usr/bin/etcd"
	cni_bin="$cache_dir/k8s-cni-plugins"
	[ -x "$cni_bin/usr/lib/cni/bridge" ] || { log "extracting Debian's containernetworking-plugins"; debian_extract containernetworking-plugins "$cni_bin"; }
	cni_bin="$cni_bin/usr/lib/cni"
	for c in bridge host-local loopback; do [ -x "$cni_bin/$c" ] || die "no CNI plugin $cni_bin/$c"; done
	pause_tar="$cache_dir/k8s-pause-$(recipe build_pause | cut -c1-12).tar"
	[ -s "$pause_tar" ] || { log "building the pause image"; rm -f "$cache_dir"/k8s-pause-*.tar; build_pause "$pause_tar"; }
}

# ---------------------------------------------------------------- certificates and configs

# cert NAME CN O [SAN]: a key and a certificate signed by the cluster's CA.
cert() {
	local n="$1" cn="$2" o="$3" san="${4:-}" ext="$state/pki/$1.ext"
	openssl ecparam -name prime256v1 -genkey -noout -out "$state/pki/$n.key" 2>/dev/null
	openssl req -new -key "$state/pki/$n.key" -subj "/CN=$cn${o:+/O=$o}" -out "$state/pki/$n.csr" 2>/dev/null
	{
		echo "basicConstraints=CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		if [ -n "$san" ]; then
			echo "extendedKeyUsage=serverAuth,clientAuth"
			echo "subjectAltName=$san"
		else
			echo "extendedKeyUsage=clientAuth"
		fi
	} >"$ext"
	openssl x509 -req -in "$state/pki/$n.csr" -CA "$state/pki/ca.crt" -CAkey "$state/pki/ca.key" \
		-CAcreateserial -days 365 -sha256 -extfile "$ext" -out "$state/pki/$n.crt" 2>/dev/null || die "signing $n failed"
	rm -f "$state/pki/$n.csr" "$ext"
}

# kubeconfig FILE CERTNAME
kubeconfig() {
	cat >"$1" <<-EOF
		apiVersion: v1
		kind: Config
		clusters:
		- name: behaves
		  cluster:
		    server: https://127.0.0.1:$port
		    certificate-authority: $state/pki/ca.crt
		users:
		- name: $2
		  user:
		    client-certificate: $state/pki/$2.crt
		    client-key: $state/pki/$2.key
		contexts:
		- name: behaves
		  context: {cluster: behaves, user: $2, namespace: default}
		current-context: behaves
	EOF
}

write_configs() {
	mkdir -p "$state/pki" "$state/pids" "$state/logs" "$state/cni/net.d" "$state/etcd" \
		"$state/containerd/root" "$state/containerd/state" "$state/kubelet"
	chmod 700 "$state" "$state/pki"
	if [ ! -s "$state/pki/ca.crt" ]; then
		log "writing certificates (CA, apiserver, clients, service-account key)"
		openssl ecparam -name prime256v1 -genkey -noout -out "$state/pki/ca.key" 2>/dev/null
		openssl req -x509 -new -key "$state/pki/ca.key" -subj "/CN=behaves-k8s-ca" -days 365 -sha256 \
			-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
			-out "$state/pki/ca.crt" 2>/dev/null || die "making the CA failed"
		cert apiserver kube-apiserver "" "IP:127.0.0.1,IP:$node_ip,IP:$svc_ip,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
		cert admin behaves-admin system:masters
		cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
		cert controller-manager system:kube-controller-manager ""
		cert scheduler system:kube-scheduler ""
		cert kubelet "system:node:$node" system:nodes
		openssl ecparam -name prime256v1 -genkey -noout -out "$state/pki/sa.key" 2>/dev/null
		openssl ec -in "$state/pki/sa.key" -pubout -out "$state/pki/sa.pub" 2>/dev/null
	fi
	kubeconfig "$state/kubeconfig" admin
	kubeconfig "$state/controller-manager.kubeconfig" controller-manager
	kubeconfig "$state/scheduler.kubeconfig" scheduler
	kubeconfig "$state/kubelet.kubeconfig" kubelet

	cat >"$state/cni/net.d/10-$net.conflist" <<-EOF
		{
		  "cniVersion": "1.0.0",
		  "name": "$net",
		  "plugins": [
		    {
		      "type": "bridge",
		      "bridge": "$bridge",
		      "isGateway": false,
		      "ipMasq": false,
		      "hairpinMode": false,
		      "ipam": {
		        "type": "host-local",
		        "dataDir": "$state/cni/ipam",
		        "ranges": [[{"subnet": "$pod_cidr"}]]
		      }
		    },
		    {"type": "loopback"}
		  ]
		}
	EOF

	cat >"$state/containerd.toml" <<-EOF
		version = 2
		root = "$state/containerd/root"
		state = "$state/containerd/state"
		disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
		[grpc]
		  address = "$sock"
		[ttrpc]
		  address = "$sock.ttrpc"
		[debug]
		  address = ""
		[metrics]
		  address = ""
		[plugins."io.containerd.internal.v1.opt"]
		  path = "$state/containerd/opt"
		[plugins."io.containerd.grpc.v1.cri"]
		  sandbox_image = "$pause_ref"
		  restrict_oom_score_adj = true
		  netns_mounts_under_state_dir = true
		  ignore_image_defined_volumes = true
		  stream_server_address = "127.0.0.1"
		  stream_server_port = "0"
		  enable_selinux = false
		  [plugins."io.containerd.grpc.v1.cri".containerd]
		    snapshotter = "overlayfs"
		    default_runtime_name = "runc"
		    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
		      runtime_type = "io.containerd.runc.v2"
		      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
		        SystemdCgroup = false
		  [plugins."io.containerd.grpc.v1.cri".cni]
		    bin_dir = "$cni_bin"
		    conf_dir = "$state/cni/net.d"
	EOF

	cat >"$state/kubelet.yaml" <<-EOF
		apiVersion: kubelet.config.k8s.io/v1beta1
		kind: KubeletConfiguration
		address: $node_ip
		port: 10250
		readOnlyPort: 0
		healthzBindAddress: 127.0.0.1
		healthzPort: 10248
		authentication:
		  anonymous: {enabled: false}
		  webhook: {enabled: true}
		  x509: {clientCAFile: $state/pki/ca.crt}
		authorization: {mode: Webhook}
		containerRuntimeEndpoint: unix://$sock
		cgroupDriver: cgroupfs
		failCgroupV1: false
		failSwapOn: false
		makeIPTablesUtilChains: false
		enableServiceLinks: false
		serializeImagePulls: false
		registerNode: true
		evictionHard: {memory.available: "50Mi", nodefs.available: "1%", nodefs.inodesFree: "1%", imagefs.available: "1%"}
		imageGCHighThresholdPercent: 100
		imageGCLowThresholdPercent: 99
		featureGates: {PodLogsQuerySplitStreams: true}
	EOF
}

# ---------------------------------------------------------------- processes

components=(etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet)

# start NAME BINARY ARGS...: runs BINARY in its own session, detached from this
# script's descriptors (the lock, a CI runner's pipes), logging to
# logs/NAME.log; records "PID BINARY" in pids/NAME.
start() {
	local n="$1" b="$2" pid
	shift 2
	(
		for fd in /proc/self/fd/*; do
			fd="${fd##*/}"
			[ "$fd" -gt 2 ] && eval "exec $fd>&-"
		done
		exec setsid "$b" "$@" >>"$state/logs/$n.log" 2>&1 </dev/null
	) &
	pid=$!
	printf '%s %s\n' "$pid" "$(readlink -f "$b")" >"$state/pids/$n"
	log "started $n (pid $pid, log $state/logs/$n.log)"
}

# alive NAME: whether the process recorded for NAME lives and runs the recorded binary.
alive() {
	local pid exe
	[ -f "$state/pids/$1" ] || return 1
	read -r pid exe <"$state/pids/$1" || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$exe" ]
}

# stop NAME: SIGTERM to the recorded PID (if it still runs the recorded
# binary), SIGKILL after 20 s.
stop() {
	local pid exe
	alive "$1" || { rm -f "$state/pids/$1"; return 0; }
	read -r pid exe <"$state/pids/$1"
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 200); do
		alive "$1" || break
		sleep 0.1
	done
	if alive "$1"; then
		log "$1 (pid $pid) ignored SIGTERM: SIGKILL"
		kill -9 "$pid" 2>/dev/null || true
		sleep 0.5
	fi
	rm -f "$state/pids/$1"
	log "stopped $1 (pid $pid)"
}

# wait_for WHAT SECONDS NAME COMMAND...: polls COMMAND every half second, failing
# (with the tail of NAME's log) when NAME dies or time runs out.
wait_for() {
	local what="$1" secs="$2" n="$3"
	shift 3
	for _ in $(seq 1 $((secs * 2))); do
		"$@" >/dev/null 2>&1 && return 0
		alive "$n" || { tail -n 20 "$state/logs/$n.log" >&2; die "$n died while waiting for $what"; }
		sleep 0.5
	done
	tail -n 20 "$state/logs/$n.log" >&2
	die "timed out after ${secs}s waiting for $what"
}

node_ready() {
	[ "$(api GET "/api/v1/nodes/$node" | jq -r '.status.conditions[]? | select(.type == "Ready") | .status')" = True ]
}
readyz() { [ "$(api GET /readyz)" = ok ]; }
default_sa() { api GET /api/v1/namespaces/default/serviceaccounts/default; }

running() {
	local c
	[ -f "$state/kubeconfig" ] || return 1
	for c in "${components[@]}"; do alive "$c" || return 1; done
	node_ready
}

# machine_ip: this machine's own address (the source of its default route;
# nothing is sent), the node IP (the kubelet refuses a loopback one).
machine_ip() {
	local ip
	ip="$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -n1)"
	[ -n "$ip" ] || ip="$(ip -4 -o addr show scope global | awk '{ sub(/\/.*/, "", $4); print $4; exit }')"
	[ -n "$ip" ] || die "this machine has no non-loopback IPv4 address for the node"
	printf '%s\n' "$ip"
}

ctr_() { ctr -a "$sock" -n k8s.io "$@"; }

import_images() {
	local busybox
	ctr_ images import "$pause_tar" >&2 || die "importing the pause image failed"
	busybox="${BEHAVES_IMAGE_BUSYBOX:-}"
	if [ -z "$busybox" ] && [ -f "${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env}" ]; then
		busybox="$(sed -n 's/^BEHAVES_IMAGE_BUSYBOX=//p' "${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env}" | tail -n1)"
	fi
	[[ "$busybox" =~ ^sha256:[0-9a-f]{64}$ ]] || die "BEHAVES_IMAGE_BUSYBOX is not an image ID (run scripts/images.sh first): '$busybox'"
	docker image inspect "$busybox" >/dev/null 2>&1 || die "the busybox image $busybox is not in Docker (run scripts/images.sh)"
	log "importing the busybox test image $busybox (docker save | ctr import)"
	# An archive saved by ID has no names: ctr names it import-<date>@<digest>,
	# which the CRI plugin would read as docker.io/library/import-…: rename it.
	local before after ref
	before="$(ctr_ images ls -q)"
	docker save "$busybox" | ctr_ images import --digests - >&2 || die "importing $busybox failed"
	after="$(ctr_ images ls -q)"
	for ref in $(comm -13 <(sort <<<"$before") <(sort <<<"$after")); do
		case "$ref" in
		import-*@sha256:*)
			ctr_ images tag --force "$ref" "behaves.local/busybox:${busybox:7:12}" >/dev/null
			ctr_ images rm "$ref" >/dev/null
			;;
		esac
	done
	printf '%s\n' "$busybox" >"$state/busybox"
}

up() {
	local t0 c
	t0="$(date +%s)"
	if running; then
		log "reusing the running cluster ($state)"
		smoke
		printf 'KUBECONFIG=%s\n' "$state/kubeconfig"
		return
	fi
	down_all quiet # a half-started or stale cluster
	prepare
	node_ip="$(machine_ip)"
	ss -Hltn "sport = :$port" | grep -q . && die "port $port is taken (BEHAVES_K8S_PORT)"
	write_configs
	printf '%s\n' "$node_ip" >"$state/node-ip"

	start etcd "$etcd_bin" --name default --data-dir "$state/etcd" \
		--listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
		--listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
		--initial-cluster "default=http://127.0.0.1:$etcd_peer" --log-level warn
	start containerd "$(command -v containerd)" --config "$state/containerd.toml"
	wait_for etcd 60 etcd curl -sf "http://127.0.0.1:$etcd_port/health"
	wait_for "the second containerd" 60 containerd ctr -a "$sock" version
	import_images

	start kube-apiserver "$bin/kube-apiserver" \
		--bind-address 127.0.0.1 --secure-port "$port" --advertise-address "$node_ip" \
		--etcd-servers "http://127.0.0.1:$etcd_port" \
		--service-cluster-ip-range "$svc_cidr" \
		--client-ca-file "$state/pki/ca.crt" \
		--tls-cert-file "$state/pki/apiserver.crt" --tls-private-key-file "$state/pki/apiserver.key" \
		--kubelet-client-certificate "$state/pki/apiserver-kubelet-client.crt" \
		--kubelet-client-key "$state/pki/apiserver-kubelet-client.key" \
		--kubelet-preferred-address-types InternalIP \
		--service-account-issuer https://kubernetes.default.svc \
		--service-account-key-file "$state/pki/sa.pub" \
		--service-account-signing-key-file "$state/pki/sa.key" \
		--authorization-mode Node,RBAC --anonymous-auth=false --allow-privileged=false \
		--profiling=false --feature-gates PodLogsQuerySplitStreams=true
	# The controller-manager crashed once when started before the apiserver was ready.
	wait_for "the apiserver's /readyz" 120 kube-apiserver readyz

	start kube-controller-manager "$bin/kube-controller-manager" \
		--kubeconfig "$state/controller-manager.kubeconfig" \
		--authentication-kubeconfig "$state/controller-manager.kubeconfig" \
		--authorization-kubeconfig "$state/controller-manager.kubeconfig" \
		--bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
		--service-account-private-key-file "$state/pki/sa.key" --root-ca-file "$state/pki/ca.crt" \
		--profiling=false
	start kube-scheduler "$bin/kube-scheduler" \
		--kubeconfig "$state/scheduler.kubeconfig" \
		--authentication-kubeconfig "$state/scheduler.kubeconfig" \
		--authorization-kubeconfig "$state/scheduler.kubeconfig" \
		--bind-address 127.0.0.1 --leader-elect=false --profiling=false
	start kubelet "$bin/kubelet" \
		--config "$state/kubelet.yaml" --kubeconfig "$state/kubelet.kubeconfig" \
		--root-dir "$state/kubelet" --cert-dir "$state/kubelet/pki" --hostname-override "$node" --node-ip "$node_ip"

	wait_for "node $node to be Ready" 180 kubelet node_ready
	wait_for "the default service account" 120 kube-controller-manager default_sa
	log "the cluster is up in $(($(date +%s) - t0)) s"
	smoke
	printf 'KUBECONFIG=%s\n' "$state/kubeconfig"
}

# ---------------------------------------------------------------- smoke check

# smoke: one hardened pod with the busybox image (by its ID, never pulled):
# its exit code and its stdout and stderr apart must come back.
smoke() {
	local image name pod phase code out err why=""
	image="$(cat "$state/busybox")"
	name="behaves-k8s-smoke-$$"
	pod="$(jq -n --arg name "$name" --arg image "$image" '{
		apiVersion: "v1", kind: "Pod", metadata: {name: $name},
		spec: {
			restartPolicy: "Never", automountServiceAccountToken: false, enableServiceLinks: false,
			securityContext: {runAsUser: 65534, runAsGroup: 65534, runAsNonRoot: true},
			containers: [{
				name: "main", image: $image, imagePullPolicy: "Never",
				command: ["/bin/sh", "-c", "id -u; grep CapEff /proc/self/status; if touch /probe 2>/dev/null; then echo root-writable >&2; exit 1; fi; echo to-err >&2; exit 3"],
				securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: ["ALL"]}},
				resources: {limits: {memory: "64Mi", cpu: "500m"}}
			}]
		}}')"
	api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' -d "$pod" >/dev/null || die "creating the smoke pod failed"
	phase=""
	for _ in $(seq 1 240); do
		phase="$(api GET "/api/v1/namespaces/default/pods/$name" | jq -r .status.phase)"
		case "$phase" in Succeeded | Failed) break ;; esac
		why="$(api GET "/api/v1/namespaces/default/pods/$name" | jq -r '.status.containerStatuses[0].state.waiting.reason // empty')"
		case "$why" in "" | ContainerCreating | PodInitializing) ;; *) break ;; esac
		sleep 0.5
	done
	code="$(api GET "/api/v1/namespaces/default/pods/$name" | jq -r '.status.containerStatuses[0].state.terminated.exitCode // empty')"
	out="$(api GET "/api/v1/namespaces/default/pods/$name/log?stream=Stdout" || true)"
	err="$(api GET "/api/v1/namespaces/default/pods/$name/log?stream=Stderr" || true)"
	api DELETE "/api/v1/namespaces/default/pods/$name?gracePeriodSeconds=0" >/dev/null || true
	if ! { [ "$code" = 3 ] && [ "$out" = "$(printf '65534\nCapEff:\t0000000000000000')" ] && [ "$err" = to-err ]; }; then
		die "smoke check failed: phase '$phase' $why, exit code '$code', stdout '$out', stderr '$err'"
	fi
	log "smoke check passed: hardened pod ran as 65534 without capabilities on a read-only root, exit code 3, stdout and stderr apart"
}

# ---------------------------------------------------------------- down

# our_shims: PIDs of the runc shims started by the second containerd (their
# command line names its socket; Docker's shims name another).
our_shims() {
	local p cmd
	for p in /proc/[0-9]*; do
		cmd="$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" || continue
		case "$cmd" in *containerd-shim*" -address $sock "*) printf '%s\n' "${p#/proc/}" ;; esac
	done
}

down_all() {
	local quiet="${1:-}" ids=() id pid p m
	[ -d "$state" ] || [ -n "$quiet" ] || log "nothing recorded in $state"
	if [ -d "$state" ]; then
		# Pods first, through the API, so that the kubelet tears their networks down.
		if alive kube-apiserver && alive kubelet && [ -s "$state/pki/admin.crt" ]; then
			api GET /api/v1/pods 2>/dev/null | jq -r '.items[]? | "\(.metadata.namespace)/\(.metadata.name)"' | while IFS=/ read -r ns n; do
				api DELETE "/api/v1/namespaces/$ns/pods/$n?gracePeriodSeconds=0" >/dev/null 2>&1 || true
			done
			if alive containerd; then
				for _ in $(seq 1 60); do
					[ -z "$(ctr_ tasks ls -q 2>/dev/null)" ] && break
					sleep 0.5
				done
			fi
		fi
		for c in kubelet kube-scheduler kube-controller-manager kube-apiserver; do stop "$c"; done
		# The pod sandboxes' IDs name their CNI results (/var/lib/cni/results/<network>-<id>-<if>).
		for p in "$state"/containerd/root/io.containerd.grpc.v1.cri/sandboxes/*; do
			[ -d "$p" ] && ids+=("${p##*/}")
		done
		if alive containerd; then
			for id in $(ctr_ tasks ls -q 2>/dev/null); do
				ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
			done
			sleep 1
			for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true; done
			for id in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers rm "$id" >/dev/null 2>&1 || true; done
		fi
	fi
	# The shims outlive containerd: end them by PID, then drop their sockets
	# (/run/containerd/s/<sha256 of ADDRESS/NAMESPACE/ID>, as containerd names them).
	for pid in $(our_shims); do
		id="$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | sed -n '/^-id$/{n;p;q}')" || true
		[ -n "$id" ] && ids+=("$id")
		kill -9 "$pid" 2>/dev/null || true
	done
	for id in "${ids[@]+"${ids[@]}"}"; do
		rm -f "/run/containerd/s/$(printf '%s' "$sock/k8s.io/$id" | sha256sum | cut -d' ' -f1)"
	done
	if [ -d "$state" ]; then
		stop containerd
		stop etcd
		awk -v s="$state/" 'index($2, s) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		done
		for p in "$state"/pids/*; do
			[ -f "$p" ] && { log "error: ${p##*/} is still alive; keeping $state"; return 1; }
		done
		rm -rf --one-file-system "$state"
		[ -n "$quiet" ] || log "removed $state"
	fi
	# What the kubelet and the CNI plugins write outside the state folder: the
	# CNI results of our network and of containerd's loopback for our sandboxes.
	rm -f /var/lib/cni/results/"$net"-*
	for id in "${ids[@]+"${ids[@]}"}"; do
		[[ "$id" =~ ^[0-9a-f]{64}$ ]] && rm -f /var/lib/cni/results/*-"$id"-*
	done
	rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null || true
	if [ -d /var/log/containers ]; then
		for p in /var/log/containers/*.log; do
			[ -L "$p" ] && case "$(readlink "$p")" in /var/log/pods/*) rm -f "$p" ;; esac
		done
		rmdir /var/log/containers 2>/dev/null || true
	fi
	if [ -d /var/log/pods ]; then
		for p in /var/log/pods/*_*_*; do [ -d "$p" ] && rm -rf --one-file-system "$p"; done
		rmdir /var/log/pods 2>/dev/null || true
	fi
	rm -rf --one-file-system /var/lib/kubelet
	# Processes left in the kubepods cgroups (only the pods of this kubelet are
	# there: a containerd that died left its containers running) are killed.
	for p in /sys/fs/cgroup/*/kubepods; do
		[ -d "$p" ] || continue
		find "$p" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u | while read -r pid; do
			kill -9 "$pid" 2>/dev/null || true
		done
	done
	sleep 0.2
	for p in /sys/fs/cgroup/*/kubepods; do
		if [ -d "$p" ]; then find "$p" -depth -type d -exec rmdir {} + 2>/dev/null || true; fi
	done
	if ip link show "$bridge" >/dev/null 2>&1; then ip link del "$bridge" || true; fi
}

status() {
	local c ok=1
	for c in "${components[@]}"; do
		if alive "$c"; then log "$c: running (pid $(cut -d' ' -f1 "$state/pids/$c"))"; else log "$c: not running"; ok=0; fi
	done
	[ "$ok" = 1 ] || die "the cluster is not up ($state)"
	node_ready || die "node $node is not Ready"
	log "node $node is Ready"
	smoke
	printf 'KUBECONFIG=%s\n' "$state/kubeconfig"
}

case "$cmd" in
up) up ;;
down) down_all ;;
status) status ;;
esac
