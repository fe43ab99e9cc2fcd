/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node table file (INI): see lca_remote_conf_load() and docs/wire.md.
 * DPDK's own parser reads it (rte_cfgfile, as DPDK's sample apps read
 * theirs) and rte_ether_unformat_addr() its MAC addresses; this file only
 * checks what each key means. Every refusal is one log line naming the
 * file, the section and the key.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_cfgfile.h>
#include <rte_ether.h>

#include "lca_eal.h"
#include "lca_remote_priv.h"
#include "lca_logtypes_priv.h"

/* rte_cfgfile takes one comment character: it strips '#'; this file
 * strips ';' (both start comments, as before rte_cfgfile read the table). */
#define RC_COMMENT_DPDK '#'
#define RC_COMMENT_OURS ';'

/* Where a value comes from, for the log lines. */
struct rc_ctx {
	const char *path;
	char where[CFG_NAME_LEN + 8]; /* "top level" or "[node 2]" */
	struct lca_remote_conf *conf;
	bool have_self;
	uint32_t seen[LCA_REMOTE_MAX_NODES]; /* node keys given, RC_K_* bits */
};

#define RC_ERR(x, key, fmt, ...)                                                                \
	LCA_LOG(ERR, "remote: node table %s, %s, %s: " fmt "\n", (x)->path, (x)->where, key,    \
		##__VA_ARGS__)

/* The keys of a [node N] section, in the order of their bits below. */
static const char *const rc_node_keys[] = { "mac", "ip", "udp_base", "port", "lcores" };

enum {
	RC_K_MAC = 1u << 0,
	RC_K_IP = 1u << 1,
	RC_K_UDP = 1u << 2,
	RC_K_PORT = 1u << 3,
	RC_K_LCORES = 1u << 4,
};

/*
 * A decimal number from @p min to @p max. Leading zeros are decimal
 * (07000 is 7000, never octal 3584); 0x is refused rather than read as a
 * number the reader did not mean.
 */
static int
rc_num(const struct rc_ctx *x, const char *key, const char *v, unsigned long min,
       unsigned long max, unsigned long *out)
{
	char *end;

	if (v[0] == '\0') {
		RC_ERR(x, key, "no number");
		return -EINVAL;
	}
	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		RC_ERR(x, key, "'%s': hexadecimal is refused, numbers are decimal", v);
		return -EINVAL;
	}
	for (const char *c = v; *c != '\0'; c++)
		if (!isdigit((unsigned char)*c)) {
			RC_ERR(x, key, "'%s' is not a decimal number", v);
			return -EINVAL;
		}
	errno = 0;
	*out = strtoul(v, &end, 10);
	if (errno != 0 || *out < min || *out > max) {
		RC_ERR(x, key, "'%s' is not in %lu .. %lu", v, min, max);
		return -EINVAL;
	}
	return 0;
}

/* A unicast Ethernet address: an all-zero or group address would start a
 * link that sends frames nobody takes. */
static int
rc_mac(const struct rc_ctx *x, const char *v, uint8_t *out)
{
	struct rte_ether_addr a;

	if (rte_ether_unformat_addr(v, &a) != 0) {
		RC_ERR(x, "mac", "'%s' is not an Ethernet address (XX:XX:XX:XX:XX:XX)", v);
		return -EINVAL;
	}
	if (!rte_is_valid_assigned_ether_addr(&a)) {
		RC_ERR(x, "mac", "'%s' is not a unicast address (zero or group)", v);
		return -EINVAL;
	}
	memcpy(out, a.addr_bytes, RTE_ETHER_ADDR_LEN);
	return 0;
}

/* A unicast IPv4 address in dotted decimal (inet_pton() takes no octal). */
static int
rc_ip(const struct rc_ctx *x, const char *v, uint32_t *out)
{
	struct in_addr a;
	uint32_t h;

	if (inet_pton(AF_INET, v, &a) != 1) {
		RC_ERR(x, "ip", "'%s' is not an IPv4 address (a.b.c.d, decimal)", v);
		return -EINVAL;
	}
	h = ntohl(a.s_addr);
	if (h == 0 || h >= 0xe0000000u) {
		RC_ERR(x, "ip", "'%s' is not a unicast address", v);
		return -EINVAL;
	}
	*out = h;
	return 0;
}

/* One lcore of list @p v: the text from @p t to @p end, spaces trimmed. */
static int
rc_lcore(const struct rc_ctx *x, const char *v, const char *t, const char *end, unsigned long *l)
{
	char tok[16];

	while (t < end && isspace((unsigned char)*t))
		t++;
	while (end > t && isspace((unsigned char)end[-1]))
		end--;
	if (t == end) {
		RC_ERR(x, "lcores", "an empty item in '%s'", v);
		return -EINVAL;
	}
	if ((size_t)(end - t) >= sizeof(tok)) {
		RC_ERR(x, "lcores", "'%.*s' is not an lcore", (int)(end - t), t);
		return -EINVAL;
	}
	memcpy(tok, t, (size_t)(end - t));
	tok[end - t] = '\0';
	return rc_num(x, "lcores", tok, 0, RTE_MAX_LCORE - 1, l);
}

