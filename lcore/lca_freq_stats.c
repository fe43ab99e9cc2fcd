/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frequency statistics: figures of a series of clock samples, verdicts
 * against the thresholds, and the merge of two reports.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "lca_freq_priv.h"

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

const char *
lca_freq_cause_name(enum lca_freq_cause c)
{
	switch (c) {
	case LCA_FREQ_CAUSE_PREEMPTED:
		return "PREEMPTED";
	case LCA_FREQ_CAUSE_STOLEN:
		return "STOLEN";
	case LCA_FREQ_CAUSE_IRQ:
		return "IRQ";
	case LCA_FREQ_CAUSE_CLOCK:
		return "CLOCK";
	default:
		return "";
	}
}

const char *
lca_freq_lcore_verdict_name(const struct lca_freq_lcore_report *r)
{
	if (r->verdict == LCA_FREQ_UNSTABLE && r->cause != LCA_FREQ_CAUSE_NONE)
		return lca_freq_cause_name(r->cause);
	return lca_freq_verdict_name(r->verdict);
}

void
freq_acc_init(struct freq_acc *a)
{
	a->n = 0;
	a->mean = a->m2 = 0.0;
	a->min = INFINITY;
	a->max = -INFINITY;
}

void
freq_acc_add(struct freq_acc *a, double x)
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

/* Whether figure v (NAN: unknown, not judged) is over limit. */
static bool
over(double v, double limit)
{
	return !isnan(v) && v > limit;
}

