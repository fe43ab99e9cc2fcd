/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names of actors: a name to id table that any lcore or thread reads
 * (Erlang's register/2, Akka's actor paths), and the telemetry list of
 * every actor that the names make readable.
 *
 * An rte_hash of fixed-size, zero-padded names under an rte_rwlock: a
 * lookup takes the read side, so lookups on many lcores do not wait for
 * one another; register, unregister and a stop take the write side, so a
 * check for a duplicate and the add are one step. Each actor has at most
 * one name, and its slot in the hash is kept by id, so its stop removes
 * the name without a search.
 */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include <rte_rwlock.h>
#include <rte_telemetry.h>

#include "lca_actor_priv.h"
#include "lca_ask_priv.h"
#include "lca_refuse_priv.h"
#include "lca_registry_priv.h"

/* Actors in one /lcactor/actors reply: DPDK telemetry's reply holds 16 KiB
 * and a dict 256 entries; an actor's entry is about 150 bytes. */
#define ACTORS_PAGE 64

static struct {
	struct rte_hash *hash;
	int32_t *key_pos; /* by actor id: its name's position in hash + 1, or 0 */
	unsigned int max;
	unsigned int made; /* hashes made so far: each needs a name of its own */
	rte_rwlock_t lock;
} reg = { .lock = RTE_RWLOCK_INITIALIZER };

static int
registry_init(unsigned int max_actors)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters p = {
		.name = name,
		.entries = RTE_MAX(max_actors, 8u),
		.key_len = LCA_ACTOR_NAME_MAX,
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
	};

	snprintf(name, sizeof(name), "lca_names_%u", reg.made++);
	reg.key_pos = rte_zmalloc("lca_names", sizeof(*reg.key_pos) * max_actors, 0);
	reg.hash = reg.key_pos != NULL ? rte_hash_create(&p) : NULL;
	if (reg.hash == NULL) {
		rte_free(reg.key_pos);
		reg.key_pos = NULL;
		return -ENOMEM;
	}
	reg.max = max_actors;
	return 0;
}

static void
registry_cleanup(void)
{
	rte_rwlock_write_lock(&reg.lock);
	rte_hash_free(reg.hash);
	rte_free(reg.key_pos);
	reg.hash = NULL;
	reg.key_pos = NULL;
	reg.max = 0;
	rte_rwlock_write_unlock(&reg.lock);
}

int
actor_services_init(unsigned int max_actors)
{
	int ret = registry_init(max_actors);

	if (ret == 0)
		ret = asks_init(max_actors);
	return ret;
}

void
actor_services_cleanup(void)
{
	asks_cleanup();
	registry_cleanup();
}

/* @p name zero-padded into @p key. @return 0, -EINVAL or -ENAMETOOLONG. */
static int
name_key(const char *name, char key[LCA_ACTOR_NAME_MAX])
{
	size_t len;

	if (name == NULL || name[0] == '\0')
		return -EINVAL;
	len = strnlen(name, LCA_ACTOR_NAME_MAX);
	if (len >= LCA_ACTOR_NAME_MAX)
		return -ENAMETOOLONG;
	memset(key, 0, LCA_ACTOR_NAME_MAX);
	memcpy(key, name, len);
	return 0;
}

/* Under the write lock: @p key goes, and its actor's link to it. */
static void
name_remove(const char *key)
{
	void *data;

	if (rte_hash_lookup_data(reg.hash, key, &data) < 0)
		return;
	reg.key_pos[(uintptr_t)data] = 0;
	rte_hash_del_key(reg.hash, key);
}

/* Under the write lock: room for @p key, taking it from a stopped actor
 * whose stop has not been seen yet. @return 0 or -EEXIST. */
static int
name_free_for(const char *key)
{
	void *data;
	if (rte_hash_lookup_data(reg.hash, key, &data) < 0)
		return 0;
	if (lca_actor_alive((lca_actor_id_t)(uintptr_t)data))
		return -EEXIST;
	name_remove(key);
	return 0;
}

static int
register_do(const char *name, lca_actor_id_t id)
{
	char key[LCA_ACTOR_NAME_MAX];
	int32_t pos;
	int ret = name_key(name, key);

	if (ret < 0)
		return ret;
	rte_rwlock_write_lock(&reg.lock);
	if (reg.hash == NULL)
		ret = -ENOTSUP;
	else if (id >= reg.max || !lca_actor_alive(id))
		ret = -ESRCH;
	else if (reg.key_pos[id] != 0)
		ret = -EALREADY;
	else
		ret = name_free_for(key);
	if (ret == 0) {
		pos = rte_hash_add_key_data(reg.hash, key, (void *)(uintptr_t)id);
		if (pos < 0)
			ret = pos == -ENOSPC ? -ENOSPC : -ENOMEM;
		else
			reg.key_pos[id] = rte_hash_lookup(reg.hash, key) + 1;
	}
	rte_rwlock_write_unlock(&reg.lock);
	return ret;
}

int
lca_actor_register(const char *name, lca_actor_id_t id)
{
	int ret = register_do(name, id);

	return ret < 0 ? LCA_REFUSED(NOTICE, "lca_actor_register", id, ret) : 0;
}

int
lca_actor_unregister(const char *name)
{
	char key[LCA_ACTOR_NAME_MAX];
	int ret = name_key(name, key);

	if (ret < 0)
		return ret;
	rte_rwlock_write_lock(&reg.lock);
	if (reg.hash == NULL)
		ret = -ENOTSUP;
	else if (rte_hash_lookup(reg.hash, key) < 0)
		ret = -ENOENT;
	else
		name_remove(key);
	rte_rwlock_write_unlock(&reg.lock);
	return ret;
}

