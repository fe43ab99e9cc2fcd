/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frequency monitor: per-lcore sample buffers, the choice of each
 * lcore's source, the sampling itself (on the lcore being measured) and the
 * report at the end.
 */
/* rte_lcore_cpuset() and CPU_COUNT() need cpu_set_t from <sched.h>. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "lca_lcore.h"
#include "lca_topo.h"
#include "lca_freq_priv.h"

#define DEFAULT_PERIOD_S    0.01
#define DEFAULT_MAX_SAMPLES 4096
#define DEFAULT_SERIES_PERIOD_S 0.1
#define MAX_MAX_SAMPLES     (1u << 24)

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
	/* The time series: kept after the stop, freed at the next start. */
	struct lca_freq_point *points;
	unsigned int n_points;
	/* The point being gathered. */
	unsigned int pt_samples;
	struct freq_acc pt_mhz, pt_probe;
	uint64_t pt_start_tsc;
	uint64_t pt_dmperf0, pt_dtsc0; /* sum_dmperf and sum_dtsc at its start */
	struct lca_freq_cpu_times pt_stat;
	bool pt_stat_ok;
	/* The lcore thread's scheduler figures at its first sample: its TID
	 * is only known on the lcore itself. */
	int tid; /* 0 until the first sample */
	uint64_t t0_tsc;
	struct lca_freq_schedstat sched0;
	bool sched0_ok;
	uint64_t invol0;
	bool invol0_ok;
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
	uint64_t series_period_tsc;
	uint64_t start_tsc;
	uint64_t psi0; /* /proc/pressure/cpu "some" total at the start, us */
	bool psi0_ok;
} mon;

void
lca_freq_conf_init(struct lca_freq_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->period_s = DEFAULT_PERIOD_S;
	conf->max_samples = DEFAULT_MAX_SAMPLES;
	conf->series_period_s = DEFAULT_SERIES_PERIOD_S;
	conf->sources = 0;
	conf->root = NULL;
	conf->thresholds.max_cv_pct = 1.0;
	conf->thresholds.max_range_pct = 2.0;
	conf->thresholds.max_steal_pct = 1.0;
	conf->thresholds.max_rq_wait_pct = 2.0;
	conf->thresholds.max_irq_pct = 2.0;
	conf->thresholds.outlier_pct = 5.0;
}

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
	struct freq_msr_dev d;
	uint64_t khz;
	int fd;

	if (s->cpu >= 0 && source_allowed(LCA_FREQ_SRC_MSR) && freq_msr_open(root, s->cpu, &d) == 0) {
		if (freq_msr_read_dev(&d, &m) == 0) {
			s->src = LCA_FREQ_SRC_MSR;
			s->fd = d.fd;
			s->msr_scale = d.scale;
			return;
		}
		close(d.fd);
	}
	/* perf counts this process's threads only; a fake root cannot fake it. */
	if (root == NULL && source_allowed(LCA_FREQ_SRC_PERF) && freq_perf_available()) {
		s->src = LCA_FREQ_SRC_PERF;
		return;
	}
	if (s->cpu >= 0 && source_allowed(LCA_FREQ_SRC_CPUFREQ)) {
		fd = freq_cpufreq_open(root, s->cpu);
		if (fd >= 0 && freq_cpufreq_read_fd(fd, &khz) == 0) {
			s->src = LCA_FREQ_SRC_CPUFREQ;
			s->fd = fd;
			return;
		}
		if (fd >= 0)
			close(fd);
	}
	s->src = LCA_FREQ_SRC_PROBE;
}

/* On the lcore's own node: it writes every sample and point. */
static void *
lcore_alloc(unsigned int lcore_id, size_t size)
{
	void *p = rte_malloc_socket("lca_freq", size, RTE_CACHE_LINE_SIZE,
				    (int)rte_lcore_to_socket_id(lcore_id));

	return p != NULL ? p : rte_malloc("lca_freq", size, RTE_CACHE_LINE_SIZE);
}

