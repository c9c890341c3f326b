/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Criterion side of the fake virtio-net device (fake_virtio.c stays
 * free of Criterion: the fuzz harness links it too).
 */
#ifndef FAKE_VIRTIO_FIXTURE_H
#define FAKE_VIRTIO_FIXTURE_H

#include <stdint.h>

#include "fake_virtio.h"

/*
 * Create the fake device offering @p features and start its port: one rx
 * and one tx queue of 256 descriptors, poll mode, @p mtu (rx scatter above
 * 1500). Warnings and above are captured (log_capture.h); a failure fails
 * the test with the code, the device's error and the log.
 */
void fake_virtio_attach_start(struct fake_virtio *fk, uint64_t features, uint16_t mtu);

#endif
