/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow rules on the 82574L's receive filters (unic/flow.h). What the
 * device has (datasheet 10.2.5; QEMU 7.2's model implements the same):
 * the receive address table (RAL/RAH, 16 exact unicast addresses), the
 * multicast table (a hash), and the VLAN filter table (VFTA, 4096 bits,
 * used when RCTL.VFE is set). No EtherType, L3 or L4 filter, no
 * per-rule queue choice (queues come from the RSS hash), no drop
 * filter, no counters. So two rules, both "accept":
 *
 *   pattern [eth /] vlan vid is N / end  actions passthru / end
 *     VFTA bit N set and RCTL.VFE on while such a rule exists: a tagged
 *     frame with a VID in no rule (and not added with rx_vlan add) is
 *     dropped; untagged frames are not filtered.
 *   pattern eth dst is MAC / end  actions passthru / end
 *     MAC in a free receive address slot: unicast frames to it are
 *     received (without promiscuous mode, where everything is).
 *
 * `queue index 0` stands for passthru on a port with one rx queue (the
 * frames can only go there). Everything else is refused naming the item or
 * action.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e1000e_priv.h"

enum e1000e_flow_kind { E1000E_FLOW_VLAN, E1000E_FLOW_MAC };

struct e1000e_flow {
	enum e1000e_flow_kind kind;
	uint16_t vid;      /* VLAN */
	unsigned slot;     /* MAC: the RA slot */
};

static int refuse(struct unic_flow_error *err, int rc, enum unic_flow_err_where where, unsigned index,
		  const char *fmt, ...)
{
	va_list ap;

	err->where = where;
	err->index = index;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return rc;
}

static bool zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static bool ones(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

/* Which filter @p rule is, into @p f. @return 0 or -ENOTSUP / -EINVAL with @p err. */
static int e1000e_flow_parse(const struct unic_port *port, const struct unic_flow_rule *rule,
			     struct e1000e_flow *f, struct unic_flow_error *err)
{
	bool have = false;

	if (rule->attr.group != 0)
		return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ATTR, 0,
			      "e1000e: group %u: the 82574L has one filter table (group 0)", rule->attr.group);
	for (unsigned i = 0; i < rule->nb_items; i++) {
		const struct unic_flow_item *it = &rule->item[i];

		switch (it->type) {
		case UNIC_FLOW_ITEM_VOID:
			continue;
		case UNIC_FLOW_ITEM_ETH:
			if (!it->has_spec || zero(&it->mask.eth, sizeof(it->mask.eth)))
				continue; /* any Ethernet frame: the frame is Ethernet */
			if (it->has_last || !zero(it->mask.eth.src, 6) || it->mask.eth.type ||
			    !ones(it->mask.eth.dst, 6))
				return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, i,
					      "e1000e: pattern item ETH: only 'dst is MAC' is matched (the receive "
					      "address table); src, type, ranges and partial masks are not");
			if (it->spec.eth.dst[0] & 1)
				return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, i,
					      "e1000e: pattern item ETH: dst is a group address; the receive address "
					      "table takes unicast ones (multicast: mcast_addr add)");
			if (have)
				return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, i,
					      "e1000e: pattern item ETH: one filter a rule (a VLAN id or an address)");
			have = true;
			f->kind = E1000E_FLOW_MAC;
			break;
		case UNIC_FLOW_ITEM_VLAN:
			if (!it->has_spec)
				return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, i,
					      "e1000e: pattern item VLAN: give the VLAN id (vlan vid is N): the filter "
					      "table matches ids");
			if (it->has_last || it->mask.vlan.inner_type || (it->mask.vlan.tci & 0xf000) ||
			    (it->mask.vlan.tci & 0x0fff) != 0x0fff)
				return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, i,
					      "e1000e: pattern item VLAN: only 'vid is N' is matched (the VLAN filter "
					      "table); pcp, dei, inner_type, ranges and partial masks are not");
			if (have)
				return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, i,
					      "e1000e: pattern item VLAN: one filter a rule (a VLAN id or an address)");
			have = true;
			f->kind = E1000E_FLOW_VLAN;
			f->vid = it->spec.vlan.tci & 0x0fff;
			break;
		default:
			return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, i,
				      "e1000e: pattern item %s is not supported: the 82574L filters on the "
				      "destination address and the VLAN id only (no %s fields)",
				      unic_flow_item_name(it->type), unic_flow_item_name(it->type));
		}
	}
	if (!have)
		return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ITEM, 0,
			      "e1000e: the pattern matches every frame; e1000e's rules need 'vlan vid is N' or "
			      "'eth dst is MAC'");
	for (unsigned i = 0; i < rule->nb_actions; i++) {
		const struct unic_flow_action *a = &rule->action[i];

		switch (a->type) {
		case UNIC_FLOW_ACTION_VOID:
		case UNIC_FLOW_ACTION_PASSTHRU:
			break;
		case UNIC_FLOW_ACTION_QUEUE:
			if (port->conf.nb_rxq <= 1)
				break; /* the only queue: the frames go there anyway */
			return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ACTION, i,
				      "e1000e: action QUEUE is not supported with %u rx queues: the 82574L picks "
				      "the queue by RSS hash, not by filter (use passthru)", port->conf.nb_rxq);
		case UNIC_FLOW_ACTION_DROP:
			return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ACTION, i,
				      "e1000e: action DROP is not supported: the 82574L's filters accept; with a "
				      "VLAN rule, tags in no rule are dropped");
		default:
			return refuse(err, -ENOTSUP, UNIC_FLOW_ERR_ACTION, i,
				      "e1000e: action %s is not supported: the 82574L's filters only accept "
				      "(passthru, or queue 0 with one rx queue)",
				      unic_flow_action_name(a->type));
		}
	}
	return 0;
}

