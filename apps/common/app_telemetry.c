/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "app_telemetry.h"

int app_telemetry_start(const struct unic_env_options *eo, const char *app, FILE *info,
			void (*reg)(struct unic_telemetry *tel, void *arg), void *reg_arg,
			struct unic_telemetry **tel)
{
	struct unic_telemetry_conf c = { .sz = sizeof(c), .prefix = eo->file_prefix };
	int err;

	*tel = NULL;
	if (eo->telemetry == UNIC_ENV_TELEMETRY_OFF)
		return 0;
	*tel = unic_telemetry_start(&c);
	if (*tel != NULL) {
		char inst[24] = "";

		if (reg)
			reg(*tel, reg_arg);

		if (unic_telemetry_instance(*tel) > 0)
			snprintf(inst, sizeof(inst), " -i %u", unic_telemetry_instance(*tel));
		fprintf(info, "%s: telemetry on %s (unic-telemetry%s%s%s; --no-telemetry turns it off)\n",
			app, unic_telemetry_path(*tel), eo->file_prefix ? " --file-prefix " : "",
			eo->file_prefix ? eo->file_prefix : "", inst);
		fflush(info);
		return 0;
	}
	err = errno;
	if (eo->telemetry == UNIC_ENV_TELEMETRY_ON) {
		fprintf(stderr, "%s: error: --telemetry: cannot start the telemetry socket: %s (the message above says why)\n",
			app, strerror(err));
		return -err;
	}
	fprintf(info, "%s: warning: no telemetry: %s (the message above says why); the app runs without it\n",
		app, strerror(err));
	fflush(info);
	return 0;
}
