/* SPDX-License-Identifier: BSD-3-Clause */
/* The node table file (INI): see lca_remote_conf_load() and docs/wire.md. */
#define LCA_LOG_PART lca_logtype_remote
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "lca_eal.h"
#include "lca_remote_priv.h"
#include "lca_logtypes.h"

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int
num(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	if (*v == '\0' || *v == '-')
		return -EINVAL;
	*out = strtoul(v, &end, 0);
	if (errno != 0 || *end != '\0' || *out > max)
		return -EINVAL;
	return 0;
}

static int
mac(const char *v, uint8_t *out)
{
	unsigned int b[6];
	char tail;

	if (sscanf(v, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -EINVAL;
		out[i] = (uint8_t)b[i];
	}
	return 0;
}

static int
lcores(char *v, struct lca_remote_node *n)
{
	char *save = NULL;
	unsigned long l;

	n->n_lcores = 0;
	for (char *t = strtok_r(v, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (num(trim(t), RTE_MAX_LCORE - 1, &l) != 0 || n->n_lcores == LCA_REMOTE_MAX_LCORES)
			return -EINVAL;
		n->lcores[n->n_lcores++] = (uint16_t)l;
	}
	return n->n_lcores > 0 ? 0 : -EINVAL;
}

static int
top_key(struct lca_remote_conf *c, const char *k, char *v)
{
	unsigned long x = 0;
	int ret = 0;

	if (strcmp(k, "loopback") == 0) {
		c->loopback = strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
		return strcmp(v, "true") == 0 || strcmp(v, "false") == 0 || strcmp(v, "1") == 0 ||
				       strcmp(v, "0") == 0
			       ? 0
			       : -EINVAL;
	}
	if (strcmp(k, "transport") == 0) {
		if (strcmp(v, "ethdev") == 0)
			c->transport = LCA_REMOTE_ETHDEV;
		else if (strcmp(v, "ucx") == 0)
			c->transport = LCA_REMOTE_UCX;
		else
			return -EINVAL;
		return 0;
	}
	if (strcmp(k, "self") == 0) {
		ret = num(v, LCA_REMOTE_NODE_MAX - 1, &x);
		c->self = (uint16_t)x;
	} else if (strcmp(k, "window") == 0) {
		ret = num(v, 4096, &x);
		c->window = (unsigned int)x;
	} else if (strcmp(k, "rto_us") == 0) {
		ret = num(v, 10000000, &x);
		c->rto_us = (unsigned int)x;
	} else if (strcmp(k, "rto_max_us") == 0) {
		ret = num(v, 10000000, &x);
		c->rto_max_us = (unsigned int)x;
	} else if (strcmp(k, "max_retransmits") == 0) {
		ret = num(v, 1000000, &x);
		c->max_retransmits = (unsigned int)x;
	} else if (strcmp(k, "heartbeat_ms") == 0) {
		ret = num(v, 3600000, &x);
		c->heartbeat_ms = (unsigned int)x;
	} else if (strcmp(k, "dead_ms") == 0) {
		ret = num(v, 3600000, &x);
		c->dead_ms = (unsigned int)x;
	} else if (strcmp(k, "connect_ms") == 0) {
		ret = num(v, 3600000, &x);
		c->connect_ms = (unsigned int)x;
	} else if (strcmp(k, "mtu") == 0) {
		ret = num(v, 9000, &x);
		c->mtu = (unsigned int)x;
	} else {
		ret = -EINVAL;
	}
	return ret;
}

static int
node_key(struct lca_remote_node *n, const char *k, char *v)
{
	unsigned long x = 0;
	struct in_addr a;
	int ret = 0;

	if (strcmp(k, "mac") == 0) {
		ret = mac(v, n->mac);
	} else if (strcmp(k, "ip") == 0) {
		if (inet_pton(AF_INET, v, &a) != 1)
			return -EINVAL;
		n->ipv4 = ntohl(a.s_addr);
	} else if (strcmp(k, "udp_base") == 0) {
		ret = num(v, 65535 - RTE_MAX_LCORE, &x);
		n->udp_base = (uint16_t)x;
	} else if (strcmp(k, "port") == 0) {
		ret = num(v, RTE_MAX_ETHPORTS - 1, &x);
		n->port_id = (uint16_t)x;
	} else if (strcmp(k, "lcores") == 0) {
		ret = lcores(v, n);
	} else {
		ret = -EINVAL;
	}
	return ret;
}

int
lca_remote_conf_load(const char *path, struct lca_remote_conf *conf)
{
	struct lca_remote_node *node = NULL;
	char line[512];
	unsigned int no = 0;
	bool have_self = false;
	FILE *f;
	int ret = 0;

	if (path == NULL || conf == NULL)
		return -EINVAL;
	f = fopen(path, "r");
	if (f == NULL) {
		ret = -errno;
		LCA_LOG(ERR, "remote: node table %s: %s\n", path, strerror(errno));
		return ret;
	}
	memset(conf, 0, sizeof(*conf));
	while (ret == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *s, *eq, *hash;
		unsigned long id;

		no++;
		hash = strpbrk(line, "#;");
		if (hash != NULL)
			*hash = '\0';
		s = trim(line);
		if (*s == '\0')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (end == NULL || end[1] != '\0' || strncmp(s, "[node ", 6) != 0) {
				ret = -EINVAL;
				break;
			}
			*end = '\0';
			if (num(trim(s + 6), LCA_REMOTE_NODE_MAX - 1, &id) != 0 ||
			    conf->n_nodes == LCA_REMOTE_MAX_NODES) {
				ret = -EINVAL;
				break;
			}
			node = &conf->nodes[conf->n_nodes++];
			node->id = (uint16_t)id;
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL) {
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		if (node == NULL) {
			ret = top_key(conf, trim(s), trim(eq + 1));
			if (strcmp(trim(s), "self") == 0)
				have_self = true;
		} else {
			ret = node_key(node, trim(s), trim(eq + 1));
		}
	}
	fclose(f);
	if (ret != 0) {
		LCA_LOG(ERR, "remote: node table %s, line %u: not understood\n", path, no);
		return ret;
	}
	if (!have_self || conf->n_nodes == 0) {
		LCA_LOG(ERR, "remote: node table %s: needs self = N and a [node N] section each\n",
			path);
		return -EINVAL;
	}
	return 0;
}
