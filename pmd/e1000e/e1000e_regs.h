/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intel 82574L (e1000e) registers, bits and descriptors: one register a line,
 * its access mode in the comment (RW read/write, RO read-only, RC clear on
 * read, W1C write one to clear, WO write-only, SC self-clearing).
 * Offsets and bits are from the 82574 datasheet (rev 3.x), chapter 10
 * ("Device Registers"), section numbers given where a layout matters.
 * Only what the driver uses is listed.
 */
#ifndef E1000E_REGS_H
#define E1000E_REGS_H

#include <assert.h>
#include <stdint.h>

/* ---- general (10.2.2) ---------------------------------------------------- */
#define E1000E_CTRL      0x00000 /* RW  device control */
#define E1000E_STATUS    0x00008 /* RO  device status */
#define E1000E_EECD      0x00010 /* RW  EEPROM/flash control */
#define E1000E_EERD      0x00014 /* RW  EEPROM read */
#define E1000E_CTRL_EXT  0x00018 /* RW  extended device control */
#define E1000E_MDIC      0x00020 /* RW  MDI control (PHY access) */
#define E1000E_VET       0x00038 /* RW  VLAN ethertype */
/* Flow control (3.7.6, 10.2.2.x): the pause frame's address and type, its
 * pause time, and the rx FIFO thresholds that send XOFF/XON. */
#define E1000E_FCAL      0x00028 /* RW  flow control address low */
#define E1000E_FCAH      0x0002C /* RW  flow control address high */
#define E1000E_FCT       0x00030 /* RW  flow control type */
#define E1000E_FCTTV     0x00170 /* RW  flow control transmit timer value */
#define E1000E_FCRTL     0x02160 /* RW  flow control rx threshold low (XON) */
#define E1000E_FCRTH     0x02168 /* RW  flow control rx threshold high (XOFF) */
#define E1000E_FCAL_PAUSE 0x00C28001u  /* 01:80:C2:00:00:01, the 802.3x pause address */
#define E1000E_FCAH_PAUSE 0x0100u
#define E1000E_FCT_PAUSE  0x8808u      /* MAC control EtherType */
#define E1000E_FCRTL_XONE (1u << 31)   /* send XON below the low threshold */
#define E1000E_FCRT_MASK  0xfff8u      /* thresholds: bytes, 8-byte granularity */
#define E1000E_RX_FIFO    20480u       /* rx packet buffer: PBA.RXA's reset value, 20 KB */

/* CTRL */
#define E1000E_CTRL_FD          (1u << 0)  /* full duplex */
#define E1000E_CTRL_GIO_MDIS    (1u << 2)  /* GIO master disable */
#define E1000E_CTRL_ASDE        (1u << 5)  /* auto-speed detection */
#define E1000E_CTRL_SLU         (1u << 6)  /* set link up */
#define E1000E_CTRL_FRCSPD      (1u << 11) /* force speed */
#define E1000E_CTRL_FRCDPX      (1u << 12) /* force duplex */
#define E1000E_CTRL_RST         (1u << 26) /* SC device reset */
#define E1000E_CTRL_VME         (1u << 30) /* VLAN mode: strip on rx, VLE on tx */
#define E1000E_CTRL_RFCE        (1u << 27) /* rx flow control: obey pause frames */
#define E1000E_CTRL_TFCE        (1u << 28) /* tx flow control: send pause frames */
#define E1000E_CTRL_PHY_RST     (1u << 31) /* PHY reset */

/* STATUS */
#define E1000E_STATUS_FD        (1u << 0)
#define E1000E_STATUS_LU        (1u << 1)
#define E1000E_STATUS_SPEED_SHIFT 6        /* 2 bits: 00 10, 01 100, 1x 1000 Mb/s */
#define E1000E_STATUS_SPEED_MASK (3u << 6)
#define E1000E_STATUS_GIO_MES   (1u << 19) /* GIO master enable status */

