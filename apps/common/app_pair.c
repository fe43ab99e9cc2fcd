/* SPDX-License-Identifier: BSD-3-Clause */
/* Two (to four) processes of one app, started by one command (app_pair.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "app_main.h"
#include "app_pair.h"

extern char **environ;

/* UCX listeners take TCP ports from here, below the kernel's ephemeral range. */
#define UCX_PORT_LOW 10000

static char *
dup_str(const char *s)
{
	char *d = strdup(s);

	if (d == NULL) {
		perror("strdup");
		exit(1);
	}
	return d;
}

static struct app_pair *owner;

static void
add(char **v, int *n, const char *s)
{
	if (*n < APP_PAIR_MAX_ARGS - 1 && owner->n_owned < (int)RTE_DIM(owner->owned)) {
		v[(*n)++] = dup_str(s);
		v[*n] = NULL;
		owner->owned[owner->n_owned++] = v[*n - 1];
	}
}

void
app_pair_release(struct app_pair *p)
{
	for (int i = 0; i < p->n_owned; i++)
		free(p->owned[i]);
	p->n_owned = 0;
}

/* Run a shell command quietly; its exit status. */
static __attribute__((noinline)) int
sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), fmt, a, b, a, b, a, b);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Move this (still single-threaded) process into network namespace @p ns. */
static int
enter_netns(const char *ns)
{
	char path[160];
	int fd, ret;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = setns(fd, CLONE_NEWNET) == 0 ? 0 : -errno;
	close(fd);
	return ret;
}

/*
 * af_packet: two network namespaces NAMEa and NAMEb joined by a veth pair
 * of the same names, made here and removed by app_pair_finish(). With
 * @p netem, the veth ends get tc netem loss, reorder and duplicate 1%.
 */
static int
veth_pair_make(struct app_pair *p)
{
	const char *n = p->sock;

	if (sh("ip netns add %sa 2>/dev/null && ip netns add %sb 2>/dev/null", n, n) != 0) {
		printf("af_packet: network namespaces cannot be made here (ip netns add failed: "
		       "not root, or no CAP_SYS_ADMIN): skipped\n");
		sh("ip netns del %sa 2>/dev/null; ip netns del %sb 2>/dev/null; true", n, n);
		return -EPERM;
	}
	p->netns_made = true;
	if (sh("ip link add %sa type veth peer name %sb && ip link set %sa netns %sa && "
	       "ip link set %sb netns %sb",
	       n, n) != 0 ||
	    sh("ip -n %sa link set %sa up && ip -n %sb link set %sb up", n, n) != 0) {
		printf("af_packet: the veth pair cannot be made: skipped\n");
		return -EPERM;
	}
	/* No IPv6 chatter on the link: only our frames. */
	sh("ip netns exec %sa sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null; "
	   "ip netns exec %sb sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null; true",
	   n, n);
	if (p->netem) {
		if (sh("ip netns exec %sa tc qdisc add dev %sa root netem loss 1%% reorder 1%% "
		       "duplicate 1%% delay 20us 2>/dev/null && ip netns exec %sb tc qdisc add dev "
		       "%sb root netem loss 1%% reorder 1%% duplicate 1%% delay 20us 2>/dev/null",
		       n, n) == 0) {
			p->netem_on = true;
			printf("af_packet: tc netem loss 1%% reorder 1%% duplicate 1%% on both veth "
			       "ends\n");
		} else {
			printf("af_packet: tc netem is not available in this kernel (sch_netem): the "
			       "same faults come from lcactor's injector instead (1%% each, both "
			       "sides)\n");
		}
	}
	return 0;
}

/* Where "--", "--remote T", "--pair-peer L", "--start-order O",
 * "--remote-nodes N" and "--pair-node K" are in argv; -1 if not. */
struct pair_words {
	int dd, remote, peer, order, nodes, node;
};

