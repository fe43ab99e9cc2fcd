#!/usr/bin/env bash
# EXPERIMENTAL calls are marked in the headers as DPDK marks its own
# (__rte_experimental, rte_compat.h): LCA_EXPERIMENTAL (eal/lca_api.h) makes
# a use of one warn, naming ALLOW_EXPERIMENTAL_API, unless the program
# defines it; with -Werror the warning stops the build. Each check compiles
# a small program against the public headers alone (the build's include/).
# Every symbol of abi/version.map's EXPERIMENTAL node warns, none of LCA_0.1
# does, and including every header (their inlines) warns of nothing.
# e2e_experimental.sh BUILD_ROOT SOURCE_ROOT CC
set -u
export LC_ALL=C # the compiler quotes names with plain quotes
build=$1 src=$2 cc=$3
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The symbols of the EXPERIMENTAL node read by a header's inline
# (lca_freq_poll(), lca_lcore_due()) and documented @internal: a program
# never names them.
internal_re='^(lca_freq_deadlines|lca_lcore_dues)$'
headers="lca_eal.h lca_lcore.h lca_topo.h lca_freq.h lca_mempool.h lca_actor.h lca_ask.h lca_msg.h lca_timer.h lca_port.h lca_remote.h"
[ -f "$build/include/lca_graph.h" ] && headers="$headers lca_graph.h"
cflags="-std=gnu11 -Wall -Wextra -I$build/include $(pkg-config --cflags libdpdk)"
compile() { # compile SOURCE LOG [FLAGS...]: exit status of the compiler
	local in=$1 log=$2
	shift 2
	# shellcheck disable=SC2086
	$cc $cflags "$@" -c -o "$tmp/out.o" "$in" >"$log" 2>&1
}

{
	for h in $headers; do echo "#include <$h>"; done
	echo 'int main(void) { return 0; }'
} >"$tmp/headers.c"
compile "$tmp/headers.c" "$tmp/headers.log" -Werror
check "every public header compiles clean under -Werror without ALLOW_EXPERIMENTAL_API" \
	"[ \$? -eq 0 ] && [ ! -s '$tmp/headers.log' ] || { sed 's/^/#   /' '$tmp/headers.log'; false; }"

cat >"$tmp/ask.c" <<'PROG'
#include <lca_actor.h>
int main(void)
{
	return lca_ask(0, 0, (struct lca_msg *)0, 1000, (uint64_t *)0);
}
PROG
compile "$tmp/ask.c" "$tmp/warn.log"
rc=$?
check "calling lca_ask() without ALLOW_EXPERIMENTAL_API compiles" "[ $rc -eq 0 ]"
check "... with a warning naming lca_ask and ALLOW_EXPERIMENTAL_API" \
	"grep -q 'lca_ask.*ALLOW_EXPERIMENTAL_API' '$tmp/warn.log' || { sed 's/^/#   /' '$tmp/warn.log'; false; }"
compile "$tmp/ask.c" "$tmp/werror.log" -Werror
rc=$?
check "... and fails to compile with -Werror" "[ $rc -ne 0 ] && grep -q ALLOW_EXPERIMENTAL_API '$tmp/werror.log'"
compile "$tmp/ask.c" "$tmp/allowed.log" -Werror -DALLOW_EXPERIMENTAL_API
rc=$?
check "with -DALLOW_EXPERIMENTAL_API it compiles clean under -Werror" \
	"[ $rc -eq 0 ] && [ ! -s '$tmp/allowed.log' ] || { sed 's/^/#   /' '$tmp/allowed.log'; false; }"

# Each node's symbols, their addresses taken by a program of their own: a
# deprecated declaration warns at every use, the address included.
node_syms() { # node_syms NODE: the names of abi/version.map's node NODE
	awk -v node="$1" '$1 == node && $2 == "{" { on = 1; next } on && /^}/ { on = 0 }
		on && $1 ~ /^lca_[a-z0-9_]*;$/ { sub(/;/, "", $1); print $1 }' "$src/abi/version.map"
}
warned() { # warned NODE: the symbols of NODE whose use warns, one a line
	{
		for h in $headers; do echo "#include <$h>"; done
		echo 'void *lca_uses[] = {'
		node_syms "$1" | grep -Ev "$internal_re" | sed 's/.*/\t(void *)\&&,/'
		echo '};'
	} >"$tmp/$1.c"
	compile "$tmp/$1.c" "$tmp/$1.log"
	grep -o "'lca_[a-z0-9_]*' is deprecated: .*ALLOW_EXPERIMENTAL_API" "$tmp/$1.log" |
		sed "s/^'\([^']*\)'.*/\1/" | sort -u
}
exp_all=$(node_syms EXPERIMENTAL | grep -Ev "$internal_re" | sort -u)
exp_warned=$(warned EXPERIMENTAL)
unmarked=$(comm -23 <(echo "$exp_all") <(echo "$exp_warned"))
check "version.map lists EXPERIMENTAL symbols" "[ -n \"\$exp_all\" ]"
check "every EXPERIMENTAL symbol is LCA_EXPERIMENTAL in its header" \
	"[ -z \"\$unmarked\" ] || { echo \"\$unmarked\" | sed 's/^/#   /'; false; }"
stable_warned=$(warned LCA_0.1)
check "no LCA_0.1 symbol is marked" \
	"[ -z \"\$stable_warned\" ] || { echo \"\$stable_warned\" | sed 's/^/#   /'; false; }"
exit $fail
