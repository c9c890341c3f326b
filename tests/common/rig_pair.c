/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_capture.h"
#include "rig_pair.h"

static bool rig_is_vfio(void)
{
	const char *a = getenv("UNIC_VM_ACCESS");

	return a && strcmp(a, "vfio") == 0;
}

void rig_pair_setup(const struct rig_pair *rp, const char *pool_name)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc) };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc) };
	uint16_t ids[UNIC_PORT_MAX];
	const char *rxd = rp->rx_driver ? rp->rx_driver : "e1000e";
	unsigned nb;
	const char *run = getenv("UNIC_VM_RUN");
	int rc;

	if (getenv("UNIC_VM_ACCESS") == NULL)
		cr_skip_test("UNIC_VM_ACCESS is not set: not in the rig's guest");
	snprintf(rp->run_id, 9, "%.8s", run ? run : "norun000");
	logtail_start(true);
	/* UIO has no IOMMU: the device sees physical addresses. */
	mc.iova_mode = rig_is_vfio() ? UNIC_IOVA_VA : UNIC_IOVA_PA;
	*rp->mem = unic_mem_create(&mc);
	cr_assert_not_null(*rp->mem, "unic_mem_create: %s", strerror(errno));
	bc.mem = *rp->mem;
	*rp->bus = unic_bus_create(&bc);
	cr_assert_not_null(*rp->bus, "unic_bus_create: %s", strerror(errno));
	rc = unic_bus_probe(*rp->bus, NULL, 0);
	cr_assert_geq(rc, 2, "unic_bus_probe created %d ports, expected an e1000e and a %s; log: %s", rc, rxd,
		      logtail);
	nb = unic_port_list(ids, UNIC_PORT_MAX);
	for (unsigned i = 0; i < nb; i++) {
		struct unic_port *p = unic_port_get_by_id(ids[i]);
		struct unic_port_info info;

		memset(&info, 0, sizeof(info));
		if (p == NULL || unic_port_info_get(p, &info) != 0)
			unic_port_put(p);
		else if (rp->ports[0] == NULL && strcmp(info.driver, "e1000e") == 0)
			rp->ports[0] = p;
		else if (rp->ports[1] == NULL && strcmp(info.driver, rxd) == 0)
			rp->ports[1] = p;
		else
			unic_port_put(p);
	}
	cr_assert(rp->ports[0] && rp->ports[1], "expected an e1000e and a %s port, found %s and %s; log: %s", rxd,
		  rp->ports[0] ? "the e1000e" : "no e1000e", rp->ports[1] ? "the receiver" : "no receiver", logtail);
	/* DMA memory after the devices are open (the IOMMU's IOVA window). */
	pc.name = pool_name;
	pc.mem = *rp->mem;
	pc.count = 8192;
	pc.cache_size = 0;
	*rp->pool = unic_pktpool_create(&pc);
	cr_assert_not_null(*rp->pool, "unic_pktpool_create: %s; log: %s", strerror(errno), logtail);
}

void rig_pair_teardown(const struct rig_pair *rp)
{
	for (int i = 0; i < 2; i++) {
		if (rp->ports[i]) {
			if (unic_port_state(rp->ports[i]) == UNIC_PORT_STARTED)
				unic_port_stop(rp->ports[i]);
			unic_port_detach(rp->ports[i]);
			unic_port_put(rp->ports[i]);
			rp->ports[i] = NULL;
		}
	}
	unic_pool_destroy(*rp->pool);
	unic_bus_destroy(*rp->bus);
	unic_mem_destroy(*rp->mem);
	*rp->pool = NULL;
	*rp->bus = NULL;
	*rp->mem = NULL;
}
