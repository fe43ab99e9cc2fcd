/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_alarm.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_interrupts.h>
#include <rte_pause.h>
#include <rte_errno.h>

#include "lca_eal.h"
#include "lca_eal_priv.h"

/* Room for the user's EAL args plus what the fallback adds. */
#define EXTRA_ARGS 4

RTE_LOG_REGISTER(lca_logtype, lcactor, INFO);

/* Set by the signal handler on whichever thread takes the signal, read by
 * every lcore's loop: an atomic (lock-free, so safe in a handler), not a
 * volatile sig_atomic_t, which orders nothing between threads (a data race
 * under C11 that ThreadSanitizer reports). */
static int stop_requested;
static bool no_huge_fallback;
static bool eal_up;
static char eal_args_text[1024];
static char **eal_argv; /* our copy, kept until cleanup: EAL keeps pointers */

static void
on_stop_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop_requested, 1, __ATOMIC_RELAXED);
}

/* SIGINT, SIGTERM and SIGHUP: to @p handler. SIGHUP's default action kills
 * the process where it stands, which leaves EAL's runtime folder behind (a
 * closed terminal, or an operator's reload, sends it): a clean stop instead. */
static void
stop_signals(void (*handler)(int))
{
	signal(SIGINT, handler);
	signal(SIGTERM, handler);
	signal(SIGHUP, handler);
}

bool
lca_eal_stop_requested(void)
{
	return __atomic_load_n(&stop_requested, __ATOMIC_RELAXED) != 0;
}

void
lca_eal_request_stop(void)
{
	__atomic_store_n(&stop_requested, 1, __ATOMIC_RELAXED);
}

bool
lca_eal_no_huge_fallback(void)
{
	return no_huge_fallback;
}

const char *
lca_eal_args(void)
{
	return eal_args_text;
}

static long
read_long_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

long
lca_eal_free_hugepages(const char *sysfs_root)
{
	char path[512];
	struct dirent *de;
	long total = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages", sysfs_root);
	d = opendir(path);
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		char file[1024];
		long n;

		if (strncmp(de->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(file, sizeof(file), "%s/%s/free_hugepages", path, de->d_name);
		n = read_long_file(file);
		if (n > 0)
			total += n;
	}
	closedir(d);
	return total;
}

static bool
has_arg(int argc, char **argv, const char *name)
{
	size_t len = strlen(name);

	/* A short option may carry its value attached: -m512. */
	bool short_opt = name[0] == '-' && name[1] != '-';

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strncmp(argv[i], name, len) == 0 &&
		    (short_opt || argv[i][len] == '\0' || argv[i][len] == '='))
			return true;
	}
	return false;
}

/* Index of "--" in argv, or argc when the app has no arguments. */
static int
find_separator(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return argc;
}

