#!/usr/bin/env bash
# liblcactor.so exports its API and nothing else: every defined dynamic
# symbol begins with lca_, so no app can come to depend on the interior
# (channels_init, inbox_push, stop_request, send_failed, ...). Every symbol
# is versioned by abi/version.map, and every LCA_API one is in it.
# e2e_symbols.sh SHARED_LIB STATIC_LIB
set -u
lib=$1 archive=$2
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }

# Symbols allowed without the prefix, as '^(name|name)$', each with a comment
# saying why. None today.
allowed_re='^$'

# The version nodes themselves are absolute symbols (type A).
versioned=$(nm -D --defined-only "$lib" | awk 'NF == 3 && $2 != "A" { print $3 }')
syms=$(sed 's/@.*//' <<<"$versioned")
check "nm reads $lib" "[ -n \"\$syms\" ]"
unversioned=$(grep -Ev '@@(LCA_[0-9]+\.[0-9]+|EXPERIMENTAL)$' <<<"$versioned" || true)
check "every exported symbol has a version node of abi/version.map" \
	"[ -z \"\$unversioned\" ] || { echo \"\$unversioned\" | sed 's/^/#   /'; false; }"
# What the headers mark LCA_API has default visibility in the objects; one
# that abi/version.map does not name is hidden by its 'local: *'.
marked=$(readelf -sW "$archive" | awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }' | sort -u)
check "readelf reads $archive" "[ -n \"\$marked\" ]"
missing=$(comm -23 <(echo "$marked") <(sort -u <<<"$syms"))
check "every LCA_API symbol is exported (named in abi/version.map)" \
	"[ -z \"\$missing\" ] || { echo \"\$missing\" | sed 's/^/#   /'; false; }"
bad=$(grep -v '^lca_' <<<"$syms" | grep -Ev "$allowed_re" || true)
check "every exported symbol begins with lca_" "[ -z \"\$bad\" ] || { echo \"\$bad\" | sed 's/^/#   /'; false; }"
# The public API is there, the interior is not.
for s in lca_runtime_init lca_send lca_lcore_hook_add lca_freq_monitor_start lca_freq_deadlines \
	lca_logtype lca_port_start; do
	check "exports $s" "grep -qx $s <<<\"\$syms\""
done
for s in channels_init channels_poll inbox_push stop_request send_failed actor_drain \
	lca_send_errors_reset freq_msr_open freq_acc_add port_rx_poll port_tx_handler; do
	check "hides $s" "! grep -qx $s <<<\"\$syms\""
done
exit $fail
