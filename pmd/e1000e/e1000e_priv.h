/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The e1000e driver's private state, shared by its files:
 *   e1000e_hw.c    the hardware: reset, EEPROM, PHY over MDIC, link, MAC
 *   e1000e_init.c  the initialisation steps start takes: filters, tx, rx, RSS
 *   e1000e_intr.c  interrupts: MSI-X or INTx, the link handler, coalescing
 *   e1000e_stats.c the statistics registers, widened; stats and xstats ops
 *   e1000e_port.c  the port ops (control path) and the PCI probe
 *   e1000e_rxtx.c  the fast path: rx/tx burst, refill, reclaim
 *
 * Ownership: the port owns the PCI device from probe on (closed in the close
 * op), each queue owns its descriptor ring (a DMA zone of the port's, from
 * queue setup to queue release) and its software ring; packets in a
 * software ring belong to the queue until received or reclaimed.
 */
#ifndef E1000E_PRIV_H
#define E1000E_PRIV_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <unic/barrier.h>
#include <unic/bus.h>
#include <unic/mem.h>
#include <unic/pool.h>

#include "e1000e_regs.h"
#include "unic_port_driver.h"

#define E1000E_MAX_QUEUES 2
#define E1000E_DESC_MIN 64
#define E1000E_DESC_MAX 4096
#define E1000E_DESC_ALIGN 8         /* ring length must be a multiple of 128 bytes */
#define E1000E_DESC_DEFAULT 512
#define E1000E_RX_FREE_THRESH 32    /* refill in batches of this many */
#define E1000E_TX_RS_THRESH 32      /* report status every this many descriptors */
#define E1000E_MAX_MTU 9000
#define E1000E_MIN_MTU 68
#define E1000E_SPEED_MAX 1000
/* MSI-X vectors: rx queue q, tx queue q, "other" (link). */
#define E1000E_VEC_RX(q) (q)
#define E1000E_VEC_TX(q) (2 + (q))
#define E1000E_VEC_OTHER 4
#define E1000E_NB_VEC 5

/* The register window and nothing else: what e1000e_hw.c needs. */
struct e1000e_hw {
	volatile uint8_t *regs;   /* BAR0 */
	bool gone;                /* a read returned all-ones where it cannot */
	struct unic_port *port;   /* for logs */
	struct unic_pci_device *dev; /* told when the device reads all-ones (NULL: nobody) */
};

/* ---- register helpers ---------------------------------------------------
 * Every register access goes through these, with the hw pointer explicit;
 * poll32 bounds a wait and returns -ETIMEDOUT instead of spinning forever.
 */

static inline uint32_t read32(const struct e1000e_hw *hw, uint32_t reg)
{
	return *(const volatile uint32_t *)(hw->regs + reg);
}

static inline void write32(const struct e1000e_hw *hw, uint32_t reg, uint32_t val)
{
	*(volatile uint32_t *)(hw->regs + reg) = val;
}

static inline void set_bits32(const struct e1000e_hw *hw, uint32_t reg, uint32_t bits)
{
	write32(hw, reg, read32(hw, reg) | bits);
}

static inline void clear_bits32(const struct e1000e_hw *hw, uint32_t reg, uint32_t bits)
{
	write32(hw, reg, read32(hw, reg) & ~bits);
}

/* Flush posted writes: a read of STATUS (datasheet 4.6: "a read ... flushes"). */
static inline void flush32(const struct e1000e_hw *hw)
{
	(void)read32(hw, E1000E_STATUS);
}

/**
 * The device reads all-ones: mark it gone and, the first time, tell the bus
 * (unic_pci_gone: an eventfd write; the bus stops the port later, from its
 * event dispatch, so any thread may call this, with the port lock or not).
 */
void e1000e_hw_gone(struct e1000e_hw *hw);

/**
 * Read STATUS, which is never all-ones on a device that is there (reserved
 * bits read 0). @return true, after e1000e_hw_gone(), when it is.
 */
bool e1000e_hw_check_gone(struct e1000e_hw *hw);

/**
 * Wait until (reg & mask) == value, checking every 10 us.
 * @return 0, or -ETIMEDOUT after @p timeout_us, or -ENODEV when the register
 *         reads all-ones (the device is gone).
 */
int poll32(struct e1000e_hw *hw, uint32_t reg, uint32_t mask, uint32_t value,
	   unsigned timeout_us);

