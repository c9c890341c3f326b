/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <unic/env.h>
#include <unic/log.h>

#include "log_capture.h"

/* Every message logged during a test, one per line ("mem: ..."): the
 * shared capture under this file's old names. */
#define logbuf logcap_buf
#define loglen strlen(logcap_buf)
#define nb_errs logcap_nb[UNIC_LOG_ERR]
#define nb_warnings logcap_nb[UNIC_LOG_WARNING]

static void setup(void)
{
	logcap_start(UNIC_LOG_DEBUG, LOGCAP_COMP);
	unic_log_set_level(-1, UNIC_LOG_INFO);
}

static void teardown(void)
{
	logcap_stop();
}

TestSuite(env, .init = setup, .fini = teardown);

#define LOGGED(s) cr_assert(strstr(logbuf, (s)) != NULL, "expected \"%s\" in the log:\n%s", (s), logbuf)

static int parse(struct unic_env_options *o, char **argv, int argc)
{
	return unic_env_parse(o, argc, argv);
}

static void assert_argv(char **argv, int argc, const char *const *want, int nb_want)
{
	int i;

	cr_assert_eq(argc, nb_want, "argc %d, want %d", argc, nb_want);
	for (i = 0; i < nb_want; i++)
		cr_assert_str_eq(argv[i], want[i], "argv[%d]", i);
	cr_assert_null(argv[argc], "argv[argc] must be NULL");
}

#define ASSERT_ARGV(argv, argc, ...) do { \
	const char *const want_[] = { __VA_ARGS__ }; \
	assert_argv(argv, argc, want_, (int)UNIC_ARRAY_SIZE(want_)); \
} while (0)

/* --- option parsing ---------------------------------------------------- */

Test(env, allow_is_recognised_in_every_form_and_removed)
{
	struct unic_env_options o;
	char *v[] = { "app", "-a", "0000:01:00.0", "-a0000:02:00.0", "--allow", "0000:03:00.0",
		      "--allow=0000:04:00.0", NULL };
	int argc = parse(&o, v, 7);

	ASSERT_ARGV(v, argc, "app");
	cr_assert_eq(o.nb_allow, 4);
	cr_assert_str_eq(o.allow[0], "0000:01:00.0");
	cr_assert_str_eq(o.allow[1], "0000:02:00.0");
	cr_assert_str_eq(o.allow[2], "0000:03:00.0");
	cr_assert_str_eq(o.allow[3], "0000:04:00.0");
}

Test(env, short_pci_address_gets_domain_zero_and_lower_case)
{
	struct unic_env_options o;
	char *v[] = { "app", "-a", "03:00.0", "--allow=AB:1F.7", "-a", "00A0:0B:0c.1", NULL };

	cr_assert_eq(parse(&o, v, 6), 1);
	cr_assert_eq(o.nb_allow, 3);
	cr_assert_str_eq(o.allow[0], "0000:03:00.0");
	cr_assert_str_eq(o.allow[1], "0000:ab:1f.7");
	cr_assert_str_eq(o.allow[2], "00a0:0b:0c.1");
}

Test(env, same_pci_address_twice_is_kept_once_with_a_warning)
{
	struct unic_env_options o;
	char *v[] = { "app", "-a", "03:00.0", "-a", "0000:03:00.0", NULL };

	cr_assert_eq(parse(&o, v, 5), 1);
	cr_assert_eq(o.nb_allow, 1);
	cr_assert_eq(nb_warnings, 1);
	LOGGED("0000:03:00.0 is already allowed");
}

Test(env, vdev_is_repeatable_in_separate_and_equals_forms)
{
	struct unic_env_options o;
	char *v[] = { "app", "--vdev", "ring0", "--vdev=null0,size=64", NULL };

	cr_assert_eq(parse(&o, v, 4), 1);
	cr_assert_eq(o.nb_vdev, 2);
	cr_assert_str_eq(o.vdev[0], "ring0");
	cr_assert_str_eq(o.vdev[1], "null0,size=64");
}

