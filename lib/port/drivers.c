/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one explicit table of drivers, and virtual device creation from a
 * spec. Drivers are listed here rather than registered by constructors:
 * what a build contains is read in one place, and a static link keeps
 * every driver (an object reached only through its constructor would be
 * left out of it).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port_private.h"
#include "unic_pmds.h"

const struct unic_driver *const unic_drivers[] = {
	&unic_null_driver,
	&unic_ring_driver,
	&unic_e1000e_driver,
	&unic_virtio_driver,
	&unic_af_packet_driver,
	&unic_memif_driver,
	&unic_af_xdp_driver,
	NULL,
};

static void driver_names(char *buf, size_t len, bool vdev)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; unic_drivers[i] && off < len; i++)
		if (!vdev || unic_drivers[i]->vdev_create)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						unic_drivers[i]->name);
}

int unic_vdev_create(const char *spec, struct unic_port **out)
{
	char name[UNIC_PORT_NAMESIZE], drv[UNIC_PORT_NAMESIZE], known[128];
	const char *comma, *args;
	size_t len, dlen;

	*out = NULL;
	if (spec == NULL || *spec == '\0') {
		UNIC_LOG(ERR, PORT, "virtual device: empty spec; expected NAME[,key=value...], e.g. ring0 or null0,size=64");
		return -EINVAL;
	}
	comma = strchr(spec, ',');
	len = comma ? (size_t)(comma - spec) : strlen(spec);
	args = comma ? comma + 1 : "";
	if (len == 0 || len >= sizeof(name)) {
		UNIC_LOG(ERR, PORT, "virtual device '%s': the name must be 1..%d characters", spec,
			 UNIC_PORT_NAMESIZE - 1);
		return -EINVAL;
	}
	memcpy(name, spec, len);
	name[len] = '\0';
	for (size_t i = 0; i < len; i++) {
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-') {
			UNIC_LOG(ERR, PORT, "virtual device '%s': the name may hold letters, digits, '_' and '-' only",
				 spec);
			return -EINVAL;
		}
	}
	if (unic_kvargs_syntax(spec, comma ? args : NULL) < 0)
		return -EINVAL;
	/* The driver is the name without its trailing digits: ring0 -> ring. */
	dlen = len;
	while (dlen > 0 && isdigit((unsigned char)name[dlen - 1]))
		dlen--;
	memcpy(drv, name, dlen);
	drv[dlen] = '\0';
	/* DPDK's names (net_null0, ...): unic's driver, DPDK's devargs; the
	 * port keeps the name given. */
	size_t alen = strlen(args) + 1;
	char *aargs = malloc(alen);
	const char *udrv = drv;
	int rc;

	if (aargs == NULL)
		return -ENOMEM;
	rc = unic_vdev_alias(spec, drv, args, &udrv, aargs, alen);
	if (rc < 0)
		goto out;
	if (rc == 1)
		args = aargs;
	rc = -EINVAL;
	for (unsigned i = 0; unic_drivers[i]; i++) {
		const struct unic_driver *d = unic_drivers[i];

		if (d->vdev_create && strcmp(d->name, udrv) == 0) {
			struct unic_port *p = unic_port_get_by_name(name);

			if (p) {
				unic_port_put(p);
				UNIC_LOG(ERR, PORT, "virtual device '%s': a port named %s exists already", spec, name);
				rc = -EEXIST;
				goto out;
			}
			rc = d->vdev_create(name, args, out);
			goto out;
		}
	}
	driver_names(known, sizeof(known), true);
	UNIC_LOG(ERR, PORT, "virtual device '%s': no virtual driver '%s' (the name is the driver plus a number); drivers: %s, or DPDK's names net_null, net_ring, net_af_xdp, net_af_packet, net_memif",
		 spec, drv, known);
out:
	free(aargs);
	return rc;
}
