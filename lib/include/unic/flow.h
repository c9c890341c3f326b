/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Flow rules (rte_flow's model): a rule is attributes, a pattern (a list of
 * items, outermost header first) and a list of actions. The port layer keeps
 * the rules it created (an id each, from 0, never reused while the port
 * lives) and hands them to the driver's flow ops; a driver without them
 * refuses every rule with -ENOTSUP and a message naming the driver, a driver
 * with them refuses what its filters cannot do naming the item or action.
 *
 * The types here are plain data (no calls): a parser may fill them without
 * linking libunic. Numbers are in host order (a port, an EtherType, an IPv4
 * address as 0xc0a80001 for 192.168.0.1); MAC and IPv6 addresses are bytes
 * in wire order.
 *
 * Matching: a field takes part where its mask has bits set; a frame matches
 * an item when (frame & mask) == (spec & mask), or, with a range (has_last),
 * spec <= (frame & mask) <= last. An item with no spec matches any frame
 * with that header.
 */
#ifndef UNIC_FLOW_H
#define UNIC_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

#define UNIC_FLOW_MAX_ITEMS   16  /**< most items in a rule's pattern */
#define UNIC_FLOW_MAX_ACTIONS 8   /**< most actions in a rule */
#define UNIC_FLOW_RSS_MAX_QUEUES 16 /**< most queues of an rss action */
#define UNIC_FLOW_RSS_KEY_MAX 64  /**< longest key of an rss action, bytes */
#define UNIC_FLOW_ERR_LEN     256 /**< size of unic_flow_error msg */

/** Pattern items (the headers a rule matches, outermost first). */
enum unic_flow_item_type {
	UNIC_FLOW_ITEM_VOID,  /**< ignored */
	UNIC_FLOW_ITEM_ANY,   /**< any one header (or layer) */
	UNIC_FLOW_ITEM_ETH,   /**< Ethernet (struct unic_flow_eth) */
	UNIC_FLOW_ITEM_VLAN,  /**< an 802.1Q tag (struct unic_flow_vlan) */
	UNIC_FLOW_ITEM_IPV4,  /**< struct unic_flow_ipv4 */
	UNIC_FLOW_ITEM_IPV6,  /**< struct unic_flow_ipv6 */
	UNIC_FLOW_ITEM_UDP,   /**< struct unic_flow_l4 */
	UNIC_FLOW_ITEM_TCP,   /**< struct unic_flow_l4 */
};

/** Ethernet header fields. */
struct unic_flow_eth {
	uint8_t dst[6];        /**< destination address */
	uint8_t src[6];        /**< source address */
	uint16_t type;         /**< EtherType */
};

/** 802.1Q tag fields. */
struct unic_flow_vlan {
	uint16_t tci;          /**< PCP (3 bits), DEI, VID (12 bits) */
	uint16_t inner_type;   /**< the EtherType after the tag */
};

/** IPv4 header fields. */
struct unic_flow_ipv4 {
	uint32_t src;          /**< source address */
	uint32_t dst;          /**< destination address */
	uint8_t proto;         /**< protocol */
	uint8_t tos;           /**< type of service */
	uint8_t ttl;           /**< time to live */
};

/** IPv6 header fields. */
struct unic_flow_ipv6 {
	uint8_t src[16];       /**< source address */
	uint8_t dst[16];       /**< destination address */
	uint8_t proto;         /**< next header */
};

/** UDP and TCP header fields. */
struct unic_flow_l4 {
	uint16_t src;          /**< source port */
	uint16_t dst;          /**< destination port */
};

/** The fields of one item, by its type. */
union unic_flow_hdr {
	struct unic_flow_eth eth;   /**< UNIC_FLOW_ITEM_ETH */
	struct unic_flow_vlan vlan; /**< UNIC_FLOW_ITEM_VLAN */
	struct unic_flow_ipv4 ipv4; /**< UNIC_FLOW_ITEM_IPV4 */
	struct unic_flow_ipv6 ipv6; /**< UNIC_FLOW_ITEM_IPV6 */
	struct unic_flow_l4 l4;     /**< UNIC_FLOW_ITEM_UDP, UNIC_FLOW_ITEM_TCP */
};