Test(env, lcores_is_recognised_in_every_form)
{
	const char *forms[][3] = {
		{ "-l", "1,0-0" }, { "-l1,0-0" }, { "--lcores", "1,0-0" }, { "--lcores=1,0-0" },
	};
	unsigned i;

	for (i = 0; i < UNIC_ARRAY_SIZE(forms); i++) {
		struct unic_env_options o;
		char *v[] = { "app", (char *)forms[i][0], (char *)forms[i][1], NULL };
		int argc = forms[i][1] ? 3 : 2;

		v[argc] = NULL;
		cr_assert_eq(parse(&o, v, argc), 1, "form %u", i);
		cr_assert_eq(o.nb_cores, 2, "form %u", i);
		cr_assert_eq(o.cores[0], 1);
		cr_assert_eq(o.cores[1], 0);
	}
}

Test(env, no_huge_huge_dir_and_iova_mode_are_recognised)
{
	struct unic_env_options o;
	char *v[] = { "app", "--huge-dir", "/mnt/huge", "--iova-mode", "pa", NULL };
	char *w[] = { "app", "--no-huge", "--huge-dir=/x", "--iova-mode=va", NULL };

	cr_assert_eq(parse(&o, v, 5), 1);
	cr_assert_not(o.no_huge);
	cr_assert_str_eq(o.huge_dir, "/mnt/huge");
	cr_assert_eq(o.iova_mode, UNIC_ENV_IOVA_PA);

	cr_assert_eq(parse(&o, w, 4), 1);
	cr_assert(o.no_huge);
	cr_assert_str_eq(o.huge_dir, "/x");
	cr_assert_eq(o.iova_mode, UNIC_ENV_IOVA_VA);
	LOGGED("--huge-dir '/x' is ignored with --no-huge");
}

Test(env, iova_mode_defaults_to_auto)
{
	struct unic_env_options o;
	char *v[] = { "app", NULL };

	cr_assert_eq(parse(&o, v, 1), 1);
	cr_assert_eq(o.iova_mode, UNIC_ENV_IOVA_AUTO);
	cr_assert_eq(o.nb_allow + o.nb_vdev + o.nb_cores, 0);
	cr_assert_null(o.huge_dir);
	cr_assert_null(o.log_level);
}

Test(env, log_level_is_applied_at_once_in_both_forms)
{
	struct unic_env_options o;
	char *v[] = { "app", "--log-level", "warning,mem:debug", NULL };
	char *w[] = { "app", "--log-level=ring:err", NULL };

	cr_assert_eq(parse(&o, v, 3), 1);
	cr_assert_str_eq(o.log_level, "warning,mem:debug");
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_ENV), UNIC_LOG_WARNING);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_MEM), UNIC_LOG_DEBUG);
	cr_assert_eq(parse(&o, w, 2), 1);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_RING), UNIC_LOG_ERR);
}

Test(env, app_options_are_kept_in_order_around_common_ones)
{
	struct unic_env_options o;
	char *v[] = { "app", "-p", "3", "-l", "0", "--burst=32", "--vdev", "ring0",
		      "file.pcap", "--no-huge", "-x", "-", "--allowx", NULL };
	int argc = parse(&o, v, 13);

	ASSERT_ARGV(v, argc, "app", "-p", "3", "--burst=32", "file.pcap", "-x", "-",
		    "--allowx");
	cr_assert_eq(o.nb_cores, 1);
	cr_assert_eq(o.nb_vdev, 1);
	cr_assert(o.no_huge);
	cr_assert_eq(nb_errs, 0);
}

Test(env, unknown_options_are_left_for_the_app_without_error)
{
	struct unic_env_options o;
	char *v[] = { "app", "-x", "--foo=1", "--vdevs", "-L", "--no-hugepages", "--a", NULL };
	int argc = parse(&o, v, 7);

	ASSERT_ARGV(v, argc, "app", "-x", "--foo=1", "--vdevs", "-L", "--no-hugepages", "--a");
	cr_assert_eq(nb_errs, 0);
	cr_assert_eq(loglen, 0, "nothing is logged: %s", logbuf);
}

