/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QEMU rig guest's two e1000e (boots vfio-hub and uio: two e1000e on
 * one QEMU hub), or an e1000e and the virtio-net on that hub (vfio-hub),
 * as the guest test programs set them up: memory (IOVA as
 * VA under VFIO, PA under UIO), the bus, a probe that must create both
 * ports, and a packet pool allocated after the devices are open (inside
 * the IOMMU's IOVA window). The library's log goes to stderr, and its tail
 * to logtail (log_capture.h), which assertion messages quote.
 */
#ifndef TESTS_COMMON_RIG_PAIR_H
#define TESTS_COMMON_RIG_PAIR_H

#include <unic/bus.h>
#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

/* Where a test program keeps what the set-up makes (its own globals). */
struct rig_pair {
	struct unic_mem **mem;
	struct unic_bus **bus;
	struct unic_pool **pool;
	struct unic_port **ports;  /* two */
	char *run_id;              /* 9 bytes: UNIC_VM_RUN's first 8, "norun000" without it */
	const char *rx_driver;     /* ports[1]'s driver: NULL for a second e1000e */
};

/**
 * Set up @p rp (a Criterion .init): skips the test outside the rig's guest
 * (UNIC_VM_ACCESS unset), fails it unless two ports come up: ports[0] the
 * first e1000e, ports[1] the next port of rp->rx_driver (another e1000e
 * when that is NULL); any other port is put back. The
 * pool holds 8192 packets, no cache, named @p pool_name.
 */
void rig_pair_setup(const struct rig_pair *rp, const char *pool_name);
/** Stop, detach and put the ports left; free the pool, bus and memory; NULL them all. */
void rig_pair_teardown(const struct rig_pair *rp);

#endif /* TESTS_COMMON_RIG_PAIR_H */
