/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-testpmd's device and EAL dumps, each mapped to unic's equivalent or
 * refused with the reason, and the forwarding debug switches (set verbose,
 * set record-core-cycles, set record-burst-stats). testpmd.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <unic/log.h>
#include <unic/pool.h>
#include <unic/ring.h>

#include "testpmd.h"

int tp_show_device(struct tp_app *app, const char *which)
{
	bool all = strcmp(which, "all") == 0;
	unsigned shown = 0;

	for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
		struct tp_port *p = &app->ports[id];
		struct unic_port_info info;
		uint8_t mac[6];
		char b[32];

		if (p->port == NULL || unic_port_info_get(p->port, &info) != 0)
			continue;
		if (!all && strcmp(which, info.bus_addr) != 0 && strcmp(which, unic_port_name(p->port)) != 0)
			continue;
		fprintf(app->out, "\n********************* Infos for device %s *********************\n",
			strcmp(info.bus_addr, "vdev") == 0 ? unic_port_name(p->port) : info.bus_addr);
		fprintf(app->out, "Bus name: %s\n", strcmp(info.bus_addr, "vdev") == 0 ? "vdev" : "pci");
		fprintf(app->out, "Driver name: %s\n", info.driver);
		/* The device's own node (-1: none), as DPDK's; show port info has the port's socket. */
		fprintf(app->out, "Connect to socket: %d\n", info.numa_node);
		fprintf(app->out, "\n\tPort id: %-2u\n", id);
		if (unic_port_mac_get(p->port, mac) == 0) {
			tp_fmt_mac(b, sizeof(b), mac);
			fprintf(app->out, "\tMAC address: %s\n", b);
		}
		fprintf(app->out, "\tDevice name: %s\n", unic_port_name(p->port));
		shown++;
	}
	if (shown == 0 && !all) {
		fprintf(app->err, "show device info: no port's device is '%s'; give 'all', a PCI address (BDF) or a port name\n",
			which);
		return -ENODEV;
	}
	return 0;
}

struct pool_dump {
	FILE *f;
	const char *name;
	unsigned n;
};

static int pool_one(struct unic_pool *pool, void *arg)
{
	struct pool_dump *d = arg;

	if (d->name && strcmp(d->name, pool->name) != 0)
		return 0;
	fprintf(d->f, "mempool <%s>@%p\n  socket_id=%d\n  size=%u\n  elt_size=%u\n  obj_size=%u\n  cache_size=%u\n"
		"  avail_count=%u\n  in_use_count=%u\n  cache_count=%u\n", pool->name, (void *)pool,
		unic_pool_numa_node(pool), pool->count, pool->elt_size, pool->obj_size, pool->cache_size,
		unic_pool_avail_count(pool),
		unic_pool_in_use_count(pool), unic_pool_cache_count(pool));
	d->n++;
	return 0;
}

/* The DPDK dumps: order as in the TP_CMD_DUMP syntax. */
enum { D_PHYSMEM, D_MEMZONE, D_SOCKET_MEM, D_STRUCT_SIZES, D_RING, D_MEMPOOL, D_DEVARGS, D_LOG_TYPES };

