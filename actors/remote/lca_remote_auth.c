/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Authenticated frames on the ethdev transport (docs/wire.md, "Trust
 * model"): with a key, every frame ends in a SipHash-2-4 tag (libsodium's
 * crypto_shorthash) of all its bytes before it, and the receiver checks it
 * right after the decoder has checked the lengths, before any field says
 * anything to the channel. Without a key, frames are as they always were.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <sodium.h>

#include "lca_eal.h"
#include "lca_logtypes.h"
#include "lca_remote_eth.h"

_Static_assert(crypto_shorthash_BYTES == WIRE_TAG_LEN, "the tag is SipHash-2-4's 8 bytes");
_Static_assert(crypto_shorthash_KEYBYTES == sizeof(rm_eth.tag_key), "SipHash takes 16 bytes");
_Static_assert(crypto_kdf_KEYBYTES == LCA_REMOTE_KEY_LEN, "the node table's key is a KDF key");

/* The subkey's context: a later tag (another algorithm, another length)
 * derives another subkey from the same node-table key. */
#define AUTH_KDF_CTX "lcawire1"
#define AUTH_KDF_ID 1

int
eth_auth_init(const struct lca_remote_conf *conf)
{
	rm_eth.tag_len = 0;
	if (!conf->has_key)
		return 0;
	if (sodium_init() < 0) {
		LCA_LOG(ERR, "remote: key: libsodium did not initialise (sodium_init)\n");
		return -ENOTSUP;
	}
	/* SipHash's key is 16 bytes: derive it from the 32 of the table
	 * (BLAKE2b, crypto_kdf) rather than use half of them. */
	if (crypto_kdf_derive_from_key(rm_eth.tag_key, sizeof(rm_eth.tag_key), AUTH_KDF_ID,
				       AUTH_KDF_CTX, conf->key) != 0) {
		LCA_LOG(ERR, "remote: key: crypto_kdf_derive_from_key failed\n");
		return -EINVAL;
	}
	rm_eth.tag_len = WIRE_TAG_LEN;
	return 0;
}

void
eth_auth_fini(void)
{
	sodium_memzero(rm_eth.tag_key, sizeof(rm_eth.tag_key));
	rm_eth.tag_len = 0;
}

void
eth_tag_write(uint8_t *buf, uint32_t len)
{
	crypto_shorthash(buf + len, buf, len, rm_eth.tag_key);
}

/* Why a frame's tag was refused, for the log line. */
static const char *
tag_why(const struct wire_view *v)
{
	if (rm_eth.tag_len == 0)
		return "a tagged frame, and this node has no key: is `key` set on the sender only?";
	if (v->tag == NULL)
		return "a frame without a tag, and this node has a key: is `key` missing on the "
		       "sender?";
	return "a frame whose tag does not match (forged, corrupted, or another key)";
}

/* One line a second at most, all lcores together: a flood of forged
 * frames must not flood the log. The node is what the unauthenticated
 * header says, for the reader only. */
static void
tag_log(const struct wire_view *v, uint64_t now)
{
	uint64_t quiet;

	if (rm_log_allowed(&rm_eth.tag_log, now, &quiet))
		LCA_LOG(ERR, "remote: bad tag: %s (src_node %u by its header; dropped, counted in"
			" bad_tag; %" PRIu64 " more not logged)\n",
			tag_why(v), rte_be_to_cpu_16(v->hdr->src_node), quiet);
}

bool
eth_tag_check(const uint8_t *buf, const struct wire_view *v, uint64_t now)
{
	if (rm_eth.tag_len != 0 && v->tag != NULL) {
		uint8_t t[WIRE_TAG_LEN];

		crypto_shorthash(t, buf, (unsigned long long)(v->tag - buf), rm_eth.tag_key);
		/* Constant time: a timing oracle would let a forger find
		 * the tag byte by byte. */
		if (sodium_memcmp(t, v->tag, WIRE_TAG_LEN) == 0)
			return true;
	}
	rm_count_shared(&rm.st.bad_tag, 1);
	tag_log(v, now);
	return false;
}