static struct pair_words
find_words(int argc, char **argv, struct app_pair *p)
{
	struct pair_words w = { -1, -1, -1, -1, -1, -1 };

	for (int i = 1; i < argc; i++) {
		if (w.dd < 0 && strcmp(argv[i], "--") == 0)
			w.dd = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--remote") == 0 && i + 1 < argc)
			w.remote = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--pair-peer") == 0 && i + 1 < argc)
			w.peer = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--start-order") == 0 && i + 1 < argc)
			w.order = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--remote-nodes") == 0 && i + 1 < argc)
			w.nodes = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--pair-node") == 0 && i + 1 < argc)
			w.node = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--jumbo") == 0)
			p->jumbo = true;
		else if (w.dd >= 0 && strcmp(argv[i], "--netem") == 0)
			p->netem = true;
		else if (w.dd >= 0 && strcmp(argv[i], "--pair-netem-on") == 0)
			p->netem_on = true;
	}
	return w;
}

static bool
is_transport(const char *t)
{
	return strcmp(t, "memif") == 0 || strcmp(t, "ring") == 0 || strcmp(t, "af_packet") == 0 ||
	       strcmp(t, "ucx") == 0;
}

/* The link's name: node 2 is given it ("--pair-peer SOCKET:LCORES"); node 1
 * makes it from its pid: a memif socket, a veth pair, a UCX port base. */
static int
name_link(struct app_pair *p, char **argv, const struct pair_words *w, const char *peer_lcores)
{
	if (p->is_peer) {
		char *colon = strrchr(argv[w->peer + 1], ':');

		if (colon == NULL)
			return -EINVAL;
		snprintf(p->peer_lcores, sizeof(p->peer_lcores), "%s", colon + 1);
		snprintf(p->sock, sizeof(p->sock), "%.*s", (int)(colon - argv[w->peer + 1]),
			 argv[w->peer + 1]);
		return 0;
	}
	snprintf(p->peer_lcores, sizeof(p->peer_lcores), "%s", peer_lcores);
	if (strcmp(p->transport, "af_packet") == 0)
		snprintf(p->sock, sizeof(p->sock), "lca%d", (int)getpid() % 1000000);
	else if (strcmp(p->transport, "ucx") == 0)
		/* The TCP port base of node 1's listeners (node K's is 20 (K - 1)
		 * up), 100 a process. */
		snprintf(p->sock, sizeof(p->sock), "%d", UCX_PORT_LOW + (int)getpid() % 200 * 100);
	else if (p->n_nodes > 2)
		/* A socket a pair of nodes: this, then "-LO-HI.sock". */
		snprintf(p->sock, sizeof(p->sock), "/tmp/lca-pair-%d", (int)getpid());
	else
		snprintf(p->sock, sizeof(p->sock), "/tmp/lca-pair-%d.sock", (int)getpid());
	return 0;
}

/* af_packet: node 1 makes the veth pair; each node enters its namespace. */
static int
enter_link_netns(struct app_pair *p, const char *prog)
{
	char ns[120];
	int ret;

	if (strcmp(p->transport, "af_packet") != 0)
		return 0;
	if (!p->is_peer && veth_pair_make(p) != 0)
		return -EPERM;
	snprintf(ns, sizeof(ns), "%s%c", p->sock, p->is_peer ? 'b' : 'a');
	ret = enter_netns(ns);
	if (ret != 0)
		fprintf(stderr, "%s: cannot enter network namespace %s: %s\n", prog, ns,
			strerror(-ret));
	return ret;
}

/* The memif socket between nodes @p a and @p b of more than two. */
static void
pair_sock(char *out, size_t len, const struct app_pair *p, unsigned int a, unsigned int b)
{
	snprintf(out, len, "%s-%u-%u.sock", p->sock, RTE_MIN(a, b), RTE_MAX(a, b));
}

/* "--vdev X" of node @p node's ends of the links, one a peer in node
 * order (its port id, app_pair_conf()), over memif: the lower node of a
 * pair its server. */
