/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI probing: the drivers of the driver table, as the bus sees them (a name,
 * an id table, a probe callback), handed to the bus's scan; each device the
 * bus opens for a driver becomes a port, returned to the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "port_private.h"
#include "unic_bus_driver.h"

/* A driver of the table wrapped for the bus: the bus calls probe_one with it. */
struct probe_drv {
	struct unic_pci_driver pci;
	const struct unic_driver *drv;
};

struct probe_ctx {
	struct unic_bus *bus;
	struct unic_port **ports;
	unsigned max, nb;
	bool full;
};

static int probe_one(const struct unic_pci_driver *pci, struct unic_pci_device *dev, void *arg)
{
	const struct probe_drv *pd = UNIC_CONTAINER_OF(pci, struct probe_drv, pci);
	const char *bdf = unic_pci_info(dev)->bdf;
	struct probe_ctx *ctx = arg;
	struct unic_port *port = NULL;
	int rc;

	if (ctx->nb == ctx->max) {
		UNIC_LOG(ERR, PORT, "%s: driver %s would create a port, but there is room for %u only; probe fewer devices (-a) or pass a larger array",
			 bdf, pd->drv->name, ctx->max);
		ctx->full = true;
		return -ENOSPC;
	}
	rc = pd->drv->pci_probe(ctx->bus, dev, &port);
	if (rc < 0) {
		UNIC_LOG(ERR, PORT, "%s: driver %s could not create its port: %s", bdf,
			 pd->drv->name, strerror(-rc));
		return rc;
	}
	if (port == NULL) {
		/* The driver took the device but made no port: nothing to return. */
		UNIC_LOG(DEBUG, PORT, "%s: driver %s took the device without a port", bdf, pd->drv->name);
		return 0;
	}
	UNIC_LOG(INFO, PORT, "%s: driver %s created port %s", bdf, pd->drv->name, port->name);
	/* The driver's reference from unic_port_alloc() is the caller's now. */
	ctx->ports[ctx->nb++] = port;
	return 0;
}

int port_probe_table(struct unic_bus *bus, const struct unic_driver *const *table,
		     const char *const *allow, unsigned nb_allow,
		     struct unic_port **ports, unsigned max, unsigned *nb_created)
{
	struct probe_ctx ctx = { .bus = bus, .ports = ports, .max = ports ? max : 0 };
	const struct unic_pci_driver **pci;
	struct probe_drv *wrap;
	unsigned nb_drv = 0, n = 0;
	int rc;

	*nb_created = 0;
	if (bus == NULL || table == NULL)
		return -EINVAL;
	while (table[nb_drv] != NULL)
		nb_drv++;
	wrap = calloc(nb_drv + 1, sizeof(*wrap));
	pci = calloc(nb_drv + 1, sizeof(*pci));
	if (wrap == NULL || pci == NULL) {
		free(wrap);
		free(pci);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nb_drv; i++) {
		if (table[i]->pci_probe == NULL || table[i]->pci_ids == NULL)
			continue;
		wrap[n] = (struct probe_drv){
			.pci = { .name = table[i]->name, .id_table = table[i]->pci_ids, .probe = probe_one },
			.drv = table[i],
		};
		pci[n] = &wrap[n].pci;
		n++;
	}
	rc = unic_pci_probe(bus, pci, allow, nb_allow, &ctx);
	free(pci);
	free(wrap);
	*nb_created = ctx.nb;
	if (rc >= 0 && ctx.full)
		rc = -ENOSPC;
	return rc < 0 ? rc : (int)ctx.nb;
}

/* Detach and release what a failed probe created. */
static void probe_undo(struct unic_port **ports, unsigned nb)
{
	for (unsigned i = 0; i < nb; i++) {
		unic_port_detach(ports[i]);
		unic_port_put(ports[i]);
		ports[i] = NULL;
	}
}

int port_probe_pci_table(struct unic_bus *bus, const struct unic_driver *const *table,
			 const char *const *allow, unsigned nb_allow,
			 struct unic_port **ports, unsigned max)
{
	unsigned nb;
	int rc;

	if (ports == NULL && max > 0)
		return -EINVAL;
	rc = port_probe_table(bus, table, allow, nb_allow, ports, max, &nb);
	if (rc < 0) {
		if (nb > 0)
			UNIC_LOG(ERR, PORT, "PCI probe failed (the message above says why); detaching the %u port(s) it created",
				 nb);
		probe_undo(ports, nb);
	}
	return rc;
}

int unic_port_probe_pci(struct unic_bus *bus, const char *const *allow, unsigned nb_allow,
			struct unic_port **ports, unsigned max)
{
	return port_probe_pci_table(bus, unic_drivers, allow, nb_allow, ports, max);
}

int unic_bus_probe(struct unic_bus *bus, const char *const *allow, unsigned nb_allow)
{
	struct unic_port *ports[UNIC_PORT_MAX];
	unsigned nb;
	int rc = port_probe_table(bus, unic_drivers, allow, nb_allow, ports, UNIC_PORT_MAX, &nb);

	/* The registry keeps the ports; this form hands out no reference. */
	for (unsigned i = 0; i < nb; i++)
		unic_port_put(ports[i]);
	return rc;
}

const char *unic_port_pci_driver(const struct unic_pci_info *info)
{
	for (unsigned i = 0; info != NULL && unic_drivers[i] != NULL; i++)
		if (unic_drivers[i]->pci_probe != NULL && unic_pci_id_match(unic_drivers[i]->pci_ids, info))
			return unic_drivers[i]->name;
	return NULL;
}
