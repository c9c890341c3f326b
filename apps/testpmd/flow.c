/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's `flow` commands (parsed by flowparse.c) on the port
 * layer's flow API (unic/flow.h), printed as dpdk-testpmd prints them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testpmd.h"

static const char *where_name(const struct unic_flow_error *e)
{
	switch (e->where) {
	case UNIC_FLOW_ERR_ATTR:
		return "attributes";
	case UNIC_FLOW_ERR_ITEM:
		return "specific pattern item";
	case UNIC_FLOW_ERR_ACTION:
		return "specific action";
	case UNIC_FLOW_ERR_RULE:
		return "rule";
	default:
		return "port";
	}
}

/* The errno's name, as testpmd's other refusals end: (-ENOTSUP). */
static const char *errname(int rc, char *buf, size_t len)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ ENOTSUP, "ENOTSUP" }, { EINVAL, "EINVAL" }, { ENOENT, "ENOENT" }, { ENOSPC, "ENOSPC" },
		{ EBUSY, "EBUSY" },     { ENODEV, "ENODEV" }, { ENOMEM, "ENOMEM" },
	};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == -rc)
			return names[i].name;
	snprintf(buf, len, "%d", -rc);
	return buf;
}

/* DPDK's "Caught error type ..." line, with unic's reason and errno. */
static int complain(struct tp_app *app, const struct unic_flow_error *e, int rc)
{
	char b[16];

	if (e->where == UNIC_FLOW_ERR_ITEM || e->where == UNIC_FLOW_ERR_ACTION)
		fprintf(app->err, "Caught error type (%s %u): %s: %s (-%s)\n", where_name(e), e->index, e->msg,
			strerror(-rc), errname(rc, b, sizeof(b)));
	else
		fprintf(app->err, "Caught error type (%s): %s: %s (-%s)\n", where_name(e), e->msg, strerror(-rc),
			errname(rc, b, sizeof(b)));
	return rc;
}

static void print_rule(FILE *f, const struct unic_flow_info *fi)
{
	const struct unic_flow_rule *r = &fi->rule;

	fprintf(f, "%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%c%c%c\t", fi->id, r->attr.group, r->attr.priority,
		r->attr.ingress ? 'i' : '-', r->attr.egress ? 'e' : '-', r->attr.transfer ? 't' : '-');
	for (unsigned i = 0; i < r->nb_items; i++)
		if (r->item[i].type != UNIC_FLOW_ITEM_VOID)
			fprintf(f, "%s ", unic_flow_item_name(r->item[i].type));
	fprintf(f, "=>");
	for (unsigned i = 0; i < r->nb_actions; i++)
		if (r->action[i].type != UNIC_FLOW_ACTION_VOID)
			fprintf(f, " %s", unic_flow_action_name(r->action[i].type));
	fprintf(f, "\n");
}

static bool in_groups(const struct tp_flow_cmd *fc, uint32_t group)
{
	if (fc->nb_ids == 0)
		return true;
	for (unsigned i = 0; i < fc->nb_ids; i++)
		if (fc->ids[i] == group)
			return true;
	return false;
}

static int flow_list(struct tp_app *app, const struct tp_flow_cmd *fc, struct unic_port *port)
{
	struct unic_flow_info *list = NULL;
	int n = unic_port_flow_list(port, NULL, 0), got = 0;
	bool header = false;

	/* Count, then fetch (a rule created between the two is listed next time). */
	if (n > 0) {
		list = calloc((size_t)n, sizeof(*list));
		if (list == NULL)
			return tp_op_err(app, fc->port, "flow list", -ENOMEM);
		got = unic_port_flow_list(port, list, (unsigned)n);
	}
	if (n < 0 || got < 0) {
		free(list);
		return tp_op_err(app, fc->port, "flow list", n < 0 ? n : got);
	}
	for (int i = 0; i < got && i < n; i++) {
		if (!in_groups(fc, list[i].rule.attr.group))
			continue;
		if (!header)
			fprintf(app->out, "ID\tGroup\tPrio\tAttr\tRule\n");
		header = true;
		print_rule(app->out, &list[i]);
	}
	free(list);
	return 0;
}

int tp_flow_exec(struct tp_app *app, const struct tp_flow_cmd *fc)
{
	struct unic_flow_error e = { 0 };
	struct unic_port *port;
	int rc;

	if (fc->op == TP_FLOW_REFUSED) {
		fprintf(app->err, "%s (-ENOTSUP)\n", fc->why);
		return -ENOTSUP;
	}
	rc = tp_port_check(app, fc->port);
	if (rc)
		return rc;
	port = app->ports[fc->port].port;
	switch (fc->op) {
	case TP_FLOW_VALIDATE:
		rc = unic_port_flow_validate(port, &fc->rule, &e);
		if (rc)
			return complain(app, &e, rc);
		fprintf(app->out, "Flow rule validated\n");
		return 0;
	case TP_FLOW_CREATE:
		rc = unic_port_flow_create(port, &fc->rule, &e);
		if (rc < 0)
			return complain(app, &e, rc);
		fprintf(app->out, "Flow rule #%d created\n", rc);
		return 0;
	case TP_FLOW_DESTROY:
		/* As DPDK: ids that do not exist are passed over in silence. */
		for (unsigned i = 0; i < fc->nb_ids; i++) {
			rc = unic_port_flow_destroy(port, fc->ids[i], &e);
			if (rc == -ENOENT)
				continue;
			if (rc)
				return complain(app, &e, rc);
			fprintf(app->out, "Flow rule #%" PRIu32 " destroyed\n", fc->ids[i]);
		}
		return 0;
	case TP_FLOW_FLUSH:
		rc = unic_port_flow_flush(port, &e);
		return rc ? complain(app, &e, rc) : 0;
	case TP_FLOW_LIST:
		return flow_list(app, fc, port);
	case TP_FLOW_ISOLATE:
		rc = unic_port_flow_isolate(port, fc->on, &e);
		if (rc)
			return complain(app, &e, rc);
		fprintf(app->out, "Ingress traffic on port %u %s to the defined flow rules\n", fc->port,
			fc->on ? "is now restricted" : "is not restricted anymore");
		return 0;
	case TP_FLOW_QUERY: {
		struct unic_flow_count cnt;

		rc = unic_port_flow_query(port, fc->ids[0], &cnt, &e);
		if (rc == -ENOENT) {
			fprintf(app->err, "Flow rule #%" PRIu32 " not found\n", fc->ids[0]);
			return rc;
		}
		if (rc)
			return complain(app, &e, rc);
		fprintf(app->out, "count:\n hits_set: %u\n bytes_set: %u\n hits: %" PRIu64 "\n bytes: %" PRIu64 "\n",
			cnt.hits_set, cnt.bytes_set, cnt.hits, cnt.bytes);
		return 0;
	}
	case TP_FLOW_AGED:
		/* unic's rules have no age action: none ever ages out. */
		fprintf(app->out, "Port %u total aged flows: 0\n", fc->port);
		return 0;
	case TP_FLOW_REFUSED:
		break;
	}
	return -EINVAL;
}
