/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e1000e hardware: reset, EEPROM (EERD), PHY over MDIC, MAC address, link.
 *
 * Every wait is bounded (poll32 returns -ETIMEDOUT). The waits follow the
 * 82574 datasheet even where QEMU's model completes at once: a real card
 * needs them.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e1000e_priv.h"

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void e1000e_hw_gone(struct e1000e_hw *hw)
{
	if (__atomic_exchange_n(&hw->gone, true, __ATOMIC_ACQ_REL))
		return;
	UNIC_PORT_LOG(hw->port, WARNING, "the device reads all-ones (STATUS 0xffffffff): surprise removal or a dead PCIe link; its port is stopped and then only stats, close and detach work on it");
	/* An eventfd write and nothing more: the bus's release handler runs
	 * from the event dispatch later and stops the port there
	 * (unic_port_device_lost takes the port lock), never inside this
	 * caller, which may hold that lock (stats, link, coalesce). */
	unic_pci_gone(hw->dev);
}

bool e1000e_hw_check_gone(struct e1000e_hw *hw)
{
	if (read32(hw, E1000E_STATUS) != 0xffffffffu)
		return false;
	e1000e_hw_gone(hw);
	return true;
}

int poll32(struct e1000e_hw *hw, uint32_t reg, uint32_t mask, uint32_t value,
	   unsigned timeout_us)
{
	uint64_t end = now_us() + timeout_us;

	for (;;) {
		uint32_t v = read32(hw, reg);

		if (v == 0xffffffffu && e1000e_hw_check_gone(hw))
			return -ENODEV;
		if ((v & mask) == value)
			return 0;
		if (now_us() >= end)
			return -ETIMEDOUT;
		usleep(10);
	}
}

/*
 * Full reset (datasheet 4.6.1 "Initialization sequence" and 4.6.3 "Reset"):
 * mask every interrupt, stop rx and tx, let pending master requests finish
 * (GIO master disable), then CTRL.RST, wait for it to self-clear and for the
 * EEPROM auto-read, mask again and clear pending causes.
 *
 * QEMU 7.2's RST only reloads RA[0]: rings, filters, ICR keep their values,
 * so the caller reprograms all of them (e1000e_port.c, start).
 */
int e1000e_hw_reset(struct e1000e_hw *hw)
{
	int rc;

	if (e1000e_hw_check_gone(hw))
		return -ENODEV;
	write32(hw, E1000E_IMC, 0xffffffffu);
	write32(hw, E1000E_RCTL, 0);
	write32(hw, E1000E_TCTL, E1000E_TCTL_PSP);
	flush32(hw);
	usleep(10000); /* 4.6.3: let in-flight descriptors settle (Linux waits 10 ms too) */

	/* 5.2.1: disable master accesses and wait until none is pending. */
	set_bits32(hw, E1000E_CTRL, E1000E_CTRL_GIO_MDIS);
	rc = poll32(hw, E1000E_STATUS, E1000E_STATUS_GIO_MES, 0, 80000);
	if (rc == -ENODEV)
		return rc;
	if (rc == -ETIMEDOUT)
		UNIC_PORT_LOG(hw->port, WARNING, "reset: master requests still pending after 80 ms; resetting anyway");

	set_bits32(hw, E1000E_CTRL, E1000E_CTRL_RST);
	usleep(1000); /* 4.6.3: no register access for 1 ms after RST on real parts */
	rc = poll32(hw, E1000E_CTRL, E1000E_CTRL_RST, 0, 100000);
	if (rc < 0) {
		UNIC_PORT_LOG(hw->port, ERR, "reset: CTRL.RST did not clear within 100 ms (%s); is the device alive?",
			      rc == -ENODEV ? "reads all-ones" : "timeout");
		return rc;
	}
	/* The EEPROM auto-read after reset (EECD.AUTO_RD, 10 ms on real parts). */
	rc = poll32(hw, E1000E_EECD, E1000E_EECD_AUTO_RD, E1000E_EECD_AUTO_RD, 10000);
	if (rc < 0) {
		UNIC_PORT_LOG(hw->port, ERR, "reset: EEPROM auto-read not done within 10 ms");
		return rc;
	}
	/* RST clears GIO master disable on real parts; QEMU keeps CTRL as written. */
	clear_bits32(hw, E1000E_CTRL, E1000E_CTRL_GIO_MDIS);
	write32(hw, E1000E_IMC, 0xffffffffu);
	(void)read32(hw, E1000E_ICR);
	write32(hw, E1000E_ICR, 0xffffffffu); /* MSI-X mode: reads do not clear, writes do */
	return 0;
}

