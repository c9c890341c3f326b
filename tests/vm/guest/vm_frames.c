/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tagged test frames on a guest kernel network interface, for the rig's tap
 * topology (tests/vm/rig/frames.py and rig/peer.py are the host's side):
 *
 *   vm-frames send IFNAME COUNT
 *       sends COUNT broadcast frames tagged with this run and check;
 *   vm-frames recv IFNAME COUNT [CMD]
 *       listens, then runs CMD (e.g. "unic-vm host-send unic0 20", which
 *       asks the host to send), and waits up to 10 s for COUNT distinct
 *       frames tagged with this run and check.
 *
 * Frame: broadcast, EtherType 0x88b5 (IEEE local experimental), payload
 * "unic-vm RUN CHECK SEQ" padded with zeros to 128 bytes; RUN and CHECK come
 * from UNIC_VM_RUN and UNIC_VM_CHECK.  Frames with another tag are counted
 * as strays.  Exit status 0 when all COUNT frames went out (send) or came
 * in (recv).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VM_FRAMES_ETHERTYPE 0x88b5
#define VM_FRAMES_LEN 128
#define VM_FRAMES_MAX 4096
#define VM_FRAMES_RECV_MS 10000

struct link {
	int fd;
	struct sockaddr_ll to;
	unsigned char mac[ETH_ALEN];
};

/* A link that was just set up needs a moment for its carrier (e1000e
 * autonegotiation); frames sent before it are dropped by the guest kernel. */
static int wait_for_carrier(const char *ifname, int seconds)
{
	char path[128], c = '0';

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", ifname);
	for (int i = 0; i < seconds * 10; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			c = (char)fgetc(f);
			fclose(f);
		}
		if (c == '1')
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	return -ETIMEDOUT;
}

static int link_open(struct link *l, const char *ifname)
{
	struct ifreq ifr = { 0 };

	if (wait_for_carrier(ifname, 10) != 0) {
		fprintf(stderr, "%s: no carrier after 10 s\n", ifname);
		return -1;
	}
	l->fd = socket(AF_PACKET, SOCK_RAW, htons(VM_FRAMES_ETHERTYPE));
	if (l->fd < 0) {
		perror("socket(AF_PACKET)");
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	/* ifr_ifindex and ifr_hwaddr share a union: one ioctl at a time. */
	if (ioctl(l->fd, SIOCGIFINDEX, &ifr) != 0)
		goto fail;
	l->to = (struct sockaddr_ll){
		.sll_family = AF_PACKET,
		.sll_protocol = htons(VM_FRAMES_ETHERTYPE),
		.sll_ifindex = ifr.ifr_ifindex,
		.sll_halen = ETH_ALEN,
	};
	memset(l->to.sll_addr, 0xff, ETH_ALEN);
	if (ioctl(l->fd, SIOCGIFHWADDR, &ifr) != 0)
		goto fail;
	memcpy(l->mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	/* Only this interface's frames. */
	if (bind(l->fd, (struct sockaddr *)&l->to, sizeof(l->to)) != 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "%s: %s\n", ifname, strerror(errno));
	close(l->fd);
	return -1;
}

static int do_send(struct link *l, const char *tag, int count)
{
	unsigned char frame[VM_FRAMES_LEN] = { 0 };

	memset(frame, 0xff, ETH_ALEN);
	memcpy(frame + ETH_ALEN, l->mac, ETH_ALEN);
	frame[12] = VM_FRAMES_ETHERTYPE >> 8;
	frame[13] = VM_FRAMES_ETHERTYPE & 0xff;
	for (int seq = 0; seq < count; seq++) {
		snprintf((char *)frame + ETH_HLEN, sizeof(frame) - ETH_HLEN, "%s %d", tag, seq);
		if (sendto(l->fd, frame, sizeof(frame), 0, (struct sockaddr *)&l->to,
			   sizeof(l->to)) < 0) {
			fprintf(stderr, "frame %d: %s\n", seq, strerror(errno));
			return 1;
		}
	}
	printf("sent %d frames\n", count);
	return 0;
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

static int do_recv(struct link *l, const char *tag, int count, const char *then)
{
	static bool seen[VM_FRAMES_MAX];
	unsigned char frame[2048];
	size_t tag_len = strlen(tag);
	int got = 0, dups = 0, strays = 0;
	struct timespec start;

	if (count > VM_FRAMES_MAX) {
		fprintf(stderr, "at most %d frames\n", VM_FRAMES_MAX);
		return 2;
	}
	if (then && system(then) != 0) {
		fprintf(stderr, "'%s' failed\n", then);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (got < count && elapsed_ms(&start) < VM_FRAMES_RECV_MS) {
		struct pollfd p = { .fd = l->fd, .events = POLLIN };
		ssize_t n;
		int seq;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(l->fd, frame, sizeof(frame) - 1, 0);
		if (n <= ETH_HLEN)
			continue;
		frame[n] = '\0';
		if (strncmp((char *)frame + ETH_HLEN, tag, tag_len) != 0 ||
		    sscanf((char *)frame + ETH_HLEN + tag_len, " %d", &seq) != 1 ||
		    seq < 0 || seq >= count) {
			strays++;
			continue;
		}
		if (seen[seq]) {
			dups++;
			continue;
		}
		seen[seq] = true;
		got++;
	}
	printf("received %d of %d frames (%d duplicates, %d strays) in %ld ms\n", got, count,
	       dups, strays, elapsed_ms(&start));
	return got == count ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *run = getenv("UNIC_VM_RUN"), *check = getenv("UNIC_VM_CHECK");
	char tag[VM_FRAMES_LEN - ETH_HLEN - 16];	/* room for " SEQ" */
	struct link l;
	int count, rc;

	if (argc < 4 || argc > 5 || !run || !check ||
	    (strcmp(argv[1], "send") != 0 && strcmp(argv[1], "recv") != 0)) {
		fprintf(stderr, "usage: vm-frames send|recv IFNAME COUNT [CMD]"
			" (with UNIC_VM_RUN and UNIC_VM_CHECK set)\n");
		return 2;
	}
	if (snprintf(tag, sizeof(tag), "unic-vm %s %s", run, check) >= (int)sizeof(tag)) {
		fprintf(stderr, "run id and check name do not fit in a frame\n");
		return 2;
	}
	count = atoi(argv[3]);
	if (link_open(&l, argv[2]) != 0)
		return 1;
	if (argv[1][0] == 's')
		rc = do_send(&l, tag, count);
	else
		rc = do_recv(&l, tag, count, argc == 5 ? argv[4] : NULL);
	close(l.fd);
	return rc;
}
