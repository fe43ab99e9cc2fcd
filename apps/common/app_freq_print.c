/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <math.h>

#include "app_freq_print.h"

static void
print_num(FILE *f, int width, int prec, double v)
{
	if (isnan(v))
		fprintf(f, " %*s", width, "n/a");
	else
		fprintf(f, " %*.*f", width, prec, v);
}

void
app_freq_report_print(FILE *f, const struct lca_freq_report *r)
{
	const struct lca_freq_thresholds *th = &r->thresholds;
	uint64_t dropped = 0;
	unsigned int i;

	fprintf(f, "Per-core clock during the measurement: %u lcore%s, %.3f s, "
		"TSC %.3f MHz, turbo %s, CPU pressure ",
		r->n_lcores, r->n_lcores == 1 ? "" : "s", r->duration_s, (double)r->tsc_hz / 1e6,
		r->turbo < 0 ? "n/a" : r->turbo ? "on" : "off");
	if (isnan(r->cpu_pressure_pct))
		fprintf(f, "n/a\n");
	else
		fprintf(f, "%.1f%%\n", r->cpu_pressure_pct);
	fprintf(f, "%5s %4s %-7s %7s %8s %8s %8s %7s %6s %6s %7s %5s %9s %6s %6s %6s %6s %8s %6s "
		"%-12s %s\n",
		"lcore", "cpu", "source", "samples", "min MHz", "mean MHz", "max MHz", "stdev",
		"cv%", "range%", "p1-p99%", "outl", "probe MHz", "busy%", "steal%", "irq%",
		"avail%", "rq-wait%", "invol", "governor", "verdict");
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
		print_num(f, 7, 2, l->trim_range_pct);
		fprintf(f, " %5u", l->n_outliers);
		print_num(f, 9, 1, l->probe_mhz);
		print_num(f, 6, 1, l->busy_pct);
		print_num(f, 6, 2, l->steal_pct);
		print_num(f, 6, 2, l->irq_pct);
		print_num(f, 6, 1, l->avail_pct);
		print_num(f, 8, 2, l->rq_wait_pct);
		if (l->invol_switches >= 0)
			fprintf(f, " %6" PRId64, l->invol_switches);
		else
			fprintf(f, " %6s", "n/a");
		fprintf(f, " %-12s %s", l->governor[0] != '\0' ? l->governor : "n/a",
			lca_freq_lcore_verdict_name(l));
		if (l->reason[0] != '\0')
			fprintf(f, " (%s)", l->reason);
		fputc('\n', f);
		dropped += l->n_dropped;
	}
	fprintf(f, "Clock verdict: %s", lca_freq_verdict_name(r->verdict));
	if (r->cause != LCA_FREQ_CAUSE_NONE)
		fprintf(f, ", %s", lca_freq_cause_name(r->cause));
	if (r->reason[0] != '\0')
		fprintf(f, " (%s)", r->reason);
	fprintf(f, " [stable: rq-wait <= %g%%, steal <= %g%%, irq <= %g%%, cv <= %g%%, "
		"p1-p99 range <= %g%%; outliers: > %g%% off the median]\n",
		th->max_rq_wait_pct, th->max_steal_pct, th->max_irq_pct, th->max_cv_pct,
		th->max_range_pct, th->outlier_pct);
	if (dropped > 0)
		fprintf(f, "Note: %" PRIu64 " samples did not fit the buffers and are not in "
			"the figures (raise max_samples or the period)\n", dropped);
	if (r->verdict == LCA_FREQ_UNSTABLE)
		fprintf(f, "WARNING: a core was taken away (PREEMPTED: another task, STOLEN: the "
			"hypervisor, IRQ: interrupts) or its clock moved (CLOCK) during the "
			"measurement; its results are noisy and not comparable\n");
}