/* EEPROM word read through EERD (datasheet 10.2.2.4). */
int e1000e_eeprom_read(struct e1000e_hw *hw, uint16_t word, uint16_t *val)
{
	int rc;

	write32(hw, E1000E_EERD, ((uint32_t)word << E1000E_EERD_ADDR_SHIFT) | E1000E_EERD_START);
	rc = poll32(hw, E1000E_EERD, E1000E_EERD_DONE, E1000E_EERD_DONE, 100000);
	if (rc < 0)
		return rc;
	*val = (uint16_t)(read32(hw, E1000E_EERD) >> E1000E_EERD_DATA_SHIFT);
	return 0;
}

/* PHY access through MDIC (datasheet 10.2.2.7): one at a time, wait for READY. */
static int mdic_op(struct e1000e_hw *hw, uint32_t op, uint32_t reg, uint16_t data, uint16_t *out)
{
	uint32_t v;
	int rc;

	if (reg > 31)
		return -EINVAL;
	write32(hw, E1000E_MDIC, op | data | (reg << E1000E_MDIC_REG_SHIFT) |
		((uint32_t)E1000E_PHY_ADDR << E1000E_MDIC_PHY_SHIFT));
	rc = poll32(hw, E1000E_MDIC, E1000E_MDIC_READY, E1000E_MDIC_READY, 64000);
	if (rc < 0)
		return rc;
	v = read32(hw, E1000E_MDIC);
	if (v & E1000E_MDIC_ERROR)
		return -EIO;
	if (out)
		*out = (uint16_t)(v & E1000E_MDIC_DATA_MASK);
	return 0;
}

int e1000e_phy_read(struct e1000e_hw *hw, uint32_t reg, uint16_t *val)
{
	return mdic_op(hw, E1000E_MDIC_OP_READ, reg, 0, val);
}

int e1000e_phy_write(struct e1000e_hw *hw, uint32_t reg, uint16_t val)
{
	return mdic_op(hw, E1000E_MDIC_OP_WRITE, reg, val, NULL);
}

/*
 * The MAC address: RA[0] when it is valid (loaded from the EEPROM at reset),
 * else EEPROM words 0-2 (datasheet 6.1.1).
 */
int e1000e_mac_read(struct e1000e_hw *hw, uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	uint32_t rah = read32(hw, E1000E_RAH(0)), ral = read32(hw, E1000E_RAL(0));
	uint16_t w;
	int rc;

	if ((rah & E1000E_RAH_AV) && (ral != 0 || (rah & 0xffffu) != 0)) {
		for (unsigned i = 0; i < 4; i++)
			mac[i] = (uint8_t)(ral >> (8 * i));
		mac[4] = (uint8_t)rah;
		mac[5] = (uint8_t)(rah >> 8);
		return 0;
	}
	for (uint16_t i = 0; i < 3; i++) {
		rc = e1000e_eeprom_read(hw, i, &w);
		if (rc < 0)
			return rc;
		mac[2 * i] = (uint8_t)w;
		mac[2 * i + 1] = (uint8_t)(w >> 8);
	}
	return 0;
}

