/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow rules on e1000e (pmd/e1000e/e1000e_flow.c) through the port layer's
 * flow API (lib/port/flow.c), on the fake device's registers: VLAN id rules
 * in the VFTA with RCTL.VFE, destination address rules in the receive
 * address table, and the refusals naming the item or action.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "port/port_private.h"
#include "fake_e1000e.h"

static struct fake_e1000e fk;

static void setup(void)
{
	cr_assert_eq(fake_e1000e_create(&fk, NULL), 0);
}

static void teardown(void)
{
	fake_e1000e_destroy(&fk);
}

TestSuite(e1000e_flow, .init = setup, .fini = teardown);

static uint32_t reg(uint32_t off)
{
	return fake_e1000e_reg(&fk, off);
}

/* pattern eth / vlan vid is @p vid / end actions passthru / end */
static struct unic_flow_rule vlan_rule(uint16_t vid)
{
	struct unic_flow_rule r;

	memset(&r, 0, sizeof(r));
	r.attr.ingress = true;
	r.nb_items = 2;
	r.item[0].type = UNIC_FLOW_ITEM_ETH;
	r.item[1].type = UNIC_FLOW_ITEM_VLAN;
	r.item[1].has_spec = true;
	r.item[1].spec.vlan.tci = vid;
	r.item[1].mask.vlan.tci = 0x0fff;
	r.nb_actions = 1;
	r.action[0].type = UNIC_FLOW_ACTION_PASSTHRU;
	return r;
}

/* pattern eth dst is @p mac / end actions queue index 0 / end */
static struct unic_flow_rule mac_rule(const uint8_t mac[6])
{
	struct unic_flow_rule r;

	memset(&r, 0, sizeof(r));
	r.attr.ingress = true;
	r.nb_items = 1;
	r.item[0].type = UNIC_FLOW_ITEM_ETH;
	r.item[0].has_spec = true;
	memcpy(r.item[0].spec.eth.dst, mac, 6);
	memset(r.item[0].mask.eth.dst, 0xff, 6);
	r.nb_actions = 1;
	r.action[0].type = UNIC_FLOW_ACTION_QUEUE;
	return r;
}

static bool vfta_bit(uint16_t vid)
{
	return reg(E1000E_VFTA(vid >> 5)) & (1u << (vid & 31));
}

Test(e1000e_flow, a_vlan_rule_sets_its_vfta_bit_and_turns_vlan_filtering_on_until_destroyed)
{
	struct unic_flow_rule r = vlan_rule(100);
	struct unic_flow_error e;
	struct unic_flow_info list[4];
	int id;

	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), 0, "%s", e.msg);
	cr_assert_not(vfta_bit(100), "validate programs nothing");
	id = unic_port_flow_create(fk.port, &r, &e);
	cr_assert_eq(id, 0, "%s", e.msg);
	cr_assert(vfta_bit(100));
	cr_assert_not(vfta_bit(101));
	cr_assert(e1000e_rctl_filters(fk.ep, fk.port) & E1000E_RCTL_VFE, "RCTL.VFE while a VLAN rule exists");
	cr_assert_eq(unic_port_flow_create(fk.port, &r, &e), 1, "a second rule, the next id: %s", e.msg);
	cr_assert_eq(unic_port_flow_list(fk.port, list, 4), 2);
	cr_assert_eq(list[0].id, 0);
	cr_assert_eq(list[1].rule.item[1].spec.vlan.tci, 100);

	cr_assert_eq(unic_port_flow_destroy(fk.port, 0, &e), 0);
	cr_assert(vfta_bit(100), "rule 1 still wants VID 100");
	cr_assert_eq(unic_port_flow_destroy(fk.port, 0, &e), -ENOENT);
	cr_assert_eq(e.where, UNIC_FLOW_ERR_RULE);
	cr_assert_eq(unic_port_flow_flush(fk.port, &e), 0);
	cr_assert_not(vfta_bit(100));
	cr_assert_not(e1000e_rctl_filters(fk.ep, fk.port) & E1000E_RCTL_VFE, "no rule, no VLAN filter offload");
	cr_assert_eq(unic_port_flow_list(fk.port, list, 4), 0);
}

