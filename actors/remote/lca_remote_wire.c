/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames: the decoder that checks every length before anything is read,
 * and the outer headers' writer. No state: the fuzz target drives these. */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "lca_remote.h"
#include "lca_remote_wire_priv.h"

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* An ask's or a reply's record of @p plen bytes: its id is all there, its
 * inline part fits before data[24..32), and it is not a fragment (the
 * large lane carries no id). */
static bool
id_check(uint16_t flags, uint32_t plen)
{
	if ((flags & WIRE_MSG_F_FRAG) || plen < WIRE_ID_LEN)
		return false;
	return (flags & WIRE_MSG_F_MBUF) || plen - WIRE_ID_LEN <= LCA_MSG_INLINE_ASK;
}

int
wire_records_check(const uint8_t *rec, uint32_t left, unsigned int n, bool large)
{
	for (unsigned int i = 0; i < n; i++) {
		uint32_t plen, rlen;
		uint16_t flags;

		if (left < WIRE_MSG_LEN)
			return -EBADMSG;
		plen = rd16(rec + 12);
		flags = rd16(rec + 14);
		rlen = wire_rec_len(plen);
		if (rlen > left)
			return -EBADMSG;
		if (flags & ~WIRE_MSG_F_KNOWN)
			return -EBADMSG;
		if ((flags & WIRE_MSG_F_ID) && !id_check(flags, plen))
			return -EBADMSG;
		/* A fragment: only in the large lane, after its header, within
		 * the message it says. */
		if (flags & WIRE_MSG_F_FRAG) {
			uint32_t total, off;

			if (!large || !(flags & WIRE_MSG_F_MBUF) || plen <= WIRE_FRAG_LEN)
				return -EBADMSG;
			total = rd32(rec + WIRE_MSG_LEN);
			off = rd32(rec + WIRE_MSG_LEN + 4);
			if (off >= total || total - off < plen - WIRE_FRAG_LEN)
				return -EBADMSG;
		} else if (large) {
			return -EBADMSG;
		}
		/* An inline payload fits an envelope; a larger one came from an
		 * mbuf and says so. */
		if (plen > LCA_MSG_INLINE && !(flags & WIRE_MSG_F_MBUF))
			return -EBADMSG;
		rec += rlen;
		left -= rlen;
	}
	/* Nothing may follow the last record (but the padding of a short frame,
	 * which is outside udp_len). */
	return left == 0 ? 0 : -EBADMSG;
}

uint32_t
wire_rec_write(uint8_t *dst, uint32_t to, uint32_t from, const struct lca_msg *msg)
{
	struct wire_msg *r = (struct wire_msg *)dst;
	const struct rte_mbuf *mb = NULL;
	uint8_t *payload = (uint8_t *)(r + 1);
	uint32_t plen = msg->len, id_len = wire_id_len(msg);
	uint16_t flags = 0;

	if (msg->flags & LCA_MSG_F_MBUF) {
		mb = msg->ptr;
		plen = mb->pkt_len;
		flags = WIRE_MSG_F_MBUF;
	}
	if (id_len != 0) {
		uint64_t id;

		memcpy(&id, &msg->data[LCA_MSG_INLINE_ASK], sizeof(id));
		id = rte_cpu_to_be_64(id);
		memcpy(payload, &id, sizeof(id));
		payload += WIRE_ID_LEN;
		flags |= (msg->flags & LCA_MSG_F_ASK) ? WIRE_MSG_F_ASK : 0;
		flags |= (msg->flags & LCA_MSG_F_REPLY) ? WIRE_MSG_F_REPLY : 0;
	}
	r->to = rte_cpu_to_be_32(to);
	r->from = rte_cpu_to_be_32(from);
	r->type = rte_cpu_to_be_32(msg->type);
	r->len = rte_cpu_to_be_16((uint16_t)(id_len + plen));
	r->flags = rte_cpu_to_be_16(flags);
	if (mb != NULL)
		rte_memcpy(payload, rte_pktmbuf_read(mb, 0, plen, payload), plen);
	else
		rte_memcpy(payload, msg->data, plen);
	return wire_rec_len(id_len + plen);
}