static int
lookup_do(const char *name, lca_actor_id_t *id)
{
	char key[LCA_ACTOR_NAME_MAX];
	void *data;
	int ret;

	if (id == NULL)
		return -EINVAL;
	*id = LCA_ACTOR_NONE;
	ret = name_key(name, key);
	if (ret < 0)
		return ret;
	rte_rwlock_read_lock(&reg.lock);
	if (reg.hash == NULL)
		ret = -ENOTSUP;
	else if (rte_hash_lookup_data(reg.hash, key, &data) < 0 ||
		 !lca_actor_alive((lca_actor_id_t)(uintptr_t)data))
		ret = -ENOENT; /* a stopped actor's name goes at its drain */
	else
		*id = (lca_actor_id_t)(uintptr_t)data;
	rte_rwlock_read_unlock(&reg.lock);
	return ret;
}

int
lca_actor_lookup(const char *name, lca_actor_id_t *id)
{
	int ret = lookup_do(name, id);

	/* A name not (or no longer) there is an answer, not a misuse: a
	 * debug line; a bad name or a runtime that is not up is news. */
	if (ret == -ENOENT)
		return LCA_REFUSED(DEBUG, "lca_actor_lookup", LCA_ACTOR_NONE, ret);
	return ret < 0 ? LCA_REFUSED(NOTICE, "lca_actor_lookup", LCA_ACTOR_NONE, ret) : 0;
}

/* Under a lock: the name of @p id into @p out (LCA_ACTOR_NAME_MAX
 * bytes), "" for none. */
static void
name_of_locked(lca_actor_id_t id, char *out)
{
	void *key;

	out[0] = '\0';
	if (reg.hash != NULL && id < reg.max && reg.key_pos[id] != 0 &&
	    rte_hash_get_key_with_position(reg.hash, reg.key_pos[id] - 1, &key) == 0) {
		memcpy(out, key, LCA_ACTOR_NAME_MAX);
		out[LCA_ACTOR_NAME_MAX - 1] = '\0';
	}
}

static void
registry_name_of(lca_actor_id_t id, char *out)
{
	rte_rwlock_read_lock(&reg.lock);
	name_of_locked(id, out);
	rte_rwlock_read_unlock(&reg.lock);
}

static void
registry_actor_stopped(lca_actor_id_t id)
{
	char key[LCA_ACTOR_NAME_MAX];

	rte_rwlock_write_lock(&reg.lock);
	name_of_locked(id, key); /* a copy: the delete frees the hash's */
	if (key[0] != '\0')
		name_remove(key);
	rte_rwlock_write_unlock(&reg.lock);
}

void
actor_services_stopped(lca_actor_id_t id)
{
	registry_actor_stopped(id);
	asks_actor_stopped(id);
}

/* One actor's entry of /lcactor/actors. */
static struct rte_tel_data *
actor_entry(lca_actor_id_t id)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	const struct lca_actor *a = actor_lookup(id);
	char name[LCA_ACTOR_NAME_MAX];
	int backlog;

	if (e == NULL || a == NULL) {
		rte_tel_data_free(e);
		return NULL;
	}
	registry_name_of(id, name);
	backlog = lca_actor_backlog(id);
	rte_tel_data_start_dict(e);
	rte_tel_data_add_dict_u64(e, "id", id);
	rte_tel_data_add_dict_string(e, "name", a->name);
	rte_tel_data_add_dict_string(e, "registered", name);
	rte_tel_data_add_dict_u64(e, "lcore", __atomic_load_n(&a->lcore, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_string(e, "dispatcher",
		lca_dispatcher_name(actor_is_shared(a) ? LCA_DISPATCH_SHARED :
						      LCA_DISPATCH_AFFINITY));
	rte_tel_data_add_dict_u64(e, "alive", lca_actor_alive(id));
	rte_tel_data_add_dict_u64(e, "backlog", backlog < 0 ? 0 : (uint64_t)backlog);
	rte_tel_data_add_dict_u64(e, "handled", __atomic_load_n(&a->handled, __ATOMIC_RELAXED));
	return e;
}

int
registry_fill_actors(const char *params, struct rte_tel_data *d)
{
	unsigned int count = lca_actor_count(), first = 0, id;
	char key[16], *end;

	rte_tel_data_start_dict(d);
	if (params != NULL && *params != '\0') {
		unsigned long v = strtoul(params, &end, 10);

		if (*end != '\0' || v > count) {
			rte_tel_data_add_dict_string(d, "error",
				"parameter: the first actor id of the page (0 or none for the first)");
			return 0;
		}
		first = (unsigned int)v;
	}
	rte_tel_data_add_dict_u64(d, "count", count);
	rte_tel_data_add_dict_u64(d, "first", first);
	for (id = first; id < count && id - first < ACTORS_PAGE; id++) {
		struct rte_tel_data *e = actor_entry(id);

		snprintf(key, sizeof(key), "%u", id);
		if (e != NULL)
			rte_tel_data_add_dict_container(d, key, e, 0);
	}
	/* Where the next page starts; count when this was the last. */
	rte_tel_data_add_dict_u64(d, "next", id);
	return 0;
}

void
asks_fill_info(struct rte_tel_data *d)
{
	struct lca_ask_stats s;

	lca_ask_stats_get(&s);
	rte_tel_data_add_dict_u64(d, "ask_asked", s.asked);
	rte_tel_data_add_dict_u64(d, "ask_replied", s.replied);
	rte_tel_data_add_dict_u64(d, "ask_timed_out", s.timed_out);
	rte_tel_data_add_dict_u64(d, "ask_late", s.late);
	rte_tel_data_add_dict_u64(d, "ask_full", s.full);
	rte_tel_data_add_dict_u64(d, "ask_cancelled", s.cancelled);
	rte_tel_data_add_dict_u64(d, "ask_pending", s.pending);
}
