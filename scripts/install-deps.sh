#!/usr/bin/env bash
# Installs the Debian packages lcactor builds and tests with, only those
# missing, so `make run` and `make test` work on a fresh Debian 12 machine.
set -euo pipefail

# Keep in step with the README's dependency list and meson.build.
packages=(
	build-essential pkg-config meson ninja-build python3
	libdpdk-dev dpdk          # the runtime's base; dpdk brings dpdk-devbind etc.
	dpdk-dev                  # dpdk-dumpcap and dpdk-pdump (capture from a running app)
	libnuma-dev               # node of a page (move_pages) and NUMA checks
	libhwloc-dev hwloc        # topology: cores, SMT siblings, caches, nodes
	libcmocka-dev             # unit tests
	libjansson-dev            # the apps' --json records
	libhttp-parser-dev        # lca-httpd and lca-load parse HTTP with it (not by hand)
	liburing-dev              # lca-httpd --io uring (optional: without it, epoll only)
	libucx-dev                # the remote part's UCX transport (UCP active messages)
	libsodium-dev             # the ethdev transport's frame tags (key in the node table)
	valgrind                  # leak check of the smoke app in `make test`
	iproute2                  # e2e_remote: ip netns and veth for af_packet (tc netem where the kernel has it)
	clang                     # make fuzz: the remote frame decoder and receive path under libFuzzer
	python3-h11               # e2e_http: a second HTTP/1.1 parser to compare lca-httpd's framing with (tests/http_framing.py)
	python3-jsonschema        # e2e tests check every app's --json against docs/lcactor-result.schema.json
	abigail-tools             # the abi test: abidiff of liblcactor against abi/liblcactor.abi
	python3-matplotlib        # scripts/lca-plot: the SVG of a run (`make run`, e2e tests)
	babeltrace2               # e2e_trace: reads the CTF that --trace='lcactor.*' writes
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
