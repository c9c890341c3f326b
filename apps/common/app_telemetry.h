/* SPDX-License-Identifier: BSD-3-Clause */
/* Telemetry as every application starts it (docs/telemetry.md). */
#ifndef UNIC_APP_TELEMETRY_H
#define UNIC_APP_TELEMETRY_H

#include <stdio.h>

#include <unic/env.h>
#include <unic/telemetry.h>

/**
 * Start the telemetry server as the common options say: not at all with
 * --no-telemetry; by default, a failure is a warning on @p info and the app
 * goes on; with --telemetry, a failure is an error. On success one line on
 * @p info gives the socket's path, printed once @p reg (when not NULL) has
 * registered the app's own commands (@p reg_arg its argument), so a client
 * that reads the line finds them. @p app names the app in the lines.
 * @return 0 (*@p tel is the server, or NULL when off or not started), or
 *         -errno when --telemetry was given and it could not start.
 */
int app_telemetry_start(const struct unic_env_options *eo, const char *app, FILE *info,
			void (*reg)(struct unic_telemetry *tel, void *arg), void *reg_arg,
			struct unic_telemetry **tel);

#endif /* UNIC_APP_TELEMETRY_H */
