/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fake VFIO and the fixtures of the bus layer's tests (test_bus*.c, one
 * binary test_bus), defined in test_bus.c: the suite `bus` with a fake sysfs
 * tree under root, a memory and a bus over the fake VFIO per test, and the
 * captured log.
 */
#ifndef TEST_BUS_FIXTURE_H
#define TEST_BUS_FIXTURE_H

#include <linux/vfio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <unic/bus.h>
#include <unic/mem.h>

#include "fake_sysfs.h"
#include "log_capture.h"

#define FD_CONTAINER 1000
#define FD_GROUP 2000      /* + group id */
#define FD_DEVICE 3000     /* + n */
#define MAX_MAPS 64

struct fake_map {
	uint64_t iova, vaddr, size;
};

struct fake_vfio {
	bool not_viable;
	int noiommu_ext;          /* VFIO_CHECK_EXTENSION(VFIO_NOIOMMU_IOMMU) */
	int map_err;              /* MAP_DMA fails with it */
	bool no_caps;             /* GET_INFO without the IOVA-range capability */
	bool dev_reset;           /* VFIO_DEVICE_FLAGS_RESET */
	int hot_reset_err;        /* VFIO_DEVICE_PCI_HOT_RESET fails with it */
	int set_iommu;            /* the type asked for */
	unsigned nb_devices;
	struct fake_map maps[MAX_MAPS];
	unsigned nb_maps, nb_map_calls, nb_unmap_calls;
	unsigned resets, hot_resets, hot_reset_groups;
	struct vfio_irq_set last_irqs;
	int req_fd;               /* the eventfd registered on the request IRQ */
	uint8_t cfg[256];
	char opened[8][256];
	unsigned nb_opened;
};

/* What the fake VFIO was asked and what it answers; reset per test. */
extern struct fake_vfio fk;

/* The shared capture under the tests' old name. */
#define logbuf logcap_buf

#define assert_logged(s) cr_assert_not_null(strstr(logbuf, s), "the log lacks \"%s\":\n%s", s, logbuf)

/* The fake sysfs tree's root, the memory and the bus of the current test. */
extern char root[256];
extern struct unic_mem *mem;
extern struct unic_bus *bus;

/* 0000:00:03.0, an 82574L in IOMMU group 7, bound to vfio-pci. */
extern const struct fake_dev nic_vfio;

/* An empty file dev/vfio/<name> under root. */
void dev_file(const char *name);
/* A bus over the fake VFIO, on mem and root. */
struct unic_bus *make_bus(bool noiommu_ok);

#endif
