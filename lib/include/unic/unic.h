/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Everything libunic exports.
 */
#ifndef UNIC_H
#define UNIC_H

#include <unic/common.h>
#include <unic/barrier.h>
#include <unic/counter.h>
#include <unic/cycles.h>
#include <unic/log.h>
#include <unic/thread.h>
#include <unic/ring.h>
#include <unic/mem.h>
#include <unic/pkt.h>
#include <unic/pool.h>
#include <unic/env.h>
#include <unic/event.h>
#include <unic/bus.h>
#include <unic/port.h>
#include <unic/flow.h>
#include <unic/napi.h>
#include <unic/telemetry.h>
#include <unic/cksum.h>
#include <unic/net.h>

#endif /* UNIC_H */
