/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "vdev_port.h"

struct unic_port *vdev_port_open(const struct vdev_port_conf *c, char *why, size_t len)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = c->nb_queues, .nb_txq = c->nb_queues,
				       .rx_mode = c->rx_mode };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = c->nb_rxd, .numa_node = c->numa_node,
				    .pool = c->pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = c->nb_txd, .numa_node = c->numa_node };
	struct unic_port *p = NULL;
	int err;

	err = unic_vdev_create(c->spec, &p);
	if (err != 0) {
		snprintf(why, len, "unic_vdev_create(\"%s\"): %s", c->spec, strerror(-err));
		return NULL;
	}
	err = unic_port_configure(p, &conf);
	if (err != 0) {
		snprintf(why, len, "configure %s: %s", c->spec, strerror(-err));
		goto fail_port;
	}
	for (uint16_t q = 0; q < c->nb_queues; q++) {
		err = unic_port_rx_queue_setup(p, q, &rc);
		if (err != 0) {
			snprintf(why, len, "%s rx queue %u: %s", c->spec, q, strerror(-err));
			goto fail_port;
		}
		err = unic_port_tx_queue_setup(p, q, &tc);
		if (err != 0) {
			snprintf(why, len, "%s tx queue %u: %s", c->spec, q, strerror(-err));
			goto fail_port;
		}
	}
	err = unic_port_start(p);
	if (err != 0) {
		snprintf(why, len, "start %s: %s", c->spec, strerror(-err));
		goto fail_port;
	}
	return p;

fail_port:
	unic_port_detach(p);
	unic_port_put(p);
	return NULL;
}

int vdev_port_close(struct unic_port *p)
{
	int err = unic_port_stop(p);

	if (err == 0)
		err = unic_port_close(p);
	if (err == 0)
		err = unic_port_detach(p);
	unic_port_put(p);
	return err;
}
