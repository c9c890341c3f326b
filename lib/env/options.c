/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common options (-a, --vdev, -l, --no-huge, --huge-dir, --iova-mode,
 * --log-level): taken out of argv in two passes. The first checks and
 * records every option and touches nothing; the second, which cannot fail,
 * compacts argv. So a bad option leaves argv as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <unic/bus.h>
#include <unic/env.h>
#include <unic/log.h>

#include "env_priv.h"

#define XSTR(x) STR(x)
#define STR(x) #x

enum env_opt {
	OPT_ALLOW,
	OPT_VDEV,
	OPT_LCORES,
	OPT_NO_HUGE,
	OPT_HUGE_DIR,
	OPT_IOVA_MODE,
	OPT_LOG_LEVEL,
	OPT_NO_PCI,
	OPT_VFIO_NOIOMMU,
	OPT_FILE_PREFIX,
	OPT_TELEMETRY,
	OPT_NO_TELEMETRY,
};

struct env_opt_def {
	const char *name;   /* long name, without "--" */
	char short_name;    /* 0: none */
	bool has_arg;
	const char *forms;  /* accepted forms, for messages */
};

#define BDF_FORMS "DDDD:BB:DD.F or BB:DD.F in hex (device 00-1f, function 0-7), e.g. 0000:03:00.0 or 03:00.0"

static const struct env_opt_def env_opts[] = {
	[OPT_ALLOW] = {
		.name = "allow", .short_name = 'a', .has_arg = true,
		.forms = "-a BDF, -aBDF, --allow BDF or --allow=BDF, where BDF is " BDF_FORMS,
	},
	[OPT_VDEV] = {
		.name = "vdev", .has_arg = true,
		.forms = "--vdev SPEC or --vdev=SPEC, e.g. --vdev ring0",
	},
	[OPT_LCORES] = {
		.name = "lcores", .short_name = 'l', .has_arg = true,
		.forms = "-l LIST, -lLIST, --lcores LIST or --lcores=LIST, where LIST is "
			 ENV_CPU_LIST_FORMS,
	},
	[OPT_NO_HUGE] = {
		.name = "no-huge", .has_arg = false,
		.forms = "--no-huge, without a value",
	},
	[OPT_HUGE_DIR] = {
		.name = "huge-dir", .has_arg = true,
		.forms = "--huge-dir DIR or --huge-dir=DIR, e.g. --huge-dir /dev/hugepages",
	},
	[OPT_IOVA_MODE] = {
		.name = "iova-mode", .has_arg = true,
		.forms = "--iova-mode va|pa or --iova-mode=va|pa",
	},
	[OPT_LOG_LEVEL] = {
		.name = "log-level", .has_arg = true,
		.forms = "--log-level SPEC or --log-level=SPEC, e.g. --log-level debug or --log-level info,mem:debug",
	},
	[OPT_NO_PCI] = {
		.name = "no-pci", .has_arg = false,
		.forms = "--no-pci, without a value",
	},
	[OPT_VFIO_NOIOMMU] = {
		.name = "vfio-noiommu", .has_arg = false,
		.forms = "--vfio-noiommu, without a value",
	},
	[OPT_FILE_PREFIX] = {
		.name = "file-prefix", .has_arg = true,
		.forms = "--file-prefix NAME or --file-prefix=NAME, NAME of letters, digits, '.', '_' and '-' (up to "
			 XSTR(UNIC_ENV_PREFIX_MAX) " characters), e.g. --file-prefix fwd1",
	},
	[OPT_TELEMETRY] = {
		.name = "telemetry", .has_arg = false,
		.forms = "--telemetry, without a value",
	},
	[OPT_NO_TELEMETRY] = {
		.name = "no-telemetry", .has_arg = false,
		.forms = "--no-telemetry, without a value",
	},
};