/* ---- queues ------------------------------------------------------------- */

struct e1000e_rxq {
	/* fast path */
	volatile union e1000e_rx_desc *ring;
	struct unic_pkt **sw_ring;      /* buffer given to each descriptor */
	volatile uint32_t *rdt;         /* tail register */
	struct unic_pool *pool;
	uint16_t nb_desc;
	uint16_t next_to_clean;         /* next descriptor the device fills */
	uint16_t next_to_fill;          /* first descriptor without a buffer (= RDT) */
	uint16_t nb_filled;             /* descriptors with a buffer */
	uint16_t buf_size;              /* bytes the device may write per buffer */
	uint32_t max_frame;             /* longest frame taken: MTU + 22 (header, CRC, one tag) */
	uint16_t headroom;
	uint16_t port_id;
	uint16_t qid;
	bool vlan_strip;
	bool rss;
	struct unic_pkt *chain_head;    /* a frame spread over several buffers */
	struct unic_pkt *chain_tail;
	bool chain_drop;                /* drop the rest of this frame (already counted) */
	uint16_t frame_descs;           /* descriptors the frame in progress took so far */
	/* counters (the driver kit's; errors: frames dropped: descriptor
	 * errors, bad lengths, too long) */
	struct unic_rxq_counters cnt;
	struct unic_counter len_errors; /* length above the buffer */
	struct unic_counter oversize;   /* frames over max_frame or nb_desc - 1 descriptors */
	struct unic_counter empty_segs; /* zero-length segments trimmed from frames */
	/* interrupts */
	struct e1000e_port *ep;
	uint32_t icr_cause;             /* ICR/IMS bit of this queue */
	int irq_fd;                     /* its MSI-X eventfd (non-blocking), -1 if none */
	/* control */
	struct unic_dma dma;
};

struct e1000e_txq {
	volatile union e1000e_tx_desc *ring;
	struct unic_pkt **sw_ring;      /* the packet, at its last descriptor */
	volatile uint32_t *tdt;
	uint16_t *rs_idx;               /* descriptors with RS set, in order */
	uint16_t nb_desc;
	uint16_t next_to_use;
	uint16_t next_to_clean;
	uint16_t nb_used;               /* descriptors not yet reclaimed */
	uint16_t since_rs;              /* descriptors since the last RS */
	uint16_t rs_head, rs_tail;      /* indices into rs_idx, wrapping at nb_desc */
	bool vlan_insert;
	struct unic_txq_counters cnt;   /* errors: packets refused (bad chain, offload
					 * lengths that do not match) */
	struct unic_counter tso;        /* TSO packets handed to the device */
	uint64_t ctx_key;               /* the context the device holds (0: none) */
	struct unic_counter ring_full;
	struct unic_dma dma;
	uint16_t qid;
};

/*
 * The statistics registers (datasheet 10.2.8), in xstats order: every
 * counter QEMU 7.2 implements and the rest of the 82574's.
 * X(id, register, high register of a 64-bit counter or 0, xstats name).
 */
