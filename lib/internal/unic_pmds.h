/* SPDX-License-Identifier: BSD-3-Clause */
/* Every driver's table entry, for lib/port/drivers.c. */
#ifndef UNIC_PMDS_H
#define UNIC_PMDS_H

#include "unic_port_driver.h"

extern const struct unic_driver unic_null_driver;
extern const struct unic_driver unic_ring_driver;
extern const struct unic_driver unic_e1000e_driver;
extern const struct unic_driver unic_virtio_driver;
extern const struct unic_driver unic_af_packet_driver;
extern const struct unic_driver unic_memif_driver;
extern const struct unic_driver unic_af_xdp_driver;

#endif /* UNIC_PMDS_H */