static void
add_mesh_vdevs(char **v, int *n, const struct app_pair *p, unsigned int node)
{
	unsigned int port = 0;

	for (unsigned int j = 1; j <= p->n_nodes; j++) {
		char vdev[256], sock[128];

		if (j == node)
			continue;
		pair_sock(sock, sizeof(sock), p, node, j);
		snprintf(vdev, sizeof(vdev),
			 "net_memif%u,role=%s,socket=%s,socket-abstract=no,id=0%s", port++,
			 node < j ? "server" : "client", sock, p->jumbo ? ",bsize=9216" : "");
		add(v, n, "--vdev");
		add(v, n, vdev);
	}
}

/* "--vdev X" of node @p node's ethdev end of the link; none for UCX. */
static void
add_vdev(char **v, int *n, const struct app_pair *p, unsigned int node)
{
	bool peer = node != 1;
	char vdev[256];

	if (p->n_nodes > 2 && strcmp(p->transport, "memif") == 0) {
		add_mesh_vdevs(v, n, p, node);
		return;
	}
	if (strcmp(p->transport, "memif") == 0)
		snprintf(vdev, sizeof(vdev), "net_memif0,role=%s,socket=%s,socket-abstract=no,id=0%s",
			 peer ? "client" : "server", p->sock, p->jumbo ? ",bsize=9216" : "");
	else if (strcmp(p->transport, "af_packet") == 0)
		snprintf(vdev, sizeof(vdev), "net_af_packet0,iface=%s%c,qpairs=1", p->sock,
			 peer ? 'b' : 'a');
	else if (strcmp(p->transport, "ring") == 0 && !peer)
		snprintf(vdev, sizeof(vdev), "net_ring_pair0");
	else
		return;
	add(v, n, "--vdev");
	add(v, n, vdev);
}

/* Peer @p node: the same EAL arguments but its own lcores, prefix and
 * vdev, the same app arguments, and "--pair-peer SOCKET:LCORES" of node 1
 * ("--pair-node K" too when there are more than two). */
static void
build_peer_argv(struct app_pair *p, unsigned int node)
{
	int argc = p->orig_argc, dd = p->dd;
	char **argv = p->orig_argv;
	char word[256];

	p->child_argc = 0;
	if (p->self_lcores[0] == '\0') {
		add(p->child_argv, &p->child_argc, argv[0]);
		add(p->child_argv, &p->child_argc, "-l");
		add(p->child_argv, &p->child_argc, p->peer_lcores);
	}
	for (int i = p->self_lcores[0] == '\0' ? 1 : 0; i < dd; i++) {
		if (strcmp(argv[i], "-l") == 0 && i + 1 < dd) {
			add(p->child_argv, &p->child_argc, "-l");
			add(p->child_argv, &p->child_argc, p->peer_lcores);
			i++;
		} else if (strcmp(argv[i], "--file-prefix") == 0 && i + 1 < dd) {
			i++;
		} else {
			add(p->child_argv, &p->child_argc, argv[i]);
		}
	}
	if (node == 2)
		snprintf(word, sizeof(word), "%s-peer", p->prefix);
	else
		snprintf(word, sizeof(word), "%s-peer%u", p->prefix, node);
	add(p->child_argv, &p->child_argc, "--file-prefix");
	add(p->child_argv, &p->child_argc, word);
	add_vdev(p->child_argv, &p->child_argc, p, node);
	for (int i = dd; i < argc; i++)
		add(p->child_argv, &p->child_argc, argv[i]);
	snprintf(word, sizeof(word), "%s:%s", p->sock, p->self_lcores[0] ? p->self_lcores : "0");
	add(p->child_argv, &p->child_argc, "--pair-peer");
	add(p->child_argv, &p->child_argc, word);
	if (p->n_nodes > 2) {
		snprintf(word, sizeof(word), "%u", node);
		add(p->child_argv, &p->child_argc, "--pair-node");
		add(p->child_argv, &p->child_argc, word);
	}
	if (p->netem_on)
		add(p->child_argv, &p->child_argc, "--pair-netem-on");
}

/* "--remote-nodes N" (node 1) and "--pair-node K" (a peer): how many
 * processes, and which this one is. */