#define E1000E_HW_STATS(X) \
	X(GPRC, E1000E_GPRC, 0, "hw_rx_good_packets") \
	X(GORC, E1000E_GORCL, E1000E_GORCH, "hw_rx_good_bytes") \
	X(GPTC, E1000E_GPTC, 0, "hw_tx_good_packets") \
	X(GOTC, E1000E_GOTCL, E1000E_GOTCH, "hw_tx_good_bytes") \
	X(TPR, E1000E_TPR, 0, "rx_total_packets") \
	X(TOR, E1000E_TORL, E1000E_TORH, "rx_total_bytes") \
	X(TPT, E1000E_TPT, 0, "tx_total_packets") \
	X(TOT, E1000E_TOTL, E1000E_TOTH, "tx_total_bytes") \
	X(BPRC, E1000E_BPRC, 0, "rx_broadcast_packets") \
	X(MPRC, E1000E_MPRC, 0, "rx_multicast_packets") \
	X(BPTC, E1000E_BPTC, 0, "tx_broadcast_packets") \
	X(MPTC, E1000E_MPTC, 0, "tx_multicast_packets") \
	X(CRCERRS, E1000E_CRCERRS, 0, "rx_crc_errors") \
	X(ALGNERRC, E1000E_ALGNERRC, 0, "rx_alignment_errors") \
	X(SYMERRS, E1000E_SYMERRS, 0, "rx_symbol_errors") \
	X(RXERRC, E1000E_RXERRC, 0, "rx_errors") \
	X(MPC, E1000E_MPC, 0, "rx_missed_errors") \
	X(RNBC, E1000E_RNBC, 0, "rx_no_buffer_count") \
	X(RUC, E1000E_RUC, 0, "rx_undersize_errors") \
	X(RFC, E1000E_RFC, 0, "rx_fragment_errors") \
	X(ROC, E1000E_ROC, 0, "rx_oversize_errors") \
	X(RJC, E1000E_RJC, 0, "rx_jabber_errors") \
	X(RLEC, E1000E_RLEC, 0, "rx_length_errors") \
	X(SCC, E1000E_SCC, 0, "tx_single_collision_packets") \
	X(ECOL, E1000E_ECOL, 0, "tx_excessive_collision_packets") \
	X(MCC, E1000E_MCC, 0, "tx_multiple_collision_packets") \
	X(LATECOL, E1000E_LATECOL, 0, "tx_late_collisions") \
	X(COLC, E1000E_COLC, 0, "tx_total_collisions") \
	X(DC, E1000E_DC, 0, "tx_deferred_packets") \
	X(TNCRS, E1000E_TNCRS, 0, "tx_no_carrier_sense_packets") \
	X(CEXTERR, E1000E_CEXTERR, 0, "rx_carrier_ext_errors") \
	X(XONRXC, E1000E_XONRXC, 0, "rx_xon_packets") \
	X(XONTXC, E1000E_XONTXC, 0, "tx_xon_packets") \
	X(XOFFRXC, E1000E_XOFFRXC, 0, "rx_xoff_packets") \
	X(XOFFTXC, E1000E_XOFFTXC, 0, "tx_xoff_packets") \
	X(FCRUC, E1000E_FCRUC, 0, "rx_flow_control_unsupported_packets") \
	X(PRC64, E1000E_PRC64, 0, "rx_size_64_packets") \
	X(PRC127, E1000E_PRC127, 0, "rx_size_65_to_127_packets") \
	X(PRC255, E1000E_PRC255, 0, "rx_size_128_to_255_packets") \
	X(PRC511, E1000E_PRC511, 0, "rx_size_256_to_511_packets") \
	X(PRC1023, E1000E_PRC1023, 0, "rx_size_512_to_1023_packets") \
	X(PRC1522, E1000E_PRC1522, 0, "rx_size_1024_to_max_packets") \
	X(PTC64, E1000E_PTC64, 0, "tx_size_64_packets") \
	X(PTC127, E1000E_PTC127, 0, "tx_size_65_to_127_packets") \
	X(PTC255, E1000E_PTC255, 0, "tx_size_128_to_255_packets") \
	X(PTC511, E1000E_PTC511, 0, "tx_size_256_to_511_packets") \
	X(PTC1023, E1000E_PTC1023, 0, "tx_size_512_to_1023_packets") \
	X(PTC1522, E1000E_PTC1522, 0, "tx_size_1024_to_max_packets")

/* Index of each counter in e1000e_port.hw_stats: E1000E_STAT_MPC, ... */
#define E1000E_STAT_ENUM(id, reg, reg_hi, name) E1000E_STAT_##id,
enum e1000e_hw_stat { E1000E_HW_STATS(E1000E_STAT_ENUM) E1000E_NB_HW_STATS };
#undef E1000E_STAT_ENUM

