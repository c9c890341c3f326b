/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rig's self-test (boot selftest, tests/vm/scenarios.py): one guest test
 * case passes, one fails on purpose.  The host must report exactly the second
 * as failed (the check's expect='fail', failing=), and then counts that as
 * the self-test passing; if it saw the failing case pass, guest failures are
 * being lost on the way to the host, and the boot fails.
 */
#include <criterion/criterion.h>

Test(rig, a_passing_guest_check_is_reported_as_passing)
{
	cr_assert_eq(1 + 1, 2);
}

Test(rig, a_failing_guest_check_is_reported_as_failing)
{
	cr_assert_eq(1 + 1, 3, "this assertion fails on purpose (rig self-test)");
}
