/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common options (-a, --vdev, -l, --no-huge, --huge-dir, --iova-mode,
 * --log-level, and DPDK's EAL options a DPDK user types out of habit):
 * taken out of argv in two passes. The first checks and
 * records every option and touches nothing; the second, which cannot fail,
 * compacts argv. So a bad option leaves argv as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* DPDK's EAL options (docs/options.md, "DPDK's EAL options"). */
	OPT_COREMASK,
	OPT_MAIN_LCORE,
	OPT_MEM_CHANNELS,
	OPT_MEMORY,
	OPT_SOCKET_MEM,
	OPT_PROC_TYPE,
	OPT_HUGE_UNLINK,
	OPT_IN_MEMORY,
};

struct env_opt_def {
	const char *name;   /* long name, without "--" */
	char short_name;    /* 0: none */
	bool has_arg;
	bool opt_arg;       /* without has_arg: a value may follow '=' (--huge-unlink=never) */
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
	[OPT_COREMASK] = {
		.name = "coremask", .short_name = 'c', .has_arg = true,
		.forms = "-c MASK, -cMASK, --coremask MASK or --coremask=MASK, MASK a non-zero hexadecimal "
			 "mask, bit N for core N, e.g. -c 0x3 (cores 0 and 1, as -l 0,1)",
	},
	[OPT_MAIN_LCORE] = {
		.name = "main-lcore", .has_arg = true,
		.forms = "--main-lcore CORE or --main-lcore=CORE, CORE one of the cores of -l or -c, e.g. "
			 "-l 0-3 --main-lcore 2",
	},
	[OPT_MEM_CHANNELS] = {
		.name = "n", .short_name = 'n', .has_arg = true,
		.forms = "-n N or -nN, N memory channels from 1 to 32, e.g. -n 4",
	},
	[OPT_MEMORY] = {
		.name = "m", .short_name = 'm', .has_arg = true,
		.forms = "-m MB or -mMB, MB megabytes from 1 to 16777216, e.g. -m 512",
	},
	[OPT_SOCKET_MEM] = {
		.name = "socket-mem", .has_arg = true,
		.forms = "--socket-mem MB[,MB...] or --socket-mem=MB[,MB...], megabytes per NUMA node "
			 "from 0 to 16777216, e.g. --socket-mem 512,512",
	},
	[OPT_PROC_TYPE] = {
		.name = "proc-type", .has_arg = true,
		.forms = "--proc-type primary|auto or --proc-type=primary|auto",
	},
	[OPT_HUGE_UNLINK] = {
		.name = "huge-unlink", .has_arg = false, .opt_arg = true,
		.forms = "--huge-unlink or --huge-unlink=existing|always|never",
	},
	[OPT_IN_MEMORY] = {
		.name = "in-memory", .has_arg = false,
		.forms = "--in-memory, without a value",
	},
};

/* The short-only EAL options (-n, -m) have no long form. */
static bool opt_short_only(int id)
{
	return id == OPT_MEM_CHANNELS || id == OPT_MEMORY;
}

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
	"DPDK's EAL options, for command lines written for DPDK:\n"
	"  -c, --coremask MASK    cores as a hexadecimal mask, e.g. 0x3 (as -l 0,1)\n"
	"      --main-lcore CORE  the main thread's core, one of -l's or -c's\n"
	"  -n N, -m MB, --socket-mem MB[,MB...], --proc-type primary|auto,\n"
	"      --huge-unlink[=existing|always|never], --in-memory\n"
	"                         checked and accepted with a notice: unic does not\n"
	"                         need them (docs/options.md); --proc-type secondary\n"
	"                         is refused\n"
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
			if (opt_short_only((int)i))
				continue;
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

/* What the scan has seen so far, for options that depend on each other. */
struct scan_state {
	const char *cores_by;   /* "-l" or "-c": the option that gave the cores */
	const char *main_lcore; /* --main-lcore's value, applied once all are known */
};

