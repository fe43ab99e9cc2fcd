/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "app_verdict.h"
#include "app_window.h"

/* A calibrated run may be this much faster than its calibration and still
 * fill the window. */
#define MARGIN 1.25

double
app_window_target_s(void)
{
	return fmax(MARGIN * APP_WINDOW_MIN_S, MARGIN * APP_VERDICT_MIN_TICKS * app_verdict_tick_s());
}

bool
app_window_short(double window_s)
{
	return window_s < APP_VERDICT_MIN_TICKS * app_verdict_tick_s();
}

uint64_t
app_window_count(uint64_t done, double took_s, double target_s, uint64_t multiple,
		 uint64_t floor_count, uint64_t max)
{
	double want = took_s > 0 ? ceil((double)done * target_s / took_s) : (double)max;
	uint64_t n = want >= (double)max ? max : (uint64_t)want;

	if (n < floor_count)
		n = floor_count;
	if (multiple > 1 && n % multiple != 0)
		n += multiple - n % multiple;
	return n > max ? max - (multiple > 1 ? max % multiple : 0) : n;
}

void
app_window_end_line(FILE *f, double window_s, const char *hint)
{
	if (app_window_short(window_s))
		fprintf(f, ": shorter than %d scheduler ticks (%.0f ms), too short to measure well%s%s",
			APP_VERDICT_MIN_TICKS, APP_VERDICT_MIN_TICKS * app_verdict_tick_s() * 1e3,
			hint != NULL ? "; " : "", hint != NULL ? hint : "");
	fputc('\n', f);
}

double
app_window_min(const double *window_s, unsigned int n)
{
	double w = n > 0 ? window_s[0] : NAN;

	for (unsigned int i = 1; i < n; i++)
		w = fmin(w, window_s[i]);
	return w;
}
