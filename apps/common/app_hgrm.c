/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The .hgrm text as HdrHistogram (Java) prints it: "%12s %14s %10s %14s"
 * for the header, "%12.Nf %2.12f %10d %14.2f" a step with N the
 * histogram's significant digits, the 100 % step without its infinite
 * 1/(1-Percentile), and the three footer lines.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "app_hgrm.h"

struct hgrm_ctx {
	FILE *f;
	double scale;
	int digits;
	bool failed;
};

static bool
hgrm_step(const struct app_hdr_step *s, void *arg)
{
	struct hgrm_ctx *c = arg;
	double value = (double)s->value / c->scale, p = s->percentile / 100.0;
	int n;

	if (s->percentile < 100.0)
		n = fprintf(c->f, "%12.*f %2.12f %10lld %14.2f\n", c->digits, value, p,
			    (long long)s->total_count, 1.0 / (1.0 - p));
	else
		n = fprintf(c->f, "%12.*f %2.12f %10lld\n", c->digits, value, p,
			    (long long)s->total_count);
	c->failed |= n < 0;
	return !c->failed;
}

int
app_hgrm_print(const struct app_hdr *h, FILE *f, int ticks, double scale)
{
	struct hgrm_ctx c = { .f = f, .scale = scale, .digits = h->significant };
	int d = h->significant;

	if (fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
		    "1/(1-Percentile)") < 0)
		return -EIO;
	app_hdr_spectrum(h, ticks, hgrm_step, &c);
	if (c.failed ||
	    fprintf(f, "#[Mean    = %12.*f, StdDeviation   = %12.*f]\n", d, app_hdr_mean(h) / scale,
		    d, app_hdr_stdev(h) / scale) < 0 ||
	    fprintf(f, "#[Max     = %12.*f, Total count    = %12lld]\n", d,
		    (double)h->max / scale, (long long)h->total) < 0 ||
	    fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n", h->bucket_count,
		    h->sub_bucket_count) < 0)
		return -EIO;
	return 0;
}

int
app_hgrm_write(const struct app_hdr *h, const char *path, int ticks, double scale,
	       const char *prog)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (f == NULL) {
		ret = -errno;
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(-ret));
		return ret;
	}
	ret = app_hgrm_print(h, f, ticks, scale);
	if (fclose(f) != 0 && ret == 0)
		ret = -EIO;
	if (ret < 0)
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(-ret));
	return ret;
}

int
app_hgrm_path(const char *path, const char *name, char *buf, size_t len)
{
	static const char ext[] = ".hgrm";
	size_t n = strlen(path), e = sizeof(ext) - 1;
	int k;

	if (n >= e && strcmp(path + n - e, ext) == 0)
		k = snprintf(buf, len, "%.*s.%s%s", (int)(n - e), path, name, ext);
	else
		k = snprintf(buf, len, "%s.%s%s", path, name, ext);
	return k < 0 || (size_t)k >= len ? -ENAMETOOLONG : 0;
}

int
app_hgrm_write_cycles(const uint64_t *cycles, size_t n, uint64_t hz, const char *path,
		      const char *name, const char *prog)
{
	struct app_hdr h;
	char file[4096];
	int ret = app_hgrm_path(path, name, file, sizeof(file));

	if (ret < 0) {
		fprintf(stderr, "%s: --hgrm %s: the name is too long\n", prog, path);
		return ret;
	}
	ret = app_hdr_init(&h, 3600LL * 1000 * 1000 * 1000, 3);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		app_hdr_record(&h, (int64_t)((double)cycles[i] * 1e9 / (double)hz));
	ret = app_hgrm_write(&h, file, APP_HGRM_TICKS, 1e3, prog);
	if (ret == 0)
		printf("  hgrm: %s (values in us)\n", file);
	app_hdr_free(&h);
	return ret;
}