/* A decimal number from @p min to @p max, nothing else. @return 0 or -EINVAL. */
static int dec_parse(const char *s, size_t len, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 19)
		return -EINVAL;
	for (size_t k = 0; k < len; k++) {
		if (s[k] < '0' || s[k] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[k] - '0');
	}
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * DPDK's -c: a hexadecimal mask, bit N for core N, into a core list in
 * ascending order (the lowest is the main core, as DPDK makes it).
 * @return the number of cores, or -EINVAL with @p why set.
 */
static int coremask_parse(const char *s, int *cores, unsigned max, char *why, size_t whylen)
{
	size_t len;
	unsigned n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	if (len == 0) {
		snprintf(why, whylen, "no hexadecimal digits");
		return -EINVAL;
	}
	if (len > (ENV_CPU_ID_MAX + 1) / 4) {
		snprintf(why, whylen, "%zu digits, more than cores can exist", len);
		return -EINVAL;
	}
	/* The last digit holds cores 0-3. */
	for (size_t k = 0; k < len; k++) {
		char c = s[len - 1 - k];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else {
			snprintf(why, whylen, "'%c' is not a hexadecimal digit", c);
			return -EINVAL;
		}
		for (unsigned b = 0; b < 4; b++) {
			if (!(d & (1u << b)))
				continue;
			if (n == max) {
				snprintf(why, whylen, "more than %u cores", max);
				return -EINVAL;
			}
			cores[n++] = (int)(k * 4 + b);
		}
	}
	if (n == 0) {
		snprintf(why, whylen, "the mask is zero: no core");
		return -EINVAL;
	}
	return (int)n;
}

/* --socket-mem: megabytes per node, comma-separated. @return 0 or -EINVAL. */
static int socket_mem_check(const char *s)
{
	const char *p = s;
	uint64_t v;

	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (dec_parse(p, len, 0, 16777216, &v) < 0)
			return -EINVAL;
		if (c == NULL)
			return 0;
		p = c + 1;
	}
}