static const char env_usage[] =
	"Common options (anywhere before a bare --; the rest is left for the application):\n"
	"  -a, --allow BDF        probe only this PCI device: DDDD:BB:DD.F or BB:DD.F\n"
	"                         (repeatable, up to " XSTR(UNIC_ENV_MAX_ALLOW) ")\n"
	"      --vdev SPEC        add a virtual device, e.g. ring0 (repeatable, up to "
	XSTR(UNIC_ENV_MAX_VDEV) ")\n"
	"  -l, --lcores LIST      cores to run on, e.g. 0,2-3 or 0-3,8; the first runs\n"
	"                         the main thread, the others are workers\n"
	"      --no-huge          ordinary pages instead of hugepages (VA mode only)\n"
	"      --huge-dir DIR     hugetlbfs mount to take pages from\n"
	"      --iova-mode va|pa  force the IOVA mode (default: chosen by the bus)\n"
	"      --log-level SPEC   LEVEL or COMPONENT:LEVEL, comma-separated,\n"
	"                         e.g. debug or info,mem:debug\n"
	"      --no-pci           probe no PCI device (virtual devices only)\n"
	"      --vfio-noiommu     allow VFIO's no-IOMMU mode (unsafe: the device can\n"
	"                         reach all memory; IOVA = PA, needs hugepages)\n"
	"      --file-prefix NAME the instance's name in the runtime directory\n"
	"                         (the telemetry socket's folder; default unic)\n"
	"      --telemetry        a telemetry socket that fails to start is an error\n"
	"      --no-telemetry     no telemetry socket (apps start one by default)\n"
	"A value follows as the next argument or after '=' (--allow=03:00.0);\n"
	"short options also take it attached (-a03:00.0, -l0-3).\n";

const char *unic_env_usage(void)
{
	return env_usage;
}

/*
 * Is @p arg a common option? Returns its id, or -1. @p namelen gets the
 * length of the spelling used ("-a", "--allow"), for messages; @p val the
 * value attached to it ("--allow=X", "-aX"), or NULL.
 */
static int opt_match(const char *arg, int *namelen, const char **val)
{
	size_t i, len;
	const char *eq;

	*val = NULL;
	if (arg[0] != '-' || arg[1] == '\0')
		return -1;
	if (arg[1] == '-') {
		eq = strchr(arg + 2, '=');
		len = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
		for (i = 0; i < UNIC_ARRAY_SIZE(env_opts); i++) {
			if (strlen(env_opts[i].name) == len &&
			    strncmp(arg + 2, env_opts[i].name, len) == 0) {
				*namelen = (int)len + 2;
				*val = eq ? eq + 1 : NULL;
				return (int)i;
			}
		}
		return -1;
	}
	for (i = 0; i < UNIC_ARRAY_SIZE(env_opts); i++) {
		if (env_opts[i].short_name != 0 && arg[1] == env_opts[i].short_name) {
			*namelen = 2;
			*val = arg[2] != '\0' ? arg + 2 : NULL;
			return (int)i;
		}
	}
	return -1;
}

/* "DDDD:BB:DD.F" or "BB:DD.F" to "dddd:bb:dd.f" (lib/bus defines a BDF). */
static int bdf_normalise(const char *s, char out[UNIC_ENV_BDF_LEN])
{
	struct unic_pci_addr addr;
	int ret = unic_pci_addr_parse(s, &addr);

	if (ret < 0)
		return ret;
	unic_pci_addr_fmt(&addr, out, UNIC_ENV_BDF_LEN);
	return 0;
}