static void
record_args(int argc, char **argv)
{
	size_t used = 0;

	eal_args_text[0] = '\0';
	for (int i = 1; i < argc && used < sizeof(eal_args_text); i++) {
		int n = snprintf(eal_args_text + used, sizeof(eal_args_text) - used, "%s%s",
				 i > 1 ? " " : "", argv[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Name the likely cause of an EAL failure and what to do about it. */
static void
explain_failure(int err)
{
	const char *hint;

	switch (err) {
	case EACCES:
		hint = "permission denied: run as root, or add --in-memory --no-huge";
		break;
	case EALREADY:
		hint = "EAL is already initialised in this process";
		break;
	case ENOMEM:
		hint = "not enough memory: reserve hugepages "
		       "(echo 256 > /proc/sys/vm/nr_hugepages) or pass --no-huge -m <MB>";
		break;
	case EINVAL:
		hint = "an EAL argument is invalid: check -l/--lcores (each CPU must exist) "
		       "and put the app's arguments after --";
		break;
	case EEXIST:
	case EBUSY:
		hint = "another DPDK process uses this file prefix: pass --file-prefix NAME "
		       "or --in-memory";
		break;
	case ENODEV:
		hint = "no usable device: pass --no-pci, or bind a NIC to vfio-pci";
		break;
	case ENOTSUP:
		hint = "a requested EAL feature is not supported on this machine";
		break;
	default:
		hint = "see the EAL messages above";
		break;
	}
	LCA_LOG(ERR, "EAL init failed: %s (%s)\n", rte_strerror(err), hint);
}

/* The app's argv: program name, then everything after "--" (at @p sep). */
static void
app_args(int argc, char **argv, int sep, int *app_argc, char ***app_argv)
{
	if (sep < argc) {
		argv[sep] = argv[0];
		*app_argc = argc - sep;
		*app_argv = argv + sep;
	} else {
		static char *name_only[2];

		name_only[0] = argv[0];
		*app_argc = 1;
		*app_argv = name_only;
	}
}

int
lca_eal_init(int argc, char **argv, int *app_argc, char ***app_argv)
{
	int sep, n_eal, ret;
	long free_pages;
	bool no_huge, in_memory_replaced = false, mem_added = false;
	char memif_removed[128];

	if (argc < 1 || argv == NULL || app_argc == NULL || app_argv == NULL)
		return -EINVAL;
	if (eal_up)
		return -EALREADY;

	sep = find_separator(argc, argv);
	eal_argv = calloc((size_t)sep + EXTRA_ARGS + 1, sizeof(*eal_argv));
	if (eal_argv == NULL)
		return -ENOMEM;
	free_pages = lca_eal_free_hugepages("/sys");
	no_huge = has_arg(sep, argv, "--no-huge");
	no_huge_fallback = free_pages <= 0 && !no_huge;
	for (n_eal = 0; n_eal < sep; n_eal++) {
		eal_argv[n_eal] = argv[n_eal];
		/* DPDK 22.11 turns --no-huge into legacy memory, which refuses
		 * --in-memory; --no-shconf is what --in-memory means when there
		 * are no hugepage files: no files at all. */
		if ((no_huge || no_huge_fallback) && strcmp(argv[n_eal], "--in-memory") == 0) {
			eal_argv[n_eal] = (char *)"--no-shconf";
			in_memory_replaced = true;
		}
	}
	if (no_huge_fallback)
		eal_argv[n_eal++] = (char *)"--no-huge";
	/* Without hugepages EAL takes 64 MB unless told otherwise: too little
	 * for a pool per node plus the apps' databases. */
	if ((no_huge || no_huge_fallback) && !has_arg(sep, argv, "-m")) {
		eal_argv[n_eal++] = (char *)"-m";
		eal_argv[n_eal++] = (char *)RTE_STR(LCA_EAL_NO_HUGE_MEM_MB);
		mem_added = true;
	}
	record_args(n_eal, eal_argv);
	ret = eal_memif_args_check(n_eal, eal_argv, memif_removed, sizeof(memif_removed));
	if (ret < 0) {
		LCA_LOG(ERR, "EAL not started: a memif server's socket is in the way (above)\n");
		free(eal_argv);
		eal_argv = NULL;
		return ret;
	}

	/* Caught from before EAL's init, which takes a while: a signal in it is
	 * kept for the app's first look, and not lost (a shell's background job
	 * starts with SIGINT ignored) or fatal before EAL can clean up. */
	stop_signals(on_stop_signal);
	ret = rte_eal_init(n_eal, eal_argv);
	/* Said after rte_eal_init(), so that --log-level applies to it. */
	if (in_memory_replaced)
		LCA_LOG(NOTICE, "--in-memory with --no-huge: using --no-shconf "
				"(DPDK refuses the pair; no files are kept either way)\n");
	if (no_huge_fallback)
		LCA_LOG(WARNING, "no free hugepages; running with --no-huge "
			"(reserve some with: echo 256 > /proc/sys/vm/nr_hugepages)\n");
	if (memif_removed[0] != '\0')
		LCA_LOG(NOTICE, "memif socket %s: left by a server that is gone (nothing "
			"listened on it): removed, so that this server can start\n", memif_removed);
	if (mem_added)
		LCA_LOG(NOTICE, "--no-huge without -m: using -m %d\n", LCA_EAL_NO_HUGE_MEM_MB);
	if (ret < 0) {
		/* Some failures leave rte_errno at 0 (a prefix another process
		 * holds, for one): a failure must never read as success. */
		int err = rte_errno != 0 ? rte_errno : EIO;

		explain_failure(err);
		stop_signals(SIG_DFL);
		free(eal_argv);
		eal_argv = NULL;
		return -err;
	}
	eal_up = true;
	app_args(argc, argv, sep, app_argc, app_argv);
	return 0;
}

/*
 * Remove EAL's runtime folder at exit: it is left behind for every
 * --file-prefix, holding only telemetry's socket, which telemetry itself
 * unlinks after us. Anything else in it is kept, with the folder.
 */
static void
remove_run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	struct stat st;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(path);
	}
	closedir(d);
	if (rmdir(dir) != 0 && errno != ENOENT)
		LCA_LOG(DEBUG, "kept %s: %s\n", dir, strerror(errno));
}

/* How long lca_eal_on_intr_thread() waits for the interrupt thread. */
#define INTR_CALL_WAIT_US (5u * 1000 * 1000)

struct intr_call {
	void (*fn)(void *arg);
	void *arg;
	int posted; /* release/acquire pair that hands over fn and arg */
	int done;
};

static void
intr_call_run(void *arg)
{
	struct intr_call *c = arg;

	/* Set before the alarm was; the load orders fn and arg for checkers
	 * that cannot see into EAL's alarm list (ThreadSanitizer). */
	while (!__atomic_load_n(&c->posted, __ATOMIC_ACQUIRE))
		rte_pause();
	c->fn(c->arg);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
}

int
lca_eal_on_intr_thread(void (*fn)(void *arg), void *arg)
{
	struct intr_call c = { .fn = fn, .arg = arg };
	uint64_t deadline;
	int ret;

	if (rte_thread_is_intr()) {
		fn(arg);
		return 0;
	}
	/* An alarm's callback runs on the interrupt thread, between its
	 * handlers; 1 us is the shortest delay EAL takes. */
	__atomic_store_n(&c.posted, 1, __ATOMIC_RELEASE);
	ret = rte_eal_alarm_set(1, intr_call_run, &c);
	if (ret != 0) {
		LCA_LOG(WARNING, "no alarm on the interrupt thread (%s): running on this one\n",
			rte_strerror(-ret));
		fn(arg);
		return ret;
	}
	/* The wait in wall time: a count of 100 us sleeps, each longer than
	 * asked on a loaded machine, waited 18 s for 5. */
	deadline = rte_get_timer_cycles() + INTR_CALL_WAIT_US * rte_get_timer_hz() / 1000000;
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE)) {
		/* An interrupt thread that never takes it (stuck in a PMD's
		 * handler, or gone) must not hang a stop: taken back, it runs
		 * here. A callback already running is waited for by the cancel. */
		if (rte_get_timer_cycles() >= deadline &&
		    rte_eal_alarm_cancel(intr_call_run, &c) > 0) {
			LCA_LOG(WARNING, "the interrupt thread took no call in %u ms: running on "
				"this thread\n", INTR_CALL_WAIT_US / 1000);
			fn(arg);
			return -ETIMEDOUT;
		}
		rte_delay_us_sleep(100);
	}
	return 0;
}

int
lca_eal_cleanup(void)
{
	char run_dir[PATH_MAX] = "";
	int ret = 0;

	if (eal_up) {
		/* EAL leaves its runtime folder behind, empty after a clean
		 * exit: one for every --file-prefix ever used. */
		snprintf(run_dir, sizeof(run_dir), "%s", rte_eal_get_runtime_dir());
		ret = rte_eal_cleanup();
		eal_up = false;
		if (run_dir[0] != '\0')
			remove_run_dir(run_dir);
	}
	free(eal_argv);
	eal_argv = NULL;
	stop_signals(SIG_DFL);
	return ret;
}
