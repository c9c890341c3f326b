/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver kit: DMA memory for a port's rings. The port holds the memory its
 * device reaches (set at probe) and the zones its driver took from it, so
 * a driver allocates a ring where it sets the queue up, frees it where it
 * releases the queue, and nothing outlives the port's close.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unic/mem.h>

#include "port_private.h"

struct unic_port_dma_zone {
	struct unic_dma dma;
	struct unic_port_dma_zone *next;
};

void unic_port_dma_mem_set(struct unic_port *port, struct unic_mem *mem)
{
	port_core(port)->dma_mem = mem;
}

int unic_port_dma_alloc(struct unic_port *port, const char *what, size_t len, size_t align,
			int numa_node, struct unic_dma *out)
{
	struct unic_port_dma_zone *z;
	int rc;

	if (port_core(port)->dma_mem == NULL) {
		UNIC_LOG(ERR, PORT, "%s: %s: the port has no DMA memory (its driver did not call unic_port_dma_mem_set at probe)",
			 port->name, what);
		return -ENODEV;
	}
	z = calloc(1, sizeof(*z));
	if (z == NULL)
		return -ENOMEM;
	rc = unic_mem_alloc(port_core(port)->dma_mem, len, align, numa_node, &z->dma);
	if (rc < 0) {
		UNIC_LOG(ERR, PORT, "%s: cannot allocate the %s (%zu bytes) in DMA memory: %s",
			 port->name, what, len, strerror(-rc));
		free(z);
		return rc;
	}
	z->next = port_core(port)->dma_zones;
	port_core(port)->dma_zones = z;
	*out = z->dma;
	return 0;
}

void unic_port_dma_free(struct unic_port *port, struct unic_dma *d)
{
	for (struct unic_port_dma_zone **pz = &port_core(port)->dma_zones; d->va != NULL && *pz != NULL;
	     pz = &(*pz)->next) {
		struct unic_port_dma_zone *z = *pz;

		if (z->dma.va == d->va) {
			*pz = z->next;
			unic_mem_free(port_core(port)->dma_mem, &z->dma);
			free(z);
			break;
		}
	}
	memset(d, 0, sizeof(*d));
}

void port_dma_free_all(struct unic_port *port)
{
	while (port_core(port)->dma_zones != NULL) {
		struct unic_port_dma_zone *z = port_core(port)->dma_zones;

		port_core(port)->dma_zones = z->next;
		unic_mem_free(port_core(port)->dma_mem, &z->dma);
		free(z);
	}
}