/* EECD */
#define E1000E_EECD_PRES        (1u << 8)  /* EEPROM present */
#define E1000E_EECD_AUTO_RD     (1u << 9)  /* auto-read after reset done */

/* EERD (10.2.2.4): start bit 0, done bit 1, word address 15:2, data 31:16 */
#define E1000E_EERD_START       (1u << 0)
#define E1000E_EERD_DONE        (1u << 1)
#define E1000E_EERD_ADDR_SHIFT  2
#define E1000E_EERD_DATA_SHIFT  16

/* CTRL_EXT */
#define E1000E_CTRL_EXT_EIAME   (1u << 24) /* extended interrupt auto-mask enable */
#define E1000E_CTRL_EXT_IAME    (1u << 27) /* interrupt acknowledge auto-mask enable */
#define E1000E_CTRL_EXT_PBA_CLR (1u << 31) /* clear MSI-X PBA bits on IMS write */

/* MDIC (10.2.2.7) */
#define E1000E_MDIC_DATA_MASK   0xffffu
#define E1000E_MDIC_REG_SHIFT   16
#define E1000E_MDIC_PHY_SHIFT   21
#define E1000E_MDIC_OP_WRITE    (1u << 26)
#define E1000E_MDIC_OP_READ     (2u << 26)
#define E1000E_MDIC_READY       (1u << 28)
#define E1000E_MDIC_ERROR       (1u << 30)
#define E1000E_PHY_ADDR         1

/* PHY registers (IEEE 802.3 clause 22, 82574 datasheet 10.3) */
#define E1000E_PHY_CTRL         0x00 /* RW  BMCR */
#define E1000E_PHY_STATUS       0x01 /* RO  BMSR */
#define E1000E_PHY_ID1          0x02 /* RO */
#define E1000E_PHY_ID2          0x03 /* RO */
#define E1000E_PHY_CTRL_RESTART_AN (1u << 9)
#define E1000E_PHY_CTRL_POWER_DOWN (1u << 11)
#define E1000E_PHY_CTRL_AN_ENABLE  (1u << 12)
#define E1000E_PHY_STATUS_AN_DONE  (1u << 5)
#define E1000E_PHY_STATUS_LINK     (1u << 2)

/* ---- interrupts (10.2.4) --------------------------------------------------- */
#define E1000E_ICR       0x000C0 /* RC/W1C interrupt cause read */
#define E1000E_ITR       0x000C4 /* RW  interrupt throttling, 256 ns units */
#define E1000E_ICS       0x000C8 /* WO  interrupt cause set */
#define E1000E_IMS       0x000D0 /* RW  interrupt mask set/read */
#define E1000E_IMC       0x000D8 /* WO  interrupt mask clear */
#define E1000E_EIAC      0x000DC /* RW  extended interrupt auto clear (MSI-X) */
#define E1000E_IAM       0x000E0 /* RW  interrupt acknowledge auto-mask */
#define E1000E_IVAR      0x000E4 /* RW  interrupt vector allocation */
#define E1000E_EITR(n)   (0x000E8 + 4 * (n)) /* RW  per-vector throttling, n = 0..4 */

#define E1000E_ICR_TXDW         (1u << 0)
#define E1000E_ICR_LSC          (1u << 2)
#define E1000E_ICR_RXDMT0       (1u << 4)
#define E1000E_ICR_RXO          (1u << 6)
#define E1000E_ICR_RXT0         (1u << 7)
#define E1000E_ICR_RXQ(q)       (1u << (20 + (q))) /* MSI-X causes */
#define E1000E_ICR_TXQ(q)       (1u << (22 + (q)))
#define E1000E_ICR_OTHER        (1u << 24)
#define E1000E_ICR_INT_ASSERTED (1u << 31)

