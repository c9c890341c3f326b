/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow rules (unic/flow.h): the checks every driver would make, the rule
 * bookkeeping (ids, the list), and the calls into the driver's flow ops.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port_private.h"

struct port_flow {
	struct port_flow *next;
	uint32_t id;
	void *handle;                  /* the driver's */
	struct unic_flow_rule rule;
};

static const char *const item_names[] = {
	[UNIC_FLOW_ITEM_VOID] = "VOID", [UNIC_FLOW_ITEM_ANY] = "ANY", [UNIC_FLOW_ITEM_ETH] = "ETH",
	[UNIC_FLOW_ITEM_VLAN] = "VLAN", [UNIC_FLOW_ITEM_IPV4] = "IPV4", [UNIC_FLOW_ITEM_IPV6] = "IPV6",
	[UNIC_FLOW_ITEM_UDP] = "UDP",   [UNIC_FLOW_ITEM_TCP] = "TCP",
};

static const char *const action_names[] = {
	[UNIC_FLOW_ACTION_VOID] = "VOID", [UNIC_FLOW_ACTION_PASSTHRU] = "PASSTHRU",
	[UNIC_FLOW_ACTION_QUEUE] = "QUEUE", [UNIC_FLOW_ACTION_RSS] = "RSS",
	[UNIC_FLOW_ACTION_DROP] = "DROP", [UNIC_FLOW_ACTION_MARK] = "MARK",
	[UNIC_FLOW_ACTION_COUNT] = "COUNT",
};

const char *unic_flow_item_name(enum unic_flow_item_type t)
{
	return (unsigned)t < sizeof(item_names) / sizeof(item_names[0]) ? item_names[t] : "UNKNOWN";
}

const char *unic_flow_action_name(enum unic_flow_action_type t)
{
	return (unsigned)t < sizeof(action_names) / sizeof(action_names[0]) ? action_names[t] : "UNKNOWN";
}

/* Fill @p err (may be NULL) and log at debug; @return @p rc. */
static int flow_err(struct unic_port *port, struct unic_flow_error *err, int rc,
		    enum unic_flow_err_where where, unsigned index, const char *fmt, ...)
{
	struct unic_flow_error tmp;
	va_list ap;

	if (err == NULL)
		err = &tmp;
	err->where = where;
	err->index = index;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	UNIC_LOG(DEBUG, PORT, "%s: flow rule refused: %s", port->name, err->msg);
	return rc;
}

static bool fate(enum unic_flow_action_type t)
{
	return t == UNIC_FLOW_ACTION_QUEUE || t == UNIC_FLOW_ACTION_RSS || t == UNIC_FLOW_ACTION_DROP ||
	       t == UNIC_FLOW_ACTION_PASSTHRU;
}

