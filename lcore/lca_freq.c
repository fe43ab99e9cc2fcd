/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_lcore_cpuset() and CPU_COUNT() need cpu_set_t from <sched.h>. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "lca_topo.h"
#include "lca_freq.h"

/* MSR addresses, as the Intel SDM (and AMD, for APERF/MPERF) number them. */
#define MSR_TSC   0x10
#define MSR_MPERF 0xE7
#define MSR_APERF 0xE8

#define DEFAULT_PERIOD_S    0.01
#define DEFAULT_MAX_SAMPLES 4096
#define MAX_MAX_SAMPLES     (1u << 24)

/* The probe: PROBE_ADDS_PER_ITER dependent adds per loop iteration, so the
 * loop's own counter and branch run alongside in spare ports. The window is
 * long enough that reading the TSC (about 30 ticks in a KVM guest) and its
 * 1-tick resolution stay small, short enough that an interrupt rarely lands
 * in it: the best of PROBE_TRIES then has none. */
#define PROBE_ADDS_PER_ITER 100
#define PROBE_TRIES         4
#define PROBE_WINDOW_S      1.2e-6
#define PROBE_MIN_TICKS     2000
#define PROBE_ASSUMED_HZ    3e9

/* One sample: the source's figure (NAN for the first reading of a delta
 * source) and the probe's. */
struct freq_sample {
	double mhz;
	double probe_mhz;
};

/* Per-lcore monitor state. Written by its own lcore while sampling, by the
 * main lcore at start and stop only; a cache line apart from the others. */
struct freq_lcore {
	bool on;
	enum lca_freq_source src;
	int cpu;
	int fd;  /* MSR device, cpufreq file, or perf cycles (group leader) */
	int fd2; /* perf task-clock */
	unsigned int msr_scale;
	bool perf_tried;
	bool have_prev;
	struct lca_freq_msr prev_msr;
	uint64_t prev_cycles;
	uint64_t prev_ns;
	uint64_t sum_dmperf; /* MSR busy % over the whole run, not per sample */
	uint64_t sum_dtsc;
	struct freq_sample *samples;
	unsigned int n;
	uint64_t dropped;
	struct lca_freq_cpu_times stat0;
	bool stat0_ok;
} __rte_cache_aligned;

struct lca_freq_deadline lca_freq_deadlines[RTE_MAX_LCORE] = {
	[0 ... RTE_MAX_LCORE - 1] = { .tsc = UINT64_MAX },
};

static struct freq_lcore lstate[RTE_MAX_LCORE];

static struct {
	bool active;
	struct lca_freq_conf conf;
	char root[PATH_MAX];
	uint64_t tsc_hz;
	uint64_t period_tsc;
	uint64_t start_tsc;
} mon;

/* -1 not tried, 0 no, 1 yes: whether this process may count CPU cycles. */
static int perf_ok = -1;

static const char *const source_names[LCA_FREQ_SRC_MAX] = {
	[LCA_FREQ_SRC_MSR] = "msr",
	[LCA_FREQ_SRC_PERF] = "perf",
	[LCA_FREQ_SRC_CPUFREQ] = "cpufreq",
	[LCA_FREQ_SRC_PROBE] = "probe",
};

const char *
lca_freq_source_name(enum lca_freq_source s)
{
	if ((unsigned int)s >= LCA_FREQ_SRC_MAX)
		return "?";
	return source_names[s];
}

const char *
lca_freq_verdict_name(enum lca_freq_verdict v)
{
	switch (v) {
	case LCA_FREQ_STABLE:
		return "stable";
	case LCA_FREQ_UNSTABLE:
		return "UNSTABLE";
	default:
		return "n/a";
	}
}

void
lca_freq_conf_init(struct lca_freq_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->period_s = DEFAULT_PERIOD_S;
	conf->max_samples = DEFAULT_MAX_SAMPLES;
	conf->sources = 0;
	conf->root = NULL;
	conf->thresholds.max_cv_pct = 1.0;
	conf->thresholds.max_range_pct = 2.0;
	conf->thresholds.max_steal_pct = 1.0;
}

/* ---- file readers, each under a root folder ---- */

static int
root_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	size_t off;
	va_list ap;
	int n;

	if (root == NULL)
		root = "";
	n = snprintf(buf, len, "%s", root);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	off = (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - off)
		return -ENAMETOOLONG;
	return 0;
}

/* Read a small text file from offset 0 into buf (NUL-terminated). pread at 0
 * on a kept sysfs fd makes the kernel produce a fresh value each time. */
static int
pread_text(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int
read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = pread_text(fd, buf, len);
	close(fd);
	return ret;
}

static int
parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

/* The msr driver's device reads MSR m at offset m. A fake one, a regular
 * file, cannot hold 8-byte values at adjacent offsets (APERF and MPERF are
 * neighbours), so it keeps MSR m at offset 8 × m: the open MSR device
 * carries its scale. */