/* IVAR (10.2.4.9): 4-bit entries, bit 3 valid, bits 2:0 vector */
#define E1000E_IVAR_VALID       0x8u
#define E1000E_IVAR_RXQ_SHIFT(q) (4 * (q))      /* RXQ0 3:0, RXQ1 7:4 */
#define E1000E_IVAR_TXQ_SHIFT(q) (8 + 4 * (q))  /* TXQ0 11:8, TXQ1 15:12 */
#define E1000E_IVAR_OTHER_SHIFT 16
#define E1000E_IVAR_INT_ALLOC   (1u << 31) /* write back DD on every descriptor */

/* ---- receive (10.2.5) ----------------------------------------------------- */
#define E1000E_RCTL      0x00100 /* RW  receive control */
#define E1000E_PSRCTL    0x02170 /* RW  packet split control */
#define E1000E_RDBAL(q)  (0x02800 + 0x100 * (q)) /* RW  ring base, low */
#define E1000E_RDBAH(q)  (0x02804 + 0x100 * (q)) /* RW  ring base, high */
#define E1000E_RDLEN(q)  (0x02808 + 0x100 * (q)) /* RW  ring length in bytes, 128-byte multiple */
#define E1000E_RDH(q)    (0x02810 + 0x100 * (q)) /* RW  head (hardware's) */
#define E1000E_RDT(q)    (0x02818 + 0x100 * (q)) /* RW  tail (software's) */
#define E1000E_RDTR      0x02820 /* RW  rx delay timer, 1.024 us */
#define E1000E_RXDCTL(q) (0x02828 + 0x100 * (q)) /* RW  rx descriptor control */
#define E1000E_RADV      0x0282C /* RW  rx absolute delay, 1.024 us */
#define E1000E_RXCSUM    0x05000 /* RW  rx checksum control */
#define E1000E_RFCTL     0x05008 /* RW  rx filter control */
#define E1000E_MTA(n)    (0x05200 + 4 * (n)) /* RW  multicast table, 128 words */
#define E1000E_RAL(n)    (0x05400 + 8 * (n)) /* RW  receive address low, 16 entries */
#define E1000E_RAH(n)    (0x05404 + 8 * (n)) /* RW  receive address high */
#define E1000E_VFTA(n)   (0x05600 + 4 * (n)) /* RW  VLAN filter table, 128 words */
#define E1000E_MRQC      0x05818 /* RW  multiple receive queues command */
#define E1000E_RETA(n)   (0x05C00 + 4 * (n)) /* RW  redirection table, 32 words of 4 entries */
#define E1000E_RSSRK(n)  (0x05C80 + 4 * (n)) /* RW  RSS key, 10 words */

#define E1000E_MTA_SIZE   128
#define E1000E_RAR_SIZE   16
#define E1000E_VFTA_SIZE  128
#define E1000E_RETA_SIZE  128
#define E1000E_RSS_KEY_LEN 40

#define E1000E_RCTL_EN          (1u << 1)
#define E1000E_RCTL_SBP         (1u << 2)
#define E1000E_RCTL_UPE         (1u << 3)  /* unicast promiscuous */
#define E1000E_RCTL_MPE         (1u << 4)  /* multicast promiscuous */
#define E1000E_RCTL_LPE         (1u << 5)  /* long packets (over 1522) */
#define E1000E_RCTL_LBM_MASK    (3u << 6)
#define E1000E_RCTL_RDMTS_HALF  (0u << 8)
#define E1000E_RCTL_DTYP_MASK   (3u << 10)
#define E1000E_RCTL_MO_SHIFT    12         /* multicast offset: which 12 address bits hash into the MTA */
#define E1000E_RCTL_MO_MASK     (3u << 12)
#define E1000E_RCTL_BAM         (1u << 15) /* accept broadcast */
#define E1000E_RCTL_BSIZE_SHIFT 16         /* 2 bits; meaning depends on BSEX */
#define E1000E_RCTL_BSIZE_MASK  (3u << 16)
#define E1000E_RCTL_VFE         (1u << 18) /* VLAN filter enable */
#define E1000E_RCTL_CFIEN       (1u << 19)
#define E1000E_RCTL_DPF         (1u << 22) /* discard pause frames */
#define E1000E_RCTL_PMCF        (1u << 23)
#define E1000E_RCTL_BSEX        (1u << 25) /* buffer size x16 */
#define E1000E_RCTL_SECRC       (1u << 26) /* strip the Ethernet CRC */
#define E1000E_RCTL_FLXBUF_MASK (0xfu << 27)

