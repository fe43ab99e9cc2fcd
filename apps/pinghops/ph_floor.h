/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PH_FLOOR_H
#define PH_FLOOR_H

#include <stdint.h>

#include "pinghops.h"

/*
 * One floor round (ph_floor.c): run @p run's work (the same pings, hops and
 * random streams) over bare SPSC rings between the lcores of @p place (the
 * runtime's placement, from ph_bench_placement()). The runtime's loops must
 * be stopped; the caller is the main lcore.
 *
 * @param cycles
 *   TSC cycles on the master's lcore from the first initial ping to the
 *   last report.
 * @return
 *   0; -ENOMEM; -EBUSY (an lcore was not waiting); -ENOBUFS (a ring was
 *   full: never expected); -EIO (a count was not exact); -EINTR.
 */
int ph_floor_run(const struct ph_conf *conf, const struct ph_place *place, unsigned int n_place,
		 unsigned int run, uint64_t *cycles);

#endif /* PH_FLOOR_H */