static int
lcore_start(unsigned int lcore_id)
{
	struct freq_lcore *s = &lstate[lcore_id];

	rte_free(s->points); /* the last run's series */
	memset(s, 0, sizeof(*s));
	s->fd = s->fd2 = -1;
	s->cpu = lcore_cpu(lcore_id);
	s->samples = lcore_alloc(lcore_id, (size_t)mon.conf.max_samples * sizeof(*s->samples));
	if (s->samples == NULL)
		return -ENOMEM;
	/* At most a point per sample, and the last one at the stop. */
	if (mon.series_period_tsc > 0) {
		s->points = lcore_alloc(lcore_id,
					((size_t)mon.conf.max_samples + 1) * sizeof(*s->points));
		if (s->points == NULL)
			return -ENOMEM;
	}
	lcore_choose_source(s);
	if (s->cpu >= 0)
		s->stat0_ok = lca_freq_procstat_read(mon_root(), s->cpu, &s->stat0) == 0;
	s->pt_stat = s->stat0;
	s->pt_stat_ok = s->stat0_ok;
	freq_acc_init(&s->pt_mhz);
	freq_acc_init(&s->pt_probe);
	s->on = true;
	return 0;
}

/* Close the point being gathered at now_tsc. Runs on the lcore while it
 * samples, and on the main lcore at the stop: /proc/stat is read once per
 * point, not per sample (its ticks are 10 ms anyway). */
static void
point_close(struct freq_lcore *s, uint64_t now_tsc)
{
	struct lca_freq_point *p;
	struct lca_freq_cpu_times t;
	uint64_t dtsc = s->sum_dtsc - s->pt_dtsc0;
	double irq;

	if (s->n_points > mon.conf.max_samples)
		return;
	p = &s->points[s->n_points];
	p->t_s = (double)(now_tsc - mon.start_tsc) / (double)mon.tsc_hz;
	p->mhz = s->pt_mhz.n > 0 ? s->pt_mhz.mean : NAN;
	p->probe_mhz = s->pt_probe.n > 0 ? s->pt_probe.mean : NAN;
	p->busy_pct = p->steal_pct = NAN;
	if (s->cpu >= 0 && s->pt_stat_ok &&
	    lca_freq_procstat_read(mon_root(), s->cpu, &t) == 0) {
		lca_freq_cpu_times_pct(&s->pt_stat, &t, &p->busy_pct, &p->steal_pct, &irq);
		s->pt_stat = t;
	}
	if (s->src == LCA_FREQ_SRC_MSR && dtsc > 0)
		p->busy_pct = 100.0 * (double)(s->sum_dmperf - s->pt_dmperf0) / (double)dtsc;
	s->n_points++;
	s->pt_samples = 0;
	freq_acc_init(&s->pt_mhz);
	freq_acc_init(&s->pt_probe);
	s->pt_start_tsc = now_tsc;
	s->pt_dmperf0 = s->sum_dmperf;
	s->pt_dtsc0 = s->sum_dtsc;
}

static void
point_add(struct freq_lcore *s, const struct freq_sample *smp, uint64_t now_tsc)
{
	freq_acc_add(&s->pt_mhz, smp->mhz);
	freq_acc_add(&s->pt_probe, smp->probe_mhz);
	s->pt_samples++;
	if (now_tsc - s->pt_start_tsc >= mon.series_period_tsc)
		point_close(s, now_tsc);
}

int
lca_freq_series_get(unsigned int lcore_id, struct lca_freq_point *out, unsigned int n)
{
	const struct freq_lcore *s;

	if (lcore_id >= RTE_MAX_LCORE || (out == NULL && n > 0))
		return -EINVAL;
	s = &lstate[lcore_id];
	if (s->points == NULL)
		return -ENOENT;
	if (n > 0)
		memcpy(out, s->points, (size_t)RTE_MIN(n, s->n_points) * sizeof(*out));
	return (int)s->n_points;
}

/* Sampling is not the app's work: an idle lcore stays idle for the loop's
 * accounting and its idle policy. */
static unsigned int
hook_poll(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	RTE_SET_USED(arg);
	lca_freq_poll(lcore_id, now_tsc);
	return 0;
}

static const struct lca_lcore_hook sampler_hook = { .poll = hook_poll };

/* The sampler rides the run loops' hook, so that lcore/ needs nothing of
 * this file. Loops of the apps' own (lca-freq --load) call lca_freq_poll(). */
static int
hooks_add(void)
{
	unsigned int lcore_id;
	int ret;

	RTE_LCORE_FOREACH(lcore_id) {
		ret = lca_lcore_hook_add(lcore_id, &sampler_hook);
		if (ret < 0 && ret != -EEXIST)
			return ret;
	}
	return 0;
}