Test(env, double_dash_is_removed_and_ends_the_scan)
{
	struct unic_env_options o;
	char *v[] = { "app", "-a", "03:00.0", "-v", "--", "-a", "not-a-bdf", "--", "--no-huge", NULL };
	int argc = parse(&o, v, 9);

	ASSERT_ARGV(v, argc, "app", "-v", "-a", "not-a-bdf", "--", "--no-huge");
	cr_assert_eq(o.nb_allow, 1);
	cr_assert_not(o.no_huge, "options after -- are the app's");
}

Test(env, repeated_single_value_options_keep_the_last)
{
	struct unic_env_options o;
	char *v[] = { "app", "-l", "0-1", "--iova-mode", "pa", "-l1", "--iova-mode=va", NULL };

	cr_assert_eq(parse(&o, v, 7), 1);
	cr_assert_eq(o.nb_cores, 1);
	cr_assert_eq(o.cores[0], 1);
	cr_assert_eq(o.iova_mode, UNIC_ENV_IOVA_VA);
}

Test(env, usage_names_every_common_option)
{
	const char *u = unic_env_usage();
	const char *want[] = { "-a, --allow BDF", "--vdev SPEC", "-l, --lcores LIST",
			       "--no-huge", "--huge-dir DIR", "--iova-mode va|pa",
			       "--log-level SPEC", "-c, --coremask MASK", "--main-lcore CORE",
			       "--socket-mem", "--proc-type", "--huge-unlink", "--in-memory" };
	unsigned i;

	for (i = 0; i < UNIC_ARRAY_SIZE(want); i++)
		cr_assert(strstr(u, want[i]) != NULL, "usage lacks %s", want[i]);
}

/* --- DPDK's EAL options ------------------------------------------------- */

Test(env, coremask_is_a_core_list_in_ascending_order)
{
	struct unic_env_options o;
	char *v[] = { "app", "-c", "0x16", "--", "-p", "3", NULL };
	char *w[] = { "app", "--coremask=F0", NULL };
	char *x[] = { "app", "-c3", NULL };

	int argc = parse(&o, v, 6);

	ASSERT_ARGV(v, argc, "app", "-p", "3");
	cr_assert_eq(o.nb_cores, 3);
	cr_assert_eq(o.cores[0], 1, "the lowest core is the main one");
	cr_assert_eq(o.cores[1], 2);
	cr_assert_eq(o.cores[2], 4);
	cr_assert_eq(parse(&o, w, 2), 1);
	cr_assert_eq(o.nb_cores, 4);
	cr_assert_eq(o.cores[0], 4);
	cr_assert_eq(o.cores[3], 7);
	cr_assert_eq(parse(&o, x, 2), 1);
	cr_assert_eq(o.nb_cores, 2);
	cr_assert_eq(o.cores[1], 1);
}

Test(env, a_bad_coremask_or_both_l_and_c_are_refused_naming_the_option)
{
	struct unic_env_options o;
	char *v[] = { "app", "-c", "0x0", NULL };
	char *w[] = { "app", "-c", "0x1g", NULL };
	char *x[] = { "app", "-l", "0,1", "-c", "3", NULL };

	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	LOGGED("option -c: bad core mask '0x0': the mask is zero: no core; expected -c MASK");
	cr_assert_eq(parse(&o, w, 3), -EINVAL);
	LOGGED("option -c: bad core mask '0x1g': 'g' is not a hexadecimal digit");
	cr_assert_eq(parse(&o, x, 5), -EINVAL);
	LOGGED("options -l and -c both give the cores: give one of them");
}

Test(env, main_lcore_moves_its_core_to_the_front)
{
	struct unic_env_options o;
	char *v[] = { "app", "--main-lcore", "2", "-l", "0-3", NULL };
	char *w[] = { "app", "-l", "0,1", "--main-lcore=5", NULL };
	char *x[] = { "app", "--main-lcore", "1", NULL };
	char *y[] = { "app", "-l", "0,1", "--main-lcore=x", NULL };

	cr_assert_eq(parse(&o, v, 5), 1, "%s", logbuf);
	cr_assert_eq(o.nb_cores, 4);
	cr_assert_eq(o.cores[0], 2);
	cr_assert_eq(o.cores[1], 0);
	cr_assert_eq(o.cores[2], 1);
	cr_assert_eq(o.cores[3], 3);
	cr_assert_eq(parse(&o, w, 4), -EINVAL);
	LOGGED("option --main-lcore 5: core 5 is not one of the cores given with -l or -c");
	cr_assert_eq(parse(&o, x, 3), -EINVAL);
	LOGGED("option --main-lcore 1: no cores were given; give them with -l or -c");
	cr_assert_eq(parse(&o, y, 4), -EINVAL);
	LOGGED("option --main-lcore: bad core 'x'");
}

