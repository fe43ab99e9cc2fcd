/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_SERVICE_PRIV_H
#define LCA_SERVICE_PRIV_H

/* lcactor's rte_service components, one a runtime lcore (lca_service.c):
 * registered by lca_runtime_init(), stopped, unmapped and unregistered by
 * lca_runtime_cleanup(). */
int services_register(void);
void services_unregister(void);

#endif /* LCA_SERVICE_PRIV_H */