static int
nodes_read(struct app_pair *p, char **argv, const struct pair_words *w)
{
	char *end;

	p->n_nodes = 2;
	if (w->nodes >= 0) {
		unsigned long n = strtoul(argv[w->nodes + 1], &end, 10);

		if (*end != '\0' || n < 2 || n > APP_PAIR_MAX_NODES) {
			fprintf(stderr, "%s: --remote-nodes %s: 2 to %u processes\n", argv[0],
				argv[w->nodes + 1], APP_PAIR_MAX_NODES);
			return -EINVAL;
		}
		p->n_nodes = (unsigned int)n;
	}
	if (p->n_nodes > 2 && strcmp(p->transport, "memif") != 0 &&
	    strcmp(p->transport, "ucx") != 0) {
		fprintf(stderr, "%s: --remote-nodes %u: over memif or ucx only, not %s\n", argv[0],
			p->n_nodes, p->transport);
		return -EINVAL;
	}
	p->self_node = p->is_peer ? 2 : 1;
	if (p->is_peer && w->node >= 0) {
		unsigned long k = strtoul(argv[w->node + 1], &end, 10);

		if (*end != '\0' || k < 2 || k > p->n_nodes) {
			fprintf(stderr, "%s: --pair-node %s: 2 to %u\n", argv[0], argv[w->node + 1],
				p->n_nodes);
			return -EINVAL;
		}
		p->self_node = (unsigned int)k;
	}
	return 0;
}

int
app_pair_prepare(int argc, char **argv, const char *peer_lcores, struct app_pair *p)
{
	const char *prefix = "lca";
	struct pair_words w;
	int ret;

	memset(p, 0, sizeof(*p));
	owner = p;
	w = find_words(argc, argv, p);
	if (w.dd < 0 || w.remote < 0) {
		for (int i = 0; i < argc && i < APP_PAIR_MAX_ARGS - 1; i++)
			p->argv[p->argc++] = argv[i];
		return 0;
	}
	p->active = true;
	snprintf(p->transport, sizeof(p->transport), "%s", argv[w.remote + 1]);
	if (!is_transport(p->transport)) {
		fprintf(stderr, "%s: --remote %s: transports are memif, af_packet, ucx and ring\n",
			argv[0], p->transport);
		return -EINVAL;
	}
	p->is_peer = w.peer >= 0;
	ret = nodes_read(p, argv, &w);
	if (ret != 0)
		return ret;
	if (w.order >= 0) {
		const char *o = argv[w.order + 1];

		if (p->n_nodes > 2) {
			fprintf(stderr, "%s: --start-order: for two processes only\n", argv[0]);
			return -EINVAL;
		}
		if (strcmp(o, "node1") == 0) {
			p->order = APP_PAIR_ORDER_NODE1;
		} else if (strcmp(o, "node2") == 0) {
			p->order = APP_PAIR_ORDER_NODE2;
		} else {
			fprintf(stderr, "%s: --start-order %s: node1 or node2\n", argv[0], o);
			return -EINVAL;
		}
	}
	for (int i = 1; i < w.dd; i++) {
		if (strcmp(argv[i], "-l") == 0 && i + 1 < w.dd)
			snprintf(p->self_lcores, sizeof(p->self_lcores), "%s", argv[i + 1]);
		if (strcmp(argv[i], "--file-prefix") == 0 && i + 1 < w.dd)
			prefix = argv[i + 1];
	}
	ret = name_link(p, argv, &w, peer_lcores);
	if (ret == 0)
		ret = enter_link_netns(p, argv[0]);
	if (ret != 0)
		return ret;
	/* This process: its EAL arguments, the transport's vdev, its app arguments. */
	for (int i = 0; i < w.dd; i++)
		add(p->argv, &p->argc, argv[i]);
	add_vdev(p->argv, &p->argc, p, p->self_node);
	for (int i = w.dd; i < argc; i++)
		add(p->argv, &p->argc, argv[i]);
	p->orig_argc = argc;
	p->orig_argv = argv;
	p->dd = w.dd;
	p->prefix = prefix;
	return 0;
}