Test(env, eal_options_unic_does_not_need_are_taken_with_one_notice_each)
{
	struct unic_env_options o;
	char *v[] = { "app", "-n", "4", "-m", "512", "--socket-mem=512,0", "--proc-type", "primary",
		      "--huge-unlink", "--in-memory", "--file-prefix", "p1", "-x", NULL };
	char *w[] = { "app", "-n4", "-m1024", "--socket-mem", "64", "--proc-type=auto",
		      "--huge-unlink=never", NULL };
	int argc = parse(&o, v, 13);

	ASSERT_ARGV(v, argc, "app", "-x");
	cr_assert_str_eq(o.file_prefix, "p1");
	cr_assert_eq(logcap_nb[UNIC_LOG_NOTICE], 6, "one notice per option:\n%s", logbuf);
	LOGGED("option -n: accepted for DPDK command lines; unic does not need the number of memory channels");
	LOGGED("option -m: accepted for DPDK command lines; unic does not need it: it reserves no memory up front");
	LOGGED("option --socket-mem: accepted for DPDK command lines;");
	LOGGED("option --proc-type: accepted for DPDK command lines; every unic process is what DPDK calls a primary one");
	LOGGED("option --huge-unlink: accepted for DPDK command lines; unic does not need it: it unlinks each hugepage file");
	LOGGED("option --in-memory: accepted for DPDK command lines;");
	cr_assert_eq(nb_errs, 0);
	cr_assert_eq(parse(&o, w, 7), 1, "%s", logbuf);
}

Test(env, bad_eal_values_and_secondary_processes_are_refused_naming_the_option)
{
	static const struct { const char *a[4]; int n; const char *msg; } cases[] = {
		{ { "app", "-n", "0" }, 3, "option -n: bad number of memory channels '0'; expected -n N or -nN" },
		{ { "app", "-n", "4x" }, 3, "option -n: bad number of memory channels '4x'" },
		{ { "app", "-m", "lots" }, 3, "option -m: bad amount of memory 'lots'; expected -m MB" },
		{ { "app", "--socket-mem", "512,,0" }, 3, "option --socket-mem: bad amount of memory '512,,0'" },
		{ { "app", "--proc-type", "secondary" }, 3, "option --proc-type secondary: unic has no secondary processes" },
		{ { "app", "--proc-type=other" }, 2, "option --proc-type: unknown process type 'other'" },
		{ { "app", "--huge-unlink=sometimes" }, 2, "option --huge-unlink: unknown mode 'sometimes'" },
		{ { "app", "--in-memory=1" }, 2, "option --in-memory takes no value" },
		{ { "app", "-m" }, 2, "option -m: missing value at the end of the command line; expected -m MB" },
	};

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(cases); i++) {
		struct unic_env_options o;
		char *v[4] = { 0 };

		for (int k = 0; k < cases[i].n; k++)
			v[k] = (char *)cases[i].a[k];
		logcap_clear();
		cr_assert_eq(parse(&o, v, cases[i].n), -EINVAL, "case %u", i);
		LOGGED(cases[i].msg);
	}
}

Test(env, short_only_eal_options_have_no_long_form)
{
	struct unic_env_options o;
	char *v[] = { "app", "--n", "--m", NULL };

	cr_assert_eq(parse(&o, v, 3), 3, "--n and --m are left for the application");
}

/* --- option errors ----------------------------------------------------- */

