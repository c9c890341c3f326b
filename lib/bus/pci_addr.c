/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI addresses: "DDDD:BB:DD.F" or "BB:DD.F" in hex, always formatted as
 * "dddd:bb:dd.f" (the form sysfs uses). lib/env's -a option parses through
 * here, so there is one definition of what a BDF is.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <unic/bus.h>

#include "bus_private.h"

static bool pci_hex_field(const char *s, int digits, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < digits; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isxdigit(c))
			return false;
		v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	*out = v;
	return true;
}

int unic_pci_addr_parse(const char *s, struct unic_pci_addr *addr)
{
	unsigned dom = 0, bus, dev;
	const char *p = s;
	size_t len;

	if (s == NULL || addr == NULL)
		return -EINVAL;
	len = strlen(s);
	if (len == 12) {
		if (!pci_hex_field(p, 4, &dom) || p[4] != ':')
			return -EINVAL;
		p += 5;
	} else if (len != 7) {
		return -EINVAL;
	}
	if (!pci_hex_field(p, 2, &bus) || p[2] != ':' || !pci_hex_field(p + 3, 2, &dev) ||
	    p[5] != '.' || p[6] < '0' || p[6] > '7' || dev > 0x1f)
		return -EINVAL;
	addr->domain = dom;
	addr->bus = (uint8_t)bus;
	addr->dev = (uint8_t)dev;
	addr->func = (uint8_t)(p[6] - '0');
	return 0;
}

char *unic_pci_addr_fmt(const struct unic_pci_addr *addr, char *buf, size_t len)
{
	if (buf != NULL && len > 0)
		snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned)addr->domain,
			 addr->bus, addr->dev, addr->func);
	return buf;
}

int bus_pci_addr_cmp(const struct unic_pci_addr *a, const struct unic_pci_addr *b)
{
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return 0;
}