Test(e1000e_flow, a_vid_added_with_rx_vlan_stays_when_its_rule_goes)
{
	struct unic_flow_rule r = vlan_rule(7);
	struct unic_flow_error e;

	cr_assert_eq(e1000e_ops.vlan_filter_set(fk.port, 7, true), 0);
	cr_assert_eq(unic_port_flow_create(fk.port, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(unic_port_flow_destroy(fk.port, 0, &e), 0);
	cr_assert(vfta_bit(7), "rx_vlan add 7 still holds it");
	cr_assert_eq(unic_port_flow_create(fk.port, &r, &e), 1, "%s", e.msg);
	cr_assert_eq(e1000e_ops.vlan_filter_set(fk.port, 7, false), 0);
	cr_assert(vfta_bit(7), "rule 1 still holds it");
}

Test(e1000e_flow, a_destination_address_rule_takes_a_receive_address_slot)
{
	static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct unic_flow_rule r = mac_rule(mac);
	struct unic_flow_error e;

	cr_assert_eq(unic_port_flow_create(fk.port, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(reg(E1000E_RAL(1)), 0x33221102u);
	cr_assert_eq(reg(E1000E_RAH(1)), 0x5544u | E1000E_RAH_AV);
	cr_assert_eq(e1000e_ops.mac_remove(fk.port, mac), -ENOENT, "mac_addr remove leaves the rule's slot alone");
	cr_assert_eq(e1000e_ops.mac_add(fk.port, mac), 0);
	cr_assert_eq(reg(E1000E_RAH(2)), 0x5544u | E1000E_RAH_AV, "mac_addr add takes a slot of its own");
	cr_assert_eq(unic_port_flow_destroy(fk.port, 0, &e), 0);
	cr_assert_eq(reg(E1000E_RAH(1)) & E1000E_RAH_AV, 0, "the slot is free again");
	cr_assert_eq(reg(E1000E_RAH(2)), 0x5544u | E1000E_RAH_AV, "mac_addr add's slot stays");
}

Test(e1000e_flow, what_the_filters_cannot_do_is_refused_naming_the_item_or_action)
{
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 1 };
	struct unic_flow_rule r;
	struct unic_flow_error e;

	r = vlan_rule(5);
	r.nb_items = 3;
	r.item[2].type = UNIC_FLOW_ITEM_IPV4;
	cr_assert_eq(unic_port_flow_create(fk.port, &r, &e), -ENOTSUP);
	cr_assert_eq(e.where, UNIC_FLOW_ERR_ITEM);
	cr_assert_eq(e.index, 2);
	cr_assert_not_null(strstr(e.msg, "e1000e: pattern item IPV4 is not supported"), "%s", e.msg);

	r = vlan_rule(5);
	r.action[0].type = UNIC_FLOW_ACTION_DROP;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_eq(e.where, UNIC_FLOW_ERR_ACTION);
	cr_assert_not_null(strstr(e.msg, "e1000e: action DROP is not supported"), "%s", e.msg);

	r = vlan_rule(5);
	r.action[0].type = UNIC_FLOW_ACTION_MARK;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "action MARK"), "%s", e.msg);

	r = vlan_rule(5);
	r.item[1].mask.vlan.tci = 0xefff; /* pcp too */
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "pattern item VLAN: only 'vid is N'"), "%s", e.msg);

	r = mac_rule(mac);
	r.item[0].mask.eth.type = 0xffff;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "pattern item ETH: only 'dst is MAC'"), "%s", e.msg);

	r = mac_rule(mac);
	r.item[0].spec.eth.dst[0] = 0x01;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "group address"), "%s", e.msg);

	r = vlan_rule(5);
	r.nb_items = 1; /* eth alone */
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "matches every frame"), "%s", e.msg);

	r = vlan_rule(5);
	r.attr.group = 1;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_eq(e.where, UNIC_FLOW_ERR_ATTR);

	fk.port->conf.nb_rxq = 2;
	r = mac_rule(mac);
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "action QUEUE is not supported with 2 rx queues"), "%s", e.msg);
	fk.port->conf.nb_rxq = 1;
	cr_assert_eq(unic_port_flow_list(fk.port, NULL, 0), 0, "nothing was created");
}

Test(e1000e_flow, the_port_layer_checks_the_rules_shape_before_the_driver)
{
	struct unic_flow_rule r = vlan_rule(5);
	struct unic_flow_error e;

	r.attr.egress = true;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "ingress only"), "%s", e.msg);
	r = vlan_rule(5);
	r.nb_actions = 0;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -EINVAL);
	cr_assert_not_null(strstr(e.msg, "a rule needs an action"), "%s", e.msg);
	r = vlan_rule(5);
	r.action[0].type = UNIC_FLOW_ACTION_QUEUE;
	r.action[0].queue.index = 1;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -EINVAL);
	cr_assert_not_null(strstr(e.msg, "rx queue 1; the port has 1 rx queue"), "%s", e.msg);
	r = vlan_rule(5);
	r.nb_actions = 2;
	r.action[1].type = UNIC_FLOW_ACTION_DROP;
	cr_assert_eq(unic_port_flow_validate(fk.port, &r, &e), -EINVAL);
	cr_assert_not_null(strstr(e.msg, "one fate"), "%s", e.msg);
	cr_assert_eq(unic_port_flow_isolate(fk.port, true, &e), -ENOTSUP);
	cr_assert_not_null(strstr(e.msg, "isolated mode"), "%s", e.msg);
}