Test(env, bad_pci_address_names_option_value_and_forms)
{
	const char *bad[] = { "3:00.0", "0000:03:00", "0000:03:00.8", "03:20.0",
			      "0000-03:00.0", "g3:00.0", "0000:03:00.0x", "" };
	unsigned i;

	for (i = 0; i < UNIC_ARRAY_SIZE(bad); i++) {
		struct unic_env_options o;
		char arg[64];
		char *v[] = { "app", arg, NULL };

		snprintf(arg, sizeof(arg), "--allow=%s", bad[i]);
		setup();
		cr_assert_eq(parse(&o, v, 2), -EINVAL, "'%s' accepted", bad[i]);
		cr_assert_eq(nb_errs, 1);
		LOGGED("option --allow");
		if (bad[i][0] != '\0') {
			char given[32];

			snprintf(given, sizeof(given), "'%s'", bad[i]);
			LOGGED(given);
			LOGGED("expected DDDD:BB:DD.F or BB:DD.F");
		}
	}
}

Test(env, bad_pci_address_in_short_form_names_the_short_option)
{
	struct unic_env_options o;
	char *v[] = { "app", "-a", "eth0", NULL };

	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	cr_assert_str_eq(logbuf,
		"env: option -a: bad PCI address 'eth0'; expected DDDD:BB:DD.F or BB:DD.F in hex (device 00-1f, function 0-7), e.g. 0000:03:00.0 or 03:00.0\n");
}

Test(env, missing_value_at_the_end_is_an_error_naming_the_forms)
{
	const char *opt[] = { "-a", "--allow", "--vdev", "-l", "--lcores", "--huge-dir",
			      "--iova-mode", "--log-level" };
	unsigned i;

	for (i = 0; i < UNIC_ARRAY_SIZE(opt); i++) {
		struct unic_env_options o;
		char *v[] = { "app", "-x", (char *)opt[i], NULL };
		char want[64];

		setup();
		cr_assert_eq(parse(&o, v, 3), -EINVAL, "%s", opt[i]);
		snprintf(want, sizeof(want), "option %s: missing value at the end", opt[i]);
		LOGGED(want);
		LOGGED("expected ");
		cr_assert_str_eq(v[1], "-x", "argv untouched");
	}
	LOGGED("--log-level SPEC or --log-level=SPEC");
}

Test(env, value_that_looks_like_an_option_is_reported_as_missing)
{
	struct unic_env_options o;
	char *v[] = { "app", "-a", "--no-huge", NULL };

	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	LOGGED("option -a: missing value, got the option '--no-huge' instead; expected -a BDF, -aBDF, --allow BDF or --allow=BDF");
}

Test(env, empty_value_after_equals_is_refused)
{
	struct unic_env_options o;
	char *v[] = { "app", "--vdev=", NULL };

	cr_assert_eq(parse(&o, v, 2), -EINVAL);
	LOGGED("option --vdev: empty value in '--vdev='; expected --vdev SPEC or --vdev=SPEC");
}

Test(env, no_huge_with_a_value_is_refused)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge=yes", NULL };

	cr_assert_eq(parse(&o, v, 2), -EINVAL);
	LOGGED("option --no-huge takes no value; got '--no-huge=yes'");
}

Test(env, too_many_allow_names_the_limit)
{
	static char vals[UNIC_ENV_MAX_ALLOW + 1][16];
	char *v[UNIC_ENV_MAX_ALLOW + 3];
	struct unic_env_options o;
	int i;

	v[0] = "app";
	for (i = 0; i <= UNIC_ENV_MAX_ALLOW; i++) {
		snprintf(vals[i], sizeof(vals[i]), "-a%02x:00.0", i);
		v[i + 1] = vals[i];
	}
	v[UNIC_ENV_MAX_ALLOW + 2] = NULL;
	cr_assert_eq(parse(&o, v, UNIC_ENV_MAX_ALLOW + 2), -EINVAL);
	LOGGED("option -a: too many PCI devices: '40:00.0' would be number 65, the limit is 64");
	cr_assert_eq(parse(&o, v, UNIC_ENV_MAX_ALLOW + 1), 1, "64 are fine");
	cr_assert_eq(o.nb_allow, UNIC_ENV_MAX_ALLOW);
}

