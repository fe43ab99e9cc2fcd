/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Authenticated active messages on the UCX transport (docs/wire.md, "Trust
 * model"). With a key, each header ends in an 8-byte SipHash-2-4 tag
 * (libsodium's crypto_shorthash, as the frames'), over one run of bytes:
 * the header before its tag, or a buffer's data, which then begin with a
 * copy of the header, so that one tag covers both without a second pass.
 * A large message's payload is an mbuf chain, cut differently at each
 * end; its tag, in the header, is SipHash-2-4 under another subkey over
 * its bytes in order, copied into one run where the chain has more than
 * one segment (a copy costs far less than a MAC that takes pieces: keyed
 * BLAKE2b read 5 times slower here). The header is checked as it arrives,
 * before any field is read; the payload once its last byte is in, before
 * it is delivered.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <sodium.h>

#include "lca_remote_ucx_priv.h"

_Static_assert(sizeof(rm_ux.tag_key) == crypto_shorthash_KEYBYTES, "SipHash takes 16 bytes");
_Static_assert(UX_TAG_LEN == crypto_shorthash_BYTES, "the tag is SipHash-2-4's 8 bytes");
_Static_assert(sizeof(rm_ux.payload_key) == crypto_shorthash_KEYBYTES, "SipHash's key");
_Static_assert(UX_PAYLOAD_TAG_LEN == crypto_shorthash_BYTES, "SipHash-2-4's 8 bytes");

int
ux_auth_init(const struct lca_remote_conf *conf)
{
	int ret;

	rm_ux.keyed = false;
	rm_ux.tag_log = (struct rm_log_limit){ 0 };
	if (!conf->has_key)
		return 0;
	ret = rm_auth_subkey(rm_ux.tag_key, sizeof(rm_ux.tag_key), RM_SUBKEY_UCX_SIPHASH, conf);
	if (ret == 0)
		ret = rm_auth_subkey(rm_ux.payload_key, sizeof(rm_ux.payload_key),
				     RM_SUBKEY_UCX_PAYLOAD, conf);
	if (ret == 0)
		rm_ux.keyed = true;
	return ret;
}

void
ux_auth_fini(void)
{
	sodium_memzero(rm_ux.tag_key, sizeof(rm_ux.tag_key));
	sodium_memzero(rm_ux.payload_key, sizeof(rm_ux.payload_key));
	rm_ux.keyed = false;
}

/* What the tag of a header covers: its bytes before the tag, or the data
 * that begin with their copy. */
static void
tag_of(uint8_t *tag, const void *hdr, size_t hlen, const void *data, size_t len)
{
	if (data != NULL)
		crypto_shorthash(tag, data, len, rm_ux.tag_key);
	else
		crypto_shorthash(tag, hdr, hlen - UX_TAG_LEN, rm_ux.tag_key);
}

void
ux_tag_write(void *hdr, size_t hlen, const void *data, size_t len)
{
	tag_of((uint8_t *)hdr + hlen - UX_TAG_LEN, hdr, hlen, data, len);
}

void
ux_payload_tag(struct ux_lcore *ul, uint8_t *tag, const struct rte_mbuf *m)
{
	/* The first segment's own bytes when it holds them all, else a copy
	 * in the lcore's scratch (the lane's limit: a payload fits). */
	const void *p = rte_pktmbuf_read(m, 0, m->pkt_len, ul->scratch);

	crypto_shorthash(tag, p, m->pkt_len, rm_ux.payload_key);
}

static void
tag_refused(const char *what, bool tagged, const struct ux_hdr *h)
{
	rm_tag_refused(&rm_ux.tag_log, " ucx", what, rm_ux.keyed, tagged,
		       rte_be_to_cpu_16(h->src_node), rte_rdtsc());
}

bool
ux_tag_check(const void *hdr, size_t hlen, bool tagged, const void *data, size_t len)
{
	if (rm_ux.keyed && tagged) {
		uint8_t t[UX_TAG_LEN];

		/* A buffer's data must begin with its header's copy: the
		 * tag covers the copy, and the copy vouches for the header. */
		if (data != NULL && (len < UX_HDR_LEN || memcmp(data, hdr, UX_HDR_LEN) != 0))
			goto refuse;
		tag_of(t, hdr, hlen, data, len);
		/* Constant time: a timing oracle would let a forger find the
		 * tag byte by byte. */
		if (sodium_memcmp(t, (const uint8_t *)hdr + hlen - UX_TAG_LEN, UX_TAG_LEN) == 0)
			return true;
	} else if (!rm_ux.keyed && !tagged) {
		return true;
	}
refuse:
	tag_refused("", tagged, hdr);
	return false;
}

bool
ux_payload_check(struct ux_lcore *ul, const struct ux_large_hdr *lh, const struct rte_mbuf *m)
{
	uint8_t t[UX_PAYLOAD_TAG_LEN];

	ux_payload_tag(ul, t, m);
	if (sodium_memcmp(t, lh->payload_tag, UX_PAYLOAD_TAG_LEN) == 0)
		return true;
	tag_refused("a large message's payload: ", true, &lh->h);
	return false;
}