/* Write RA[idx]; NULL clears it (AV off). The address-valid bit goes last. */
void e1000e_rar_set(struct e1000e_hw *hw, unsigned idx, const uint8_t *mac)
{
	if (mac == NULL) {
		write32(hw, E1000E_RAH(idx), 0);
		write32(hw, E1000E_RAL(idx), 0);
		return;
	}
	write32(hw, E1000E_RAL(idx), (uint32_t)mac[0] | (uint32_t)mac[1] << 8 |
		(uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24);
	write32(hw, E1000E_RAH(idx), (uint32_t)mac[4] | (uint32_t)mac[5] << 8 | E1000E_RAH_AV);
}

/*
 * MTA hash (82574 datasheet: MTA and RCTL.MO): 12 bits of the destination
 * address taken with byte 0 as the least significant; MO 00 takes bits
 * 47:36, 01 bits 46:35, 10 bits 45:34, 11 bits 43:32. Only bytes 4 and 5
 * hold them: shift byte 5 left and byte 4 right by the rest of 8.
 */
uint16_t e1000e_mta_hash(const uint8_t mac[UNIC_ETHER_ADDR_LEN], unsigned mo)
{
	static const uint8_t right[4] = { 4, 3, 2, 0 }; /* shift of byte 4 */

	return (uint16_t)(((unsigned)mac[4] >> right[mo & 3] |
			   (unsigned)mac[5] << (8 - right[mo & 3])) & 0xfffu);
}

void e1000e_mta_build(const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN], unsigned nb, unsigned mo,
		      uint32_t mta[E1000E_MTA_SIZE])
{
	memset(mta, 0, E1000E_MTA_SIZE * sizeof(mta[0]));
	for (unsigned i = 0; i < nb; i++) {
		uint16_t h = e1000e_mta_hash(addrs[i], mo);

		/* Word h[11:5], bit h[4:0]. */
		mta[h >> 5] |= 1u << (h & 31);
	}
}

int e1000e_link_read(struct e1000e_hw *hw, struct unic_link *link)
{
	uint32_t st = read32(hw, E1000E_STATUS);
	static const uint32_t speeds[4] = { 10, 100, 1000, 1000 };

	memset(link, 0, sizeof(*link));
	if (st == 0xffffffffu) {
		/* Not "up, 1000 Mb/s, full duplex": the device is gone. */
		e1000e_hw_gone(hw);
		return -ENODEV;
	}
	link->up = (st & E1000E_STATUS_LU) != 0;
	link->autoneg = true;
	if (link->up) {
		link->speed_mbps = speeds[(st & E1000E_STATUS_SPEED_MASK) >> E1000E_STATUS_SPEED_SHIFT];
		link->full_duplex = (st & E1000E_STATUS_FD) != 0;
	}
	return 0;
}

/*
 * Link setup for copper (datasheet 4.6.7): speed and duplex resolved by the
 * PHY (no forcing), CTRL.SLU set, PHY powered up with autonegotiation on.
 */
int e1000e_link_setup(struct e1000e_hw *hw)
{
	uint16_t bmcr;
	int rc;

	clear_bits32(hw, E1000E_CTRL, E1000E_CTRL_FRCSPD | E1000E_CTRL_FRCDPX);
	set_bits32(hw, E1000E_CTRL, E1000E_CTRL_SLU | E1000E_CTRL_ASDE);
	rc = e1000e_phy_read(hw, E1000E_PHY_CTRL, &bmcr);
	if (rc < 0)
		return rc;
	if ((bmcr & E1000E_PHY_CTRL_POWER_DOWN) || !(bmcr & E1000E_PHY_CTRL_AN_ENABLE)) {
		bmcr = (uint16_t)((bmcr & ~E1000E_PHY_CTRL_POWER_DOWN) | E1000E_PHY_CTRL_AN_ENABLE |
				  E1000E_PHY_CTRL_RESTART_AN);
		rc = e1000e_phy_write(hw, E1000E_PHY_CTRL, bmcr);
	}
	return rc;
}

/* Restart autonegotiation (QEMU: link down for 500 ms, then LSC). */
int e1000e_link_restart(struct e1000e_hw *hw)
{
	uint16_t bmcr;
	int rc = e1000e_phy_read(hw, E1000E_PHY_CTRL, &bmcr);

	if (rc < 0)
		return rc;
	bmcr = (uint16_t)((bmcr & ~E1000E_PHY_CTRL_POWER_DOWN) | E1000E_PHY_CTRL_AN_ENABLE |
			  E1000E_PHY_CTRL_RESTART_AN);
	return e1000e_phy_write(hw, E1000E_PHY_CTRL, bmcr);
}