Test(env, too_many_vdev_names_the_limit)
{
	static char vals[UNIC_ENV_MAX_VDEV + 1][24];
	char *v[UNIC_ENV_MAX_VDEV + 3];
	struct unic_env_options o;
	int i;

	v[0] = "app";
	for (i = 0; i <= UNIC_ENV_MAX_VDEV; i++) {
		snprintf(vals[i], sizeof(vals[i]), "--vdev=ring%d", i);
		v[i + 1] = vals[i];
	}
	v[UNIC_ENV_MAX_VDEV + 2] = NULL;
	cr_assert_eq(parse(&o, v, UNIC_ENV_MAX_VDEV + 2), -EINVAL);
	LOGGED("option --vdev: too many virtual devices: 'ring64' would be number 65, the limit is 64");
}

Test(env, unknown_iova_mode_names_accepted_values)
{
	struct unic_env_options o;
	char *v[] = { "app", "--iova-mode", "auto", NULL };

	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	cr_assert_str_eq(logbuf,
		"env: option --iova-mode: unknown mode 'auto'; expected va or pa (--iova-mode va|pa or --iova-mode=va|pa)\n");
}

Test(env, bad_core_list_names_option_value_reason_and_forms)
{
	struct unic_env_options o;
	char *v[] = { "app", "-l", "0,2-1", NULL };
	char *w[] = { "app", "--lcores=0,x", NULL };

	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	LOGGED("option -l: bad core list '0,2-1': range 2-1 is descending (write 1-2); expected core numbers or ranges N-M");
	cr_assert_eq(parse(&o, w, 2), -EINVAL);
	LOGGED("option --lcores: bad core list '0,x': expected a core number at 'x'; expected core numbers");
}

Test(env, core_list_above_the_limit_names_the_limit)
{
	struct unic_env_options o;
	char *v[] = { "app", "-l", "0-256", NULL };

	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	LOGGED("option -l: bad core list '0-256': it names more than 256 cores (the limit)");
}

Test(env, bad_log_level_is_refused_naming_the_item)
{
	struct unic_env_options o;
	char *v[] = { "app", "--log-level", "info,disk:debug", NULL };

	unic_log_set_level(-1, UNIC_LOG_NOTICE);
	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	LOGGED("--log-level: bad item 'disk:debug' in 'info,disk:debug'; expected LEVEL or COMPONENT:LEVEL");
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_ENV), UNIC_LOG_NOTICE);
}

Test(env, pa_mode_with_no_huge_is_refused_with_the_fix)
{
	struct unic_env_options o;
	char *v[] = { "app", "--iova-mode=pa", "--no-huge", NULL };

	cr_assert_eq(parse(&o, v, 3), -EINVAL);
	LOGGED("--no-huge and --iova-mode pa cannot go together");
	LOGGED("drop --no-huge, or use --iova-mode va");
}

Test(env, error_leaves_argv_as_it_was)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "-p", "-a", "zz", NULL };
	char *copy[6];

	memcpy(copy, v, sizeof(v));
	cr_assert_eq(parse(&o, v, 5), -EINVAL);
	cr_assert_arr_eq(v, copy, sizeof(v));
	cr_assert_not(o.no_huge, "options are zeroed on error");
}

Test(env, null_arguments_are_refused)
{
	struct unic_env_options o;
	char *v[] = { "app", NULL };

	cr_assert_eq(unic_env_parse(NULL, 1, v), -EINVAL);
	cr_assert_eq(unic_env_parse(&o, 0, v), -EINVAL);
	cr_assert_eq(unic_env_parse(&o, 1, NULL), -EINVAL);
	cr_assert_eq(unic_env_parse(&o, 2, v), -EINVAL, "argv[1] is NULL");
}

/* --- core lists ---------------------------------------------------------- */

Test(env, cpu_list_keeps_order_and_expands_ranges)
{
	int c[16];

	cr_assert_eq(unic_cpu_list_parse("0,2-3", c, 16), 3);
	cr_assert_eq(c[0], 0);
	cr_assert_eq(c[1], 2);
	cr_assert_eq(c[2], 3);
	cr_assert_eq(unic_cpu_list_parse("8,0-3", c, 16), 5);
	cr_assert_eq(c[0], 8);
	cr_assert_eq(c[1], 0);
	cr_assert_eq(c[4], 3);
	cr_assert_eq(unic_cpu_list_parse("5-5", c, 16), 1);
	cr_assert_eq(c[0], 5);
	cr_assert_eq(nb_errs, 0);
}

