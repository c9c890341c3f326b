/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include <unic/pool.h>
#include <unic/port.h>

#include "app_pool.h"

struct unic_pool *app_pool_create(struct unic_mem *mem, struct unic_port *port, const char *name,
				  uint32_t count, uint32_t cache_size, uint16_t dataroom, int numa_node)
{
	struct unic_port_info info = { 0 };

	unic_port_info_get(port, &info);
	struct unic_pktpool_conf pc = {
		.sz = sizeof(pc), .name = name, .mem = mem, .count = count, .cache_size = cache_size,
		.numa_node = numa_node, .dataroom = dataroom,
		.shareable = info.rx_pool_shareable, /* memif zero-copy=yes lends it */
	};

	return unic_pktpool_create(&pc);
}

struct unic_pool *app_port_pool_create(struct unic_mem *mem, struct unic_port *port, const char *app,
				       uint32_t count, uint32_t cache_size, uint16_t dataroom)
{
	struct unic_port_info info = { 0 };
	char name[UNIC_POOL_NAMESIZE];

	unic_port_info_get(port, &info);
	snprintf(name, sizeof(name), "%s-%s", app, unic_port_name(port));
	return app_pool_create(mem, port, name, count, cache_size, dataroom, info.numa_node);
}