static void
lcore_judge(struct lca_freq_lcore_report *r, const struct lca_freq_thresholds *th)
{
	const size_t len = sizeof(r->reason);
	bool judged = r->n_samples >= 2;

	r->reason[0] = '\0';
	r->cause = LCA_FREQ_CAUSE_NONE;
	/* The time taken from the lcore first: it also spoils the clock's
	 * samples, so it is the cause when both are over. These count even
	 * without enough samples: each alone spoils a run. */
	if (over(r->rq_wait_pct, th->max_rq_wait_pct)) {
		char avail[24] = "", invol[32] = "";

		if (!isnan(r->avail_pct))
			snprintf(avail, sizeof(avail), "avail %.1f%%", r->avail_pct);
		if (r->invol_switches >= 0)
			snprintf(invol, sizeof(invol), "%s%lld invol", avail[0] != '\0' ? ", " : "",
				 (long long)r->invol_switches);
		reason_add(r->reason, len, "rq-wait %.2f%% > %g%%%s%s%s%s", r->rq_wait_pct,
			   th->max_rq_wait_pct, avail[0] != '\0' || invol[0] != '\0' ? " (" : "",
			   avail, invol, avail[0] != '\0' || invol[0] != '\0' ? ")" : "");
		r->cause = LCA_FREQ_CAUSE_PREEMPTED;
	}
	if (over(r->steal_pct, th->max_steal_pct)) {
		reason_add(r->reason, len, "steal %.2f%% > %g%%", r->steal_pct, th->max_steal_pct);
		if (r->cause == LCA_FREQ_CAUSE_NONE)
			r->cause = LCA_FREQ_CAUSE_STOLEN;
	}
	if (over(r->irq_pct, th->max_irq_pct)) {
		reason_add(r->reason, len, "irq %.2f%% > %g%%", r->irq_pct, th->max_irq_pct);
		if (r->cause == LCA_FREQ_CAUSE_NONE)
			r->cause = LCA_FREQ_CAUSE_IRQ;
	}
	if (judged && over(r->cv_pct, th->max_cv_pct)) {
		reason_add(r->reason, len, "cv %.2f%% > %g%%", r->cv_pct, th->max_cv_pct);
		if (r->cause == LCA_FREQ_CAUSE_NONE)
			r->cause = LCA_FREQ_CAUSE_CLOCK;
	}
	if (judged && over(r->trim_range_pct, th->max_range_pct)) {
		reason_add(r->reason, len, "p1-p99 range %.2f%% > %g%%", r->trim_range_pct,
			   th->max_range_pct);
		if (r->cause == LCA_FREQ_CAUSE_NONE)
			r->cause = LCA_FREQ_CAUSE_CLOCK;
	}
	if (r->reason[0] != '\0') {
		r->verdict = LCA_FREQ_UNSTABLE;
	} else if (!judged) {
		r->verdict = LCA_FREQ_NO_DATA;
		snprintf(r->reason, len, "%u sample%s", r->n_samples, r->n_samples == 1 ? "" : "s");
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

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile q of n sorted values, interpolated between the two nearest. */
static double
quantile(const double *v, unsigned int n, double q)
{
	double pos = q * (double)(n - 1);
	unsigned int i = (unsigned int)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/* (p99 - p1) / median, %. */
static double
trim_range(double p1, double p99, double median)
{
	return median > 0 ? 100.0 * (p99 - p1) / median : NAN;
}

/* Median, p1, p99, the trimmed range and the outliers of the known samples. */
static void
lcore_set_robust(struct lca_freq_lcore_report *r, const double *mhz, unsigned int n,
		 const struct lca_freq_thresholds *th)
{
	double *v = n > 0 ? malloc((size_t)n * sizeof(*v)) : NULL;
	unsigned int i, k = 0;

	r->median_mhz = r->p1_mhz = r->p99_mhz = r->trim_range_pct = NAN;
	r->n_outliers = 0;
	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		if (!isnan(mhz[i]))
			v[k++] = mhz[i];
	if (k > 0) {
		qsort(v, k, sizeof(*v), cmp_double);
		r->median_mhz = quantile(v, k, 0.5);
		r->p1_mhz = quantile(v, k, 0.01);
		r->p99_mhz = quantile(v, k, 0.99);
		r->trim_range_pct = trim_range(r->p1_mhz, r->p99_mhz, r->median_mhz);
		for (i = 0; th->outlier_pct > 0 && i < k; i++)
			if (fabs(v[i] - r->median_mhz) > th->outlier_pct / 100.0 * r->median_mhz)
				r->n_outliers++;
	}
	free(v);
}

void
lca_freq_lcore_figures(struct lca_freq_lcore_report *r, const double *mhz, unsigned int n,
		       const struct lca_freq_thresholds *th)
{
	struct freq_acc a;
	unsigned int i;

	freq_acc_init(&a);
	for (i = 0; i < n; i++)
		freq_acc_add(&a, mhz[i]);
	lcore_set_figures(r, a.n, a.mean, a.m2, a.min, a.max);
	lcore_set_robust(r, mhz, n, th);
	lcore_judge(r, th);
}

void
lca_freq_report_judge(struct lca_freq_report *r)
{
	unsigned int i, n_stable = 0, n_unstable = 0;

	r->reason[0] = '\0';
	r->cause = LCA_FREQ_CAUSE_NONE;
	for (i = 0; i < r->n_lcores; i++) {
		struct lca_freq_lcore_report *l = &r->lcores[i];

		lcore_judge(l, &r->thresholds);
		if (l->verdict == LCA_FREQ_UNSTABLE) {
			if (n_unstable == 0)
				r->cause = l->cause;
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
		/* The samples are gone: the pooled trimmed range spans both
		 * (never narrower than either), the median is their mean. */
		if (nb > 0 && na == 0) {
			a->median_mhz = b->median_mhz;
			a->p1_mhz = b->p1_mhz;
			a->p99_mhz = b->p99_mhz;
		} else if (nb > 0) {
			a->median_mhz = wmean(a->median_mhz, na, b->median_mhz, nb);
			a->p1_mhz = fmin(a->p1_mhz, b->p1_mhz);
			a->p99_mhz = fmax(a->p99_mhz, b->p99_mhz);
		}
		a->trim_range_pct = trim_range(a->p1_mhz, a->p99_mhz, a->median_mhz);
		a->n_outliers += b->n_outliers;
		a->avail_pct = wmean(a->avail_pct, wa, b->avail_pct, wb);
		a->rq_wait_pct = wmean(a->rq_wait_pct, wa, b->rq_wait_pct, wb);
		if (a->invol_switches < 0 || b->invol_switches < 0)
			a->invol_switches = RTE_MAX(a->invol_switches, b->invol_switches);
		else
			a->invol_switches += b->invol_switches;
		a->n_dropped += b->n_dropped;
		a->probe_mhz = wmean(a->probe_mhz, wa, b->probe_mhz, wb);
		a->busy_pct = wmean(a->busy_pct, wa, b->busy_pct, wb);
		a->steal_pct = wmean(a->steal_pct, wa, b->steal_pct, wb);
		a->irq_pct = wmean(a->irq_pct, wa, b->irq_pct, wb);
	}
	into->cpu_pressure_pct = wmean(into->cpu_pressure_pct, into->duration_s,
				       from->cpu_pressure_pct, from->duration_s);
	into->duration_s += from->duration_s;
	if (into->turbo < 0)
		into->turbo = from->turbo;
	lca_freq_report_judge(into);
	return 0;
}