struct e1000e_port {
	struct e1000e_hw hw;
	struct unic_pci_device *dev;
	struct unic_bus *bus;
	char bdf[UNIC_PCI_BDF_LEN];
	struct e1000e_rxq rxq[E1000E_MAX_QUEUES];
	struct e1000e_txq txq[E1000E_MAX_QUEUES];
	uint64_t hw_stats[E1000E_NB_HW_STATS];
	uint64_t tsctc, iac;          /* TSO contexts, interrupt asserts (xstats) */
	/* filters, reprogrammed at every start */
	bool promisc, allmulti;
	uint8_t uc_addr[E1000E_RAR_SIZE][UNIC_ETHER_ADDR_LEN]; /* [0] is port->mac */
	bool uc_used[E1000E_RAR_SIZE];
	uint32_t vfta[E1000E_VFTA_SIZE];   /* rx_vlan add (vlan_filter_set) */
	/* flow rules (e1000e_flow.c): RA slots they hold (the mac ops leave
	 * them alone), their VFTA bits (ORed with vfta), rules per VID, and
	 * the VLAN rules, which turn RCTL.VFE on */
	bool uc_flow[E1000E_RAR_SIZE];
	uint32_t flow_vfta[E1000E_VFTA_SIZE];
	uint16_t flow_vid_refs[4096];
	unsigned flow_vlan_rules;
	uint32_t mta[E1000E_MTA_SIZE];  /* multicast list as hash bits (RCTL.MO = 0) */
	uint32_t rx_usecs, tx_usecs;
	/* RSS redirection table (rx queue per entry) once set
	 * (unic_port_rss_reta_update); else start spreads over the queues. */
	bool reta_set;
	uint8_t reta[E1000E_RETA_SIZE];
	bool rss_on;                  /* the last start turned RSS on (MRQC) */
	/* flow control once set (unic_port_flow_ctrl_set), reprogrammed at
	 * every start; else the registers are left as reset leaves them */
	bool fc_set;
	struct unic_flow_ctrl fc;
	uint32_t rctl_bsize;          /* RCTL.BSIZE/BSEX chosen by e1000e_init_rx */
	bool link_admin_down;         /* link_set(false): MAC stopped, link reported down */
	/* interrupts */
	bool intr_on;
	bool intx;                    /* one shared INTx source (RXT0) */
	uint32_t intx_armed;          /* atomic: bit q, rx queue q armed */
	bool intx_demux;              /* INTx with link events: the event thread reads ICR */
	int intx_rx_fd;               /* then the rx queues' eventfd, else -1 */
	bool other_watched;
	int irq_fds[5];
	unsigned nb_irq;
	uint64_t link_events;
};

static inline struct e1000e_port *e1000e_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

/*
 * No register access: the device vanished (all-ones), or the bus took it
 * back (unic_port_device_lost marked the port removed under its lock; the
 * bus unmaps BAR0 right after). Control ops run under the port lock, so
 * checking here before touching BAR0 is enough.
 */
static inline bool e1000e_hw_off(const struct e1000e_port *ep)
{
	return __atomic_load_n(&ep->hw.gone, __ATOMIC_ACQUIRE) ||
	       unic_port_is_removed(ep->hw.port);
}

/*
 * Before a control op touches BAR0: -ENODEV when the device is off, or when
 * STATUS reads all-ones now (then marked gone and the bus told), else 0. A
 * vanished device's all-ones never pass for register values or settings.
 */
static inline int e1000e_hw_live(struct e1000e_port *ep)
{
	return e1000e_hw_off(ep) || e1000e_hw_check_gone(&ep->hw) ? -ENODEV : 0;
}

/* e1000e_port.c: the ops table (the port layer's way in; the unit tests
 * and tests/fuzz build a port on fake registers with it). */
extern const struct unic_port_ops e1000e_ops;

/* e1000e_init.c: the steps of start (datasheet 4.6), in order. */
void e1000e_init_link(struct e1000e_port *ep);
void e1000e_init_filters(struct e1000e_port *ep, struct unic_port *port);
void e1000e_init_tx(struct e1000e_port *ep, struct unic_port *port);
int e1000e_init_rx(struct e1000e_port *ep, struct unic_port *port);
/* RSS registers (e1000e_init.c): the key in use (the configured one or
 * the default), RSSRK, RETA from ep->reta, MRQC's hash type bits. */
const uint8_t *e1000e_rss_key(const struct unic_port *port);
void e1000e_rss_key_write(struct e1000e_hw *hw, const uint8_t *key);
void e1000e_reta_write(struct e1000e_port *ep);
uint32_t e1000e_mrqc_types(uint64_t types);
/* Flow control registers from ep->fc (e1000e_init.c). */
void e1000e_fc_write(struct e1000e_port *ep);
int e1000e_init_intr(struct e1000e_port *ep, struct unic_port *port);
void e1000e_init_enable(struct e1000e_port *ep, struct unic_port *port);
/** RCTL's filter bits for the port's settings (promiscuous, VLAN filter, LPE). */
uint32_t e1000e_rctl_filters(const struct e1000e_port *ep, const struct unic_port *port);

