/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's command language: one table of commands, each a syntax
 * string and a help line, used for parsing, usage lines, help and tab
 * completion. Pure: no libunic, no libedit, no globals written; the fuzz
 * harness (tests/fuzz/fuzz_testpmd_cmd.c) builds this file alone.
 *
 * Syntax strings are words separated by one space:
 *   a|b|c        one of these literal words (the argument's kw is its index)
 *   <port>       a port number 0..TP_CMD_MAX_PORT
 *   <port|all>   a port number or "all" (num = TP_CMD_PORT_ALL)
 *   <mac>        xx:xx:xx:xx:xx:xx (hex)
 *   <vid>        VLAN id 0..4095
 *   <level>      1..5 or error|warning|notice|info|debug (num = 1..5)
 *   <sizes>      comma-separated sizes 1..65535, at most TP_CMD_MAX_SIZES
 *   <spec>       any one word (also <masks> <types> <entries> <type> <hexkey>
 *                <offload> <name> <device> <file> <list> <mask> <addr>
 *                <port,queue> <speed> <tpid>: checked by the command)
 *   <words...>   one or more words to the end of the line (rest)
 *   <anything>   a whole number 0..4294967295
 *   [key=<n>]    optional "key=N" (whole number), any order, at the end
 * (cmd_refused.c's rows also take <file> <flags> <vf_mask> <queue_mask>
 * <stats_mask> as one word: DPDK's file names, flags and hex masks.)
 * A '#' at the start of a word begins a comment to the end of the line.
 */
#ifndef TP_CMD_H
#define TP_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flowparse.h"

#define TP_CMD_LINE_MAX   1024 /* longer lines are refused */
#define TP_CMD_MAX_TOKENS 32
#define TP_CMD_MAX_SIZES  8
#define TP_CMD_MAX_PORT   63
#define TP_CMD_PORT_ALL   0xffffu
#define TP_CMD_CAND_LEN   48   /* one completion candidate, NUL included */
#define TP_CMD_MAX_ROWS   512  /* rows of both tables */

enum tp_cmd_id {
	TP_CMD_HELP,
	TP_CMD_HELP_TOPIC,
	TP_CMD_QUIT,
	TP_CMD_SLEEP,
	TP_CMD_SHOW_PORT,
	TP_CMD_SHOW_CAPA,
	TP_CMD_SHOW_EEPROM_DPDK,
	TP_CMD_SHOW_LINK_CAPA,
	TP_CMD_SHOW_FWD,
	TP_CMD_CLEAR_STATS,
	TP_CMD_START,
	TP_CMD_START_TXFIRST,
	TP_CMD_START_TXFIRST_N,
	TP_CMD_STOP,
	TP_CMD_SHOW_FWD_STATS,
	TP_CMD_CLEAR_FWD_STATS,
	TP_CMD_SET_FWD,
	TP_CMD_SET_BURST,
	TP_CMD_SET_NBCORE,
	TP_CMD_SET_TXPKTS,
	TP_CMD_SET_PROMISC,
	TP_CMD_MAC_ADDR,
	TP_CMD_SET_LINK,
	TP_CMD_SET_LINK_DPDK,
	TP_CMD_PORT_OP,
	TP_CMD_PORT_QCFG,
	TP_CMD_PORT_MTU,
	TP_CMD_PORT_MTU_DPDK,
	TP_CMD_PORT_COALESCE,
	TP_CMD_SET_RXMODE,
	TP_CMD_VLAN_SET,
	TP_CMD_VLAN_SET_DPDK,
	TP_CMD_RX_VLAN,
	TP_CMD_TX_VLAN_SET,
	TP_CMD_TX_VLAN_RESET,
	TP_CMD_CSUM_SET,
	TP_CMD_CSUM_SHOW,
	TP_CMD_CSUM_TUNNEL,
	TP_CMD_TSO_SET,
	TP_CMD_TSO_SHOW,
	TP_CMD_SET_MSGLEVEL,
	TP_CMD_PORT_ATTACH,
	TP_CMD_PORT_DETACH,
	TP_CMD_SET_ETH_PEER,
	TP_CMD_SHOW_RSS_HASH,
	TP_CMD_SHOW_RSS_KEY,
	TP_CMD_SHOW_RSS_RETA,
	TP_CMD_PORT_RSS,
	TP_CMD_PORT_RSS_RETA,
	TP_CMD_PORT_RSS_KEY,
	TP_CMD_SHOW_OFFLOAD,
	TP_CMD_PORT_OFFLOAD,
	/* tpcmds2: dpdk-testpmd's remaining show, set, port and queue commands (dpdkq.c) */
	TP_CMD_SHOW_QINFO,
	TP_CMD_SHOW_QINFO_PORT,
	TP_CMD_SHOW_DESC_STATUS,
	TP_CMD_SHOW_DESC_USED,
	TP_CMD_READ_DESC,
	TP_CMD_PORT_QSTATE,
	TP_CMD_PORT_QDEFER,
	TP_CMD_PORT_QRING,
	TP_CMD_PORT_QOFFLOAD,
	TP_CMD_PORT_CLEANUP,
	TP_CMD_SHOW_PORT_MORE,
	TP_CMD_SHOW_FEC_CAPA,
	TP_CMD_SHOW_PROXY,
	TP_CMD_CLEAR_XSTATS,
	TP_CMD_LOAD,
	TP_CMD_SET_LIST,
	TP_CMD_SET_MASK,
	TP_CMD_SET_NBPORT,
	TP_CMD_SET_TXSPLIT,
	TP_CMD_SET_SPLIT,
	TP_CMD_SET_DEFAULT,
	TP_CMD_SET_LOG,
	TP_CMD_SET_SWITCH,
	TP_CMD_SET_PTYPES,
	TP_CMD_SET_FEC,
	TP_CMD_SET_QRATE,
	TP_CMD_SET_TX_LOOPBACK,
	TP_CMD_SET_ALL_DROP,
	TP_CMD_SET_UTA,
	TP_CMD_SET_STAT_QMAP,
	TP_CMD_SET_AVAIL,
	TP_CMD_SET_PORT_SETUP,
	TP_CMD_VLAN_STRIPQ,
	TP_CMD_VLAN_QINQ,
	TP_CMD_VLAN_TPID,
	TP_CMD_RX_VLAN_ALL,
	TP_CMD_TX_VLAN_PVID,
	TP_CMD_PORT_PKTLEN,
	TP_CMD_PORT_DROP_EN,
	TP_CMD_PORT_BURST,
	TP_CMD_PORT_THRESH,
	TP_CMD_PORT_SPEED,
	TP_CMD_PORT_PCTYPE,
	TP_CMD_PORT_TX_METADATA,
	TP_CMD_PORT_DYNF,
	TP_CMD_DEVICE_DETACH,
	/* end of tpcmds2 */
	TP_CMD_SHOW_DEVICE,
	TP_CMD_DUMP,
	TP_CMD_DUMP_NAME,
	TP_CMD_SET_VERBOSE,
	TP_CMD_SET_RECORD,
	TP_CMD_MCAST_ADDR,
	TP_CMD_SHOW_FLOW_CTRL,
	TP_CMD_SET_FLOW_CTRL,
	TP_CMD_SET_FLOW_CTRL_ONE,
	TP_CMD_SET_FLOW_CTRL_NUM,
	/* tpengines: set fwd X retry, its delay and tries */
	TP_CMD_SET_FWD_RETRY,
	TP_CMD_SET_BURST_TX,
	TP_CMD_UDP_TUNNEL,
	/* flow: DPDK's flow rule commands (flowparse.h) */
	TP_CMD_FLOW,
	TP_CMD_COUNT
};

/* The id of every row of cmd_refused.c (DPDK's commands unic refuses by
 * design): past tp_cmd_table()'s ids, which stay one a row. */
#define TP_CMD_REFUSED TP_CMD_COUNT

struct tp_cmd_def {
	enum tp_cmd_id id;
	const char *syntax;
	const char *help;
};

/* One argument per word of the syntax string, at the same position. */
struct tp_cmd_arg {
	const char *str;      /* the word as typed; NULL for a knob not given */
	unsigned kw;          /* literal: index of the alternative typed */
	uint64_t num;         /* number, port (TP_CMD_PORT_ALL), vid, level, knob value */
	bool set;             /* knob: given */
	uint8_t mac[6];
	uint16_t sizes[TP_CMD_MAX_SIZES];
	unsigned nb_sizes;
};

struct tp_cmd {
	const struct tp_cmd_def *def;
	unsigned nb_args;                     /* words in the syntax */
	struct tp_cmd_arg arg[TP_CMD_MAX_TOKENS];
	char buf[TP_CMD_LINE_MAX];            /* the words, split; str points here */
	char rest[TP_CMD_LINE_MAX];           /* <words...>: joined with one space */
	struct tp_flow_cmd flow;              /* TP_CMD_FLOW: the parsed flow command */
};

enum {
	TP_PARSE_OK = 0,
	TP_PARSE_EMPTY = 1,    /* blank line or comment */
	TP_PARSE_ERROR = -1,   /* message and usage lines in err */
};

/* The command table. @return its first entry; *nb its size. */
const struct tp_cmd_def *tp_cmd_table(unsigned *nb);

/*
 * Parse one line. @return TP_PARSE_OK (cmd filled), TP_PARSE_EMPTY, or
 * TP_PARSE_ERROR with a message in @p err: what is wrong, then "usage: ..."
 * for each command the line came closest to. Never reads past @p line's NUL.
 */
int tp_cmd_parse(const char *line, struct tp_cmd *cmd, char *err, size_t errlen);

/*
 * The commands dpdk-testpmd has and unic refuses by design (cmd_refused.c):
 * rows with id TP_CMD_REFUSED, the syntax in DPDK's words and, as help, the
 * reason. The parser takes them after tp_cmd_table()'s.
 */
const struct tp_cmd_def *tp_cmd_refused_table(unsigned *nb);

/* The word index of the first port (<port>, <port|all>) of @p cmd's syntax, or -1. */
int tp_cmd_port_word(const struct tp_cmd *cmd);

/* The index of knob @p key of @p cmd's syntax, or -1. */
int tp_cmd_knob(const struct tp_cmd *cmd, const char *key);

/*
 * Help: every command (topic NULL or ""), or those whose first words match
 * the topic's. @return 0, or -1 when nothing matches (a line says so).
 */
int tp_cmd_help(FILE *f, const char *topic);

/*
 * Completion of the first @p len bytes of @p line (the cursor position): the
 * candidates for the word under the cursor, deduplicated, in table order;
 * words the parser takes only to refuse them with a reason (csum set sctp,
 * csum parse-tunnel on) are not offered.
 * Port placeholders offer @p ports (and "all" where allowed). *start is the
 * offset in @p line where the word under the cursor begins.
 * @return the number of candidates written (<= max).
 */
unsigned tp_cmd_complete(const char *line, size_t len, const uint16_t *ports, unsigned nb_ports,
			 char (*out)[TP_CMD_CAND_LEN], unsigned max, size_t *start);

/*
 * Argument parsers of the RSS commands (pure; fuzzed with the parser). Each
 * returns 0, or -1 with what is wrong in @p err.
 * reta: "(entry,queue)[,(entry,queue)...]": reta[entry] = queue and the
 * entry's bit set in mask[entry / 64] (the caller zeroes mask); entries
 * below @p size, queues up to 65535.
 */
int tp_cmd_parse_reta(const char *s, uint16_t size, uint16_t *reta, uint64_t *mask, char *err,
		      size_t errlen);
/* masks: hex numbers, comma-separated, optionally in (), at most @p max;
 * *nb how many. */
int tp_cmd_parse_masks(const char *s, uint64_t *mask, unsigned max, unsigned *nb, char *err,
		       size_t errlen);
/* key: exactly 2 * @p len hex digits into @p key. */
int tp_cmd_parse_hexkey(const char *s, uint8_t *key, size_t len, char *err, size_t errlen);

#endif /* TP_CMD_H */