static void
hooks_remove(void)
{
	unsigned int lcore_id;

	RTE_LCORE_FOREACH(lcore_id)
		lca_lcore_hook_remove(lcore_id, &sampler_hook);
}

static void
lcores_close(void)
{
	unsigned int lcore_id;

	RTE_LCORE_FOREACH(lcore_id)
		if (lstate[lcore_id].on || lstate[lcore_id].samples != NULL)
			lcore_close(&lstate[lcore_id]);
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
	    !(conf->series_period_s >= 0 && conf->series_period_s <= 3600) ||
	    (conf->sources & ~(LCA_FREQ_SRC_BIT(LCA_FREQ_SRC_MAX) - 1)) != 0 ||
	    !(th->max_cv_pct >= 0) || !(th->max_range_pct >= 0) || !(th->max_steal_pct >= 0) ||
	    !(th->max_rq_wait_pct >= 0) || !(th->max_irq_pct >= 0) || !(th->outlier_pct >= 0))
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
	mon.series_period_tsc = (uint64_t)(conf->series_period_s * (double)mon.tsc_hz);
	if (mon.series_period_tsc == 0 && conf->series_period_s > 0)
		mon.series_period_tsc = 1;

	RTE_LCORE_FOREACH(lcore_id) {
		ret = lcore_start(lcore_id);
		if (ret < 0)
			goto fail;
	}
	ret = hooks_add();
	if (ret < 0)
		goto fail;
	mon.psi0_ok = lca_freq_pressure_read(mon_root(), &mon.psi0) == 0;
	mon.start_tsc = rte_rdtsc();
	RTE_LCORE_FOREACH(lcore_id)
		lstate[lcore_id].pt_start_tsc = mon.start_tsc;
	mon.active = true;
	/* Due at once: the first sample is a delta source's baseline. */
	RTE_LCORE_FOREACH(lcore_id)
		__atomic_store_n(&lca_freq_deadlines[lcore_id].tsc, 0, __ATOMIC_RELAXED);
	return 0;