/* e1000e_flow.c: flow rules on the receive address and VLAN filter tables. */
int e1000e_flow_validate(struct unic_port *port, const struct unic_flow_rule *rule, struct unic_flow_error *err);
int e1000e_flow_create(struct unic_port *port, const struct unic_flow_rule *rule, void **handle,
		       struct unic_flow_error *err);
void e1000e_flow_destroy(struct unic_port *port, void *handle);

/* e1000e_stats.c */
/** Add the clear-on-read counters to the sums. @return 0, or -ENODEV (gone). */
int e1000e_stats_update(struct e1000e_port *ep);
/** Clear what a previous user left in the counters and count from 0 (probe). */
void e1000e_stats_clear(struct e1000e_port *ep);
int e1000e_stats_get(struct unic_port *port, struct unic_port_stats *st);
int e1000e_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max);
int e1000e_xstats_get(struct unic_port *port, uint64_t *values, unsigned max);

/* e1000e_hw.c */
int e1000e_hw_reset(struct e1000e_hw *hw);
int e1000e_eeprom_read(struct e1000e_hw *hw, uint16_t word, uint16_t *val);
int e1000e_phy_read(struct e1000e_hw *hw, uint32_t reg, uint16_t *val);
int e1000e_phy_write(struct e1000e_hw *hw, uint32_t reg, uint16_t val);
int e1000e_mac_read(struct e1000e_hw *hw, uint8_t mac[UNIC_ETHER_ADDR_LEN]);
void e1000e_rar_set(struct e1000e_hw *hw, unsigned idx, const uint8_t *mac);
/** The 12-bit MTA hash of @p mac under RCTL.MO = @p mo (0..3). */
uint16_t e1000e_mta_hash(const uint8_t mac[UNIC_ETHER_ADDR_LEN], unsigned mo);
/** The 128-word MTA image that accepts exactly the hashes of @p addrs. */
void e1000e_mta_build(const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN], unsigned nb, unsigned mo,
		      uint32_t mta[E1000E_MTA_SIZE]);
/** Decode STATUS. @return 0, or -ENODEV when it reads all-ones (e1000e_hw_gone). */
int e1000e_link_read(struct e1000e_hw *hw, struct unic_link *link);
int e1000e_link_restart(struct e1000e_hw *hw);
int e1000e_link_setup(struct e1000e_hw *hw);

/* e1000e_intr.c */
bool e1000e_intr_wanted(const struct unic_port *port);
int e1000e_intr_on(struct unic_port *port);
void e1000e_intr_off(struct unic_port *port);
void e1000e_coalesce_program(struct e1000e_port *ep);
int e1000e_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max);
int e1000e_rx_intr_affinity(struct unic_port *port, uint16_t q, int cpu);
int e1000e_coalesce_set(struct unic_port *port, const struct unic_coalesce *c);
int e1000e_coalesce_get(struct unic_port *port, struct unic_coalesce *c);

/* e1000e_rxtx.c */
uint16_t e1000e_rx_burst(void *rxq, struct unic_pkt **pkts, uint16_t n);
uint16_t e1000e_tx_burst(void *txq, struct unic_pkt **pkts, uint16_t n);
/* Descriptor ops (unic_port_desc_status, rx_queue_count, desc_read). */
int e1000e_desc_status(struct unic_port *port, bool tx, uint16_t q, uint16_t offset);
int e1000e_rx_queue_count(struct unic_port *port, uint16_t q);
int e1000e_desc_read(struct unic_port *port, bool tx, uint16_t q, uint16_t desc, uint32_t *words,
		     unsigned max);
uint16_t e1000e_tx_prepare(void *txq, struct unic_pkt **pkts, uint16_t n, int *err);
bool e1000e_rx_pending(void *rxq);
int e1000e_rx_intr_enable(void *rxq);
int e1000e_rx_intr_disable(void *rxq);
int e1000e_tx_reclaim(void *txq);
/* Give every free descriptor a buffer (start). @return 0 or -ENOBUFS. */
int e1000e_rxq_fill(struct e1000e_rxq *rxq);
/* Free every buffer the rings hold (stop). */
void e1000e_rxq_drain(struct e1000e_rxq *rxq);
void e1000e_txq_drain(struct e1000e_txq *txq);

#endif /* E1000E_PRIV_H */