Test(env, cpu_list_refuses_duplicates)
{
	int c[16];

	cr_assert_eq(unic_cpu_list_parse("1,1", c, 16), -EINVAL);
	LOGGED("bad core list '1,1': core 1 is listed twice");
	cr_assert_eq(unic_cpu_list_parse("0-3,2", c, 16), -EINVAL);
	LOGGED("core 2 is listed twice");
}

Test(env, cpu_list_refuses_descending_ranges)
{
	int c[16];

	cr_assert_eq(unic_cpu_list_parse("3-1", c, 16), -EINVAL);
	LOGGED("bad core list '3-1': range 3-1 is descending (write 1-3); expected core numbers or ranges N-M (ascending), comma-separated, e.g. 0,2-3 or 0-3,8");
}

Test(env, cpu_list_refuses_garbage_saying_what_was_expected)
{
	const char *bad[] = { "", "a", "1,", ",1", "1-", "1--2", " 1", "1 ", "0x1",
			      "-1", "1-2-3", "1;2", "99999999999" };
	int c[16];
	unsigned i;

	for (i = 0; i < UNIC_ARRAY_SIZE(bad); i++) {
		char want[64];

		setup();
		cr_assert_eq(unic_cpu_list_parse(bad[i], c, 16), -EINVAL, "'%s' accepted", bad[i]);
		snprintf(want, sizeof(want), "bad core list '%s': ", bad[i]);
		LOGGED(want);
		LOGGED("; expected core numbers or ranges N-M");
	}
	cr_assert_eq(unic_cpu_list_parse(NULL, c, 16), -EINVAL);
}

Test(env, cpu_list_longer_than_max_is_e2big)
{
	int c[4];

	cr_assert_eq(unic_cpu_list_parse("0-3", c, 4), 4);
	cr_assert_eq(unic_cpu_list_parse("0-4", c, 4), -E2BIG);
	LOGGED("more than 4 cores");
}

/* --- pinning --------------------------------------------------------------- */

static bool affinity_is_exactly(int cpu)
{
	cpu_set_t set;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

Test(env, pin_to_cpu0_leaves_affinity_exactly_cpu0)
{
	cr_assert_eq(unic_thread_pin_self(0), 0, "%s", logbuf);
	cr_assert(affinity_is_exactly(0));
	cr_assert_eq(sched_getcpu(), 0);
}

Test(env, pin_to_an_offline_cpu_fails_listing_the_online_cpus)
{
	char online[64] = "", want[128];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	cr_assert_not_null(f);
	cr_assert_not_null(fgets(online, sizeof(online), f));
	fclose(f);
	online[strcspn(online, "\n")] = '\0';

	cr_assert_eq(unic_thread_pin_self(100000), -EINVAL);
	snprintf(want, sizeof(want), "cannot pin to CPU 100000: it is not online; online CPUs: %s",
		 online);
	LOGGED(want);
	cr_assert_eq(unic_thread_pin_self(CPU_SETSIZE), -EINVAL);
	cr_assert_eq(unic_thread_pin_self(-1), -EINVAL);
	LOGGED("CPU numbers start at 0");
}

/* --- the environment (what needs no memory context) ------------------------ */

Test(env, create_refuses_a_core_that_is_not_online)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "-l", "0,4095", NULL };

	cr_assert_eq(parse(&o, v, 4), 1);
	errno = 0;
	cr_assert_null(unic_env_create(&o));
	cr_assert_eq(errno, EINVAL);
	LOGGED("core 4095 (from -l) is not online; online CPUs: ");
}

Test(env, create_refuses_null_options)
{
	errno = 0;
	cr_assert_null(unic_env_create(NULL));
	cr_assert_eq(errno, EINVAL);
	unic_env_destroy(NULL);
}

Test(env, accessors_accept_null)
{
	cr_assert_null(unic_env_mem(NULL));
	cr_assert_null(unic_env_opts(NULL));
	cr_assert_eq(unic_env_worker_count(NULL), 0);
	cr_assert_eq(unic_env_wait(NULL, 0), -EINVAL);
}
