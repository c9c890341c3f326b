/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's `flow` commands: DPDK testpmd's grammar for flow rules,
 * parsed into unic's rule type (unic/flow.h: plain data). Pure: no libunic
 * calls, no globals; the fuzz harness builds it with cmd.c alone.
 *
 *   flow validate|create PORT [group N] [priority N] [ingress] [egress] [transfer]
 *        pattern ITEM [/ ITEM]... / end actions ACTION [/ ACTION]... / end
 *   flow list PORT [group N]...
 *   flow destroy PORT rule N [rule N]...
 *   flow flush PORT
 *   flow isolate PORT true|false|1|0|on|off|yes|no
 *   flow query PORT RULE count
 *   flow aged PORT [destroy]
 * The rest of DPDK's flow family (indirect_action, flex_item, queue, pull,
 * push, pattern_template, actions_template, template_table, table,
 * configure, info, dump, tunnel) and DPDK items or actions unic does not
 * have parse as TP_FLOW_REFUSED with the reason.
 */
#ifndef TP_FLOWPARSE_H
#define TP_FLOWPARSE_H

#include <stddef.h>
#include <stdint.h>

#include <unic/flow.h>

#define TP_FLOW_MAX_IDS 32

enum tp_flow_op {
	TP_FLOW_VALIDATE,
	TP_FLOW_CREATE,
	TP_FLOW_LIST,
	TP_FLOW_DESTROY,
	TP_FLOW_FLUSH,
	TP_FLOW_ISOLATE,
	TP_FLOW_QUERY,
	TP_FLOW_AGED,
	TP_FLOW_REFUSED,   /* a DPDK command or word unic does not do: why */
};

struct tp_flow_cmd {
	enum tp_flow_op op;
	uint16_t port;
	struct unic_flow_rule rule;    /* validate, create */
	uint32_t ids[TP_FLOW_MAX_IDS]; /* destroy: rules; list: groups; query: the rule */
	unsigned nb_ids;
	bool on;                       /* isolate: the mode; aged: destroy */
	char why[160];                 /* TP_FLOW_REFUSED: what unic lacks */
};

/*
 * Parse a `flow ...` line. @return 0 (cmd filled), or -1 with the reason in
 * @p err: the word that is wrong and what was expected there, then the
 * sub-command's usage line. Never reads past @p line's NUL.
 */
int tp_flow_parse(const char *line, struct tp_flow_cmd *cmd, char *err, size_t errlen);

/* The usage lines of the flow commands, one a line. */
const char *tp_flow_usage(void);

#endif /* TP_FLOWPARSE_H */