/* Lock held: the checks that do not depend on the driver, then the driver's. */
static int flow_check(struct unic_port *port, const struct unic_flow_rule *rule, struct unic_flow_error *err)
{
	const char *why = port->drv && port->drv->flow_why ? port->drv->flow_why : NULL;
	const char *drv = port->drv ? port->drv->name : "this driver";
	unsigned nb_rxq = port->conf.nb_rxq, fates = 0, real = 0;

	if (port->ops->flow_validate == NULL)
		return flow_err(port, err, -ENOTSUP, UNIC_FLOW_ERR_PORT, 0, "%s: the %s driver has no flow rules%s%s",
				port->name, drv, why ? ": " : "", why ? why : "");
	if (rule->nb_items > UNIC_FLOW_MAX_ITEMS || rule->nb_actions > UNIC_FLOW_MAX_ACTIONS)
		return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_RULE, 0, "at most %d items and %d actions",
				UNIC_FLOW_MAX_ITEMS, UNIC_FLOW_MAX_ACTIONS);
	if (rule->attr.egress || rule->attr.transfer)
		return flow_err(port, err, -ENOTSUP, UNIC_FLOW_ERR_ATTR, 0,
				"%s: unic's flow rules are ingress only (egress and transfer are not supported)",
				port->name);
	for (unsigned i = 0; i < rule->nb_items; i++)
		if ((unsigned)rule->item[i].type >= sizeof(item_names) / sizeof(item_names[0]))
			return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_ITEM, i, "item %u: unknown type %d", i,
					rule->item[i].type);
	for (unsigned i = 0; i < rule->nb_actions; i++) {
		const struct unic_flow_action *a = &rule->action[i];

		if ((unsigned)a->type >= sizeof(action_names) / sizeof(action_names[0]))
			return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_ACTION, i, "action %u: unknown type %d",
					i, a->type);
		if (a->type != UNIC_FLOW_ACTION_VOID)
			real++;
		if (fate(a->type) && ++fates > 1)
			return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_ACTION, i,
					"action %u (%s): a rule has one fate (queue, rss, drop or passthru)", i,
					action_names[a->type]);
		if (a->type == UNIC_FLOW_ACTION_QUEUE && a->queue.index >= nb_rxq)
			return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_ACTION, i,
					"action %u (QUEUE): rx queue %u; the port has %u rx queue%s", i, a->queue.index,
					nb_rxq, nb_rxq == 1 ? "" : "s");
		if (a->type == UNIC_FLOW_ACTION_RSS) {
			if (a->rss.nb_queues > UNIC_FLOW_RSS_MAX_QUEUES || a->rss.key_len > UNIC_FLOW_RSS_KEY_MAX)
				return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_ACTION, i,
						"action %u (RSS): at most %d queues and %d key bytes", i,
						UNIC_FLOW_RSS_MAX_QUEUES, UNIC_FLOW_RSS_KEY_MAX);
			for (unsigned q = 0; q < a->rss.nb_queues; q++)
				if (a->rss.queue[q] >= nb_rxq)
					return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_ACTION, i,
							"action %u (RSS): rx queue %u; the port has %u rx queue%s", i,
							a->rss.queue[q], nb_rxq, nb_rxq == 1 ? "" : "s");
		}
	}
	if (real == 0)
		return flow_err(port, err, -EINVAL, UNIC_FLOW_ERR_ACTION, 0,
				"%s: a rule needs an action (queue, rss, drop, mark, count or passthru)", port->name);
	return port->ops->flow_validate(port, rule, err);
}

/* Lock the port for a flow call: alive, device present. */
static int flow_lock(struct unic_port *port, const char *what, struct unic_flow_error *err)
{
	int rc = port_lock_alive(port, what);

	if (rc)
		return flow_err(port, err, rc, UNIC_FLOW_ERR_PORT, 0, "%s: the port is closed or gone", port->name);
	rc = port_check_removed(port, what);
	if (rc) {
		port_unlock(port);
		return flow_err(port, err, rc, UNIC_FLOW_ERR_PORT, 0, "%s: the device was taken back", port->name);
	}
	return 0;
}

int unic_port_flow_validate(struct unic_port *port, const struct unic_flow_rule *rule,
			    struct unic_flow_error *err)
{
	int rc = flow_lock(port, "flow_validate", err);

	if (rc)
		return rc;
	rc = flow_check(port, rule, err);
	port_unlock(port);
	return rc;
}

int unic_port_flow_create(struct unic_port *port, const struct unic_flow_rule *rule,
			  struct unic_flow_error *err)
{
	struct port_core *pc = port_core(port);
	struct port_flow *f;
	int rc = flow_lock(port, "flow_create", err);

	if (rc)
		return rc;
	rc = flow_check(port, rule, err);
	if (rc)
		goto out;
	if (port->ops->flow_create == NULL) {
		rc = flow_err(port, err, -ENOTSUP, UNIC_FLOW_ERR_PORT, 0, "%s: the driver validates rules but "
			      "cannot create them", port->name);
		goto out;
	}
	if (pc->flow_next_id > INT32_MAX) {
		rc = flow_err(port, err, -ENOSPC, UNIC_FLOW_ERR_PORT, 0, "%s: rule ids are used up", port->name);
		goto out;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		rc = flow_err(port, err, -ENOMEM, UNIC_FLOW_ERR_PORT, 0, "%s: no memory for a rule", port->name);
		goto out;
	}
	f->rule = *rule;
	rc = port->ops->flow_create(port, &f->rule, &f->handle, err);
	if (rc) {
		free(f);
		goto out;
	}
	f->id = pc->flow_next_id++;
	f->next = pc->flows;
	pc->flows = f;
	rc = (int)f->id;
out:
	port_unlock(port);
	return rc;
}

static struct port_flow **flow_find(struct port_core *pc, uint32_t id)
{
	struct port_flow **pp = &pc->flows;

	while (*pp && (*pp)->id != id)
		pp = &(*pp)->next;
	return pp;
}