static int opt_apply(struct unic_env_options *o, int id, int namelen,
		     const char *name, const char *val)
{
	const struct env_opt_def *def = &env_opts[id];
	char bdf[UNIC_ENV_BDF_LEN], why[128];
	unsigned i;
	int rc;

	switch (id) {
	case OPT_ALLOW:
		if (bdf_normalise(val, bdf) < 0) {
			UNIC_LOG(ERR, ENV, "option %.*s: bad PCI address '%s'; expected %s",
				 namelen, name, val, BDF_FORMS);
			return -EINVAL;
		}
		for (i = 0; i < o->nb_allow; i++) {
			if (strcmp(o->allow[i], bdf) == 0) {
				UNIC_LOG(WARNING, ENV, "option %.*s: %s is already allowed; given again as '%s'",
					 namelen, name, bdf, val);
				return 0;
			}
		}
		if (o->nb_allow == UNIC_ENV_MAX_ALLOW) {
			UNIC_LOG(ERR, ENV, "option %.*s: too many PCI devices: '%s' would be number %d, the limit is %d",
				 namelen, name, val, UNIC_ENV_MAX_ALLOW + 1, UNIC_ENV_MAX_ALLOW);
			return -EINVAL;
		}
		memcpy(o->allow[o->nb_allow++], bdf, sizeof(bdf));
		return 0;
	case OPT_VDEV:
		if (o->nb_vdev == UNIC_ENV_MAX_VDEV) {
			UNIC_LOG(ERR, ENV, "option %.*s: too many virtual devices: '%s' would be number %d, the limit is %d",
				 namelen, name, val, UNIC_ENV_MAX_VDEV + 1, UNIC_ENV_MAX_VDEV);
			return -EINVAL;
		}
		o->vdev[o->nb_vdev++] = val;
		return 0;
	case OPT_LCORES:
		rc = env_cpu_list_parse(val, o->cores, UNIC_ENV_MAX_CORES, why, sizeof(why));
		if (rc < 0) {
			UNIC_LOG(ERR, ENV, "option %.*s: bad core list '%s': %s; expected %s",
				 namelen, name, val, why, ENV_CPU_LIST_FORMS);
			return -EINVAL;
		}
		o->nb_cores = (unsigned)rc;
		return 0;
	case OPT_NO_HUGE:
		o->no_huge = true;
		return 0;
	case OPT_HUGE_DIR:
		o->huge_dir = val;
		return 0;
	case OPT_IOVA_MODE:
		if (strcmp(val, "va") == 0 || strcmp(val, "VA") == 0) {
			o->iova_mode = UNIC_ENV_IOVA_VA;
		} else if (strcmp(val, "pa") == 0 || strcmp(val, "PA") == 0) {
			o->iova_mode = UNIC_ENV_IOVA_PA;
		} else {
			UNIC_LOG(ERR, ENV, "option %.*s: unknown mode '%s'; expected va or pa (%s)",
				 namelen, name, val, def->forms);
			return -EINVAL;
		}
		return 0;
	case OPT_LOG_LEVEL:
		/* unic_log_parse_spec names the bad item and the forms. */
		if (unic_log_parse_spec(val) < 0)
			return -EINVAL;
		o->log_level = val;
		return 0;
	case OPT_NO_PCI:
		o->no_pci = true;
		return 0;
	case OPT_VFIO_NOIOMMU:
		o->vfio_noiommu = true;
		return 0;
	case OPT_FILE_PREFIX: {
		size_t len = strlen(val);
		bool ok = len > 0 && len <= UNIC_ENV_PREFIX_MAX && strcmp(val, ".") != 0 &&
			  strcmp(val, "..") != 0;

		for (size_t k = 0; ok && k < len; k++)
			ok = (val[k] >= 'a' && val[k] <= 'z') || (val[k] >= 'A' && val[k] <= 'Z') ||
			     (val[k] >= '0' && val[k] <= '9') || val[k] == '.' || val[k] == '_' ||
			     val[k] == '-';
		if (!ok) {
			UNIC_LOG(ERR, ENV, "option %.*s: bad name '%s'; expected %s",
				 namelen, name, val, def->forms);
			return -EINVAL;
		}
		o->file_prefix = val;
		return 0;
	}
	case OPT_TELEMETRY:
		o->telemetry = UNIC_ENV_TELEMETRY_ON;
		return 0;
	case OPT_NO_TELEMETRY:
		o->telemetry = UNIC_ENV_TELEMETRY_OFF;
		return 0;
	}
	return -EINVAL;
}

