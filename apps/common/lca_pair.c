/* SPDX-License-Identifier: BSD-3-Clause */
/* Two processes of one app over memif, started by one command (lca_pair.h). */
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

#include "lca_app.h"
#include "lca_pair.h"

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

static struct lca_pair *owner;

static void
add(char **v, int *n, const char *s)
{
	if (*n < LCA_PAIR_MAX_ARGS - 1 && owner->n_owned < 3 * LCA_PAIR_MAX_ARGS) {
		v[(*n)++] = dup_str(s);
		v[*n] = NULL;
		owner->owned[owner->n_owned++] = v[*n - 1];
	}
}

void
lca_pair_release(struct lca_pair *p)
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
 * of the same names, made here and removed by lca_pair_finish(). With
 * @p netem, the veth ends get tc netem loss, reorder and duplicate 1%.
 */
static int
veth_pair_make(struct lca_pair *p)
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

/* Where "--", "--remote T" and "--pair-peer L" are in argv; -1 if not. */
struct pair_words {
	int dd, remote, peer, order;
};

static struct pair_words
find_words(int argc, char **argv, struct lca_pair *p)
{
	struct pair_words w = { -1, -1, -1, -1 };

	for (int i = 1; i < argc; i++) {
		if (w.dd < 0 && strcmp(argv[i], "--") == 0)
			w.dd = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--remote") == 0 && i + 1 < argc)
			w.remote = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--pair-peer") == 0 && i + 1 < argc)
			w.peer = i;
		else if (w.dd >= 0 && strcmp(argv[i], "--start-order") == 0 && i + 1 < argc)
			w.order = i;
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
name_link(struct lca_pair *p, char **argv, const struct pair_words *w, const char *peer_lcores)
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
		/* The TCP port base of node 1's listeners (node 2's is 20 up). */
		snprintf(p->sock, sizeof(p->sock), "%d", UCX_PORT_LOW + (int)getpid() % 500 * 40);
	else
		snprintf(p->sock, sizeof(p->sock), "/tmp/lca-pair-%d.sock", (int)getpid());
	return 0;
}

/* af_packet: node 1 makes the veth pair; each node enters its namespace. */
static int
enter_link_netns(struct lca_pair *p, const char *prog)
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

/* "--vdev X" of one node's ethdev end of the link; none for UCX. */
static void
add_vdev(char **v, int *n, const struct lca_pair *p, bool peer)
{
	char vdev[256];

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

/* The peer: the same EAL arguments but its own lcores, prefix and vdev,
 * the same app arguments, and "--pair-peer SOCKET:LCORES" of node 1. */
static void
build_peer_argv(struct lca_pair *p, int argc, char **argv, int dd, const char *prefix)
{
	char word[256];

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
	snprintf(word, sizeof(word), "%s-peer", prefix);
	add(p->child_argv, &p->child_argc, "--file-prefix");
	add(p->child_argv, &p->child_argc, word);
	add_vdev(p->child_argv, &p->child_argc, p, true);
	for (int i = dd; i < argc; i++)
		add(p->child_argv, &p->child_argc, argv[i]);
	snprintf(word, sizeof(word), "%s:%s", p->sock, p->self_lcores[0] ? p->self_lcores : "0");
	add(p->child_argv, &p->child_argc, "--pair-peer");
	add(p->child_argv, &p->child_argc, word);
	if (p->netem_on)
		add(p->child_argv, &p->child_argc, "--pair-netem-on");
}

int
lca_pair_prepare(int argc, char **argv, const char *peer_lcores, struct lca_pair *p)
{
	const char *prefix = "lca";
	struct pair_words w;
	int ret;

	memset(p, 0, sizeof(*p));
	owner = p;
	w = find_words(argc, argv, p);
	if (w.dd < 0 || w.remote < 0) {
		for (int i = 0; i < argc && i < LCA_PAIR_MAX_ARGS - 1; i++)
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
	if (w.order >= 0) {
		const char *o = argv[w.order + 1];

		if (strcmp(o, "node1") == 0) {
			p->order = LCA_PAIR_ORDER_NODE1;
		} else if (strcmp(o, "node2") == 0) {
			p->order = LCA_PAIR_ORDER_NODE2;
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
	add_vdev(p->argv, &p->argc, p, p->is_peer);
	for (int i = w.dd; i < argc; i++)
		add(p->argv, &p->argc, argv[i]);
	if (!p->is_peer && strcmp(p->transport, "ring") != 0)
		build_peer_argv(p, argc, argv, w.dd, prefix);
	return 0;
}

void
lca_pair_set_peer_lcores(struct lca_pair *p, const char *lcores)
{
	if (p->is_peer)
		return;
	snprintf(p->peer_lcores, sizeof(p->peer_lcores), "%s", lcores);
	for (int i = 0; i < p->child_argc - 1; i++)
		if (strcmp(p->child_argv[i], "-l") == 0 && p->n_owned < 3 * LCA_PAIR_MAX_ARGS) {
			/* The old string stays owned, freed at release. */
			p->child_argv[i + 1] = dup_str(lcores);
			p->owned[p->n_owned++] = p->child_argv[i + 1];
		}
}

/* Node 2's link starts this long before node 1's with --start-order node2. */
#define NODE2_FIRST_MS 1500

static int
spawn_now(struct lca_pair *p)
{
	int ret;

	p->spawn_deferred = false;
	ret = posix_spawn(&p->child, "/proc/self/exe", NULL, NULL, p->child_argv, environ);
	if (ret != 0) {
		fprintf(stderr, "could not start the peer process: %s\n", strerror(ret));
		return -ret;
	}
	printf("Peer process %d started: node 2 on lcores %s\n", (int)p->child, p->peer_lcores);
	fflush(stdout);
	return 0;
}

int
lca_pair_spawn(struct lca_pair *p)
{
	int ret;

	if (!p->active || p->is_peer || p->child_argc == 0)
		return 0;
	if (p->order == LCA_PAIR_ORDER_NODE1) {
		printf("Start order: node 1's link first, then node 2's process\n");
		p->spawn_deferred = true;
		return 0;
	}
	ret = spawn_now(p);
	if (ret == 0 && p->order == LCA_PAIR_ORDER_NODE2) {
		printf("Start order: node 2 first; node 1 starts its link in %u ms\n",
		       NODE2_FIRST_MS);
		fflush(stdout);
		usleep(NODE2_FIRST_MS * 1000);
	}
	return ret;
}

int
lca_pair_link_started(struct lca_pair *p)
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
lca_pair_conf(const struct lca_pair *p, struct lca_remote_conf *c)
{
	const char *l1 = p->is_peer ? p->peer_lcores : p->self_lcores;
	const char *l2 = p->is_peer ? p->self_lcores : p->peer_lcores;

	memset(c, 0, sizeof(*c));
	c->self = p->is_peer ? 2 : 1;
	c->n_nodes = 2;
	for (unsigned int i = 0; i < 2; i++) {
		struct lca_remote_node *n = &c->nodes[i];
		static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0 };

		n->id = (uint16_t)(i + 1);
		memcpy(n->mac, mac, 6);
		n->mac[5] = (uint8_t)(i + 1);
		n->ipv4 = 0x0a000000u + i + 1;
		n->udp_base = 7000;
		n->port_id = 0;
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
		for (unsigned int i = 0; i < 2; i++) {
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

int
lca_pair_finish(struct lca_pair *p, unsigned int timeout_ms)
{
	int status = -1;

	if (p->child > 0) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		unsigned int waited = 0;
		pid_t r;

		while ((r = waitpid(p->child, &status, WNOHANG)) == 0 && waited < timeout_ms) {
			nanosleep(&ts, NULL);
			waited += 10;
		}
		if (r == 0) {
			if (timeout_ms > 0)
				fprintf(stderr, "peer process %d did not stop: terminating it\n",
					(int)p->child);
			kill(p->child, SIGTERM);
			/* It stops as on a Ctrl-C: quickly; killed after 2 s. */
			for (waited = 0; waited < 2000; waited += 10) {
				r = waitpid(p->child, &status, WNOHANG);
				if (r != 0)
					break;
				nanosleep(&ts, NULL);
			}
			if (r == 0) {
				kill(p->child, SIGKILL);
				waitpid(p->child, &status, 0);
			}
			status = -1;
		} else if (WIFSIGNALED(status)) {
			/* Said by name: DPDK 22.11's memif can die of SIGSEGV when its
			 * peer disconnects under a burst (tests/e2e_remote.sh). */
			fprintf(stderr, "peer process %d died of signal %d (%s)\n", (int)p->child,
				WTERMSIG(status), strsignal(WTERMSIG(status)));
			status = -1;
		} else {
			status = WEXITSTATUS(status);
		}
		p->child = 0;
	} else if (!p->is_peer) {
		status = 0;
	}
	if (!p->is_peer && p->netns_made)
		sh("ip netns del %sa 2>/dev/null; ip netns del %sb 2>/dev/null; true", p->sock,
		   p->sock);
	else if (!p->is_peer && strcmp(p->transport, "memif") == 0)
		unlink(p->sock);
	return status;
}

int
lca_pair_app_main(int argc, char **argv, struct lca_pair *p, const struct lca_app *app)
{
	int ret;

	switch (lca_pair_prepare(argc, argv, "1", p)) {
	case 0:
		break;
	case -EPERM:
		return 77; /* af_packet where namespaces are not allowed: skipped */
	default:
		return 2;
	}
	ret = lca_app_main(p->argc, p->argv, app);
	lca_pair_release(p);
	return ret;
}
