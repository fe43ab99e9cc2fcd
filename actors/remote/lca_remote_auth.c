/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Authenticated frames (docs/wire.md, "Trust model"). What both transports
 * share: the subkeys derived from the node table's key, and why a tag was
 * refused. The ethdev transport's own: with a key, every frame ends in a
 * SipHash-2-4 tag (libsodium's crypto_shorthash) of all its bytes before
 * it, and the receiver checks it right after the decoder has checked the
 * lengths, before any field says anything to the channel. Without a key,
 * frames are as they always were. (UCX's tags: lca_remote_ucx_auth.c.)
 */
#define LCA_LOG_PART lca_logtype_remote
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <sodium.h>

#include "lca_eal.h"
#include "lca_logtypes_priv.h"
#include "lca_remote_eth_priv.h"

_Static_assert(crypto_shorthash_BYTES == WIRE_TAG_LEN, "the tag is SipHash-2-4's 8 bytes");
_Static_assert(crypto_shorthash_KEYBYTES == sizeof(rm_eth.tag_key), "SipHash takes 16 bytes");
_Static_assert(crypto_kdf_KEYBYTES == LCA_REMOTE_KEY_LEN, "the node table's key is a KDF key");

/* The subkeys' context: each tag (another algorithm, another length)
 * derives its own subkey from the same node-table key. */
#define AUTH_KDF_CTX "lcawire1"

int
rm_auth_subkey(uint8_t *out, size_t len, uint64_t id, const struct lca_remote_conf *conf)
{
	if (sodium_init() < 0) {
		LCA_LOG(ERR, "remote: key: libsodium did not initialise (sodium_init)\n");
		return -ENOTSUP;
	}
	/* The table's 32 bytes are never a tag's key themselves: a subkey per
	 * use (BLAKE2b, crypto_kdf), so that no two algorithms share one. */
	if (crypto_kdf_derive_from_key(out, len, id, AUTH_KDF_CTX, conf->key) != 0) {
		LCA_LOG(ERR, "remote: key: crypto_kdf_derive_from_key failed\n");
		return -EINVAL;
	}
	return 0;
}

/* Why a tag was refused, for the log line. */
static const char *
tag_why(bool keyed, bool tagged)
{
	if (!keyed)
		return "a tagged frame, and this node has no key: is `key` set on the sender only?";
	if (!tagged)
		return "a frame without a tag, and this node has a key: is `key` missing on the "
		       "sender?";
	return "a frame whose tag does not match (forged, corrupted, or another key)";
}

int
eth_auth_init(const struct lca_remote_conf *conf)
{
	int ret;

	rm_eth.tag_len = 0;
	if (!conf->has_key)
		return 0;
	ret = rm_auth_subkey(rm_eth.tag_key, sizeof(rm_eth.tag_key), RM_SUBKEY_ETH_SIPHASH, conf);
	if (ret == 0)
		rm_eth.tag_len = WIRE_TAG_LEN;
	return ret;
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

/* Counted; logged one line a second at most through @p l, all lcores
 * together: a flood of forged frames must not flood the log. The node is
 * what the unauthenticated header says, for the reader only. */
void
rm_tag_refused(struct rm_log_limit *l, const char *part, const char *what, bool keyed,
	       bool tagged, uint16_t src_node, uint64_t now)
{
	uint64_t quiet;

	rm_count_shared(&rm.st.bad_tag, 1);
	if (rm_log_allowed(l, now, &quiet))
		LCA_LOG(ERR, "remote%s: bad tag: %s%s (src_node %u by its header; dropped, counted"
			     " in bad_tag; %" PRIu64 " more not logged)\n",
			part, what, tag_why(keyed, tagged), src_node, quiet);
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
	rm_tag_refused(&rm_eth.tag_log, "", "", rm_eth.tag_len != 0, v->tag != NULL,
		       rte_be_to_cpu_16(v->hdr->src_node), now);
	return false;
}
