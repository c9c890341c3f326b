/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <unic/log.h>

#include "log_capture.h"

static void setup(void)
{
	logcap_start(UNIC_LOG_DEBUG, 0);
	unic_log_set_level(-1, UNIC_LOG_INFO);
}

static void teardown(void)
{
	logcap_stop();
}

TestSuite(log, .init = setup, .fini = teardown);

Test(log, message_below_component_level_is_dropped)
{
	unic_log_set_level(UNIC_LOGC_MEM, UNIC_LOG_WARNING);
	UNIC_LOG(INFO, MEM, "hidden %d", 1);
	cr_assert_eq(logcap_total, 0);
	UNIC_LOG(WARNING, MEM, "shown %d", 2);
	cr_assert_eq(logcap_total, 1);
	cr_assert_str_eq(logcap_last, "shown 2");
	cr_assert_eq(logcap_last_level, UNIC_LOG_WARNING);
}

Test(log, spec_sets_global_then_component_levels)
{
	cr_assert_eq(unic_log_parse_spec("warning,mem:debug,pmd:1"), 0);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_RING), UNIC_LOG_WARNING);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_MEM), UNIC_LOG_DEBUG);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_PMD), UNIC_LOG_ERR);
}

Test(log, bad_spec_is_refused_whole_and_names_the_item)
{
	unic_log_set_level(-1, UNIC_LOG_NOTICE);
	cr_assert_eq(unic_log_parse_spec("debug,nosuch:info"), -EINVAL);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_MEM), UNIC_LOG_NOTICE,
		     "a failed spec must change nothing");
	cr_assert(strstr(logcap_last, "nosuch:info") != NULL, "message: %s", logcap_last);
	cr_assert(strstr(logcap_last, "COMPONENT:LEVEL") != NULL, "message: %s", logcap_last);
	cr_assert_eq(unic_log_parse_spec("loud"), -EINVAL);
	cr_assert_eq(unic_log_parse_spec(""), -EINVAL);
	cr_assert_eq(unic_log_parse_spec("mem:"), -EINVAL);
}

Test(log, set_level_refuses_out_of_range)
{
	cr_assert_eq(unic_log_set_level(UNIC_LOGC_MEM, 0), -EINVAL);
	cr_assert_eq(unic_log_set_level(UNIC_LOGC_MEM, 6), -EINVAL);
	cr_assert_eq(unic_log_set_level(UNIC_LOGC_COUNT, 3), -EINVAL);
}

Test(log, trailing_newline_is_dropped)
{
	UNIC_LOG(ERR, APP, "line\n");
	cr_assert_str_eq(logcap_last, "line");
}