int tp_dump(struct tp_app *app, unsigned what, const char *name)
{
	struct pool_dump d = { .f = app->out, .name = name };

	switch (what) {
	case D_PHYSMEM:
	case D_SOCKET_MEM:
		fprintf(app->err, "%s: unic has no EAL memory segment list: each pool and each port's rings "
			"take their own DMA memory (lib/mem), shown by 'dump_mempool' and 'show port info'; "
			"hugepages in use: /proc/meminfo (-ENOTSUP)\n", what == D_PHYSMEM ? "dump_physmem" : "dump_socket_mem");
		return -ENOTSUP;
	case D_MEMZONE:
		fprintf(app->err, "dump_memzone: unic has no named memzones (lib/mem allocations belong to their pool "
			"or port); 'dump_mempool' lists the pools (-ENOTSUP)\n");
		return -ENOTSUP;
	case D_RING:
		fprintf(app->err, "dump_ring: unic's rings are not registered by name (each belongs to its pool, "
			"port or napi context); 'dump_mempool' and 'show port stats' show their use (-ENOTSUP)\n");
		return -ENOTSUP;
	case D_STRUCT_SIZES:
		fprintf(app->out, "struct unic_pkt: %zu\nstruct unic_pool: %zu\n", sizeof(struct unic_pkt),
			sizeof(struct unic_pool));
		return 0;
	case D_MEMPOOL:
		unic_pool_foreach(pool_one, &d);
		if (name && d.n == 0) {
			fprintf(app->err, "dump_mempool: no pool '%s'; 'dump_mempool' lists them all\n", name);
			return -ENOENT;
		}
		return 0;
	case D_DEVARGS:
		/* unic's equivalent: the devices the ports were made from. */
		for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
			struct unic_port_info info;

			if (app->ports[id].port == NULL || unic_port_info_get(app->ports[id].port, &info) != 0)
				continue;
			fprintf(app->out, "%s: %s (port %u, %s)\n", strcmp(info.bus_addr, "vdev") == 0 ? "vdev" : "pci",
				unic_port_name(app->ports[id].port), id, info.driver);
		}
		return 0;
	case D_LOG_TYPES:
		fprintf(app->out, "global log level is %s\n", unic_log_level_name((enum unic_log_level)unic_log_levels[UNIC_LOGC_APP]));
		for (int c = 0; c < UNIC_LOGC_COUNT; c++)
			fprintf(app->out, "id %d: unic.%s, level is %s\n", c, unic_log_comp_name((enum unic_log_comp)c),
				unic_log_level_name((enum unic_log_level)unic_log_levels[c]));
		return 0;
	}
	return -EINVAL;
}

int tp_set_verbose(struct tp_app *app, uint64_t level)
{
	if (level > 255) {
		fprintf(app->err, "set verbose: %" PRIu64 "; expected 0 (quiet), 1 (received packets), 2 (sent), 3..255 (both)\n",
			level);
		return -EINVAL;
	}
	fprintf(app->out, "Change verbose level from %u to %u\n", app->verbose, (unsigned)level);
	__atomic_store_n(&app->verbose, (unsigned)level, __ATOMIC_RELAXED);
	return 0;
}

int tp_set_record(struct tp_app *app, bool bursts, bool on)
{
	if (app->fwd_on) {
		fprintf(app->err, "packet forwarding is running: run 'stop' first\n");
		return -EBUSY;
	}
	if (bursts)
		app->record_bursts = on;
	else
		app->record_cycles = on;
	fprintf(app->out, "record-%s %s%s\n", bursts ? "burst-stats" : "core-cycles", on ? "on" : "off",
		!on ? "" : bursts ? ": the burst sizes received and sent, in the forward statistics" :
		": CPU cycles per packet of each forwarding thread, in the forward statistics");
	return 0;
}

/* A command dpdk-testpmd has and unic refuses by design (cmd_refused.c):
 * the reason, naming the port's driver where the line names a port. */
int tp_refused(struct tp_app *app, const struct tp_cmd *cmd)
{
	int w = tp_cmd_port_word(cmd);

	if (w >= 0 && cmd->arg[w].num < TP_MAX_PORTS) {
		const struct tp_port *p = &app->ports[cmd->arg[w].num];

		if (p->driver[0])
			fprintf(app->err, "port %" PRIu64 " (%s): %s (-ENOTSUP)\n", cmd->arg[w].num, p->driver,
				cmd->def->help);
		else
			fprintf(app->err, "port %" PRIu64 " (no such port): %s (-ENOTSUP)\n", cmd->arg[w].num,
				cmd->def->help);
	} else {
		fprintf(app->err, "%s (-ENOTSUP)\n", cmd->def->help);
	}
	return -ENOTSUP;
}
