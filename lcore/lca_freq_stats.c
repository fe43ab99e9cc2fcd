/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frequency statistics: figures of a series of clock samples, verdicts
 * against the thresholds, and the merge of two reports.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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

void
freq_lcore_finish(struct lca_freq_lcore_report *r, const struct freq_acc *a,
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

	freq_acc_init(&a);
	for (i = 0; i < n; i++)
		freq_acc_add(&a, mhz[i]);
	freq_lcore_finish(r, &a, th);
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
