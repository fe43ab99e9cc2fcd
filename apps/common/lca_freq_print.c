/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <math.h>

#include "lca_freq_print.h"

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