struct msr_dev {
	int fd;
	unsigned int scale;
};

static int
msr_pread(const struct msr_dev *d, uint32_t msr, uint64_t *val)
{
	ssize_t n = pread(d->fd, val, sizeof(*val), (off_t)msr * d->scale);

	if (n < 0)
		return -errno;
	return n == sizeof(*val) ? 0 : -EIO;
}

static int
msr_read_dev(const struct msr_dev *d, struct lca_freq_msr *out)
{
	int ret;

	/* TSC first, then APERF and MPERF back to back, as turbostat does:
	 * their ratio matters most, so they are read closest together. */
	ret = msr_pread(d, MSR_TSC, &out->tsc);
	if (ret == 0)
		ret = msr_pread(d, MSR_APERF, &out->aperf);
	if (ret == 0)
		ret = msr_pread(d, MSR_MPERF, &out->mperf);
	return ret;
}

static int
msr_open(const char *root, int cpu, struct msr_dev *d)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	ret = root_path(path, sizeof(path), root, "/dev/cpu/%d/msr", cpu);
	if (ret < 0)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	d->fd = fd;
	d->scale = S_ISREG(st.st_mode) ? sizeof(uint64_t) : 1;
	return 0;
}

int
lca_freq_msr_read(const char *root, int cpu, struct lca_freq_msr *out)
{
	struct msr_dev d;
	int ret;

	if (cpu < 0 || out == NULL)
		return -EINVAL;
	ret = msr_open(root, cpu, &d);
	if (ret < 0)
		return ret;
	ret = msr_read_dev(&d, out);
	close(d.fd);
	return ret;
}

int
lca_freq_msr_compute(const struct lca_freq_msr *prev, const struct lca_freq_msr *cur,
		     uint64_t base_hz, struct lca_freq_msr_figures *out)
{
	/* Unsigned differences survive a counter wrap. */
	uint64_t da = cur->aperf - prev->aperf;
	uint64_t dm = cur->mperf - prev->mperf;
	uint64_t dt = cur->tsc - prev->tsc;

	if (dm == 0 || dt == 0) {
		out->bzy_mhz = out->avg_mhz = out->busy_pct = NAN;
		return -EINVAL;
	}
	/* In Hz with 128-bit integers, rounded down, then one division by 1e6:
	 * exact whenever the clock is a whole number of Hz. */
	out->bzy_mhz = (double)(uint64_t)((unsigned __int128)base_hz * da / dm) / 1e6;
	out->avg_mhz = (double)(uint64_t)((unsigned __int128)base_hz * da / dt) / 1e6;
	out->busy_pct = 100.0 * (double)dm / (double)dt;
	return 0;
}

double
lca_freq_perf_mhz(uint64_t d_cycles, uint64_t d_task_ns)
{
	if (d_task_ns == 0)
		return NAN;
	return (double)d_cycles * 1e3 / (double)d_task_ns;
}

