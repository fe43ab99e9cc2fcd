/* SPDX-License-Identifier: BSD-3-Clause */
/* An outside app built only from the installed lcactor.pc: one actor gets
 * one message. Exit 0 when it was handled. */
#include <stdio.h>

#include <lca_actor.h>
#include <lca_eal.h>

static int handled;

static void
on_msg(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	handled += msg->type == 42;
	lca_runtime_stop();
}

int
main(int argc, char **argv)
{
	struct lca_actor_spec spec = { .handler = on_msg, .lcore = LCA_LCORE_ANY };
	lca_actor_id_t id;
	struct lca_msg *m;
	int app_argc, ok;
	char **app_argv;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	ok = lca_runtime_init(NULL) == 0 && lca_actor_spawn(&spec, &id) == 0 &&
	     lca_msg_alloc(&m) == 0;
	if (ok) {
		m->type = 42;
		ok = lca_send(id, m) == 0 && lca_runtime_run(10000) == 0 && handled == 1;
	}
	printf("pkg-config app: %s\n", ok ? "message handled" : "FAILED");
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return ok ? 0 : 1;
}
