/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A memif server's socket file, checked before EAL creates the device.
 *
 * DPDK 22.11's net_memif binds its listener when the device is probed (in
 * rte_eal_init() for a --vdev) and removes the file only at a clean close:
 * a server killed with SIGKILL leaves it, and its restart then fails to
 * bind ("Address already in use"), so the link never heals. A file that no
 * server answers on (connect() says ECONNREFUSED) is such a leftover and
 * is removed here; one a live server listens on is never touched: that
 * start is refused, with the path named.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lca_eal.h"
#include "lca_eal_priv.h"

/* What a probe found: ECONNREFUSED (nobody listens), 0 (a server answered)
 * or the errno connect() gave. */
static int
sock_probe(const char *path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&un, sizeof(un)) != 0)
		err = errno;
	close(fd);
	return err;
}

int
lca_eal_memif_sock_check(const char *path)
{
	struct stat st;
	int err;

	if (path == NULL || path[0] == '\0' || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -EINVAL;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		LCA_LOG(ERR, "memif socket %s: the path exists and is not a socket: not removed; "
			"give the server another socket= path\n", path);
		return -EEXIST;
	}
	err = sock_probe(path);
	if (err == 0 || err == EAGAIN) {
		/* EAGAIN: its listen backlog is full, so it is alive too. */
		LCA_LOG(ERR, "memif socket %s: a server is listening on it (another process): "
			"not removed; stop that process, or give this one another socket= path\n",
			path);
		return -EADDRINUSE;
	}
	if (err != ECONNREFUSED) {
		LCA_LOG(ERR, "memif socket %s: cannot tell whether a server listens on it "
			"(connect: %s): not removed\n", path, strerror(err));
		return -err;
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		err = errno;
		LCA_LOG(ERR, "memif socket %s: left by a server that is gone, but cannot be "
			"removed: %s\n", path, strerror(err));
		return -err;
	}
	return 1;
}

/* Copy the value of key @p key ("socket=") out of the devargs @p args. */
static bool
devarg_get(const char *args, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);

	for (const char *s = args; s != NULL; s = strchr(s, ',')) {
		if (*s == ',')
			s++;
		if (strncmp(s, key, klen) == 0) {
			size_t n = strcspn(s + klen, ",");

			snprintf(out, len, "%.*s", (int)n, s + klen);
			return true;
		}
	}
	return false;
}

/* A "--vdev" value: a memif server on a socket file gets its path checked.
 * The abstract namespace (socket-abstract=yes, DPDK's default) leaves no
 * file behind. @return as lca_eal_memif_sock_check(). */
static int
vdev_check(const char *v, char *removed, size_t len)
{
	char role[16] = "client", abstract[8] = "yes", path[128] = "/run/memif.sock";
	int ret;

	if (strncmp(v, "net_memif", 9) != 0)
		return 0;
	devarg_get(v, "role=", role, sizeof(role));
	devarg_get(v, "socket-abstract=", abstract, sizeof(abstract));
	devarg_get(v, "socket=", path, sizeof(path));
	if (strcmp(role, "server") != 0 || strcmp(abstract, "no") != 0)
		return 0;
	ret = lca_eal_memif_sock_check(path);
	if (ret == 1 && removed[0] == '\0')
		snprintf(removed, len, "%s", path);
	return ret;
}

int
eal_memif_args_check(int argc, char **argv, char *removed, size_t len)
{
	removed[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *v = NULL;
		int ret;

		if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(argv[i], "--vdev=", 7) == 0)
			v = argv[i] + 7;
		if (v == NULL)
			continue;
		ret = vdev_check(v, removed, len);
		if (ret < 0)
			return ret;
	}
	return 0;
}
