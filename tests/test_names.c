/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names: register, look up from a handler on another lcore, duplicates,
 * bounds, one name an actor, the name gone when its actor stops (from
 * outside or by itself), and telemetry's list of actors and its error
 * for /lcactor/actor without an id.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define T_FIND 1
#define T_FOUND 2
#define T_STOP 3

static void
sink_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
}

/* What the finder found of "registry-target". */
struct finder {
	int ret;
	lca_actor_id_t id;
	uint32_t asked;
};

static void
finder_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct finder *f = state;

	(void)self;
	if (msg->type != T_FIND)
		return;
	f->ret = lca_actor_lookup("registry-target", &f->id);
	f->asked++;
	if (f->ret == 0) {
		msg->type = T_FOUND;
		assert_int_equal(lca_send(f->id, msg), 0);
	}
}

/* Counts what it is sent; stops itself on T_STOP. */
static void
counter_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	uint32_t *got = state;

	(*got)++;
	if (msg->type == T_STOP)
		assert_int_equal(lca_actor_stop(self), 0);
}

static lca_actor_id_t watched;

static bool
counter_got_one(void *arg)
{
	(void)arg;
	return *(uint32_t *)lca_actor_state(watched) > 0;
}

static bool
stopped(void *arg)
{
	(void)arg;
	return !lca_actor_alive(watched);
}

static bool
handled_one(void *arg)
{
	struct lca_actor_stats st;

	(void)arg;
	return lca_actor_stats_get(watched, &st) == 0 && st.handled == 1;
}

