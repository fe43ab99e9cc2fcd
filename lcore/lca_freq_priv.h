/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_FREQ_PRIV_H
#define LCA_FREQ_PRIV_H

/*
 * What the frequency files share between themselves and nobody else: the
 * readers keep their files open for the monitor (a sample must not pay for
 * an open()), and the monitor sums its samples with the statistics' running
 * accumulator. Not installed; hidden from the shared library.
 */

#include <stdbool.h>
#include <stdint.h>

#include "lca_freq.h"

/* The msr driver's device reads MSR m at offset m. A fake one, a regular
 * file, cannot hold 8-byte values at adjacent offsets (APERF and MPERF are
 * neighbours), so it keeps MSR m at offset 8 × m: the open MSR device
 * carries its scale. */
struct freq_msr_dev {
	int fd;
	unsigned int scale;
};

/* Open root/dev/cpu/N/msr. */
int freq_msr_open(const char *root, int cpu, struct freq_msr_dev *d);
/* Read TSC, APERF and MPERF from an open MSR device. */
int freq_msr_read_dev(const struct freq_msr_dev *d, struct lca_freq_msr *out);

/* Open a CPU's scaling_cur_freq: the fd, or a negative errno. */
int freq_cpufreq_open(const char *root, int cpu);
/* Read kHz from an open scaling_cur_freq. */
int freq_cpufreq_read_fd(int fd, uint64_t *khz);

/* Count the calling thread's cycles and task-clock as one group. */
int freq_perf_open(int *leader, int *member);
/* Read both counters of the group at once. */
int freq_perf_read(int leader, uint64_t *cycles, uint64_t *ns);
/* Whether this process may count CPU cycles (tried once). */
bool freq_perf_available(void);

/* Welford's running mean and squared deviations: one pass, no cancellation. */
struct freq_acc {
	unsigned int n;
	double mean, m2, min, max;
};

void freq_acc_init(struct freq_acc *a);
/* Add a figure; NAN (no figure) is skipped. */
void freq_acc_add(struct freq_acc *a, double x);

#endif /* LCA_FREQ_PRIV_H */
