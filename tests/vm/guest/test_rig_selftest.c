/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rig's self-test (boot selftest-fail, expected to fail in meson): one
 * guest test case passes, one fails on purpose.  If the vm suite ever reports
 * this boot as passing, guest failures are being lost on the way to the host.
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