/* A comma-separated list of distinct lcores; an empty item ("1,,2", "1,")
 * is refused, not skipped. */
static int
rc_lcores(const struct rc_ctx *x, const char *v, struct lca_remote_node *n)
{
	const char *t = v;
	unsigned long l;

	n->n_lcores = 0;
	for (;;) {
		const char *comma = strchr(t, ',');
		const char *end = comma != NULL ? comma : t + strlen(t);

		if (rc_lcore(x, v, t, end, &l) != 0)
			return -EINVAL;
		if (n->n_lcores == LCA_REMOTE_MAX_LCORES) {
			RC_ERR(x, "lcores", "more than %u lcores", LCA_REMOTE_MAX_LCORES);
			return -EINVAL;
		}
		for (unsigned int i = 0; i < n->n_lcores; i++)
			if (n->lcores[i] == l) {
				RC_ERR(x, "lcores", "lcore %lu twice", l);
				return -EINVAL;
			}
		n->lcores[n->n_lcores++] = (uint16_t)l;
		if (comma == NULL)
			return 0;
		t = comma + 1;
	}
}

/* The top level's unsigned settings, with their ranges (a 0 takes the
 * default where lca_remote_conf says so). */
static const struct rc_uint {
	const char *key;
	size_t off;
	unsigned long max;
} rc_uints[] = {
	{ "window", offsetof(struct lca_remote_conf, window), 4096 },
	{ "rto_us", offsetof(struct lca_remote_conf, rto_us), 10000000 },
	{ "rto_max_us", offsetof(struct lca_remote_conf, rto_max_us), 10000000 },
	{ "max_retransmits", offsetof(struct lca_remote_conf, max_retransmits), 1000000 },
	{ "heartbeat_ms", offsetof(struct lca_remote_conf, heartbeat_ms), 3600000 },
	{ "dead_ms", offsetof(struct lca_remote_conf, dead_ms), 3600000 },
	{ "connect_ms", offsetof(struct lca_remote_conf, connect_ms), 3600000 },
	{ "mtu", offsetof(struct lca_remote_conf, mtu), 9000 },
};

static int
rc_bool(const struct rc_ctx *x, const char *key, const char *v, bool *out)
{
	if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
		*out = true;
	else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
		*out = false;
	else {
		RC_ERR(x, key, "'%s' is not true, false, 1 or 0", v);
		return -EINVAL;
	}
	return 0;
}

/* The frame key: exactly 64 hex digits (32 bytes), nothing else; the
 * value is never logged (it is a secret). */