#define E1000E_RXDCTL_GRAN      (1u << 24)

#define E1000E_RXCSUM_IPOFLD    (1u << 8)
#define E1000E_RXCSUM_TUOFLD    (1u << 9)
#define E1000E_RXCSUM_PCSD      (1u << 13) /* descriptor carries the RSS hash, not the csum */

#define E1000E_RFCTL_EXTEN      (1u << 15) /* extended rx descriptors */

#define E1000E_RAH_AV           (1u << 31) /* address valid */

#define E1000E_MRQC_RSS_EN      0x1u       /* bits 1:0 = 01: RSS on 2 queues */
#define E1000E_MRQC_TCP_IPV4    (1u << 16)
#define E1000E_MRQC_IPV4        (1u << 17)
#define E1000E_MRQC_TCP_IPV6_EX (1u << 18)
#define E1000E_MRQC_IPV6_EX     (1u << 19)
#define E1000E_MRQC_IPV6        (1u << 20)
#define E1000E_MRQC_TCP_IPV6    (1u << 21)

/* ---- transmit (10.2.6) ----------------------------------------------------- */
#define E1000E_TCTL      0x00400 /* RW  transmit control */
#define E1000E_TIPG      0x00410 /* RW  inter-packet gap */
#define E1000E_TDBAL(q)  (0x03800 + 0x100 * (q)) /* RW */
#define E1000E_TDBAH(q)  (0x03804 + 0x100 * (q)) /* RW */
#define E1000E_TDLEN(q)  (0x03808 + 0x100 * (q)) /* RW  128-byte multiple */
#define E1000E_TDH(q)    (0x03810 + 0x100 * (q)) /* RW */
#define E1000E_TDT(q)    (0x03818 + 0x100 * (q)) /* RW */
#define E1000E_TIDV      0x03820 /* RW  tx interrupt delay, 1.024 us */
#define E1000E_TXDCTL(q) (0x03828 + 0x100 * (q)) /* RW */
#define E1000E_TADV      0x0382C /* RW  tx absolute delay */
#define E1000E_TARC(q)   (0x03840 + 0x100 * (q)) /* RW  tx arbitration count */

#define E1000E_TCTL_EN          (1u << 1)
#define E1000E_TCTL_PSP         (1u << 3)  /* pad short packets */
#define E1000E_TCTL_CT_SHIFT    4
#define E1000E_TCTL_COLD_SHIFT  12
#define E1000E_TCTL_RTLC        (1u << 24)
#define E1000E_TIPG_DEFAULT     (8u | (8u << 10) | (6u << 20)) /* IPGT 8, IPGR1 8, IPGR2 6 (copper) */
#define E1000E_TXDCTL_DEFAULT   ((1u << 24) | (1u << 22) | (1u << 16) | (1u << 8) | 0x1fu) /* GRAN, COUNT_DESC, W/H/PTHRESH */
#define E1000E_TARC_ENABLE      (1u << 10) /* the queue transmits (QEMU checks it too) */