int unic_port_flow_destroy(struct unic_port *port, uint32_t id, struct unic_flow_error *err)
{
	struct port_core *pc = port_core(port);
	struct port_flow **pp, *f;
	int rc = flow_lock(port, "flow_destroy", err);

	if (rc)
		return rc;
	pp = flow_find(pc, id);
	if (*pp == NULL) {
		rc = flow_err(port, err, -ENOENT, UNIC_FLOW_ERR_RULE, id, "%s: no rule %u", port->name, id);
		goto out;
	}
	f = *pp;
	*pp = f->next;
	if (port->ops->flow_destroy)
		port->ops->flow_destroy(port, f->handle);
	free(f);
out:
	port_unlock(port);
	return rc;
}

int unic_port_flow_flush(struct unic_port *port, struct unic_flow_error *err)
{
	int rc = flow_lock(port, "flow_flush", err);

	if (rc)
		return rc;
	port_flow_free_all(port, true);
	port_unlock(port);
	return 0;
}

void port_flow_free_all(struct unic_port *port, bool driver)
{
	struct port_core *pc = port_core(port);

	while (pc->flows) {
		struct port_flow *f = pc->flows;

		pc->flows = f->next;
		if (driver && port->ops->flow_destroy)
			port->ops->flow_destroy(port, f->handle);
		free(f);
	}
}

int unic_port_flow_isolate(struct unic_port *port, bool on, struct unic_flow_error *err)
{
	struct port_core *pc = port_core(port);
	const char *drv = port->drv ? port->drv->name : "this driver";
	int rc = flow_lock(port, "flow_isolate", err);

	if (rc)
		return rc;
	if (port->ops->flow_isolate == NULL) {
		rc = flow_err(port, err, -ENOTSUP, UNIC_FLOW_ERR_PORT, 0,
			      "%s: the %s driver cannot restrict ingress traffic to the flow rules (isolated mode)",
			      port->name, drv);
	} else if (pc->flows != NULL && on != pc->flow_isolated) {
		rc = flow_err(port, err, -EBUSY, UNIC_FLOW_ERR_PORT, 0,
			      "%s: isolated mode changes only while the port has no rules ('flow flush' first)",
			      port->name);
	} else {
		rc = port->ops->flow_isolate(port, on, err);
		if (rc == 0)
			pc->flow_isolated = on;
	}
	port_unlock(port);
	return rc;
}

int unic_port_flow_query(struct unic_port *port, uint32_t id, struct unic_flow_count *count,
			 struct unic_flow_error *err)
{
	struct port_flow *f;
	bool has_count = false;
	int rc = flow_lock(port, "flow_query", err);

	memset(count, 0, sizeof(*count));
	if (rc)
		return rc;
	f = *flow_find(port_core(port), id);
	if (f == NULL) {
		rc = flow_err(port, err, -ENOENT, UNIC_FLOW_ERR_RULE, id, "%s: no rule %u", port->name, id);
		goto out;
	}
	for (unsigned i = 0; i < f->rule.nb_actions; i++)
		has_count |= f->rule.action[i].type == UNIC_FLOW_ACTION_COUNT;
	/* No driver creates a rule with a count action yet: a rule that has
	 * one would need a query op here. */
	rc = flow_err(port, err, has_count ? -ENOTSUP : -EINVAL, UNIC_FLOW_ERR_ACTION, 0,
		      has_count ? "%s: rule %u: this driver cannot read its counter"
				: "%s: rule %u has no count action", port->name, id);
out:
	port_unlock(port);
	return rc;
}

static int flow_cmp(const void *a, const void *b)
{
	const struct unic_flow_info *x = a, *y = b;

	if (x->rule.attr.group != y->rule.attr.group)
		return x->rule.attr.group < y->rule.attr.group ? -1 : 1;
	if (x->rule.attr.priority != y->rule.attr.priority)
		return x->rule.attr.priority < y->rule.attr.priority ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int unic_port_flow_list(struct unic_port *port, struct unic_flow_info *out, unsigned max)
{
	struct port_flow *f;
	unsigned n = 0;
	int rc = port_lock_alive(port, "flow_list");

	if (rc)
		return rc;
	for (f = port_core(port)->flows; f; f = f->next, n++)
		if (n < max) {
			out[n].id = f->id;
			out[n].rule = f->rule;
		}
	port_unlock(port);
	if (n > 0 && max > 0)
		qsort(out, n < max ? n : max, sizeof(*out), flow_cmp);
	return (int)n;
}
