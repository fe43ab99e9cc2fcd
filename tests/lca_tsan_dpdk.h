/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forced into every file of the ThreadSanitizer build (make tsan: -include),
 * before any DPDK header. Debian's DPDK is built for x86 without
 * -fsanitize=thread; what of it is inline in lcactor's files is compiled
 * here, and these choices make TSan see its ordering:
 *
 * - RTE_USE_C11_MEM_MODEL: rings use __atomic loads and stores with acquire
 *   and release (rte_ring_c11_pvt.h), not plain loads, compiler barriers and
 *   inline-assembly CAS (rte_ring_generic_pvt.h), which TSan cannot see. The
 *   ring layout is the same, so these rings work with the library's own
 *   (uninstrumented, generic) code; on x86 both are correct.
 * - RTE_FORCE_INTRINSICS: spinlocks and rte_atomic* through __atomic/__sync
 *   builtins instead of x86 inline assembly, for the same reason.
 * - A multi-producer ring's producer waits for the producers before it to
 *   publish (rte_wait_until_equal_32 on the tail) with a relaxed load, then
 *   publishes with release. That the consumer sees the earlier producers'
 *   slots then rests on the hardware (x86 TSO; Arm's cumulative release),
 *   not on C11's happens-before, which TSan follows: every message two
 *   producers send at once would read as a race. That one load is made
 *   acquire here (the only relaxed order in rte_ring_c11_pvt.h), which x86
 *   does anyway: C11 then orders what TSan checks as the hardware does.
 * - A ring with an RTS producer (lcactor's inboxes and control rings, rts
 *   mailboxes) publishes with a release CAS on the 64-bit {count, position}
 *   word at the start of its headtail, and the consumer (classic, C11) reads
 *   the 32-bit position inside it, prod.tail, with acquire. TSan pairs a
 *   release and an acquire of the same address only, so every message
 *   through such a ring would read as a race. Each acquire load of the C11
 *   ring code here also acquires the 8-byte word it sits in (the headtail's
 *   start): the edge DPDK has, at the address where TSan looks for it.
 */
#ifndef LCA_TSAN_DPDK_H
#define LCA_TSAN_DPDK_H
/* Meson's compiler checks compile with these flags too, without DPDK. */
#if __has_include(<rte_ring_core.h>)

#define RTE_USE_C11_MEM_MODEL 1
#define RTE_FORCE_INTRINSICS 1

#include <rte_ring_core.h>

#include <stdint.h>
#include <sanitizer/tsan_interface.h>

#pragma push_macro("__ATOMIC_RELAXED")
#undef __ATOMIC_RELAXED
#define __ATOMIC_RELAXED __ATOMIC_ACQUIRE
#define __atomic_load_n(p, mo) __extension__ ({					\
	__typeof__(*(p)) lca_tsan_v_ = __atomic_load_n((p), (mo));		\
	__tsan_acquire((void *)((uintptr_t)(p) & ~(uintptr_t)7));		\
	lca_tsan_v_;								\
})
#include <rte_ring_c11_pvt.h>
#undef __atomic_load_n
#pragma pop_macro("__ATOMIC_RELAXED")
#endif

#endif /* LCA_TSAN_DPDK_H */
