/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual device specs and their key=value arguments (kvargs): parsing,
 * checking, numbers, and the errors that name the spec.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "port_fake.h"

Test(port, vdev_spec_errors_are_explained)
{
	struct unic_port *p;

	cr_assert_eq(unic_vdev_create("bogus0", &p), -EINVAL);
	cr_assert(strstr(last_err, "no virtual driver 'bogus'") && strstr(last_err, "ring"), "%s", last_err);
	/* The caller may be any application: the message names the spec it
	 * was given, never a command-line option it may not have. */
	cr_assert(strstr(last_err, "virtual device 'bogus0'"), "%s", last_err);
	cr_assert_null(strstr(last_err, "--vdev"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("ring8,peer=nosuch0", &p), -EINVAL);
	cr_assert(strstr(last_err, "peer 'nosuch0' does not exist"), "%s", last_err);
	cr_assert_null(strstr(last_err, "--vdev"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("", &p), -EINVAL);
	cr_assert_eq(unic_vdev_create("ri ng0", &p), -EINVAL);
}

Test(port, kvargs_parse_and_check)
{
	static const char *const keys[] = { "size", "peer", NULL };
	const char *v;
	uint32_t x;

	cr_assert_eq(unic_kvargs_get("size=64,peer=ring0", "peer", &v), 5);
	cr_assert_eq(strncmp(v, "ring0", 5), 0);
	cr_assert_eq(unic_kvargs_get("size=64", "peer", &v), -ENOENT);
	cr_assert_eq(unic_kvargs_check("ring", "size=64,peer=x", keys), 0);
	cr_assert_eq(unic_kvargs_check("ring", "size=64,colour=red", keys), -EINVAL);
	cr_assert(strstr(last_err, "colour=red") && strstr(last_err, "size=..."), "%s", last_err);
	cr_assert_eq(unic_kvargs_u32("null", "size=128", "size", 14, 9000, &x), 0);
	cr_assert_eq(x, 128);
	cr_assert_eq(unic_kvargs_u32("null", "size=2", "size", 14, 9000, &x), -EINVAL);
	cr_assert(strstr(last_err, "size=2 in 'size=2' is out of range; expected a number from 14 "
			 "to 9000"), "%s", last_err);
	cr_assert_eq(unic_kvargs_u32("null", "size=12x", "size", 14, 9000, &x), -EINVAL);
}

Test(port, kvargs_check_refuses_empty_items_and_checks_the_keys_after_them)
{
	static const char *const keys[] = { "size", NULL };

	cr_assert_eq(unic_kvargs_check("null", ",,bogus=1", keys), -EINVAL);
	cr_assert(strstr(last_err, "null: an empty argument in ',,bogus=1'"), "%s", last_err);
	cr_assert_eq(unic_kvargs_check("null", "size=64,", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", ",size=64", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", "size=64,,size=32", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", "size", keys), -EINVAL);
	cr_assert(strstr(last_err, "'size' is not key=value"), "%s", last_err);
	cr_assert_eq(unic_kvargs_check("null", "=64", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", "", keys), 0, "no arguments at all is fine");
	cr_assert_eq(unic_kvargs_check("null", "size=64", keys), 0);
}

Test(port, kvargs_numbers_are_decimal_and_hexadecimal_only_with_0x)
{
	static const struct { const char *args; uint32_t want; } good[] = {
		{ "size=0100", 100 }, { "size=0x40", 64 }, { "size=0X1f", 31 }, { "size=9000", 9000 },
		{ "size=00000000000000000000000064", 64 },
	};
	static const char *const bad[] = {
		"size=-1", "size=+64", "size= 64", "size=64 ", "size=64x", "size=0x", "size=",
		"size=0b101", "size=1e3", "size=0x1g", "size=99999999999999999999999",
		"size=18446744073709551680", "size=4294967360", "size=9001", "size=13",
	};
	uint32_t x;

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(good); i++) {
		cr_assert_eq(unic_kvargs_u32("null", good[i].args, "size", 14, 9000, &x), 0, "%s: %s",
			     good[i].args, last_err);
		cr_assert_eq(x, good[i].want, "%s read as %u", good[i].args, x);
	}
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(bad); i++) {
		x = 77;
		last_err[0] = '\0';
		cr_assert_eq(unic_kvargs_u32("null", bad[i], "size", 14, 9000, &x), -EINVAL, "%s", bad[i]);
		cr_assert_eq(x, 77, "%s: nothing is stored", bad[i]);
		cr_assert(strstr(last_err, "null: ") && strstr(last_err, bad[i]) &&
			  strstr(last_err, "14 to 9000"), "%s: the message names the key, the "
			  "arguments and the range: %s", bad[i], last_err);
	}
	cr_assert_eq(unic_kvargs_u32("null", "size=0x", "size", 14, 9000, &x), -EINVAL);
	cr_assert(strstr(last_err, "found no digits after 0x"), "%s", last_err);
	cr_assert_eq(unic_kvargs_u32("null", "size=64x", "size", 14, 9000, &x), -EINVAL);
	cr_assert(strstr(last_err, "found 'x' where a decimal digit belongs"), "%s", last_err);
}

Test(port, vdev_spec_with_an_empty_item_or_a_key_twice_is_refused_naming_the_spec)
{
	static const char *const bad[] = {
		"null9,,,bogus=1", "null9,", "null9,size=64,", "null9,,size=64", "null9,size=64,,",
		"null9,size", "null9,=64", "null9,size=64,size=128",
	};
	struct unic_port *p = NULL;

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(bad); i++) {
		last_err[0] = '\0';
		cr_assert_eq(unic_vdev_create(bad[i], &p), -EINVAL, "%s", bad[i]);
		cr_assert_null(p);
		cr_assert(strstr(last_err, bad[i]), "%s: the message names the spec: %s", bad[i],
			  last_err);
		cr_assert_null(unic_port_get_by_name("null9"), "%s: no port is left behind", bad[i]);
	}
	cr_assert_eq(unic_vdev_create("null9,,,bogus=1", &p), -EINVAL);
	cr_assert(strstr(last_err, "virtual device 'null9,,,bogus=1': argument 1 is empty"),
		  "%s", last_err);
	cr_assert_eq(unic_vdev_create("null9,size=64,size=128", &p), -EINVAL);
	cr_assert(strstr(last_err, "key 'size' is given twice"), "%s", last_err);
}

/* ---- DPDK's names: net_null0, net_ring0, ... --------------------------------- */

static void alias_driver_is(const char *spec, const char *name, const char *driver)
{
	struct unic_port_info info;
	struct unic_port *p;

	cr_assert_eq(unic_vdev_create(spec, &p), 0, "%s: %s", spec, last_err);
	cr_assert_str_eq(unic_port_name(p), name, "the port keeps the name given");
	memset(&info, 0, sizeof(info));
	cr_assert_eq(unic_port_info_get(p, &info), 0);
	cr_assert_str_eq(info.driver, driver);
	unic_port_close(p);
}

Test(port, dpdk_vdev_names_are_unic_drivers_and_keep_their_name)
{
	struct unic_port *a, *b;

	alias_driver_is("net_null0", "net_null0", "null");
	alias_driver_is("net_null1,size=128,copy=0,no-rx=0", "net_null1", "null");
	cr_assert_eq(unic_vdev_create("net_ring0", &a), 0, "%s", last_err);
	cr_assert_eq(unic_vdev_create("net_ring1,peer=net_ring0", &b), 0, "%s", last_err);
	cr_assert_str_eq(unic_port_name(b), "net_ring1");
	unic_port_close(b);
	unic_port_close(a);
}

Test(port, dpdk_devargs_unic_cannot_honour_are_refused_with_the_reason)
{
	struct unic_port *p;

	cr_assert_eq(unic_vdev_create("net_ring0,nodeaction=r1:0:CREATE", &p), -EINVAL);
	cr_assert(strstr(last_err, "virtual device 'net_ring0,nodeaction=r1:0:CREATE': DPDK's nodeaction=r1:0:CREATE is not taken: unic's ring ports have no named rings")
		  && strstr(last_err, "peer="), "%s", last_err);
	cr_assert_eq(unic_vdev_create("net_null0,copy=1", &p), -EINVAL);
	cr_assert(strstr(last_err, "DPDK's copy=1 is not taken: unic's null port copies nothing"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("net_null0,no-rx=1", &p), -EINVAL);
	cr_assert(strstr(last_err, "use a ring port without a peer"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("net_af_xdp0,iface=lo,shared_umem=1", &p), -EINVAL);
	cr_assert(strstr(last_err, "DPDK's shared_umem=1 is not taken"), "%s", last_err);
	/* A key neither has is the driver's to name, with its accepted keys. */
	cr_assert_eq(unic_vdev_create("net_null0,colour=red", &p), -EINVAL);
	cr_assert(strstr(last_err, "null: argument 'colour=red' is unknown; accepted: size=..."), "%s", last_err);
	/* DPDK's memif, af_packet and af_xdp keys reach unic's drivers as they are. */
	cr_assert_eq(unic_vdev_create("net_af_packet0,qpairs=1", &p), -EINVAL);
	cr_assert(strstr(last_err, "iface= is required"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("net_memif0,role=server,id=0,bsize=2048,rsize=10,role2=x", &p), -EINVAL);
	cr_assert(strstr(last_err, "memif: argument 'role2=x' is unknown"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("net_bogus0", &p), -EINVAL);
	cr_assert(strstr(last_err, "no virtual driver 'net_bogus'") && strstr(last_err, "net_memif"), "%s", last_err);
}

Test(port, vdev_alias_translates_only_dpdks_names)
{
	const char *drv = "untouched";
	char out[64];

	cr_assert_eq(unic_vdev_alias("null0", "null", "size=64", &drv, out, sizeof(out)), 0);
	cr_assert_str_eq(drv, "untouched");
	cr_assert_eq(unic_vdev_alias("net_null0,copy=0,size=64,no-rx=0", "net_null", "copy=0,size=64,no-rx=0",
				     &drv, out, sizeof(out)), 1);
	cr_assert_str_eq(drv, "null");
	cr_assert_str_eq(out, "size=64");
	cr_assert_eq(unic_vdev_alias("net_memif0", "net_memif", "socket=/run/m.sock,role=server,id=3", &drv, out,
				     sizeof(out)), 1);
	cr_assert_str_eq(drv, "memif");
	cr_assert_str_eq(out, "socket=/run/m.sock,role=server,id=3");
	cr_assert_eq(unic_vdev_alias("net_ring0", "net_ring", NULL, &drv, out, sizeof(out)), 1);
	cr_assert_str_eq(out, "");
	cr_assert_eq(unic_vdev_alias("net_null0", "net_null", "size=64", &drv, out, 4), -EINVAL);
}