enum wire_err
wire_decode(const uint8_t *buf, uint32_t len, struct wire_view *v)
{
	const uint8_t *ip, *udp, *rec;
	uint32_t ip_len, ihl, udp_len, left;
	const struct wire_hdr *h;
	unsigned int n;

	if (buf == NULL || len < WIRE_OUTER_LEN + WIRE_HDR_LEN)
		return WIRE_SHORT;
	if (rd16(buf + 12) != 0x0800)
		return WIRE_NOT_IPV4;
	ip = buf + WIRE_ETH_LEN;
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	if ((ip[0] >> 4) != 4 || ihl < WIRE_IP_LEN)
		return WIRE_IP_BAD;
	ip_len = rd16(ip + 2);
	/* A frame may be padded past the IP datagram (short Ethernet frames),
	 * never cut short of it. */
	if (ip_len < ihl + WIRE_UDP_LEN + WIRE_HDR_LEN || ip_len > len - WIRE_ETH_LEN)
		return WIRE_IP_BAD;
	/* Fragments are not ours: the channel fragments large messages itself. */
	if ((rd16(ip + 6) & 0x3fff) != 0)
		return WIRE_IP_BAD;
	if (ip[9] != 17)
		return WIRE_NOT_UDP;
	udp = ip + ihl;
	udp_len = rd16(udp + 4);
	if (udp_len != ip_len - ihl)
		return WIRE_UDP_BAD;
	h = (const struct wire_hdr *)(udp + WIRE_UDP_LEN);
	if (h->version != WIRE_VERSION)
		return WIRE_VERSION_BAD;
	if ((h->flags & ~WIRE_F_KNOWN) != 0 || h->flags == 0)
		return WIRE_FLAGS_BAD;
	/* A sender that stops says so in a frame of its own. */
	if ((h->flags & WIRE_F_LEAVE) && (h->flags & (WIRE_F_DATA | WIRE_F_LARGE)))
		return WIRE_FLAGS_BAD;
	n = rd16((const uint8_t *)&h->n_msgs);
	rec = (const uint8_t *)h + WIRE_HDR_LEN;
	left = udp_len - WIRE_UDP_LEN - WIRE_HDR_LEN;
	/* Data frames carry at least one message, others none. */
	if (((h->flags & WIRE_F_DATA) != 0) != (n > 0))
		return WIRE_RECORDS_BAD;
	if ((h->flags & WIRE_F_DATA) && rd32((const uint8_t *)&h->seq) == 0)
		return WIRE_RECORDS_BAD;
	/* The tag is the datagram's last bytes: the records end before it. */
	v->tag = NULL;
	if (h->flags & WIRE_F_TAG) {
		if (left < WIRE_TAG_LEN)
			return WIRE_RECORDS_BAD;
		left -= WIRE_TAG_LEN;
		v->tag = rec + left;
	}
	v->hdr = h;
	v->msgs = rec;
	if (wire_records_check(rec, left, n, (h->flags & WIRE_F_LARGE) != 0) != 0)
		return WIRE_RECORDS_BAD;
	v->msgs_len = left;
	v->src_ip = rd32(ip + 12);
	v->dst_ip = rd32(ip + 16);
	v->src_port = rd16(udp);
	v->dst_port = rd16(udp + 2);
	v->src_mac = buf + 6;
	return WIRE_OK;
}

int
lca_remote_frame_check(const void *buf, uint32_t len, unsigned int *n_msgs)
{
	struct wire_view v;

	if (wire_decode(buf, len, &v) != WIRE_OK)
		return -EBADMSG;
	if (n_msgs != NULL)
		*n_msgs = rte_be_to_cpu_16(v.hdr->n_msgs);
	return 0;
}

void
wire_outer_write(uint8_t *buf, const uint8_t *src_mac, const uint8_t *dst_mac, uint32_t src_ip,
		 uint32_t dst_ip, uint16_t src_port, uint16_t dst_port, uint32_t udp_payload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + WIRE_ETH_LEN);
	uint8_t *udp = buf + WIRE_ETH_LEN + WIRE_IP_LEN;
	uint16_t ulen = (uint16_t)(WIRE_UDP_LEN + udp_payload);

	memcpy(buf, dst_mac, 6);
	memcpy(buf + 6, src_mac, 6);
	buf[12] = 0x08;
	buf[13] = 0x00;
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(WIRE_IP_LEN + ulen));
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = 17;
	ip->src_addr = rte_cpu_to_be_32(src_ip);
	ip->dst_addr = rte_cpu_to_be_32(dst_ip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp[0] = (uint8_t)(src_port >> 8);
	udp[1] = (uint8_t)src_port;
	udp[2] = (uint8_t)(dst_port >> 8);
	udp[3] = (uint8_t)dst_port;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	/* No UDP checksum (allowed in IPv4): the channel's sequence numbers and
	 * lengths are checked, and a NIC's Ethernet CRC guards the bytes. */
	udp[6] = 0;
	udp[7] = 0;
}