void
app_pair_set_peer_lcores(struct app_pair *p, const char *lcores)
{
	if (!p->is_peer)
		snprintf(p->peer_lcores, sizeof(p->peer_lcores), "%s", lcores);
}

/* Node 2's link starts this long before node 1's with --start-order node2. */
#define NODE2_FIRST_MS 1500

static int
spawn_now(struct app_pair *p)
{
	p->spawn_deferred = false;
	for (unsigned int k = 2; k <= p->n_nodes; k++) {
		pid_t *pid = k == 2 ? &p->child : &p->far[k];
		int ret;

		build_peer_argv(p, k);
		ret = posix_spawn(pid, "/proc/self/exe", NULL, NULL, p->child_argv, environ);
		if (ret != 0) {
			*pid = 0;
			fprintf(stderr, "could not start the peer process of node %u: %s\n", k,
				strerror(ret));
			return -ret;
		}
		printf("Peer process %d started: node %u on lcores %s\n", (int)*pid, k,
		       p->peer_lcores);
	}
	fflush(stdout);
	return 0;
}

int
app_pair_spawn(struct app_pair *p)
{
	int ret;

	if (!p->active || p->is_peer || strcmp(p->transport, "ring") == 0)
		return 0;
	if (p->order == APP_PAIR_ORDER_NODE1) {
		printf("Start order: node 1's link first, then node 2's process\n");
		p->spawn_deferred = true;
		return 0;
	}
	ret = spawn_now(p);
	if (ret == 0 && p->order == APP_PAIR_ORDER_NODE2) {
		printf("Start order: node 2 first; node 1 starts its link in %u ms\n",
		       NODE2_FIRST_MS);
		fflush(stdout);
		usleep(NODE2_FIRST_MS * 1000);
	}
	return ret;
}

int
app_pair_link_started(struct app_pair *p)
{
	return p->spawn_deferred ? spawn_now(p) : 0;
}

/* "0-1,3" -> lcores */
static void
parse_lcores(const char *s, struct lca_remote_node *n)
{
	char *end;

	n->n_lcores = 0;
	while (*s && n->n_lcores < LCA_REMOTE_MAX_LCORES) {
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		for (long l = a; l <= b && n->n_lcores < LCA_REMOTE_MAX_LCORES; l++)
			n->lcores[n->n_lcores++] = (uint16_t)l;
		if (*s == ',')
			s++;
	}
}

void
app_pair_conf(const struct app_pair *p, struct lca_remote_conf *c)
{
	const char *l1 = p->is_peer ? p->peer_lcores : p->self_lcores;
	const char *l2 = p->is_peer ? p->self_lcores : p->peer_lcores;
	unsigned int self = p->self_node ? p->self_node : p->is_peer ? 2 : 1;

	memset(c, 0, sizeof(*c));
	c->self = (uint16_t)self;
	c->n_nodes = p->n_nodes ? p->n_nodes : 2;
	for (unsigned int i = 0; i < c->n_nodes; i++) {
		struct lca_remote_node *n = &c->nodes[i];
		static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0 };

		n->id = (uint16_t)(i + 1);
		memcpy(n->mac, mac, 6);
		n->mac[5] = (uint8_t)(i + 1);
		n->ipv4 = 0x0a000000u + i + 1;
		n->udp_base = 7000;
		/* Its place among this node's vdevs (add_vdev()): 0 for a pair. */
		n->port_id = (uint16_t)(i + 1 <= self ? (i + 1 == self ? 0 : i) : i - 1);
		parse_lcores(i == 0 ? (l1[0] ? l1 : "0") : (l2[0] ? l2 : "1"), n);
	}
	if (p->jumbo)
		c->mtu = 9000; /* a 9042-byte frame in a 9216-byte memif buffer */
	if (p->netem && !p->netem_on) {
		/* No sch_netem: the same faults from the injector, both sides. */
		c->inject.loss_ppm = 10000;
		c->inject.reorder_ppm = 10000;
		c->inject.dup_ppm = 10000;
		c->inject.seed = c->self;
	}
	if (strcmp(p->transport, "ucx") == 0) {
		/* Both on this host: UCX's listeners on 127.0.0.1. */
		c->transport = LCA_REMOTE_UCX;
		for (unsigned int i = 0; i < c->n_nodes; i++) {
			c->nodes[i].ipv4 = 0x7f000001u;
			c->nodes[i].udp_base = (uint16_t)(atoi(p->sock) + 20 * (int)i);
		}
	}
	if (strcmp(p->transport, "ring") == 0) {
		/* One process, reaching itself: node 1 only, over the wire. */
		c->n_nodes = 1;
		c->loopback = true;
		c->nodes[0].n_lcores = 0;
		{
			unsigned int l;

			RTE_LCORE_FOREACH(l)
				c->nodes[0].lcores[c->nodes[0].n_lcores++] = (uint16_t)l;
		}
	}
}