/* One notice line: a DPDK option unic checks and does not need. */
#define EAL_NOTICE(fmt, ...) \
	UNIC_LOG(NOTICE, ENV, "option %.*s: accepted for DPDK command lines; " fmt, namelen, name, \
		 ##__VA_ARGS__)

static int opt_apply(struct unic_env_options *o, struct scan_state *st, int id, int namelen,
		     const char *name, const char *val)
{
	uint64_t num;
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
	case OPT_COREMASK: {
		const char *by = id == OPT_LCORES ? "-l" : "-c";

		if (st->cores_by != NULL && strcmp(st->cores_by, by) != 0) {
			UNIC_LOG(ERR, ENV, "options -l and -c both give the cores: give one of them (-c 0x3 is -l 0,1)");
			return -EINVAL;
		}
		if (id == OPT_LCORES)
			rc = env_cpu_list_parse(val, o->cores, UNIC_ENV_MAX_CORES, why, sizeof(why));
		else
			rc = coremask_parse(val, o->cores, UNIC_ENV_MAX_CORES, why, sizeof(why));
		if (rc < 0) {
			if (id == OPT_LCORES)
				UNIC_LOG(ERR, ENV, "option %.*s: bad core list '%s': %s; expected %s",
					 namelen, name, val, why, ENV_CPU_LIST_FORMS);
			else
				UNIC_LOG(ERR, ENV, "option %.*s: bad core mask '%s': %s; expected %s",
					 namelen, name, val, why, def->forms);
			return -EINVAL;
		}
		st->cores_by = by;
		o->nb_cores = (unsigned)rc;
		return 0;
	}
	case OPT_MAIN_LCORE:
		if (dec_parse(val, strlen(val), 0, ENV_CPU_ID_MAX, &num) < 0) {
			UNIC_LOG(ERR, ENV, "option %.*s: bad core '%s'; expected %s", namelen, name, val,
				 def->forms);
			return -EINVAL;
		}
		st->main_lcore = val;
		return 0;
	case OPT_MEM_CHANNELS:
		if (dec_parse(val, strlen(val), 1, 32, &num) < 0) {
			UNIC_LOG(ERR, ENV, "option %.*s: bad number of memory channels '%s'; expected %s",
				 namelen, name, val, def->forms);
			return -EINVAL;
		}
		EAL_NOTICE("unic does not need the number of memory channels (it does not spread buffers over them)");
		return 0;
	case OPT_MEMORY:
	case OPT_SOCKET_MEM:
		if (id == OPT_MEMORY ? dec_parse(val, strlen(val), 1, 16777216, &num) < 0 :
				       socket_mem_check(val) < 0) {
			UNIC_LOG(ERR, ENV, "option %.*s: bad amount of memory '%s'; expected %s",
				 namelen, name, val, def->forms);
			return -EINVAL;
		}
		EAL_NOTICE("unic does not need it: it reserves no memory up front and takes hugepages as pools and rings ask for them");
		return 0;
	case OPT_PROC_TYPE:
		if (strcmp(val, "secondary") == 0) {
			UNIC_LOG(ERR, ENV, "option %.*s secondary: unic has no secondary processes: each process owns the devices it probes and shares its memory with no other; run one process per set of ports, and read a running one's counters through its telemetry socket (unic-telemetry)",
				 namelen, name);
			return -EINVAL;
		}
		if (strcmp(val, "primary") != 0 && strcmp(val, "auto") != 0) {
			UNIC_LOG(ERR, ENV, "option %.*s: unknown process type '%s'; expected %s (secondary is refused: unic has no secondary processes)",
				 namelen, name, val, def->forms);
			return -EINVAL;
		}
		EAL_NOTICE("every unic process is what DPDK calls a primary one");
		return 0;
	case OPT_HUGE_UNLINK:
		if (val[0] != '\0' && strcmp(val, "existing") != 0 && strcmp(val, "always") != 0 &&
		    strcmp(val, "never") != 0) {
			UNIC_LOG(ERR, ENV, "option %.*s: unknown mode '%s'; expected %s", namelen, name, val,
				 def->forms);
			return -EINVAL;
		}
		EAL_NOTICE("unic does not need it: it unlinks each hugepage file as soon as it has mapped it, and keeps none for a later run");
		return 0;
	case OPT_IN_MEMORY:
		EAL_NOTICE("unic does not need it: it keeps no hugepage or configuration files; its only runtime file is the telemetry socket (--no-telemetry: none)");
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

/*
 * --main-lcore: the core must be one of the list; it moves to the front (the
 * main thread's place), the others keep their order as workers.
 */
static int main_lcore_apply(struct unic_env_options *o, const char *val)
{
	int core = atoi(val);
	unsigned k;

	if (o->nb_cores == 0) {
		UNIC_LOG(ERR, ENV, "option --main-lcore %s: no cores were given; give them with -l or -c, core %s among them (e.g. -l 0-3 --main-lcore %s)",
			 val, val, val);
		return -EINVAL;
	}
	for (k = 0; k < o->nb_cores && o->cores[k] != core; k++)
		;
	if (k == o->nb_cores) {
		UNIC_LOG(ERR, ENV, "option --main-lcore %s: core %d is not one of the cores given with -l or -c; add it to them",
			 val, core);
		return -EINVAL;
	}
	for (; k > 0; k--)
		o->cores[k] = o->cores[k - 1];
	o->cores[0] = core;
	return 0;
}

/* First pass: check and record every common option; argv is not touched. */
static int opts_scan(struct unic_env_options *o, int argc, char **argv)
{
	const struct env_opt_def *def;
	const char *arg, *val;
	struct scan_state st = { 0 };
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
			if (val != NULL && !def->opt_arg) {
				UNIC_LOG(ERR, ENV, "option %.*s takes no value; got '%s'; expected %s",
					 namelen, arg, arg, def->forms);
				return -EINVAL;
			}
			if (val == NULL)
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
		rc = opt_apply(o, &st, id, namelen, arg, val);
		if (rc < 0)
			return rc;
	}
	if (st.main_lcore != NULL) {
		rc = main_lcore_apply(o, st.main_lcore);
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