static void
test_register_and_lookup(void **state)
{
	lca_actor_id_t a = lca_test_spawn(sink_handler, 0, 0, 0, 0);
	lca_actor_id_t b = lca_test_spawn(sink_handler, 0, 1, 0, 0);
	char longest[LCA_ACTOR_NAME_MAX], too_long[LCA_ACTOR_NAME_MAX + 1];
	lca_actor_id_t id;

	(void)state;
	memset(longest, 'n', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	memset(too_long, 'n', sizeof(too_long) - 1);
	too_long[sizeof(too_long) - 1] = '\0';

	assert_int_equal(lca_actor_lookup("first", &id), -ENOENT);
	assert_int_equal(id, LCA_ACTOR_NONE);
	assert_int_equal(lca_actor_register("first", a), 0);
	assert_int_equal(lca_actor_lookup("first", &id), 0);
	assert_int_equal(id, a);
	assert_int_equal(lca_actor_register("first", b), -EEXIST);
	assert_int_equal(lca_actor_register("second", a), -EALREADY);
	assert_int_equal(lca_actor_register(longest, b), 0);
	assert_int_equal(lca_actor_lookup(longest, &id), 0);
	assert_int_equal(id, b);
	assert_int_equal(lca_actor_register(too_long, b), -ENAMETOOLONG);
	assert_int_equal(lca_actor_lookup(too_long, &id), -ENAMETOOLONG);
	assert_int_equal(lca_actor_register("", a), -EINVAL);
	assert_int_equal(lca_actor_register(NULL, a), -EINVAL);
	assert_int_equal(lca_actor_lookup("first", NULL), -EINVAL);
	assert_int_equal(lca_actor_register("ghost", 999), -ESRCH);

	assert_int_equal(lca_actor_unregister("first"), 0);
	assert_int_equal(lca_actor_unregister("first"), -ENOENT);
	assert_int_equal(lca_actor_lookup("first", &id), -ENOENT);
	/* Its actor may take a name again, and the name another actor. */
	assert_int_equal(lca_actor_register("again", a), 0);
	assert_int_equal(lca_actor_unregister(longest), 0);
	assert_int_equal(lca_actor_register("first", b), 0);
	assert_int_equal(lca_actor_lookup("first", &id), 0);
	assert_int_equal(id, b);
}

/* A handler on lcore 1 finds an actor on lcore 0 by name and sends to it. */
static void
test_lookup_from_a_handler(void **state)
{
	lca_actor_id_t finder = lca_test_spawn(finder_handler, sizeof(struct finder), 1, 0, 0);
	struct lca_msg *m = lca_test_msg();
	struct finder *f;

	(void)state;
	watched = lca_test_spawn(counter_handler, sizeof(uint32_t), 0, 0, 0);
	assert_int_equal(lca_actor_register("registry-target", watched), 0);
	m->type = T_FIND;
	assert_int_equal(lca_send(finder, m), 0);
	assert_true(lca_test_run_until(counter_got_one, NULL, 30));
	f = lca_actor_state(finder);
	assert_int_equal(f->ret, 0);
	assert_int_equal(f->id, watched);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
test_name_goes_when_the_actor_stops(void **state)
{
	lca_actor_id_t a = lca_test_spawn(sink_handler, 0, 0, 0, 0), next, id;
	struct lca_msg *m = lca_test_msg();

	(void)state;
	/* Stopped from outside, between runs. */
	assert_int_equal(lca_actor_register("worker", a), 0);
	assert_int_equal(lca_actor_stop(a), 0);
	assert_int_equal(lca_actor_lookup("worker", &id), -ENOENT);
	/* Gone, not only hidden by the liveness check. */
	assert_int_equal(lca_actor_unregister("worker"), -ENOENT);
	next = lca_test_spawn(sink_handler, 0, 1, 0, 0);
	assert_int_equal(lca_actor_register("worker", next), 0);
	assert_int_equal(lca_actor_lookup("worker", &id), 0);
	assert_int_equal(id, next);

	/* Stopped by itself, on lcore 1, while the loops run. */
	watched = lca_test_spawn(counter_handler, sizeof(uint32_t), 1, 0, 0);
	assert_int_equal(lca_actor_register("self-stopper", watched), 0);
	m->type = T_STOP;
	assert_int_equal(lca_send(watched, m), 0);
	assert_true(lca_test_run_until(stopped, NULL, 30));
	assert_int_equal(lca_actor_lookup("self-stopper", &id), -ENOENT);
	assert_int_equal(lca_actor_unregister("self-stopper"), -ENOENT);
	assert_int_equal(lca_actor_register("self-stopper", next), -EALREADY);
	assert_int_equal(lca_actor_unregister("worker"), 0);
	assert_int_equal(lca_actor_register("self-stopper", next), 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* The object @p key of the reply to @p cmd, parsed; NULL when none. */
static json_t *
telemetry_json(const char *cmd, const char *key, json_t **root)
{
	static char reply[32768];
	char base[64];

	snprintf(base, sizeof(base), "%s", cmd);
	base[strcspn(base, ",")] = '\0';
	if (lca_test_telemetry_query(cmd, reply, sizeof(reply)) != 0)
		return NULL;
	*root = json_loads(reply, 0, NULL);
	return json_object_get(json_object_get(*root, base), key);
}

static json_int_t
json_int(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static void
test_telemetry_lists_actors(void **state)
{
	lca_actor_id_t ids[70];
	json_t *root = NULL, *a, *err;
	struct lca_actor_spec shared = {
		.handler = sink_handler, .lcore = LCA_LCORE_ANY,
		.dispatcher = LCA_DISPATCH_SHARED, .name = "spawned-shared",
	};
	struct lca_msg *m = lca_test_msg();

	(void)state;
	for (unsigned int i = 0; i < 69; i++)
		ids[i] = lca_test_spawn(sink_handler, 0, i % 2, 0, 0);
	assert_int_equal(lca_actor_spawn(&shared, &ids[69]), 0);
	assert_int_equal(lca_actor_register("front-door", ids[1]), 0);
	assert_int_equal(lca_send(ids[1], m), 0);
	watched = ids[1];
	assert_true(lca_test_run_until(handled_one, NULL, 30));

	a = telemetry_json("/lcactor/actors", "1", &root);
	assert_non_null(a);
	assert_int_equal(json_int(a, "id"), ids[1]);
	assert_string_equal(json_string_value(json_object_get(a, "registered")), "front-door");
	assert_int_equal(json_int(a, "lcore"), 1);
	assert_string_equal(json_string_value(json_object_get(a, "dispatcher")), "affinity");
	assert_int_equal(json_int(a, "handled"), 1);
	assert_int_equal(json_int(a, "backlog"), 0);
	assert_int_equal(json_int(json_object_get(root, "/lcactor/actors"), "count"), 70);
	assert_int_equal(json_int(json_object_get(root, "/lcactor/actors"), "next"), 64);
	json_decref(root);

	/* The second page: where the first ended. */
	a = telemetry_json("/lcactor/actors,64", "69", &root);
	assert_non_null(a);
	assert_string_equal(json_string_value(json_object_get(a, "name")), "spawned-shared");
	assert_string_equal(json_string_value(json_object_get(a, "dispatcher")), "shared");
	assert_int_equal(json_int(json_object_get(root, "/lcactor/actors"), "next"), 70);
	assert_null(json_object_get(json_object_get(root, "/lcactor/actors"), "63"));
	json_decref(root);

	err = telemetry_json("/lcactor/actors,x", "error", &root);
	assert_true(json_is_string(err));
	json_decref(root);
	/* Without an id: what it needs, not a null. */
	err = telemetry_json("/lcactor/actor", "error", &root);
	assert_true(json_is_string(err));
	assert_non_null(strstr(json_string_value(err), "needs an actor id"));
	json_decref(root);
	err = telemetry_json("/lcactor/actor,9999", "error", &root);
	assert_true(json_is_string(err));
	json_decref(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_register_and_lookup, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_from_a_handler, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_name_goes_when_the_actor_stops,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_telemetry_lists_actors, lca_test_setup,
						lca_test_teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_names_h-ask");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
