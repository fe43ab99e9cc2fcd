/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <dirent.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"

void
lca_test_eal_init(const char *prefix)
{
	lca_test_eal_init_args(prefix, NULL, 0);
}

void
lca_test_eal_init_args(const char *prefix, const char *const *extra, unsigned int n_extra)
{
	/* EAL takes argv as char **: the prefix goes into a copy of its own. */
	enum { N_BASE = 10, N_EXTRA_MAX = 16 };
	char file_prefix[64];
	char *argv[N_BASE + N_EXTRA_MAX + 1] = {
		(char *)"lca-test", (char *)"-l", (char *)"0-1", (char *)"--no-huge",
		(char *)"--no-pci", (char *)"--in-memory", (char *)"--file-prefix",
		file_prefix, (char *)"--log-level", (char *)"lib.*:error",
	};
	const char *lcores = getenv("LCA_TEST_LCORES");
	int app_argc;
	char **app_argv;

	/* More lcores than CPUs, mapped onto them (EAL's --lcores), for the
	 * paths that need more lcores than the machine has CPUs. */
	if (lcores != NULL && lcores[0] != '\0') {
		argv[1] = (char *)"--lcores";
		argv[2] = (char *)(uintptr_t)lcores;
	}
	if (n_extra > N_EXTRA_MAX) {
		fprintf(stderr, "%s: %u extra EAL arguments, at most %d\n", prefix, n_extra,
			N_EXTRA_MAX);
		exit(1);
	}
	for (unsigned int i = 0; i < n_extra; i++)
		argv[N_BASE + i] = (char *)(uintptr_t)extra[i];
	snprintf(file_prefix, sizeof(file_prefix), "%s", prefix);
	if (lca_eal_init((int)(N_BASE + n_extra), argv, &app_argc, &app_argv) < 0) {
		fprintf(stderr, "%s: EAL did not start\n", prefix);
		exit(1);
	}
}

/* The application's own loop of a guest run: it polls lcactor until the
 * run is stopped, counting its own iterations as a real loop would do its
 * own work between polls. */
static uint64_t guest_loops[RTE_MAX_LCORE];

static int
guest_loop(void *arg)
{
	(void)arg;
	while (lca_runtime_poll() >= 0)
		guest_loops[rte_lcore_id()]++;
	return 0;
}

/* A run as an application with its own loops does it: start, every lcore
 * polling from its loop, the loops joined, end. */