int e1000e_flow_validate(struct unic_port *port, const struct unic_flow_rule *rule,
				struct unic_flow_error *err)
{
	struct e1000e_flow f;

	return e1000e_flow_parse(port, rule, &f, err);
}

/* The VFTA word @p w as the device should have it: rx_vlan's bits and the rules'. */
static void vfta_write(struct e1000e_port *ep, unsigned w)
{
	write32(&ep->hw, E1000E_VFTA(w), ep->vfta[w] | ep->flow_vfta[w]);
}

static int rctl_write(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint32_t keep = ~(E1000E_RCTL_VFE);

	if (unic_port_state(port) == UNIC_PORT_STARTED)
		write32(&ep->hw, E1000E_RCTL,
			(read32(&ep->hw, E1000E_RCTL) & keep) | (e1000e_rctl_filters(ep, port) & E1000E_RCTL_VFE));
	return 0;
}

int e1000e_flow_create(struct unic_port *port, const struct unic_flow_rule *rule, void **handle,
			      struct unic_flow_error *err)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_flow f, *nf;
	int rc = e1000e_flow_parse(port, rule, &f, err);

	if (rc)
		return rc;
	if (e1000e_hw_live(ep) < 0)
		return refuse(err, -ENODEV, UNIC_FLOW_ERR_PORT, 0, "e1000e: the device is gone");
	if (f.kind == E1000E_FLOW_MAC) {
		f.slot = 0;
		for (unsigned i = 1; i < E1000E_RAR_SIZE && f.slot == 0; i++)
			if (!ep->uc_used[i])
				f.slot = i;
		if (f.slot == 0)
			return refuse(err, -ENOSPC, UNIC_FLOW_ERR_ITEM, 0,
				      "e1000e: the receive address table is full (%u addresses); destroy a rule or "
				      "remove an address", E1000E_RAR_SIZE);
	}
	nf = malloc(sizeof(*nf));
	if (nf == NULL)
		return refuse(err, -ENOMEM, UNIC_FLOW_ERR_PORT, 0, "e1000e: no memory for a rule");
	*nf = f;
	if (f.kind == E1000E_FLOW_MAC) {
		const uint8_t *mac = NULL;

		for (unsigned i = 0; i < rule->nb_items && mac == NULL; i++)
			if (rule->item[i].type == UNIC_FLOW_ITEM_ETH && rule->item[i].has_spec &&
			    !zero(&rule->item[i].mask.eth, sizeof(rule->item[i].mask.eth)))
				mac = rule->item[i].spec.eth.dst;
		memcpy(ep->uc_addr[f.slot], mac, UNIC_ETHER_ADDR_LEN);
		ep->uc_used[f.slot] = true;
		ep->uc_flow[f.slot] = true;
		e1000e_rar_set(&ep->hw, f.slot, mac);
	} else {
		if (ep->flow_vid_refs[f.vid] == UINT16_MAX) {
			free(nf);
			return refuse(err, -ENOSPC, UNIC_FLOW_ERR_ITEM, 0, "e1000e: %u rules for VLAN %u already",
				      UINT16_MAX, f.vid);
		}
		if (ep->flow_vid_refs[f.vid]++ == 0) {
			ep->flow_vfta[f.vid >> 5] |= 1u << (f.vid & 31);
			vfta_write(ep, f.vid >> 5);
		}
		if (ep->flow_vlan_rules++ == 0)
			rctl_write(port);
	}
	*handle = nf;
	return 0;
}

void e1000e_flow_destroy(struct unic_port *port, void *handle)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_flow *f = handle;
	bool live = e1000e_hw_live(ep) == 0;

	if (f->kind == E1000E_FLOW_MAC) {
		ep->uc_used[f->slot] = false;
		ep->uc_flow[f->slot] = false;
		if (live)
			e1000e_rar_set(&ep->hw, f->slot, NULL);
	} else {
		if (--ep->flow_vid_refs[f->vid] == 0) {
			ep->flow_vfta[f->vid >> 5] &= ~(1u << (f->vid & 31));
			if (live)
				vfta_write(ep, f->vid >> 5);
		}
		if (--ep->flow_vlan_rules == 0 && live)
			rctl_write(port);
	}
	free(f);
}