/* Wait up to @p timeout_ms for peer @p pid (node @p node) to exit, then
 * stop it. @return its exit status, or -1 (killed, or died of a signal). */
static int
finish_one(pid_t pid, unsigned int node, unsigned int timeout_ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	unsigned int waited = 0;
	int status = -1;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0 && waited < timeout_ms) {
		nanosleep(&ts, NULL);
		waited += 10;
	}
	if (r == 0) {
		if (timeout_ms > 0)
			fprintf(stderr, "peer process %d (node %u) did not stop: terminating it\n",
				(int)pid, node);
		kill(pid, SIGTERM);
		/* It stops as on a Ctrl-C: quickly; killed after 2 s. */
		for (waited = 0; waited < 2000; waited += 10) {
			r = waitpid(pid, &status, WNOHANG);
			if (r != 0)
				break;
			nanosleep(&ts, NULL);
		}
		if (r == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		return -1;
	}
	if (WIFSIGNALED(status)) {
		/* Said by name: DPDK 22.11's memif can die of SIGSEGV when its
		 * peer disconnects under a burst (tests/e2e_remote.sh). */
		fprintf(stderr, "peer process %d (node %u) died of signal %d (%s)\n", (int)pid, node,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return -1;
	}
	return WEXITSTATUS(status);
}

int
app_pair_finish(struct app_pair *p, unsigned int timeout_ms)
{
	int status = p->is_peer ? -1 : 0;

	for (unsigned int k = 2; !p->is_peer && k <= p->n_nodes; k++) {
		pid_t *pid = k == 2 ? &p->child : &p->far[k];
		int st;

		if (*pid <= 0)
			continue; /* never started (ring, or a failure before) */
		st = finish_one(*pid, k, timeout_ms);
		*pid = 0;
		if (status == 0)
			status = st;
	}
	if (!p->is_peer && p->netns_made) {
		sh("ip netns del %sa 2>/dev/null; ip netns del %sb 2>/dev/null; true", p->sock,
		   p->sock);
	} else if (!p->is_peer && strcmp(p->transport, "memif") == 0 && p->n_nodes > 2) {
		for (unsigned int a = 1; a <= p->n_nodes; a++)
			for (unsigned int b = a + 1; b <= p->n_nodes; b++) {
				char sock[128];

				pair_sock(sock, sizeof(sock), p, a, b);
				unlink(sock);
			}
	} else if (!p->is_peer && strcmp(p->transport, "memif") == 0) {
		unlink(p->sock);
	}
	return status;
}

int
app_pair_main(int argc, char **argv, struct app_pair *p, const struct app_spec *app)
{
	int ret;

	switch (app_pair_prepare(argc, argv, "1", p)) {
	case 0:
		break;
	case -EPERM:
		return 77; /* af_packet where namespaces are not allowed: skipped */
	default:
		return 2;
	}
	ret = app_main(p->argc, p->argv, app);
	app_pair_release(p);
	return ret;
}