static int
guest_run(unsigned int timeout_ms)
{
	int ret = lca_runtime_start(timeout_ms);

	if (ret < 0)
		return ret;
	ret = rte_eal_mp_remote_launch(guest_loop, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	if (ret < 0) {
		lca_runtime_end();
		return ret;
	}
	return lca_runtime_end();
}

const char *
lca_test_driver(void)
{
	const char *d = getenv("LCA_TEST_DRIVER");

	return d != NULL && d[0] != '\0' ? d : "own";
}

int
lca_test_runtime_run(unsigned int timeout_ms)
{
	const char *d = lca_test_driver();

	if (strcmp(d, "guest") == 0)
		return guest_run(timeout_ms);
	if (strcmp(d, "own") != 0) {
		fprintf(stderr, "LCA_TEST_DRIVER=%s: not own or guest\n", d);
		exit(1);
	}
	return lca_runtime_run(timeout_ms);
}

static void *
interrupt_after(void *arg)
{
	usleep((useconds_t)(uintptr_t)arg * 1000);
	kill(getpid(), SIGINT);
	return NULL;
}

int
lca_test_interrupt_in(pthread_t *th, unsigned int ms)
{
	return pthread_create(th, NULL, interrupt_after, (void *)(uintptr_t)ms);
}

bool
lca_test_run(unsigned int max_seconds)
{
	return lca_test_runtime_run(max_seconds * 1000) == 0;
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The loops run this long between two looks at the condition: a wait
 * ends at most this late (it was 100 ms: a test that waits often, as the
 * random frames' every 16 frames, spent most of its time in the slices'
 * tails). */
#define LCA_TEST_SLICE_MS 10

bool
lca_test_run_until(bool (*done)(void *arg), void *arg, unsigned int max_seconds)
{
	struct lca_test_cpu cpu;
	char why[192];

	lca_test_cpu_start(&cpu);
	/* A deadline in wall time: on a loaded machine a slice lasts longer
	 * than it asks, and a count of slices would wait minutes. */
	while (!done(arg)) {
		if (now_ns() - cpu.wall_ns >= (uint64_t)max_seconds * 1000000000u) {
			if (!lca_test_cpu_starved(&cpu, why, sizeof(why)))
				return false;
			lca_test_skipped("a wait for a condition", why);
			skip();
		}
		lca_test_runtime_run(LCA_TEST_SLICE_MS);
	}
	return true;
}


/* Run-queue wait of this process's threads (the second figure of each
 * one's schedstat, in ns), and the machine's steal time (/proc/stat's
 * eighth figure of "cpu", in clock ticks), in ns. A thread that ended
 * meanwhile takes its wait with it: the figure errs low, towards failing. */
static uint64_t
lost_ns(void)
{
	uint64_t total = 0, steal = 0;
	unsigned long v[8];
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	FILE *f;

	while (d != NULL && (e = readdir(d)) != NULL) {
		char path[64];
		unsigned long long run, wait;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.16s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%llu %llu", &run, &wait) == 2)
			total += wait;
		fclose(f);
	}
	if (d != NULL)
		closedir(d);
	f = fopen("/proc/stat", "r");
	if (f != NULL) {
		if (fscanf(f, "cpu %lu %lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) == 8)
			steal = v[7] * (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
		fclose(f);
	}
	return total + steal;
}

void
lca_test_cpu_start(struct lca_test_cpu *c)
{
	c->wall_ns = now_ns();
	c->lost_ns = lost_ns();
}

bool
lca_test_cpu_starved(const struct lca_test_cpu *c, char *why, size_t len)
{
	uint64_t wall = now_ns() - c->wall_ns, lost = lost_ns() - c->lost_ns;
	double pct = wall > 0 ? 100.0 * (double)lost / (double)wall : 0.0;

	snprintf(why, len, "in %.1f s this process waited %.1f s for a CPU (run-queue wait "
		 "and steal, %.0f %% of the time; starved past %d %%)", (double)wall / 1e9,
		 (double)lost / 1e9, pct, LCA_TEST_STARVED_PCT);
	return pct > LCA_TEST_STARVED_PCT;
}

int
lca_test_runtime_up(const struct lca_runtime_conf *conf, unsigned int *pool_full)
{
	int ret = lca_runtime_init(conf);

	*pool_full = lca_mempool_avail();
	return ret;
}

unsigned int lca_test_pool_full;

int
lca_test_setup(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 4095, .pool_cache = 64 };

	(void)state;
	return lca_test_runtime_up(&c, &lca_test_pool_full);
}

int
lca_test_teardown(void **state)
{
	(void)state;
	return lca_runtime_cleanup();
}

lca_actor_id_t
lca_test_spawn(lca_handler_fn handler, size_t size, unsigned int lcore, unsigned int mailbox,
	       unsigned int throughput)
{
	struct lca_actor_spec spec = {
		.handler = handler, .state_size = size, .lcore = lcore,
		.mailbox_size = mailbox, .throughput = throughput,
	};
	lca_actor_id_t id;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	return id;
}

struct lca_msg *
lca_test_msg(void)
{
	struct lca_msg *m;

	assert_int_equal(lca_msg_alloc(&m), 0);
	return m;
}

static unsigned int lca_test_n_skipped;

void
lca_test_skipped(const char *test, const char *why)
{
	lca_test_n_skipped++;
	printf("skip - %s: %s\n", test, why);
	fflush(stdout);
}

int
lca_test_status(int failed)
{
	if (failed != 0)
		return 1;
	if (lca_test_n_skipped > 0) {
		printf("skip - %u test(s) could not run their check: the program exits 77 (SKIP)\n",
		       lca_test_n_skipped);
		return 77;
	}
	return 0;
}

int
lca_test_root_make(char *root, size_t len, const char *name)
{
	int n = snprintf(root, len, "/tmp/lca_test_%s.XXXXXX", name);

	return n < 0 || (size_t)n >= len || mkdtemp(root) == NULL ? -1 : 0;
}

/* mkdir -p */
static void
mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

void
lca_test_root_mkdirs(const char *root, const char *rel)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	mkdirs(dir);
}

void
lca_test_root_write(const char *root, const char *rel, const char *fmt, ...)
{
	char path[512], dir[512];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int
lca_test_root_remove(const char *root)
{
	return nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

struct lca_msg *
lca_test_seq_msg(uint32_t sender, uint32_t seq)
{
	struct lca_msg *m = lca_test_msg();

	*(struct lca_test_seq *)m->data = (struct lca_test_seq){ .sender = sender, .seq = seq };
	m->len = sizeof(struct lca_test_seq);
	return m;
}

void
lca_test_recorder_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct lca_test_recorder *r = state;
	const struct lca_test_seq *m = (const void *)msg->data;

	(void)self;
	if (m->sender >= LCA_TEST_SENDERS || m->seq != r->next[m->sender])
		r->out_of_order++;
	else
		r->next[m->sender]++;
	if (++r->got == r->expect)
		lca_runtime_stop();
}

/* Ask the app's own telemetry socket, as dpdk-telemetry.py does. */
int
lca_test_telemetry_query(const char *cmd, char *reply, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	ssize_t n;

	if (fd < 0)
		return -errno;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    read(fd, reply, len - 1) <= 0 || /* the greeting */
	    write(fd, cmd, strlen(cmd)) < 0 || (n = read(fd, reply, len - 1)) <= 0) {
		close(fd);
		return -EIO;
	}
	reply[n] = '\0';
	close(fd);
	return 0;
}
