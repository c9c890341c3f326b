/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal telemetry client for the rig's guest, which has busybox and no
 * Python for unic-telemetry (docs/telemetry.md has the protocol):
 *
 *   vm-telemetry SOCKET REQUEST...
 *
 * connects to SOCKET (the path an application prints in its "telemetry on"
 * line), prints the hello on one line, then sends each REQUEST as one
 * message and prints its answer on one line.  An error answer
 * ({"error":...}) is printed like any other: the caller judges it.  Exit
 * status 0 when every request got an answer, 1 otherwise (no socket, no
 * hello, no answer within 10 s), with the reason on stderr.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#define VM_TEL_WAIT_MS 10000
#define VM_TEL_MAX_ANSWER (128 * 1024)

static char answer[VM_TEL_MAX_ANSWER + 1];

/* One message from @p fd into answer[], printed on a line; 0 or -1. */
static int vm_tel_recv(int fd, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int rc;

	rc = poll(&p, 1, VM_TEL_WAIT_MS);
	if (rc != 1) {
		fprintf(stderr, "vm-telemetry: no %s within %d ms%s%s\n", what, VM_TEL_WAIT_MS,
			rc < 0 ? ": " : "", rc < 0 ? strerror(errno) : "");
		return -1;
	}
	n = recv(fd, answer, VM_TEL_MAX_ANSWER, 0);
	if (n <= 0) {
		fprintf(stderr, "vm-telemetry: %s: %s\n", what,
			n == 0 ? "the server closed the connection" : strerror(errno));
		return -1;
	}
	answer[n] = '\0';
	printf("%s\n", answer);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len;
	int fd, i;

	if (argc < 3) {
		fprintf(stderr, "usage: vm-telemetry SOCKET REQUEST...\n");
		return 2;
	}
	len = strlen(argv[1]);
	if (len >= sizeof(sun.sun_path)) {
		fprintf(stderr, "vm-telemetry: socket path of %zu bytes; the limit is %zu\n", len,
			sizeof(sun.sun_path) - 1);
		return 1;
	}
	memcpy(sun.sun_path, argv[1], len + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		fprintf(stderr, "vm-telemetry: socket: %s\n", strerror(errno));
		return 1;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		fprintf(stderr, "vm-telemetry: connect %s: %s (is the application running with telemetry?)\n",
			argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	if (vm_tel_recv(fd, "hello") < 0) {
		close(fd);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		len = strlen(argv[i]);
		if (send(fd, argv[i], len, 0) != (ssize_t)len) {
			fprintf(stderr, "vm-telemetry: send request %d (%zu bytes): %s\n", i - 1, len,
				strerror(errno));
			close(fd);
			return 1;
		}
		if (vm_tel_recv(fd, "answer") < 0) {
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}