/* ---- statistics (10.2.8): all clear on read ------------------------------- */
#define E1000E_CRCERRS   0x04000 /* RC */
#define E1000E_ALGNERRC  0x04004 /* RC */
#define E1000E_SYMERRS   0x04008 /* RC */
#define E1000E_RXERRC    0x0400C /* RC */
#define E1000E_MPC       0x04010 /* RC */
#define E1000E_SCC       0x04014 /* RC */
#define E1000E_ECOL      0x04018 /* RC */
#define E1000E_MCC       0x0401C /* RC */
#define E1000E_LATECOL   0x04020 /* RC */
#define E1000E_COLC      0x04028 /* RC */
#define E1000E_DC        0x04030 /* RC */
#define E1000E_TNCRS     0x04034 /* RC */
#define E1000E_CEXTERR   0x0403C /* RC */
#define E1000E_RLEC      0x04040 /* RC */
#define E1000E_XONRXC    0x04048 /* RC */
#define E1000E_XONTXC    0x0404C /* RC */
#define E1000E_XOFFRXC   0x04050 /* RC */
#define E1000E_XOFFTXC   0x04054 /* RC */
#define E1000E_FCRUC     0x04058 /* RC */
#define E1000E_PRC64     0x0405C /* RC */
#define E1000E_PRC127    0x04060 /* RC */
#define E1000E_PRC255    0x04064 /* RC */
#define E1000E_PRC511    0x04068 /* RC */
#define E1000E_PRC1023   0x0406C /* RC */
#define E1000E_PRC1522   0x04070 /* RC */
#define E1000E_GPRC      0x04074 /* RC */
#define E1000E_BPRC      0x04078 /* RC */
#define E1000E_MPRC      0x0407C /* RC */
#define E1000E_GPTC      0x04080 /* RC */
#define E1000E_GORCL     0x04088 /* RC  read before GORCH */
#define E1000E_GORCH     0x0408C /* RC  clears both halves */
#define E1000E_GOTCL     0x04090 /* RC */
#define E1000E_GOTCH     0x04094 /* RC */
#define E1000E_RNBC      0x040A0 /* RC */
#define E1000E_RUC       0x040A4 /* RC */
#define E1000E_RFC       0x040A8 /* RC */
#define E1000E_ROC       0x040AC /* RC */
#define E1000E_RJC       0x040B0 /* RC */
#define E1000E_MGTPRC    0x040B4 /* RC */
#define E1000E_MGTPDC    0x040B8 /* RC */
#define E1000E_MGTPTC    0x040BC /* RC */
#define E1000E_TORL      0x040C0 /* RC */
#define E1000E_TORH      0x040C4 /* RC */
#define E1000E_TOTL      0x040C8 /* RC */
#define E1000E_TOTH      0x040CC /* RC */
#define E1000E_TPR       0x040D0 /* RC */
#define E1000E_TPT       0x040D4 /* RC */
#define E1000E_PTC64     0x040D8 /* RC */
#define E1000E_PTC127    0x040DC /* RC */
#define E1000E_PTC255    0x040E0 /* RC */
#define E1000E_PTC511    0x040E4 /* RC */
#define E1000E_PTC1023   0x040E8 /* RC */
#define E1000E_PTC1522   0x040EC /* RC */
#define E1000E_MPTC      0x040F0 /* RC */
#define E1000E_BPTC      0x040F4 /* RC */
#define E1000E_TSCTC     0x040F8 /* RC */
#define E1000E_TSCTFC    0x040FC /* RC */
#define E1000E_IAC       0x04100 /* RC */

#define E1000E_BAR0_LEN  0x20000 /* 128 KiB of registers */

/* ---- descriptors ---------------------------------------------------------- */

/* Extended receive descriptor (7.1.5.2): the driver writes the buffer
 * address; the device overwrites all 16 bytes with the write-back view. */
union e1000e_rx_desc {
	struct {
		uint64_t buffer_addr;
		uint64_t reserved;     /* must be 0: overlaps status_error (DD) */
	} read;
	struct {
		uint32_t mrq;          /* 3:0 RSS type, 12:8 queue */
		uint32_t rss;          /* RSS hash (RXCSUM.PCSD), else ip_id/csum */
		uint32_t status_error; /* 19:0 status, 31:20 errors */
		uint16_t length;
		uint16_t vlan;
	} wb;
};
static_assert(sizeof(union e1000e_rx_desc) == 16, "82574 rx descriptors are 16 bytes");

