/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frequency readers: MSR, perf_event, cpufreq, /proc/stat, the lcore
 * threads' schedstat and status, CPU pressure and sysfs flags, each under a root folder so that tests run them on fakes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "lca_freq_priv.h"
#include "lca_path_priv.h"

/* MSR addresses, as the Intel SDM (and AMD, for APERF/MPERF) number them. */
#define MSR_TSC   0x10
#define MSR_MPERF 0xE7
#define MSR_APERF 0xE8

/* -1 not tried, 0 no, 1 yes: whether this process may count CPU cycles. */
static int perf_ok = -1;

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

static int
msr_pread(const struct freq_msr_dev *d, uint32_t msr, uint64_t *val)
{
	ssize_t n = pread(d->fd, val, sizeof(*val), (off_t)msr * d->scale);

	if (n < 0)
		return -errno;
	return n == sizeof(*val) ? 0 : -EIO;
}

int
freq_msr_read_dev(const struct freq_msr_dev *d, struct lca_freq_msr *out)
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

int
freq_msr_open(const char *root, int cpu, struct freq_msr_dev *d)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	ret = lca_root_path(path, sizeof(path), root, "/dev/cpu/%d/msr", cpu);
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
	struct freq_msr_dev d;
	int ret;

	if (cpu < 0 || out == NULL)
		return -EINVAL;
	ret = freq_msr_open(root, cpu, &d);
	if (ret < 0)
		return ret;
	ret = freq_msr_read_dev(&d, out);
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

int
freq_cpufreq_open(const char *root, int cpu)
{
	char path[PATH_MAX];
	int fd, ret;

	ret = lca_root_path(path, sizeof(path), root,
			"/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	if (ret < 0)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int
freq_cpufreq_read_fd(int fd, uint64_t *khz)
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
	fd = freq_cpufreq_open(root, cpu);
	if (fd < 0)
		return fd;
	ret = freq_cpufreq_read_fd(fd, khz);
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
	ret = lca_root_path(path, sizeof(path), root, "/proc/stat");
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
lca_freq_schedstat_read(const char *root, int tid, struct lca_freq_schedstat *out)
{
	char path[PATH_MAX], buf[128];
	unsigned long long v[3];
	int ret;

	if (tid <= 0 || out == NULL)
		return -EINVAL;
	ret = lca_root_path(path, sizeof(path), root, "/proc/self/task/%d/schedstat", tid);
	if (ret == 0)
		ret = read_text(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	if (sscanf(buf, "%llu %llu %llu", &v[0], &v[1], &v[2]) != 3)
		return -EINVAL;
	out->run_ns = v[0];
	out->wait_ns = v[1];
	out->slices = v[2];
	return 0;
}

/* The value of the line "key<spaces>value" of a small text file. */
static int
read_keyed_u64(const char *path, const char *key, uint64_t *out)
{
	size_t cap = 0, key_len = strlen(key);
	char *line = NULL;
	int ret = -ENOENT;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, key, key_len) != 0)
			continue;
		ret = parse_u64(line + key_len, out);
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

int
lca_freq_invol_read(const char *root, int tid, uint64_t *out)
{
	char path[PATH_MAX];
	int ret;

	if (tid <= 0 || out == NULL)
		return -EINVAL;
	ret = lca_root_path(path, sizeof(path), root, "/proc/self/task/%d/status", tid);
	return ret < 0 ? ret : read_keyed_u64(path, "nonvoluntary_ctxt_switches:", out);
}

int
lca_freq_pressure_read(const char *root, uint64_t *some_total_us)
{
	char path[PATH_MAX], buf[256];
	const char *t;
	uint64_t v;
	int ret;

	if (some_total_us == NULL)
		return -EINVAL;
	ret = lca_root_path(path, sizeof(path), root, "/proc/pressure/cpu");
	if (ret == 0)
		ret = read_text(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=N", then maybe "full ...". */
	if (strncmp(buf, "some ", 5) != 0)
		return -EINVAL;
	buf[strcspn(buf, "\n")] = '\0';
	t = strstr(buf, " total=");
	if (t == NULL || parse_u64(t + 7, &v) < 0)
		return -EINVAL;
	*some_total_us = v;
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
	ret = lca_root_path(path, sizeof(path), root,
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

	ret = lca_root_path(path, sizeof(path), root, "%s", rel);
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

static int
perf_event_open(struct perf_event_attr *attr, int group_fd)
{
	return (int)syscall(__NR_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Count this thread's cycles and task-clock as one group, so that one read
 * gives both from the same instant. Called on the lcore being measured. */
int
freq_perf_open(int *leader, int *member)
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

int
freq_perf_read(int leader, uint64_t *cycles, uint64_t *ns)
{
	uint64_t v[3]; /* nr, cycles, task-clock */
	ssize_t n = read(leader, v, sizeof(v));

	if (n != (ssize_t)sizeof(v) || v[0] != 2)
		return -EIO;
	*cycles = v[1];
	*ns = v[2];
	return 0;
}

bool
freq_perf_available(void)
{
	int a, b;

	if (perf_ok < 0) {
		perf_ok = freq_perf_open(&a, &b) == 0;
		if (perf_ok) {
			close(b);
			close(a);
		}
	}
	return perf_ok == 1;
}