/** One pattern item: its header, spec, mask and optional range end. */
struct unic_flow_item {
	enum unic_flow_item_type type; /**< the header */
	bool has_spec;         /**< false: any frame with this header */
	bool has_last;         /**< last: the upper end of a range */
	union unic_flow_hdr spec;  /**< the values matched */
	union unic_flow_hdr mask;  /**< the bits of spec that count */
	union unic_flow_hdr last;  /**< with has_last: the range's upper end */
};

/** What a rule does with the frames it matches. */
enum unic_flow_action_type {
	UNIC_FLOW_ACTION_VOID,     /**< ignored */
	UNIC_FLOW_ACTION_PASSTHRU, /**< go on with the next rules (and the default) */
	UNIC_FLOW_ACTION_QUEUE,    /**< deliver to rx queue queue.index */
	UNIC_FLOW_ACTION_RSS,      /**< spread over rss.queue[] by the hash of rss.types */
	UNIC_FLOW_ACTION_DROP,     /**< drop the frame */
	UNIC_FLOW_ACTION_MARK,     /**< tag the packet with mark.id */
	UNIC_FLOW_ACTION_COUNT,    /**< count hits (unic_port_flow_query()) */
};

#define UNIC_FLOW_RSS_ETH      (1u << 0) /**< rss types: Ethernet addresses */
#define UNIC_FLOW_RSS_IPV4     (1u << 1) /**< rss types: IPv4 addresses */
#define UNIC_FLOW_RSS_IPV4_TCP (1u << 2) /**< rss types: IPv4 addresses and TCP ports */
#define UNIC_FLOW_RSS_IPV4_UDP (1u << 3) /**< rss types: IPv4 addresses and UDP ports */
#define UNIC_FLOW_RSS_IPV6     (1u << 4) /**< rss types: IPv6 addresses */
#define UNIC_FLOW_RSS_IPV6_TCP (1u << 5) /**< rss types: IPv6 addresses and TCP ports */
#define UNIC_FLOW_RSS_IPV6_UDP (1u << 6) /**< rss types: IPv6 addresses and UDP ports */

/** queue action. */
struct unic_flow_queue {
	uint16_t index;        /**< the rx queue */
};

/** mark action. */
struct unic_flow_mark {
	uint32_t id;           /**< the mark */
};

/** rss action. */
struct unic_flow_rss {
	uint32_t types;        /**< UNIC_FLOW_RSS_*; 0: the port's */
	uint16_t nb_queues;    /**< 0: every rx queue */
	uint16_t queue[UNIC_FLOW_RSS_MAX_QUEUES]; /**< the rx queues */
	uint8_t key_len;       /**< 0: the port's key */
	uint8_t key[UNIC_FLOW_RSS_KEY_MAX]; /**< the hash key */
};

/** One action and its configuration. */
struct unic_flow_action {
	enum unic_flow_action_type type; /**< what it does */
	union {
		struct unic_flow_queue queue; /**< UNIC_FLOW_ACTION_QUEUE */
		struct unic_flow_mark mark;   /**< UNIC_FLOW_ACTION_MARK */
		struct unic_flow_rss rss;     /**< UNIC_FLOW_ACTION_RSS */
	};
};

/** A rule's attributes. */
struct unic_flow_attr {
	uint32_t group;        /**< rule group (DPDK's; 0 by default) */
	uint32_t priority;     /**< 0 first */
	bool ingress;          /**< received frames (unic's only direction) */
	bool egress;           /**< sent frames: refused */
	bool transfer;         /**< switch-level: refused */
};

/** A rule: what unic_port_flow_create() copies. */
struct unic_flow_rule {
	struct unic_flow_attr attr;  /**< attributes */
	unsigned nb_items;           /**< items in item[] */
	struct unic_flow_item item[UNIC_FLOW_MAX_ITEMS]; /**< the pattern, outermost first */
	unsigned nb_actions;         /**< actions in action[] */
	struct unic_flow_action action[UNIC_FLOW_MAX_ACTIONS]; /**< the actions */
};