static int
rc_key(const struct rc_ctx *x, const char *v, struct lca_remote_conf *c)
{
	size_t n = strlen(v);

	if (n != 2 * LCA_REMOTE_KEY_LEN) {
		RC_ERR(x, "key", "%zu characters: the key is %u hex digits (%u bytes)", n,
		       2 * LCA_REMOTE_KEY_LEN, LCA_REMOTE_KEY_LEN);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < LCA_REMOTE_KEY_LEN; i++) {
		char b[3] = { v[2 * i], v[2 * i + 1], '\0' };

		if (!isxdigit((unsigned char)b[0]) || !isxdigit((unsigned char)b[1])) {
			RC_ERR(x, "key", "character %u is not a hex digit (0-9, a-f)",
			       isxdigit((unsigned char)b[0]) ? 2 * i + 2 : 2 * i + 1);
			return -EINVAL;
		}
		c->key[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	c->has_key = true;
	return 0;
}

static int
rc_top_key(struct rc_ctx *x, const char *k, const char *v)
{
	struct lca_remote_conf *c = x->conf;
	unsigned long n;
	int ret;

	if (strcmp(k, "loopback") == 0)
		return rc_bool(x, k, v, &c->loopback);
	if (strcmp(k, "key") == 0)
		return rc_key(x, v, c);
	if (strcmp(k, "transport") == 0) {
		if (strcmp(v, "ethdev") == 0)
			c->transport = LCA_REMOTE_ETHDEV;
		else if (strcmp(v, "ucx") == 0)
			c->transport = LCA_REMOTE_UCX;
		else {
			RC_ERR(x, k, "'%s' is not ethdev or ucx", v);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(k, "self") == 0) {
		ret = rc_num(x, k, v, 0, LCA_REMOTE_NODE_MAX - 1, &n);
		c->self = (uint16_t)n;
		x->have_self = ret == 0;
		return ret;
	}
	for (unsigned int i = 0; i < RTE_DIM(rc_uints); i++) {
		if (strcmp(k, rc_uints[i].key) != 0)
			continue;
		ret = rc_num(x, k, v, 0, rc_uints[i].max, &n);
		*(unsigned int *)((char *)c + rc_uints[i].off) = (unsigned int)n;
		return ret;
	}
	RC_ERR(x, k, "no such key at the top level (self, loopback, transport, key, window, "
		     "rto_us, rto_max_us, max_retransmits, heartbeat_ms, dead_ms, connect_ms, mtu)");
	return -EINVAL;
}

/* Key @p k of node @p n (its bits in @p seen). */
static int
rc_node_key(const struct rc_ctx *x, struct lca_remote_node *n, uint32_t *seen, const char *k,
	    const char *v)
{
	unsigned long num;
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(rc_node_keys) && strcmp(k, rc_node_keys[i]) != 0; i++)
		;
	if (i == RTE_DIM(rc_node_keys)) {
		RC_ERR(x, k, "no such key in a node section (mac, ip, udp_base, port, lcores; "
			     "the top level's keys go before the first section)");
		return -EINVAL;
	}
	if (*seen & (1u << i)) {
		RC_ERR(x, k, "given twice");
		return -EINVAL;
	}
	*seen |= 1u << i;
	switch (1u << i) {
	case RC_K_MAC:
		return rc_mac(x, v, n->mac);
	case RC_K_IP:
		return rc_ip(x, v, &n->ipv4);
	case RC_K_UDP:
		/* Lcore L listens on udp_base + L: every lcore's port fits. */
		ret = rc_num(x, k, v, 1, 65535 - RTE_MAX_LCORE, &num);
		n->udp_base = (uint16_t)num;
		return ret;
	case RC_K_PORT:
		ret = rc_num(x, k, v, 0, RTE_MAX_ETHPORTS - 1, &num);
		n->port_id = (uint16_t)num;
		return ret;
	default:
		return rc_lcores(x, v, n);
	}
}

/* "node N" (any space between): a new node in the conf, or -EINVAL. */
static int
rc_section(struct rc_ctx *x, const char *name, struct lca_remote_node **out)
{
	struct lca_remote_conf *c = x->conf;
	const char *id = name + 4;
	unsigned long n;

	snprintf(x->where, sizeof(x->where), "[%s]", name);
	if (strncmp(name, "node", 4) != 0 || !isspace((unsigned char)*id)) {
		LCA_LOG(ERR, "remote: node table %s: section [%s]: only [node N] sections\n",
			x->path, name);
		return -EINVAL;
	}
	while (isspace((unsigned char)*id))
		id++;
	if (rc_num(x, "its node id", id, 0, LCA_REMOTE_NODE_MAX - 1, &n) != 0)
		return -EINVAL;
	snprintf(x->where, sizeof(x->where), "[node %lu]", n);
	for (unsigned int i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].id == n) {
			LCA_LOG(ERR, "remote: node table %s: [node %lu] twice\n", x->path, n);
			return -EINVAL;
		}
	if (c->n_nodes == LCA_REMOTE_MAX_NODES) {
		LCA_LOG(ERR, "remote: node table %s: more than %u nodes\n", x->path,
			LCA_REMOTE_MAX_NODES);
		return -EINVAL;
	}
	*out = &c->nodes[c->n_nodes++];
	(*out)->id = (uint16_t)n;
	return 0;
}

/* Entry @p e's value without a ';' comment; NULL for a ';' comment line
 * that holds a '=' (rte_cfgfile took it for an entry). */
static const char *
rc_value(const struct rc_ctx *x, struct rte_cfgfile_entry *e, int *err)
{
	char *semi = strchr(e->value, RC_COMMENT_OURS);

	*err = 0;
	if (e->name[0] == RC_COMMENT_OURS)
		return NULL;
	/* rte_cfgfile cuts longer values to CFG_VALUE_LEN - 1 bytes, unsaid. */
	if (strlen(e->value) >= CFG_VALUE_LEN - 1) {
		RC_ERR(x, e->name, "value too long (%d bytes at most)", CFG_VALUE_LEN - 2);
		*err = -EINVAL;
		return NULL;
	}
	if (semi != NULL)
		*semi = '\0';
	for (char *end = e->value + strlen(e->value);
	     end > e->value && isspace((unsigned char)end[-1]);)
		*--end = '\0';
	if (e->value[0] == '\0') {
		RC_ERR(x, e->name, "no value");
		*err = -EINVAL;
	}
	return *err == 0 ? e->value : NULL;
}

/* Section @p index of @p cfg: the top level (0) or a node. */
static int
rc_read_section(struct rc_ctx *x, struct rte_cfgfile *cfg, int index)
{
	char name[CFG_NAME_LEN];
	struct lca_remote_node *node = NULL;
	struct rte_cfgfile_entry *e;
	int n, ret = 0;

	n = rte_cfgfile_section_num_entries_by_index(cfg, name, index);
	if (n < 0)
		return -EINVAL;
	if (index == 0)
		snprintf(x->where, sizeof(x->where), "top level");
	else if (rc_section(x, name, &node) != 0)
		return -EINVAL;
	e = calloc((size_t)n + 1, sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	n = rte_cfgfile_section_entries_by_index(cfg, index, name, e, n);
	for (int i = 0; i < n && ret == 0; i++) {
		const char *v = rc_value(x, &e[i], &ret);

		if (v == NULL)
			continue;
		if (node == NULL)
			ret = rc_top_key(x, e[i].name, v);
		else
			ret = rc_node_key(x, node, &x->seen[x->conf->n_nodes - 1], e[i].name, v);
	}
	free(e);
	return ret;
}

/* What the transport uses of each node, and a peer to reach. */
static int
rc_check(const struct rc_ctx *x)
{
	const struct lca_remote_conf *c = x->conf;
	bool ucx = c->transport == LCA_REMOTE_UCX, self = false;
	/* ethdev frames carry both nodes' MAC and IPv4 and UDP ports; UCX
	 * listens and connects on ip:udp_base + L. */
	uint32_t need = ucx ? RC_K_IP | RC_K_UDP : RC_K_MAC | RC_K_IP | RC_K_UDP;

	if (!x->have_self || c->n_nodes == 0) {
		LCA_LOG(ERR, "remote: node table %s: needs self = N and a [node N] section each\n",
			x->path);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < c->n_nodes; i++) {
		const struct lca_remote_node *n = &c->nodes[i];
		uint32_t want = need;

		self |= n->id == c->self;
		/* This node's own lcores are the runtime's, unless it is its
		 * own peer. */
		if (n->id != c->self || c->loopback)
			want |= RC_K_LCORES;
		for (unsigned int k = 0; k < RTE_DIM(rc_node_keys); k++) {
			if (!((want & ~x->seen[i]) & (1u << k)))
				continue;
			if ((1u << k) == RC_K_LCORES)
				LCA_LOG(ERR, "remote: node table %s, [node %u]: no lcores (a peer's "
					     "lcores take its frames)\n",
					x->path, n->id);
			else
				LCA_LOG(ERR, "remote: node table %s, [node %u]: no %s (needed with "
					     "transport = %s)\n",
					x->path, n->id, rc_node_keys[k], ucx ? "ucx" : "ethdev");
			return -EINVAL;
		}
	}
	if (!self) {
		LCA_LOG(ERR, "remote: node table %s: self = %u, and no [node %u] section\n",
			x->path, c->self, c->self);
		return -EINVAL;
	}
	if (c->n_nodes == 1 && !c->loopback) {
		LCA_LOG(ERR, "remote: node table %s: no peer, only this node (%u): a [node N] "
			     "section for each peer, or loopback = true\n",
			x->path, c->self);
		return -EINVAL;
	}
	return 0;
}

int
lca_remote_conf_load(const char *path, struct lca_remote_conf *conf)
{
	static const struct rte_cfgfile_parameters params = {
		.comment_character = RC_COMMENT_DPDK,
	};
	struct rc_ctx *x;
	struct rte_cfgfile *cfg;
	FILE *f;
	int n, ret = 0;

	if (path == NULL || conf == NULL)
		return -EINVAL;
	/* rte_cfgfile says nothing of why it could not open the file. */
	f = fopen(path, "r");
	if (f == NULL) {
		ret = -errno;
		LCA_LOG(ERR, "remote: node table %s: %s\n", path, strerror(errno));
		return ret;
	}
	fclose(f);
	cfg = rte_cfgfile_load_with_params(path, CFG_FLAG_GLOBAL_SECTION, &params);
	if (cfg == NULL) {
		LCA_LOG(ERR, "remote: node table %s: not an INI file rte_cfgfile reads (its line "
			     "above says which line)\n",
			path);
		return -EINVAL;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		rte_cfgfile_close(cfg);
		return -ENOMEM;
	}
	x->path = path;
	x->conf = conf;
	memset(conf, 0, sizeof(*conf));
	n = rte_cfgfile_num_sections(cfg, NULL, 0);
	/* Section 0 is the top level (CFG_FLAG_GLOBAL_SECTION): the transport
	 * is known before the nodes are checked. */
	for (int i = 0; i < n && ret == 0; i++)
		ret = rc_read_section(x, cfg, i);
	if (ret == 0)
		ret = rc_check(x);
	rte_cfgfile_close(cfg);
	free(x);
	return ret;
}
