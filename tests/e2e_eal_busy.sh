#!/usr/bin/env bash
# An app whose EAL cannot start exits 1 with a reason, never "Success" and
# never a run: a second process on a file prefix that a first one holds.
# And an app that ran leaves no runtime folder of EAL's behind.
set -u
exe=$1
prefix=lca_test_busy_$$
fail=0
. "$(dirname "$0")/e2e_lib.sh"
eal=(-l 0 --no-huge --no-pci --file-prefix "$prefix" --log-level 'lib.*:error')

"$exe" "${eal[@]}" -- --hops 4294967295 >/dev/null 2>&1 &
first=$!
trap 'kill $first 2>/dev/null; wait $first 2>/dev/null; rm -rf "/var/run/dpdk/$prefix"' EXIT
# Let the first take the prefix's lock.
for _ in $(seq 50); do
	[ -e "/var/run/dpdk/$prefix/config" ] && break
	sleep 0.1
done
out=$(timeout 30 "$exe" "${eal[@]}" -- --hops 10 2>&1); rc=$?
check "the second process on a held prefix exits 1" "[ $rc -eq 1 ]"
check "it says EAL failed, and not with 'Success'" "grep -q 'EAL init failed' <<<\"\$out\" && ! grep -q 'Success' <<<\"\$out\""
check "the first is still running" "kill -0 $first"

# A run that keeps no files leaves no runtime folder behind either.
gone=lca_test_gone_$$
"$exe" -l 0 --no-huge --no-pci --in-memory --file-prefix "$gone" --log-level 'lib.*:error' \
	-- --hops 10 >/dev/null 2>&1
check "an --in-memory run leaves no /var/run/dpdk/<prefix>" "[ ! -e /var/run/dpdk/$gone ]"
finish