fail:
	hooks_remove();
	lcores_close();
	RTE_LCORE_FOREACH(lcore_id) {
		rte_free(lstate[lcore_id].points);
		lstate[lcore_id].points = NULL;
	}
	return ret;
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
	struct freq_msr_dev d = { .fd = s->fd, .scale = s->msr_scale };
	struct lca_freq_msr_figures fig;
	struct lca_freq_msr m;
	uint64_t khz, cycles, ns;
	double mhz = NAN;

	switch (s->src) {
	case LCA_FREQ_SRC_MSR:
		if (freq_msr_read_dev(&d, &m) < 0) {
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
			if (freq_perf_open(&s->fd, &s->fd2) < 0) {
				s->src = LCA_FREQ_SRC_PROBE;
				return probe_mhz;
			}
		}
		if (freq_perf_read(s->fd, &cycles, &ns) < 0) {
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
		if (freq_cpufreq_read_fd(s->fd, &khz) == 0)
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
	if (s->tid == 0) {
		/* Read here, on the lcore: the figures are its thread's. */
		s->tid = rte_gettid();
		s->t0_tsc = rte_rdtsc();
		s->sched0_ok = lca_freq_schedstat_read(mon_root(), s->tid, &s->sched0) == 0;
		s->invol0_ok = lca_freq_invol_read(mon_root(), s->tid, &s->invol0) == 0;
	}
	if (lca_freq_probe(mon.tsc_hz, &smp.probe_mhz) < 0)
		smp.probe_mhz = NAN;
	smp.mhz = lcore_source_mhz(s, smp.probe_mhz);
	if (s->n < mon.conf.max_samples)
		s->samples[s->n++] = smp;
	else
		s->dropped++;
	if (s->points != NULL)
		point_add(s, &smp, now_tsc);
	__atomic_store_n(&lca_freq_deadlines[lcore_id].tsc, now_tsc + mon.period_tsc,
			 __ATOMIC_RELAXED);
}

/* Availability, run-queue wait and involuntary switches of the lcore's
 * thread from its first sample to @p end_tsc. Read from the main lcore:
 * /proc/self/task/TID names the lcore's thread whoever reads it. */
static void
lcore_sched_report(const struct freq_lcore *s, uint64_t end_tsc,
		   struct lca_freq_lcore_report *r)
{
	struct lca_freq_schedstat t1;
	uint64_t invol1;
	double wall_ns;

	r->avail_pct = r->rq_wait_pct = NAN;
	r->invol_switches = -1;
	if (s->tid == 0 || end_tsc <= s->t0_tsc)
		return;
	wall_ns = (double)(end_tsc - s->t0_tsc) * 1e9 / (double)mon.tsc_hz;
	if (s->sched0_ok && lca_freq_schedstat_read(mon_root(), s->tid, &t1) == 0) {
		/* The kernel brings run_ns up to date at a tick or a switch:
		 * a thread still running may be a tick ahead of the wall. */
		r->avail_pct = RTE_MIN(100.0, 100.0 * (double)(t1.run_ns - s->sched0.run_ns) / wall_ns);
		r->rq_wait_pct = RTE_MIN(100.0,
					 100.0 * (double)(t1.wait_ns - s->sched0.wait_ns) / wall_ns);
	}
	if (s->invol0_ok && lca_freq_invol_read(mon_root(), s->tid, &invol1) == 0)
		r->invol_switches = (int64_t)(invol1 - s->invol0);
}

static void
lcore_report(unsigned int lcore_id, uint64_t end_tsc, struct lca_freq_lcore_report *r)
{
	struct freq_lcore *s = &lstate[lcore_id];
	struct lca_freq_cpu_times t1;
	struct freq_acc p;
	double *mhz;
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
	lcore_sched_report(s, end_tsc, r);
	if (s->cpu >= 0)
		lca_freq_governor_read(mon_root(), s->cpu, r->governor, sizeof(r->governor));
	freq_acc_init(&p);
	mhz = malloc(((size_t)s->n + 1) * sizeof(*mhz));
	for (i = 0; i < s->n; i++) {
		if (mhz != NULL)
			mhz[i] = s->samples[i].mhz;
		freq_acc_add(&p, s->samples[i].probe_mhz);
	}
	r->probe_mhz = p.n > 0 ? p.mean : NAN;
	/* Without memory for the copy, the figures say no samples. */
	lca_freq_lcore_figures(r, mhz, mhz != NULL ? s->n : 0, &mon.conf.thresholds);
	free(mhz);
}

int
lca_freq_monitor_stop(struct lca_freq_report *report)
{
	unsigned int lcore_id, main_lcore = rte_get_main_lcore();
	uint64_t end_tsc = rte_rdtsc(), psi1;
	int turbo;

	if (!mon.active)
		return -EINVAL;
	mon.active = false;
	RTE_LCORE_FOREACH(lcore_id)
		__atomic_store_n(&lca_freq_deadlines[lcore_id].tsc, UINT64_MAX, __ATOMIC_RELAXED);

	/* The samples since the last point make a last, shorter one. */
	RTE_LCORE_FOREACH(lcore_id)
		if (lstate[lcore_id].on && lstate[lcore_id].points != NULL &&
		    lstate[lcore_id].pt_samples > 0)
			point_close(&lstate[lcore_id], end_tsc);
	if (report != NULL) {
		memset(report, 0, offsetof(struct lca_freq_report, lcores));
		report->tsc_hz = mon.tsc_hz;
		report->duration_s = (double)(end_tsc - mon.start_tsc) / (double)mon.tsc_hz;
		turbo = lca_freq_turbo_read(mon_root());
		report->turbo = turbo >= 0 ? turbo : -1;
		report->cpu_pressure_pct = NAN;
		if (mon.psi0_ok && lca_freq_pressure_read(mon_root(), &psi1) == 0 &&
		    report->duration_s > 0)
			report->cpu_pressure_pct = RTE_MIN(100.0, (double)(psi1 - mon.psi0) / 1e4 /
							   report->duration_s);
		report->thresholds = mon.conf.thresholds;
		/* Main lcore first, as every table in lcactor lists them. */
		if (lstate[main_lcore].on)
			lcore_report(main_lcore, end_tsc, &report->lcores[report->n_lcores++]);
		RTE_LCORE_FOREACH_WORKER(lcore_id)
			if (lstate[lcore_id].on)
				lcore_report(lcore_id, end_tsc, &report->lcores[report->n_lcores++]);
		lca_freq_report_judge(report);
	}
	hooks_remove();
	lcores_close();
	return 0;
}
