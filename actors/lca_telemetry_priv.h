/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TELEMETRY_PRIV_H
#define LCA_TELEMETRY_PRIV_H

/* Telemetry commands (lca_telemetry.c). Private to the actor core. */

#include <stdbool.h>

/* Say whether the runtime is up to the telemetry commands (lca_telemetry.c). */
void telemetry_runtime_up(bool up);

#endif /* LCA_TELEMETRY_PRIV_H */
