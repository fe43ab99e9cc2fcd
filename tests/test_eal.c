/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL bring-up: argument split, hugepage detection, signals. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "lca_eal.h"
#include "lca_test.h"

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_free_hugepages_from_fake_sysfs(void **state)
{
	char root[] = "/tmp/lca_sysfsXXXXXX";
	char path[256];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/kernel", root);
	assert_int_equal(mkdir(path, 0755), 0);
	/* No hugepages folder at all: an error, not zero. */
	assert_true(lca_eal_free_hugepages(root) < 0);
	snprintf(path, sizeof(path), "%s/kernel/mm", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages", root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(lca_eal_free_hugepages(root), 0);
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-2048kB", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", root);
	write_file(path, "3\n");
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-1048576kB", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages",
		 root);
	write_file(path, "1\n");
	assert_int_equal(lca_eal_free_hugepages(root), 4);
	assert_int_equal(system("rm -rf /tmp/lca_sysfs*"), 0);
}

static void
test_init_hands_back_app_args(void **state)
{
	char *argv[] = {
		(char *)"prog", (char *)"-l", (char *)"0-1", (char *)"--no-huge",
		(char *)"--no-pci", (char *)"--in-memory", (char *)"--file-prefix",
		(char *)"lca_test_eal", (char *)"--log-level", (char *)"lib.*:error",
		(char *)"--", (char *)"--foo", (char *)"bar", NULL,
	};
	int app_argc = 0;
	char **app_argv = NULL;

	(void)state;
	assert_int_equal(lca_eal_init(13, argv, &app_argc, &app_argv), 0);
	assert_int_equal(app_argc, 3);
	assert_string_equal(app_argv[0], "prog");
	assert_string_equal(app_argv[1], "--foo");
	assert_string_equal(app_argv[2], "bar");
	/* The pair DPDK refuses was turned into one it takes. */
	assert_non_null(strstr(lca_eal_args(), "--no-shconf"));
	assert_null(strstr(lca_eal_args(), "--in-memory"));
	assert_false(lca_eal_no_huge_fallback()); /* --no-huge was given */
	assert_int_equal(lca_eal_init(13, argv, &app_argc, &app_argv), -EALREADY);
}

/* A SOCK_SEQPACKET socket bound to @p path, listening when @p listening
 * (a memif server's); its fd. */
static int
bound_socket(const char *path, bool listening)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	assert_true(fd >= 0);
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	if (listening)
		assert_int_equal(listen(fd, 1), 0);
	return fd;
}

/* A memif server's socket file: removed only when nobody listens on it. */
static void
test_memif_sock_check(void **state)
{
	char dir[] = "/tmp/lca_memifXXXXXX";
	char path[256], lng[200];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.sock", dir);
	assert_int_equal(lca_eal_memif_sock_check(path), 0); /* no file */
	/* A live server: refused, its file kept, and it still takes a client. */
	fd = bound_socket(path, true);
	assert_int_equal(lca_eal_memif_sock_check(path), -EADDRINUSE);
	assert_int_equal(lstat(path, &st), 0);
	/* Killed (its fd closed, the file left): stale, removed. */
	close(fd);
	assert_int_equal(lca_eal_memif_sock_check(path), 1);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	/* Bound but never listening: nobody answers either. */
	fd = bound_socket(path, false);
	assert_int_equal(lca_eal_memif_sock_check(path), 1);
	assert_int_equal(lstat(path, &st), -1);
	close(fd);
	/* Not a socket: never removed. */
	write_file(path, "data\n");
	assert_int_equal(lca_eal_memif_sock_check(path), -EEXIST);
	assert_int_equal(lstat(path, &st), 0);
	unlink(path);
	memset(lng, 'x', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	assert_int_equal(lca_eal_memif_sock_check(lng), -EINVAL);
	assert_int_equal(lca_eal_memif_sock_check(""), -EINVAL);
	assert_int_equal(lca_eal_memif_sock_check(NULL), -EINVAL);
	rmdir(dir);
}

static void
test_signal_requests_stop(void **state)
{
	(void)state;
	assert_false(lca_eal_stop_requested());
	raise(SIGTERM);
	assert_true(lca_eal_stop_requested());
}

/* SIGHUP (a closed terminal) is a clean stop as SIGTERM is: its default
 * action would kill the process and leave the runtime folder behind. The
 * stop flag is up already, so the handler is compared rather than raised. */
static void
test_sighup_stops_as_sigterm(void **state)
{
	struct sigaction hup, term;

	(void)state;
	assert_int_equal(sigaction(SIGHUP, NULL, &hup), 0);
	assert_int_equal(sigaction(SIGTERM, NULL, &term), 0);
	assert_true(hup.sa_handler != SIG_DFL && hup.sa_handler != SIG_IGN);
	assert_ptr_equal(hup.sa_handler, term.sa_handler);
	raise(SIGHUP); /* taken: the test process goes on */
	assert_true(lca_eal_stop_requested());
}

static void
test_cleanup(void **state)
{
	(void)state;
	assert_int_equal(lca_eal_cleanup(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_hugepages_from_fake_sysfs),
		cmocka_unit_test(test_memif_sock_check),
		cmocka_unit_test(test_init_hands_back_app_args),
		cmocka_unit_test(test_signal_requests_stop),
		cmocka_unit_test(test_sighup_stops_as_sigterm),
		cmocka_unit_test(test_cleanup),
	};

	return lca_test_status(cmocka_run_group_tests(tests, NULL, NULL));
}
