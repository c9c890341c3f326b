/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vm-frames IFNAME COUNT: sends COUNT broadcast frames on a kernel network
 * interface, each tagged with the rig's run id and check name, so the host
 * can count them on the other side of the link (tests/vm/rig/frames.py).
 *
 * Frame: broadcast, the interface's MAC, EtherType 0x88b5 (IEEE local
 * experimental), payload "unic-vm RUN CHECK SEQ" padded with zeros to
 * 128 bytes.  Exit status 0 when every frame was handed to the kernel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VM_FRAMES_ETHERTYPE 0x88b5
#define VM_FRAMES_LEN 128

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

int main(int argc, char **argv)
{
	const char *run = getenv("UNIC_VM_RUN"), *check = getenv("UNIC_VM_CHECK");
	struct sockaddr_ll to = { .sll_family = AF_PACKET };
	unsigned char frame[VM_FRAMES_LEN] = { 0 };
	struct ifreq ifr = { 0 };
	int fd, count;

	if (argc != 3 || !run || !check) {
		fprintf(stderr, "usage: vm-frames IFNAME COUNT (with UNIC_VM_RUN and UNIC_VM_CHECK set)\n");
		return 2;
	}
	count = atoi(argv[2]);
	if (wait_for_carrier(argv[1], 10) != 0) {
		fprintf(stderr, "%s: no carrier after 10 s\n", argv[1]);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(VM_FRAMES_ETHERTYPE));
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	/* ifr_ifindex and ifr_hwaddr share a union: one ioctl at a time. */
	if (ioctl(fd, SIOCGIFINDEX, &ifr) != 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	to.sll_ifindex = ifr.ifr_ifindex;
	to.sll_halen = ETH_ALEN;
	memset(to.sll_addr, 0xff, ETH_ALEN);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) != 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memset(frame, 0xff, ETH_ALEN);
	memcpy(frame + ETH_ALEN, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	frame[12] = VM_FRAMES_ETHERTYPE >> 8;
	frame[13] = VM_FRAMES_ETHERTYPE & 0xff;
	for (int seq = 0; seq < count; seq++) {
		int len = snprintf((char *)frame + ETH_HLEN, sizeof(frame) - ETH_HLEN,
				   "unic-vm %s %s %d", run, check, seq);

		if (len >= (int)(sizeof(frame) - ETH_HLEN)) {
			fprintf(stderr, "run id and check name do not fit in a frame\n");
			return 2;
		}
		if (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			fprintf(stderr, "frame %d: %s\n", seq, strerror(errno));
			return 1;
		}
	}
	printf("sent %d frames on %s\n", count, argv[1]);
	close(fd);
	return 0;
}
