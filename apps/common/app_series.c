/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app_freq_json.h"
#include "app_freq_print.h"
#include "app_series.h"

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void
app_progress_start(struct app_progress *p, const char *label, unsigned int n)
{
	*p = (struct app_progress){ .label = label, .n = n, .t0_ns = now_ns() };
}

void
app_progress_step(struct app_progress *p, unsigned int k)
{
	double s = (double)(now_ns() - p->t0_ns) / 1e9;
	char of[32] = "";

	/* A pipe or a log file gets results only. */
	if (!isatty(STDERR_FILENO))
		return;
	if (p->n > 0)
		snprintf(of, sizeof(of), " of %u", p->n);
	/* One line kept up to date in place, unless the results print on the
	 * same terminal: there, it would run into them, so it is a line of its
	 * own between them. */
	p->in_place = !isatty(STDOUT_FILENO);
	fflush(stdout);
	fprintf(stderr, "%s%s: iteration %u%s, %.1f s elapsed%s", p->in_place ? "\r\033[K" : "",
		p->label, k, of, s, p->in_place ? "" : "\n");
	fflush(stderr);
	p->shown = true;
}

void
app_progress_done(struct app_progress *p)
{
	if (p->shown && p->in_place)
		fprintf(stderr, "\r\033[K");
	p->shown = false;
}

void
app_series_begin(struct app_series *s, const char *label, unsigned int n)
{
	struct lca_freq_conf conf;

	lca_freq_conf_init(&conf);
	s->freq_err = lca_freq_monitor_start(&conf);
	if (s->freq_err < 0)
		fprintf(stderr, "%s: the frequency monitor could not start (%s); measuring "
				"without it\n", label, strerror(-s->freq_err));
	app_progress_start(&s->progress, label, n);
}

void
app_series_end(struct app_series *s)
{
	app_progress_done(&s->progress);
	if (s->freq_err == 0)
		s->freq_err = lca_freq_monitor_stop(&s->freq);
	if (s->freq_err == 0) {
		json_decref(s->freq_json);
		s->freq_json = app_freq_ran_json(&s->freq);
		if (s->freq_json != NULL)
			app_freq_json_add_series(s->freq_json);
	}
}

void
app_series_release(struct app_series *s)
{
	json_decref(s->freq_json);
	s->freq_json = NULL;
}

int
app_series_run(struct app_series *s, const char *label, unsigned int n, app_series_fn one,
	       void *arg)
{
	int ret = 0;

	app_series_begin(s, label, n);
	for (unsigned int k = 0; ret == 0 && k < n; k++) {
		app_progress_step(&s->progress, k + 1);
		ret = one(arg, k);
	}
	app_series_end(s);
	return ret;
}

void
app_series_verdict_text(const struct app_series *s, char *buf, size_t len)
{
	if (s->freq_err < 0)
		snprintf(buf, len, "no frequency report (the monitor did not run: %s)",
			 strerror(-s->freq_err));
	else
		snprintf(buf, len, "%s%s%s%s%s", lca_freq_verdict_name(s->freq.verdict),
			 s->freq.cause != LCA_FREQ_CAUSE_NONE ? ", " : "",
			 lca_freq_cause_name(s->freq.cause), s->freq.reason[0] ? ": " : "",
			 s->freq.reason);
}

void
app_series_print_freq(FILE *f, const struct app_series *s)
{
	char text[256];

	if (app_series_has_report(s)) {
		app_freq_report_print(f, &s->freq);
		return;
	}
	app_series_verdict_text(s, text, sizeof(text));
	fprintf(f, "%s\n", text);
}

json_t *
app_freq_none_json(const char *why)
{
	return json_pack("{s:s, s:s, s:s, s:[]}", "monitor", "did not run", "verdict", "no_data",
			 "reason", why, "lcores");
}

json_t *
app_freq_ran_json(const struct lca_freq_report *r)
{
	json_t *j = app_freq_report_json(r);

	if (j != NULL)
		json_object_set_new(j, "monitor", json_string("ran"));
	return j;
}

json_t *
app_series_freq_json(const struct app_series *s)
{
	char why[160];

	if (!app_series_has_report(s)) {
		snprintf(why, sizeof(why), "the monitor did not run: %s",
			 strerror(-s->freq_err));
		return app_freq_none_json(why);
	}
	return s->freq_json != NULL ? json_incref(s->freq_json) : app_freq_ran_json(&s->freq);
}

void
app_freq_total_add(struct app_freq_total *t, const struct app_series *s)
{
	t->series++;
	if (app_series_has_report(s) && lca_freq_report_merge(&t->all, &s->freq) == 0)
		t->merged++;
}

void
app_freq_total_print(FILE *f, const char *title, const struct app_freq_total *t)
{
	if (t->merged == 0) {
		fprintf(f, "no frequency report: the monitor ran in none of the %u series\n",
			t->series);
		return;
	}
	fprintf(f, "%s\n", title);
	app_freq_report_print(f, &t->all);
}

json_t *
app_freq_total_json(const struct app_freq_total *t)
{
	if (t->merged == 0)
		return app_freq_none_json("the monitor ran in none of the measured series");
	return app_freq_ran_json(&t->all);
}