/* Options that contradict each other, once all are known. */
static int opts_check(const struct unic_env_options *o)
{
	if (o->no_huge && o->iova_mode == UNIC_ENV_IOVA_PA) {
		UNIC_LOG(ERR, ENV, "options --no-huge and --iova-mode pa cannot go together: physical addresses need hugepages; drop --no-huge, or use --iova-mode va");
		return -EINVAL;
	}
	if (o->no_pci && o->nb_allow > 0) {
		UNIC_LOG(ERR, ENV, "options --no-pci and -a %s cannot go together: drop one", o->allow[0]);
		return -EINVAL;
	}
	if (o->no_huge && o->huge_dir != NULL)
		UNIC_LOG(WARNING, ENV, "option --huge-dir '%s' is ignored with --no-huge",
			 o->huge_dir);
	return 0;
}

/* First pass: check and record every common option; argv is not touched. */
static int opts_scan(struct unic_env_options *o, int argc, char **argv)
{
	const struct env_opt_def *def;
	const char *arg, *val;
	int i, id, namelen, rc;

	for (i = 1; i < argc; i++) {
		arg = argv[i];
		if (strcmp(arg, "--") == 0)
			break;
		id = opt_match(arg, &namelen, &val);
		if (id < 0)
			continue;
		def = &env_opts[id];
		if (!def->has_arg) {
			if (val != NULL) {
				UNIC_LOG(ERR, ENV, "option %.*s takes no value; got '%s'; expected %s",
					 namelen, arg, arg, def->forms);
				return -EINVAL;
			}
			val = "";
		} else if (val == NULL) {
			/* A next argument that looks like an option is much more
			 * likely a forgotten value than a value. */
			if (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] != '\0')) {
				if (i + 1 >= argc)
					UNIC_LOG(ERR, ENV, "option %.*s: missing value at the end of the command line; expected %s",
						 namelen, arg, def->forms);
				else
					UNIC_LOG(ERR, ENV, "option %.*s: missing value, got the option '%s' instead; expected %s",
						 namelen, arg, argv[i + 1], def->forms);
				return -EINVAL;
			}
			val = argv[++i];
		}
		if (def->has_arg && *val == '\0') {
			UNIC_LOG(ERR, ENV, "option %.*s: empty value in '%s'; expected %s",
				 namelen, arg, arg, def->forms);
			return -EINVAL;
		}
		rc = opt_apply(o, id, namelen, arg, val);
		if (rc < 0)
			return rc;
	}
	return opts_check(o);
}

/* Second pass: drop the common options, their values and the first "--". */
static int argv_compact(int argc, char **argv)
{
	const char *val;
	int i, w = 1, id, namelen;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			for (i++; i < argc; i++)
				argv[w++] = argv[i];
			break;
		}
		id = opt_match(argv[i], &namelen, &val);
		if (id < 0) {
			argv[w++] = argv[i];
			continue;
		}
		if (env_opts[id].has_arg && val == NULL)
			i++;   /* its value, checked by opts_scan */
	}
	argv[w] = NULL;
	return w;
}

int unic_env_parse(struct unic_env_options *opts, int argc, char **argv)
{
	int i, rc;

	if (opts == NULL || argv == NULL || argc < 1) {
		UNIC_LOG(ERR, ENV, "unic_env_parse: needs options, argv and argc >= 1");
		return -EINVAL;
	}
	for (i = 0; i < argc; i++) {
		if (argv[i] == NULL) {
			UNIC_LOG(ERR, ENV, "unic_env_parse: argv[%d] is NULL but argc is %d",
				 i, argc);
			return -EINVAL;
		}
	}
	memset(opts, 0, sizeof(*opts));
	rc = opts_scan(opts, argc, argv);
	if (rc < 0) {
		memset(opts, 0, sizeof(*opts));
		return rc;
	}
	return argv_compact(argc, argv);
}
