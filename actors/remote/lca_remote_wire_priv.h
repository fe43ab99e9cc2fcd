/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REMOTE_WIRE_PRIV_H
#define LCA_REMOTE_WIRE_PRIV_H

/* The frame layout of docs/wire.md, the ethdev transport's: Ethernet, IPv4
 * (no options), UDP, the channel header, then packed message records
 * (lca_remote_record_priv.h). Every multi-byte field is in network byte order. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "lca_remote_record_priv.h"

/* 3: the header says which session of the receiver the sender heard
 * (peer_session), so that a node's answer to a new session is not taken for
 * a restart in turn (docs/wire.md, "Rejoin"). A version-2 peer would read
 * every answer as a restart, so the two do not talk at all. (2: records may
 * carry an ask's or a reply's id.) */
#define WIRE_VERSION 3

#define WIRE_ETH_LEN 14
#define WIRE_IP_LEN 20
#define WIRE_UDP_LEN 8
#define WIRE_OUTER_LEN (WIRE_ETH_LEN + WIRE_IP_LEN + WIRE_UDP_LEN)

/* Channel header flags. */
#define WIRE_F_DATA 0x01      /* seq numbers a data frame, messages follow */
#define WIRE_F_ACK 0x02       /* ack and credit are valid */
#define WIRE_F_NAK 0x04       /* nak names the first missing frame */
#define WIRE_F_HEARTBEAT 0x08 /* sent because the channel was quiet */
#define WIRE_F_LARGE 0x10     /* of the large-message lane (its own seq, ack, credit) */
#define WIRE_F_TAG 0x20       /* a WIRE_TAG_LEN-byte tag follows the last record */
#define WIRE_F_LEAVE 0x40     /* the sender stops: its session ends (no data) */
#define WIRE_F_KNOWN                                                                               \
	(WIRE_F_DATA | WIRE_F_ACK | WIRE_F_NAK | WIRE_F_HEARTBEAT | WIRE_F_LARGE | WIRE_F_TAG |   \
	 WIRE_F_LEAVE)

/* The tag of a keyed node's frames (docs/wire.md, "Trust model"): SipHash-2-4
 * of every byte before it, the Ethernet header on. */
#define WIRE_TAG_LEN 8

struct wire_hdr {
	uint8_t version;
	uint8_t flags;
	uint16_t n_msgs;
	uint16_t src_node;
	uint16_t dst_node;
	uint32_t seq;
	uint32_t ack;
	uint32_t credit;
	uint32_t nak;
	uint32_t session;
	uint32_t sack;    /* with NAK: bit i set when frame nak + 1 + i arrived (a
			   * version-1 peer that does not fill it sends 0: only
			   * nak is resent, as before) */
	uint32_t peer_session; /* the receiver's session the sender heard in
				* its epoch of it; 0: none heard yet */
} __rte_packed;

#define WIRE_HDR_LEN 36
_Static_assert(sizeof(struct wire_hdr) == WIRE_HDR_LEN, "channel header is 36 bytes");

/* What the decoder found in a well-formed frame. */
struct wire_view {
	const struct wire_hdr *hdr;
	const uint8_t *msgs;   /* first record */
	uint32_t msgs_len;     /* bytes of records */
	uint32_t src_ip, dst_ip;   /* host order */
	uint16_t src_port, dst_port; /* host order */
	const uint8_t *src_mac;
	const uint8_t *tag;    /* with WIRE_F_TAG: the tag, after the last record
				* (the frame's bytes before it are what it covers);
				* else NULL */
};

/* Why a frame was refused (counted, see struct lca_remote_stats). */
enum wire_err {
	WIRE_OK = 0,
	WIRE_SHORT,
	WIRE_NOT_IPV4,
	WIRE_IP_BAD,
	WIRE_NOT_UDP,
	WIRE_UDP_BAD,
	WIRE_VERSION_BAD,
	WIRE_FLAGS_BAD,
	WIRE_RECORDS_BAD,
};

/* Check every length of the frame in @p buf; fill @p v. No state. */
enum wire_err wire_decode(const uint8_t *buf, uint32_t len, struct wire_view *v);

/* Write the Ethernet, IPv4 and UDP headers for a frame of @p udp_payload
 * bytes after the UDP header. */
void wire_outer_write(uint8_t *buf, const uint8_t *src_mac, const uint8_t *dst_mac,
		      uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port,
		      uint32_t udp_payload);

#endif /* LCA_REMOTE_WIRE_PRIV_H */
