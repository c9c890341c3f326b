/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <string.h>

#include <unic/port.h>

#include "fake_virtio_fixture.h"
#include "log_capture.h"

void fake_virtio_attach_start(struct fake_virtio *fk, uint64_t features, uint16_t mtu)
{
	struct fake_virtio_config c = { .features = features };
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1, .mtu = mtu,
				     .rx_mode = UNIC_RX_MODE_POLL,
				     .rx_offloads = mtu > 1500 ? UNIC_RX_OFFLOAD_SCATTER : 0 };
	int rc;

	logcap_start(UNIC_LOG_WARNING, 0);
	rc = fake_virtio_create(fk, &c, true, NULL);
	cr_assert_eq(rc, 0, "attach: %d (%s); device error: %s; log: %s", rc, strerror(-rc), fk->dev.err,
		     logcap_buf);
	rc = fake_virtio_start(fk, 256, &pc);
	cr_assert_eq(rc, 0, "configure/setup/start: %d (%s); device error: %s; log: %s", rc, strerror(-rc),
		     fk->dev.err, logcap_buf);
}