/** What part of a rule was refused (rte_flow_error's types, in short). */
enum unic_flow_err_where {
	UNIC_FLOW_ERR_NONE,    /**< no error */
	UNIC_FLOW_ERR_PORT,    /**< the port or its driver */
	UNIC_FLOW_ERR_ATTR,    /**< the attributes */
	UNIC_FLOW_ERR_ITEM,    /**< item[index] */
	UNIC_FLOW_ERR_ACTION,  /**< action[index] */
	UNIC_FLOW_ERR_RULE,    /**< a rule id (destroy, query; index the id) */
};

/** Why a call failed: filled on every error of the calls below. */
struct unic_flow_error {
	enum unic_flow_err_where where; /**< the part refused */
	unsigned index;        /**< which item, action or rule */
	char msg[UNIC_FLOW_ERR_LEN]; /**< the reason, for a person */
};

/** Hit counters of a rule with a count action. */
struct unic_flow_count {
	bool hits_set;         /**< hits is valid */
	bool bytes_set;        /**< bytes is valid */
	uint64_t hits;         /**< frames matched */
	uint64_t bytes;        /**< their bytes */
};

/** One rule as the port layer lists it (unic_port_flow_list()). */
struct unic_flow_info {
	uint32_t id;           /**< the id unic_port_flow_create() returned */
	struct unic_flow_rule rule; /**< the rule as created */
};

/** Upper-case name of an item type ("ETH"), as DPDK lists rules: never NULL. */
const char *unic_flow_item_name(enum unic_flow_item_type t);
/** Upper-case name of an action type ("QUEUE"): never NULL. */
const char *unic_flow_action_name(enum unic_flow_action_type t);

struct unic_port;

/**
 * Would the port take @p rule now? Checks the rule's shape (one direction,
 * ingress only in unic; items and actions known; an END-less list is not a
 * thing here: nb_items/nb_actions count them) then asks the driver.
 * @return 0; -ENOTSUP (the driver has no flow rules, or cannot do an item,
 * attribute or action: @p err says which); -EINVAL (a value out of range, a
 * queue the port does not have); -ENODEV. @p err may be NULL.
 */
int unic_port_flow_validate(struct unic_port *port, const struct unic_flow_rule *rule,
			    struct unic_flow_error *err);
/**
 * Validate and create @p rule (copied). @return the rule's id (>= 0), or
 * -errno as unic_port_flow_validate(), or -ENOMEM, -ENOSPC (the driver's
 * filter tables are full).
 */
int unic_port_flow_create(struct unic_port *port, const struct unic_flow_rule *rule,
			  struct unic_flow_error *err);
/** Destroy rule @p id. @return 0, -ENOENT (no such rule), -ENODEV. */
int unic_port_flow_destroy(struct unic_port *port, uint32_t id, struct unic_flow_error *err);
/** Destroy every rule. @return 0, or the first error (the rules not destroyed stay). */
int unic_port_flow_flush(struct unic_port *port, struct unic_flow_error *err);
/**
 * Restrict ingress traffic to the rules (@p on) or not. @return 0, -ENOTSUP
 * (the driver cannot: @p err names it), -EBUSY (rules exist), -ENODEV.
 */
int unic_port_flow_isolate(struct unic_port *port, bool on, struct unic_flow_error *err);
/**
 * Counters of rule @p id's count action. @return 0, -ENOENT (no such
 * rule), -EINVAL (the rule has no count action), -ENOTSUP, -ENODEV.
 */
int unic_port_flow_query(struct unic_port *port, uint32_t id, struct unic_flow_count *count,
			 struct unic_flow_error *err);
/**
 * The port's rules, sorted by group, priority, then id, into @p out (at most
 * @p max). @return how many the port has (may exceed @p max), or -ENODEV.
 */
int unic_port_flow_list(struct unic_port *port, struct unic_flow_info *out, unsigned max);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* UNIC_FLOW_H */