#define E1000E_RXD_STAT_DD      (1u << 0)
#define E1000E_RXD_STAT_EOP     (1u << 1)
#define E1000E_RXD_STAT_IXSM    (1u << 2)  /* checksum not computed */
#define E1000E_RXD_STAT_VP      (1u << 3)  /* VLAN tag stripped into vlan */
#define E1000E_RXD_STAT_UDPCS   (1u << 4)
#define E1000E_RXD_STAT_TCPCS   (1u << 5)
#define E1000E_RXD_STAT_IPCS    (1u << 6)
#define E1000E_RXD_ERR_CE       (1u << 24) /* CRC or alignment */
#define E1000E_RXD_ERR_SE       (1u << 25) /* symbol */
#define E1000E_RXD_ERR_SEQ      (1u << 26) /* sequence */
#define E1000E_RXD_ERR_CXE      (1u << 28) /* carrier extension */
#define E1000E_RXD_ERR_TCPE     (1u << 29) /* TCP/UDP checksum */
#define E1000E_RXD_ERR_IPE      (1u << 30) /* IPv4 header checksum */
#define E1000E_RXD_ERR_RXE      (1u << 31) /* rx data error */
#define E1000E_RXD_ERR_FRAME    (E1000E_RXD_ERR_CE | E1000E_RXD_ERR_SE | E1000E_RXD_ERR_SEQ | \
				 E1000E_RXD_ERR_CXE | E1000E_RXD_ERR_RXE)
#define E1000E_RXD_MRQ_RSS_TYPE_MASK 0xfu

/* Transmit descriptors (7.2.10): data (extended) and context views. */
union e1000e_tx_desc {
	struct {
		uint64_t buffer_addr;
		uint32_t cmd_len;      /* 19:0 length, 23:20 DTYP, 31:24 DCMD */
		uint32_t status_popts; /* 3:0 status, 15:8 POPTS, 31:16 VLAN */
	} data;
	struct {
		uint8_t ipcss, ipcso;
		uint16_t ipcse;
		uint8_t tucss, tucso;
		uint16_t tucse;
		uint32_t cmd_len;      /* 19:0 payload length (TSO), 23:20 DTYP, 31:24 TUCMD */
		uint8_t status, hdr_len;
		uint16_t mss;
	} ctx;
	struct {
		uint64_t addr;
		uint64_t fields;
	} wb;
};
static_assert(sizeof(union e1000e_tx_desc) == 16, "82574 tx descriptors are 16 bytes");

#define E1000E_TXD_DTYP_D       (1u << 20) /* data descriptor */
#define E1000E_TXD_DTYP_C       (0u << 20) /* context descriptor */
#define E1000E_TXD_CMD_EOP      (1u << 24)
#define E1000E_TXD_CMD_IFCS     (1u << 25) /* insert the CRC */
#define E1000E_TXD_CMD_TSE      (1u << 26)
#define E1000E_TXD_CMD_RS       (1u << 27) /* report status (write back DD) */
#define E1000E_TXD_CMD_DEXT     (1u << 29) /* extended descriptor */
#define E1000E_TXD_CMD_VLE      (1u << 30) /* insert the VLAN tag */
#define E1000E_TXD_CMD_IDE      (1u << 31)
#define E1000E_TXD_TUCMD_TCP    (1u << 24) /* context: TCP (else UDP) */
#define E1000E_TXD_TUCMD_IP     (1u << 25) /* context: IPv4 (else IPv6) */
#define E1000E_TXD_STAT_DD      (1u << 0)
#define E1000E_TXD_POPTS_IXSM   (1u << 8)
#define E1000E_TXD_POPTS_TXSM   (1u << 9)
#define E1000E_TXD_LEN_MASK     0xfffffu
#define E1000E_TXD_VLAN_SHIFT   16

#endif /* E1000E_REGS_H */