static int
cpufreq_open(const char *root, int cpu)
{
	char path[PATH_MAX];
	int fd, ret;

	ret = root_path(path, sizeof(path), root,
			"/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	if (ret < 0)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int
cpufreq_read_fd(int fd, uint64_t *khz)
{
	char buf[32];
	int ret = pread_text(fd, buf, sizeof(buf));

	return ret < 0 ? ret : parse_u64(buf, khz);
}

int
lca_freq_cpufreq_read(const char *root, int cpu, uint64_t *khz)
{
	int fd, ret;

	if (cpu < 0 || khz == NULL)
		return -EINVAL;
	fd = cpufreq_open(root, cpu);
	if (fd < 0)
		return fd;
	ret = cpufreq_read_fd(fd, khz);
	close(fd);
	return ret;
}

int
lca_freq_procstat_read(const char *root, int cpu, struct lca_freq_cpu_times *out)
{
	char path[PATH_MAX], tag[16];
	size_t cap = 0, tag_len;
	char *line = NULL;
	int ret = -ENOENT;
	FILE *f;

	if (cpu < 0 || out == NULL)
		return -EINVAL;
	ret = root_path(path, sizeof(path), root, "/proc/stat");
	if (ret < 0)
		return ret;
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	snprintf(tag, sizeof(tag), "cpu%d ", cpu);
	tag_len = strlen(tag);
	ret = -ENOENT;
	/* The per-CPU lines come first; the long "intr" line follows them. */
	while (getline(&line, &cap, f) > 0 && strncmp(line, "cpu", 3) == 0) {
		unsigned long long v[8] = { 0 };
		int n;

		if (strncmp(line, tag, tag_len) != 0)
			continue;
		/* Kernels before 2.6.11 lack steal; missing fields stay 0. */
		n = sscanf(line + tag_len, "%llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		if (n < 4) {
			ret = -EINVAL;
			break;
		}
		out->user = v[0];
		out->nice = v[1];
		out->system = v[2];
		out->idle = v[3];
		out->iowait = v[4];
		out->irq = v[5];
		out->softirq = v[6];
		out->steal = v[7];
		ret = 0;
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

int
lca_freq_cpu_times_pct(const struct lca_freq_cpu_times *a, const struct lca_freq_cpu_times *b,
		       double *busy_pct, double *steal_pct, double *irq_pct)
{
	/* guest and guest_nice are already inside user and nice: not summed. */
	uint64_t d_user = b->user - a->user, d_nice = b->nice - a->nice;
	uint64_t d_sys = b->system - a->system, d_idle = b->idle - a->idle;
	uint64_t d_iow = b->iowait - a->iowait, d_irq = b->irq - a->irq;
	uint64_t d_sirq = b->softirq - a->softirq, d_steal = b->steal - a->steal;
	uint64_t total = d_user + d_nice + d_sys + d_idle + d_iow + d_irq + d_sirq + d_steal;

	if (total == 0) {
		*busy_pct = *steal_pct = *irq_pct = NAN;
		return -EINVAL;
	}
	*busy_pct = 100.0 * (double)(total - d_idle - d_iow) / (double)total;
	*steal_pct = 100.0 * (double)d_steal / (double)total;
	*irq_pct = 100.0 * (double)(d_irq + d_sirq) / (double)total;
	return 0;
}

int
lca_freq_governor_read(const char *root, int cpu, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t n;
	int ret;

	if (cpu < 0 || buf == NULL || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	ret = root_path(path, sizeof(path), root,
			"/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
	if (ret == 0)
		ret = read_text(path, buf, len);
	if (ret < 0) {
		buf[0] = '\0';
		return ret;
	}
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return 0;
}

static int
read_flag(const char *root, const char *rel)
{
	char path[PATH_MAX], buf[16];
	uint64_t v;
	int ret;

	ret = root_path(path, sizeof(path), root, "%s", rel);
	if (ret == 0)
		ret = read_text(path, buf, sizeof(buf));
	if (ret == 0)
		ret = parse_u64(buf, &v);
	return ret < 0 ? ret : v != 0;
}

int
lca_freq_turbo_read(const char *root)
{
	int v = read_flag(root, "/sys/devices/system/cpu/intel_pstate/no_turbo");

	if (v >= 0)
		return !v;
	v = read_flag(root, "/sys/devices/system/cpu/cpufreq/boost");
	return v >= 0 ? v : -ENOENT;
}

/* ---- the probe ---- */

#if defined(RTE_ARCH_X86_64)
#define PROBE_ADD "add %2, %0\n\t"
#define PROBE_LOOP_END "dec %1\n\tjnz 1b\n\t"

/* lfence on each side keeps the chain between the two TSC reads: rdtsc alone
 * may run before earlier instructions finish or after later ones start. */
static inline uint64_t
probe_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(RTE_ARCH_ARM64)
#define PROBE_ADD "add %0, %0, %2\n\t"
#define PROBE_LOOP_END "subs %1, %1, #1\n\tb.ne 1b\n\t"

static inline uint64_t
probe_tsc(void)
{
	return rte_rdtsc_precise();
}
#endif

#ifdef PROBE_ADD
#define PROBE_ADD10 PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD \
	PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD
#define PROBE_ADD100 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 \
	PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10

/* Register-register adds: one cycle of latency on every core of both
 * architectures. Adds of an immediate are avoided: recent Intel cores can
 * fold those at rename and run the chain faster than one per cycle. */
static uint64_t
probe_chain(uint64_t iters)
{
	uint64_t x = 0, step = 1, t0, t1;

	t0 = probe_tsc();
	__asm__ volatile("1:\n\t" PROBE_ADD100 PROBE_LOOP_END
			 : "+r"(x), "+r"(iters)
			 : "r"(step)
			 : "cc");
	t1 = probe_tsc();
	return t1 - t0;
}

int
lca_freq_probe(uint64_t tsc_hz, double *mhz)
{
	uint64_t best = UINT64_MAX, empty = UINT64_MAX, iters, ticks;
	double window_s;
	int i;

	if (tsc_hz == 0 || mhz == NULL)
		return -EINVAL;
	/* A slow timer (Arm's is often 25-100 MHz) needs a longer window. */
	window_s = RTE_MAX(PROBE_WINDOW_S, (double)PROBE_MIN_TICKS / (double)tsc_hz);
	iters = (uint64_t)(window_s * PROBE_ASSUMED_HZ / PROBE_ADDS_PER_ITER) + 1;
	for (i = 0; i < PROBE_TRIES; i++) {
		uint64_t t0 = probe_tsc();
		uint64_t t1 = probe_tsc();

		/* Interrupts only ever lengthen a window: keep the shortest. */
		empty = RTE_MIN(empty, t1 - t0);
		best = RTE_MIN(best, probe_chain(iters));
	}
	if (best <= empty)
		return -EIO;
	ticks = best - empty;
	*mhz = (double)tsc_hz * (double)(iters * PROBE_ADDS_PER_ITER) / (double)ticks / 1e6;
	return 0;
}
#else
int
lca_freq_probe(uint64_t tsc_hz, double *mhz)
{
	RTE_SET_USED(tsc_hz);
	RTE_SET_USED(mhz);
	return -ENOTSUP;
}
#endif

/* ---- perf_event ---- */

static int
perf_event_open(struct perf_event_attr *attr, int group_fd)
{
	return (int)syscall(__NR_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Count this thread's cycles and task-clock as one group, so that one read
 * gives both from the same instant. Called on the lcore being measured. */
static int
perf_open(int *leader, int *member)
{
	struct perf_event_attr a;
	int fd, fd2;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.read_format = PERF_FORMAT_GROUP;
	a.exclude_hv = 1;
	fd = perf_event_open(&a, -1);
	if (fd < 0 && errno == EACCES) {
		/* perf_event_paranoid 2: user-space cycles only. The loops run
		 * in user space, so the clock comes out the same. */
		a.exclude_kernel = 1;
		fd = perf_event_open(&a, -1);
	}
	if (fd < 0)
		return -errno;
	/* Same exclusions: the kernel checks them for software events too. */
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	fd2 = perf_event_open(&a, fd);
	if (fd2 < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	*leader = fd;
	*member = fd2;
	return 0;
}

static int
perf_read(int leader, uint64_t *cycles, uint64_t *ns)
{
	uint64_t v[3]; /* nr, cycles, task-clock */
	ssize_t n = read(leader, v, sizeof(v));

	if (n != (ssize_t)sizeof(v) || v[0] != 2)
		return -EIO;
	*cycles = v[1];
	*ns = v[2];
	return 0;
}

static bool
perf_available(void)
{
	int a, b;

	if (perf_ok < 0) {
		perf_ok = perf_open(&a, &b) == 0;
		if (perf_ok) {
			close(b);
			close(a);
		}
	}
	return perf_ok == 1;
}

/* ---- figures and verdicts ---- */

/* Welford's running mean and squared deviations: one pass, no cancellation. */
struct freq_acc {
	unsigned int n;
	double mean, m2, min, max;
};

static void
acc_init(struct freq_acc *a)
{
	a->n = 0;
	a->mean = a->m2 = 0.0;
	a->min = INFINITY;
	a->max = -INFINITY;
}

static void
acc_add(struct freq_acc *a, double x)
{
	double d;

	if (isnan(x))
		return;
	a->n++;
	d = x - a->mean;
	a->mean += d / a->n;
	a->m2 += d * (x - a->mean);
	a->min = RTE_MIN(a->min, x);
	a->max = RTE_MAX(a->max, x);
}

static void
reason_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;

	if (off + 1 >= len)
		return;
	if (off > 0) {
		snprintf(buf + off, len - off, ", ");
		off = strlen(buf);
	}
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

static void
lcore_judge(struct lca_freq_lcore_report *r, const struct lca_freq_thresholds *th)
{
	r->reason[0] = '\0';
	if (r->n_samples >= 2 && r->cv_pct > th->max_cv_pct)
		reason_add(r->reason, sizeof(r->reason), "cv %.2f%% > %g%%",
			   r->cv_pct, th->max_cv_pct);
	if (r->n_samples >= 2 && r->range_pct > th->max_range_pct)
		reason_add(r->reason, sizeof(r->reason), "range %.2f%% > %g%%",
			   r->range_pct, th->max_range_pct);
	/* Steal counts even without enough samples: it alone spoils a run. */
	if (!isnan(r->steal_pct) && r->steal_pct > th->max_steal_pct)
		reason_add(r->reason, sizeof(r->reason), "steal %.2f%% > %g%%",
			   r->steal_pct, th->max_steal_pct);
	if (r->reason[0] != '\0') {
		r->verdict = LCA_FREQ_UNSTABLE;
	} else if (r->n_samples < 2) {
		r->verdict = LCA_FREQ_NO_DATA;
		snprintf(r->reason, sizeof(r->reason), "%u sample%s", r->n_samples,
			 r->n_samples == 1 ? "" : "s");
	} else {
		r->verdict = LCA_FREQ_STABLE;
	}
}

/* Set the figures from n, mean, M2, min and max. */
static void
lcore_set_figures(struct lca_freq_lcore_report *r, unsigned int n, double mean, double m2,
		  double min, double max)
{
	r->n_samples = n;
	if (n == 0) {
		r->min_mhz = r->mean_mhz = r->max_mhz = NAN;
		r->stdev_mhz = r->cv_pct = r->range_pct = NAN;
		return;
	}
	r->min_mhz = min;
	r->mean_mhz = mean;
	r->max_mhz = max;
	r->stdev_mhz = n > 1 ? sqrt(m2 / (n - 1)) : 0.0;
	r->cv_pct = mean > 0 ? 100.0 * r->stdev_mhz / mean : NAN;
	r->range_pct = mean > 0 ? 100.0 * (max - min) / mean : NAN;
}

static void
lcore_finish(struct lca_freq_lcore_report *r, const struct freq_acc *a,
	     const struct lca_freq_thresholds *th)
{
	lcore_set_figures(r, a->n, a->mean, a->m2, a->min, a->max);
	lcore_judge(r, th);
}

void
lca_freq_lcore_figures(struct lca_freq_lcore_report *r, const double *mhz, unsigned int n,
		       const struct lca_freq_thresholds *th)
{
	struct freq_acc a;
	unsigned int i;

	acc_init(&a);
	for (i = 0; i < n; i++)
		acc_add(&a, mhz[i]);
	lcore_finish(r, &a, th);
}

void
lca_freq_report_judge(struct lca_freq_report *r)
{
	unsigned int i, n_stable = 0, n_unstable = 0;

	r->reason[0] = '\0';
	for (i = 0; i < r->n_lcores; i++) {
		struct lca_freq_lcore_report *l = &r->lcores[i];

		lcore_judge(l, &r->thresholds);
		if (l->verdict == LCA_FREQ_UNSTABLE) {
			n_unstable++;
			reason_add(r->reason, sizeof(r->reason), "lcore %u: %s", l->lcore_id,
				   l->reason);
		} else if (l->verdict == LCA_FREQ_STABLE) {
			n_stable++;
		}
	}
	if (n_unstable > 0) {
		r->verdict = LCA_FREQ_UNSTABLE;
		return;
	}
	if (r->n_lcores > 0 && n_stable == r->n_lcores) {
		r->verdict = LCA_FREQ_STABLE;
		return;
	}
	/* A run is only called stable when every lcore could be judged. */
	r->verdict = LCA_FREQ_NO_DATA;
	for (i = 0; i < r->n_lcores; i++)
		if (r->lcores[i].verdict == LCA_FREQ_NO_DATA)
			reason_add(r->reason, sizeof(r->reason), "lcore %u: %s",
				   r->lcores[i].lcore_id, r->lcores[i].reason);
	if (r->n_lcores == 0)
		snprintf(r->reason, sizeof(r->reason), "no lcores");
}

/* Mean of a and b weighted by wa and wb, skipping an unknown one. */
static double
wmean(double a, double wa, double b, double wb)
{
	if (isnan(a) || wa <= 0)
		return wb > 0 ? b : NAN;
	if (isnan(b) || wb <= 0)
		return a;
	return (a * wa + b * wb) / (wa + wb);
}

int
lca_freq_report_merge(struct lca_freq_report *into, const struct lca_freq_report *from)
{
	unsigned int i;

	if (into == NULL || from == NULL)
		return -EINVAL;
	if (into->n_lcores == 0) {
		*into = *from;
		return 0;
	}
	if (into->n_lcores != from->n_lcores)
		return -EINVAL;
	for (i = 0; i < into->n_lcores; i++)
		if (into->lcores[i].lcore_id != from->lcores[i].lcore_id)
			return -EINVAL;

	for (i = 0; i < into->n_lcores; i++) {
		struct lca_freq_lcore_report *a = &into->lcores[i];
		const struct lca_freq_lcore_report *b = &from->lcores[i];
		double wa = into->duration_s, wb = from->duration_s;
		unsigned int na = a->n_samples, nb = b->n_samples, n = na + nb;

		/* Chan et al.'s pooled variance: exact, as if one pass. */
		if (nb > 0 && na == 0) {
			lcore_set_figures(a, nb, b->mean_mhz, b->stdev_mhz * b->stdev_mhz * (nb - 1),
					  b->min_mhz, b->max_mhz);
		} else if (nb > 0) {
			double ma2 = na > 1 ? a->stdev_mhz * a->stdev_mhz * (na - 1) : 0.0;
			double mb2 = nb > 1 ? b->stdev_mhz * b->stdev_mhz * (nb - 1) : 0.0;
			double d = b->mean_mhz - a->mean_mhz;

			lcore_set_figures(a, n, a->mean_mhz + d * nb / n,
					  ma2 + mb2 + d * d * ((double)na * nb / n),
					  RTE_MIN(a->min_mhz, b->min_mhz),
					  RTE_MAX(a->max_mhz, b->max_mhz));
		}
		a->n_dropped += b->n_dropped;
		a->probe_mhz = wmean(a->probe_mhz, wa, b->probe_mhz, wb);
		a->busy_pct = wmean(a->busy_pct, wa, b->busy_pct, wb);
		a->steal_pct = wmean(a->steal_pct, wa, b->steal_pct, wb);
		a->irq_pct = wmean(a->irq_pct, wa, b->irq_pct, wb);
	}
	into->duration_s += from->duration_s;
	if (into->turbo < 0)
		into->turbo = from->turbo;
	lca_freq_report_judge(into);
	return 0;
}

/* ---- the monitor ---- */

static const char *
mon_root(void)
{
	return mon.root[0] != '\0' ? mon.root : NULL;
}

static bool
source_allowed(enum lca_freq_source s)
{
	return mon.conf.sources == 0 || (mon.conf.sources & LCA_FREQ_SRC_BIT(s)) != 0;
}

/* The lcore's CPU, or -1 when it may run on several: then no per-CPU file
 * describes it. */
static int
lcore_cpu(unsigned int lcore_id)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore_id);

	if (CPU_COUNT(&set) != 1)
		return -1;
	return lca_topo_lcore_cpu(lcore_id);
}

static void
lcore_close(struct freq_lcore *s)
{
	if (s->fd2 >= 0)
		close(s->fd2);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = s->fd2 = -1;
	rte_free(s->samples);
	s->samples = NULL;
	s->on = false;
}

static void
lcore_choose_source(struct freq_lcore *s)
{
	const char *root = mon_root();
	struct lca_freq_msr m;
	struct msr_dev d;
	uint64_t khz;
	int fd;

	if (s->cpu >= 0 && source_allowed(LCA_FREQ_SRC_MSR) && msr_open(root, s->cpu, &d) == 0) {
		if (msr_read_dev(&d, &m) == 0) {
			s->src = LCA_FREQ_SRC_MSR;
			s->fd = d.fd;
			s->msr_scale = d.scale;
			return;
		}
		close(d.fd);
	}
	/* perf counts this process's threads only; a fake root cannot fake it. */
	if (root == NULL && source_allowed(LCA_FREQ_SRC_PERF) && perf_available()) {
		s->src = LCA_FREQ_SRC_PERF;
		return;
	}
	if (s->cpu >= 0 && source_allowed(LCA_FREQ_SRC_CPUFREQ)) {
		fd = cpufreq_open(root, s->cpu);
		if (fd >= 0 && cpufreq_read_fd(fd, &khz) == 0) {
			s->src = LCA_FREQ_SRC_CPUFREQ;
			s->fd = fd;
			return;
		}
		if (fd >= 0)
			close(fd);
	}
	s->src = LCA_FREQ_SRC_PROBE;
}

static int
lcore_start(unsigned int lcore_id)
{
	struct freq_lcore *s = &lstate[lcore_id];
	size_t size = (size_t)mon.conf.max_samples * sizeof(*s->samples);
	int socket = (int)rte_lcore_to_socket_id(lcore_id);

	memset(s, 0, sizeof(*s));
	s->fd = s->fd2 = -1;
	s->cpu = lcore_cpu(lcore_id);
	/* On the lcore's own node: it writes every sample. */
	s->samples = rte_malloc_socket("lca_freq", size, RTE_CACHE_LINE_SIZE, socket);
	if (s->samples == NULL)
		s->samples = rte_malloc("lca_freq", size, RTE_CACHE_LINE_SIZE);
	if (s->samples == NULL)
		return -ENOMEM;
	lcore_choose_source(s);
	if (s->cpu >= 0)
		s->stat0_ok = lca_freq_procstat_read(mon_root(), s->cpu, &s->stat0) == 0;
	s->on = true;
	return 0;
}

int
lca_freq_monitor_start(const struct lca_freq_conf *conf)
{
	struct lca_freq_conf defaults;
	unsigned int lcore_id;
	const struct lca_freq_thresholds *th;
	int ret;

	if (mon.active)
		return -EBUSY;
	if (conf == NULL) {
		lca_freq_conf_init(&defaults);
		conf = &defaults;
	}
	th = &conf->thresholds;
	if (!(conf->period_s > 0 && conf->period_s <= 3600) || conf->max_samples == 0 ||
	    conf->max_samples > MAX_MAX_SAMPLES ||
	    (conf->sources & ~(LCA_FREQ_SRC_BIT(LCA_FREQ_SRC_MAX) - 1)) != 0 ||
	    !(th->max_cv_pct >= 0) || !(th->max_range_pct >= 0) || !(th->max_steal_pct >= 0))
		return -EINVAL;
	if (conf->root != NULL && strlen(conf->root) >= sizeof(mon.root))
		return -ENAMETOOLONG;
	mon.tsc_hz = rte_get_tsc_hz();
	if (mon.tsc_hz == 0)
		return -EINVAL;
	mon.conf = *conf;
	snprintf(mon.root, sizeof(mon.root), "%s", conf->root != NULL ? conf->root : "");
	mon.conf.root = NULL; /* the copy in mon.root is the one used */
	mon.period_tsc = (uint64_t)(conf->period_s * (double)mon.tsc_hz);
	if (mon.period_tsc == 0)
		mon.period_tsc = 1;

	RTE_LCORE_FOREACH(lcore_id) {
		ret = lcore_start(lcore_id);
		if (ret < 0) {
			RTE_LCORE_FOREACH(lcore_id)
				if (lstate[lcore_id].on || lstate[lcore_id].samples != NULL)
					lcore_close(&lstate[lcore_id]);
			return ret;
		}
	}
	mon.start_tsc = rte_rdtsc();
	mon.active = true;
	/* Due at once: the first sample is a delta source's baseline. */
	RTE_LCORE_FOREACH(lcore_id)
		__atomic_store_n(&lca_freq_deadlines[lcore_id].tsc, 0, __ATOMIC_RELAXED);
	return 0;
}

bool
lca_freq_monitor_active(void)
{
	return mon.active;
}

/* The source's figure for this sample; NAN when there is none yet. */
static double
lcore_source_mhz(struct freq_lcore *s, double probe_mhz)
{
	struct msr_dev d = { .fd = s->fd, .scale = s->msr_scale };
	struct lca_freq_msr_figures fig;
	struct lca_freq_msr m;
	uint64_t khz, cycles, ns;
	double mhz = NAN;

	switch (s->src) {
	case LCA_FREQ_SRC_MSR:
		if (msr_read_dev(&d, &m) < 0) {
			s->have_prev = false;
			break;
		}
		if (s->have_prev && lca_freq_msr_compute(&s->prev_msr, &m, mon.tsc_hz, &fig) == 0) {
			mhz = fig.bzy_mhz;
			s->sum_dmperf += m.mperf - s->prev_msr.mperf;
			s->sum_dtsc += m.tsc - s->prev_msr.tsc;
		}
		s->prev_msr = m;
		s->have_prev = true;
		break;
	case LCA_FREQ_SRC_PERF:
		if (!s->perf_tried) {
			/* Opened here: the counters follow the calling thread. */
			s->perf_tried = true;
			if (perf_open(&s->fd, &s->fd2) < 0) {
				s->src = LCA_FREQ_SRC_PROBE;
				return probe_mhz;
			}
		}
		if (perf_read(s->fd, &cycles, &ns) < 0) {
			s->have_prev = false;
			break;
		}
		if (s->have_prev)
			mhz = lca_freq_perf_mhz(cycles - s->prev_cycles, ns - s->prev_ns);
		s->prev_cycles = cycles;
		s->prev_ns = ns;
		s->have_prev = true;
		break;
	case LCA_FREQ_SRC_CPUFREQ:
		if (cpufreq_read_fd(s->fd, &khz) == 0)
			mhz = (double)khz / 1e3;
		break;
	default:
		mhz = probe_mhz;
		break;
	}
	return mhz;
}

void
lca_freq_sample(unsigned int lcore_id, uint64_t now_tsc)
{
	struct freq_lcore *s;
	struct freq_sample smp;

	if (lcore_id >= RTE_MAX_LCORE)
		return;
	s = &lstate[lcore_id];
	if (!mon.active || !s->on) {
		__atomic_store_n(&lca_freq_deadlines[lcore_id].tsc, UINT64_MAX, __ATOMIC_RELAXED);
		return;
	}
	if (lca_freq_probe(mon.tsc_hz, &smp.probe_mhz) < 0)
		smp.probe_mhz = NAN;
	smp.mhz = lcore_source_mhz(s, smp.probe_mhz);
	if (s->n < mon.conf.max_samples)
		s->samples[s->n++] = smp;
	else
		s->dropped++;
	__atomic_store_n(&lca_freq_deadlines[lcore_id].tsc, now_tsc + mon.period_tsc,
			 __ATOMIC_RELAXED);
}

static void
lcore_report(unsigned int lcore_id, struct lca_freq_lcore_report *r)
{
	struct freq_lcore *s = &lstate[lcore_id];
	struct lca_freq_cpu_times t1;
	struct freq_acc a, p;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->lcore_id = lcore_id;
	r->cpu = s->cpu;
	r->source = s->src;
	r->n_dropped = s->dropped;
	r->busy_pct = r->steal_pct = r->irq_pct = NAN;
	if (s->cpu >= 0 && s->stat0_ok && lca_freq_procstat_read(mon_root(), s->cpu, &t1) == 0)
		lca_freq_cpu_times_pct(&s->stat0, &t1, &r->busy_pct, &r->steal_pct, &r->irq_pct);
	/* MPERF counts C0 time exactly; /proc/stat only in ticks. */
	if (s->src == LCA_FREQ_SRC_MSR && s->sum_dtsc > 0)
		r->busy_pct = 100.0 * (double)s->sum_dmperf / (double)s->sum_dtsc;
	if (s->cpu >= 0)
		lca_freq_governor_read(mon_root(), s->cpu, r->governor, sizeof(r->governor));
	acc_init(&a);
	acc_init(&p);
	for (i = 0; i < s->n; i++) {
		acc_add(&a, s->samples[i].mhz);
		acc_add(&p, s->samples[i].probe_mhz);
	}
	r->probe_mhz = p.n > 0 ? p.mean : NAN;
	lcore_finish(r, &a, &mon.conf.thresholds);
}

int
lca_freq_monitor_stop(struct lca_freq_report *report)
{
	unsigned int lcore_id, main_lcore = rte_get_main_lcore();
	uint64_t end_tsc = rte_rdtsc();
	int turbo;

	if (!mon.active)
		return -EINVAL;
	mon.active = false;
	RTE_LCORE_FOREACH(lcore_id)
		__atomic_store_n(&lca_freq_deadlines[lcore_id].tsc, UINT64_MAX, __ATOMIC_RELAXED);

	if (report != NULL) {
		memset(report, 0, offsetof(struct lca_freq_report, lcores));
		report->tsc_hz = mon.tsc_hz;
		report->duration_s = (double)(end_tsc - mon.start_tsc) / (double)mon.tsc_hz;
		turbo = lca_freq_turbo_read(mon_root());
		report->turbo = turbo >= 0 ? turbo : -1;
		report->thresholds = mon.conf.thresholds;
		/* Main lcore first, as every table in lcactor lists them. */
		if (lstate[main_lcore].on)
			lcore_report(main_lcore, &report->lcores[report->n_lcores++]);
		RTE_LCORE_FOREACH_WORKER(lcore_id)
			if (lstate[lcore_id].on)
				lcore_report(lcore_id, &report->lcores[report->n_lcores++]);
		lca_freq_report_judge(report);
	}
	RTE_LCORE_FOREACH(lcore_id)
		if (lstate[lcore_id].on)
			lcore_close(&lstate[lcore_id]);
	return 0;
}

/* ---- printing ---- */

static void
print_num(FILE *f, int width, int prec, double v)
{
	if (isnan(v))
		fprintf(f, " %*s", width, "n/a");
	else
		fprintf(f, " %*.*f", width, prec, v);
}

void
lca_freq_report_print(FILE *f, const struct lca_freq_report *r)
{
	const struct lca_freq_thresholds *th = &r->thresholds;
	uint64_t dropped = 0;
	unsigned int i;

	fprintf(f, "Per-core clock during the measurement: %u lcore%s, %.3f s, "
		"TSC %.3f MHz, turbo %s\n",
		r->n_lcores, r->n_lcores == 1 ? "" : "s", r->duration_s, (double)r->tsc_hz / 1e6,
		r->turbo < 0 ? "n/a" : r->turbo ? "on" : "off");
	fprintf(f, "%5s %4s %-7s %7s %8s %8s %8s %7s %6s %6s %9s %6s %6s %6s %-12s %s\n",
		"lcore", "cpu", "source", "samples", "min MHz", "mean MHz", "max MHz", "stdev",
		"cv%", "range%", "probe MHz", "busy%", "steal%", "irq%", "governor", "verdict");
	for (i = 0; i < r->n_lcores; i++) {
		const struct lca_freq_lcore_report *l = &r->lcores[i];

		fprintf(f, "%5u", l->lcore_id);
		if (l->cpu >= 0)
			fprintf(f, " %4d", l->cpu);
		else
			fprintf(f, " %4s", "any");
		fprintf(f, " %-7s %7u", lca_freq_source_name(l->source), l->n_samples);
		print_num(f, 8, 1, l->min_mhz);
		print_num(f, 8, 1, l->mean_mhz);
		print_num(f, 8, 1, l->max_mhz);
		print_num(f, 7, 2, l->stdev_mhz);
		print_num(f, 6, 2, l->cv_pct);
		print_num(f, 6, 2, l->range_pct);
		print_num(f, 9, 1, l->probe_mhz);
		print_num(f, 6, 1, l->busy_pct);
		print_num(f, 6, 2, l->steal_pct);
		print_num(f, 6, 2, l->irq_pct);
		fprintf(f, " %-12s %s", l->governor[0] != '\0' ? l->governor : "n/a",
			lca_freq_verdict_name(l->verdict));
		if (l->reason[0] != '\0')
			fprintf(f, " (%s)", l->reason);
		fputc('\n', f);
		dropped += l->n_dropped;
	}
	fprintf(f, "Clock verdict: %s", lca_freq_verdict_name(r->verdict));
	if (r->reason[0] != '\0')
		fprintf(f, " (%s)", r->reason);
	fprintf(f, " [stable: cv <= %g%%, range <= %g%%, steal <= %g%%]\n",
		th->max_cv_pct, th->max_range_pct, th->max_steal_pct);
	if (dropped > 0)
		fprintf(f, "Note: %" PRIu64 " samples did not fit the buffers and are not in "
			"the figures (raise max_samples or the period)\n", dropped);
	if (r->verdict == LCA_FREQ_UNSTABLE)
		fprintf(f, "WARNING: a core's clock or steal time was unstable during the "
			"measurement; its results are noisy and not comparable\n");
}
