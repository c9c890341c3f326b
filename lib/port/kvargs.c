/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "key=value,key=value" arguments of virtual device specs.
 *
 * The grammar is strict, so that a typo is an error and not a key that is
 * silently skipped: items are separated by single commas, none is empty
 * (no ",,", no comma at either end), each is KEY=VALUE with a non-empty
 * KEY, and a key is given at most once. Numbers are decimal ("010" is ten);
 * hexadecimal only with a 0x prefix; no sign, no spaces, nothing after the
 * digits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port_private.h"

/* A walk over the items of an argument string; "" has none. */
struct kv_iter {
	const char *p;
	bool done;
};

static void kv_start(struct kv_iter *it, const char *args)
{
	it->p = args != NULL ? args : "";
	it->done = *it->p == '\0';
}

/* The next item (possibly empty): @return false after the last one. */
static bool kv_item(struct kv_iter *it, const char **item, size_t *len)
{
	const char *e;

	if (it->done)
		return false;
	e = strchr(it->p, ',');
	*item = it->p;
	*len = e != NULL ? (size_t)(e - it->p) : strlen(it->p);
	if (e != NULL)
		it->p = e + 1;
	else
		it->done = true;
	return true;
}

/* The key of @p item: its length (up to '='), 0 if it has no '='. */
static size_t kv_key_len(const char *item, size_t len)
{
	const char *eq = memchr(item, '=', len);

	return eq != NULL ? (size_t)(eq - item) : 0;
}

int unic_kvargs_syntax(const char *spec, const char *args)
{
	struct kv_iter it, prev;
	const char *item, *other;
	size_t len, olen;
	unsigned n = 0;

	kv_start(&it, args);
	if (args != NULL && *args == '\0')
		it.done = false; /* "null0,": one empty argument after the comma */
	while (kv_item(&it, &item, &len)) {
		size_t klen = kv_key_len(item, len);

		n++;
		if (len == 0) {
			UNIC_LOG(ERR, PORT, "virtual device '%s': argument %u is empty (two commas in a "
				 "row, or a comma at the start or the end); expected NAME[,key=value...], "
				 "e.g. null0,size=64", spec, n);
			return -EINVAL;
		}
		if (klen == 0) {
			UNIC_LOG(ERR, PORT, "virtual device '%s': argument '%.*s' is not key=value; "
				 "expected NAME[,key=value...], e.g. null0,size=64", spec, (int)len, item);
			return -EINVAL;
		}
		kv_start(&prev, args);
		while (kv_item(&prev, &other, &olen) && other != item) {
			if (kv_key_len(other, olen) == klen && strncmp(other, item, klen) == 0) {
				UNIC_LOG(ERR, PORT, "virtual device '%s': key '%.*s' is given twice; "
					 "give each key once", spec, (int)klen, item);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int unic_kvargs_get(const char *args, const char *key, const char **val)
{
	size_t klen = strlen(key), len;
	struct kv_iter it;
	const char *item;

	kv_start(&it, args);
	while (kv_item(&it, &item, &len)) {
		if (len > klen && strncmp(item, key, klen) == 0 && item[klen] == '=') {
			*val = item + klen + 1;
			return (int)(len - klen - 1);
		}
	}
	return -ENOENT;
}

int unic_kvargs_check(const char *drv, const char *args, const char *const *keys)
{
	struct kv_iter it;
	const char *item;
	size_t len;

	kv_start(&it, args);
	while (kv_item(&it, &item, &len)) {
		size_t klen = kv_key_len(item, len);
		bool known = false;

		for (unsigned i = 0; keys[i] && klen > 0; i++)
			if (strlen(keys[i]) == klen && strncmp(item, keys[i], klen) == 0)
				known = true;
		if (!known) {
			char list[256] = "";
			size_t off = 0;

			for (unsigned i = 0; keys[i] && off < sizeof(list); i++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s=...",
							i ? ", " : "", keys[i]);
			if (len == 0)
				UNIC_LOG(ERR, PORT, "%s: an empty argument in '%s' (two commas in a row, or a "
					 "comma at the start or the end); accepted: %s", drv, args,
					 list[0] ? list : "none");
			else
				UNIC_LOG(ERR, PORT, "%s: argument '%.*s' %s; accepted: %s", drv, (int)len,
					 item, klen > 0 ? "is unknown" : "is not key=value",
					 list[0] ? list : "none");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * @p s (@p len bytes): decimal digits, or 0x and hex digits, and nothing
 * else. @return 0, or -EINVAL with @p why set, or -ERANGE (above UINT64_MAX).
 */
static int kv_number(const char *s, size_t len, uint64_t *out, char *why, size_t whylen)
{
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len) {
		snprintf(why, whylen, "%s", len == 0 ? "nothing" : "no digits after 0x");
		return -EINVAL;
	}
	for (; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else {
			snprintf(why, whylen, "'%c' where a %s digit belongs", c,
				 base == 16 ? "hex" : "decimal");
			return -EINVAL;
		}
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int unic_kvargs_u32(const char *drv, const char *args, const char *key,
		    uint32_t min, uint32_t max, uint32_t *out)
{
	const char *v;
	char why[64];
	int len = unic_kvargs_get(args, key, &v);
	uint64_t x;
	int rc;

	if (len < 0)
		return len;
	rc = kv_number(v, (size_t)len, &x, why, sizeof(why));
	if (rc == -EINVAL) {
		UNIC_LOG(ERR, PORT, "%s: %s=%.*s in '%s': expected a decimal number from %u to %u "
			 "(hexadecimal only with 0x), found %s", drv, key, len, v, args, min, max, why);
		return -EINVAL;
	}
	if (rc < 0 || x < min || x > max) {
		UNIC_LOG(ERR, PORT, "%s: %s=%.*s in '%s' is out of range; expected a number from %u "
			 "to %u", drv, key, len, v, args, min, max);
		return -EINVAL;
	}
	*out = (uint32_t)x;
	return 0;
}

/*
 * DPDK's virtual device names, and the devargs DPDK spells or uses where
 * unic's drivers differ. Every other key goes to unic's driver as it is:
 * these drivers already take DPDK's spelling (memif's socket=, role=, id=,
 * rsize=, bsize=; af_xdp's iface=, start_queue=, queue_count=; af_packet's
 * iface=, qpairs=, blocksz=, framesz=, framecnt=, qdisc_bypass=). A key of
 * DPDK's that unic has no use for is dropped when its value is what unic
 * does anyway, and refused with the reason otherwise.
 */
struct vdev_alias_key {
	const char *key;
	const char *same;   /* the value that asks for what unic does anyway; NULL: none */
	const char *why;    /* why any other value is refused */
};

struct vdev_alias {
	const char *dpdk;   /* DPDK's driver name */
	const char *unic;   /* unic's */
	const struct vdev_alias_key *keys;
};

static const struct vdev_alias_key null_alias_keys[] = {
	{ "copy", "0", "unic's null port copies nothing (its rx hands out pool buffers as they are, its tx frees them); leave copy= out, or copy=0" },
	{ "no-rx", "0", "unic's null port always receives; for a port that receives nothing use a ring port without a peer (--vdev ring0); leave no-rx= out, or no-rx=0" },
	{ NULL, NULL, NULL },
};

static const struct vdev_alias_key ring_alias_keys[] = {
	{ "nodeaction", NULL, "unic's ring ports have no named rings to create or attach to; link two ports as a pair with peer= instead: --vdev net_ring0 --vdev net_ring1,peer=net_ring0" },
	{ NULL, NULL, NULL },
};

static const struct vdev_alias_key af_xdp_alias_keys[] = {
	{ "shared_umem", "0", "each unic af_xdp queue registers a UMEM of its own (from the packet pool with pool_umem=1, the default) and shares none with another port; leave shared_umem= out, or shared_umem=0" },
	{ NULL, NULL, NULL },
};

static const struct vdev_alias_key no_alias_keys[] = {
	{ NULL, NULL, NULL },
};

static const struct vdev_alias vdev_aliases[] = {
	{ "net_null", "null", null_alias_keys },
	{ "net_ring", "ring", ring_alias_keys },
	{ "net_af_xdp", "af_xdp", af_xdp_alias_keys },
	{ "net_af_packet", "af_packet", no_alias_keys },
	{ "net_memif", "memif", no_alias_keys },
};

int unic_vdev_alias(const char *spec, const char *drv, const char *args, const char **unic_drv,
		    char *out, size_t outlen)
{
	const struct vdev_alias *a = NULL;
	struct kv_iter it;
	const char *item;
	size_t len, off = 0;

	for (unsigned i = 0; i < sizeof(vdev_aliases) / sizeof(vdev_aliases[0]); i++)
		if (strcmp(drv, vdev_aliases[i].dpdk) == 0)
			a = &vdev_aliases[i];
	if (a == NULL)
		return 0;
	if (args == NULL)
		args = "";
	if (outlen == 0 || strlen(args) >= outlen) {
		UNIC_LOG(ERR, PORT, "virtual device '%s': its arguments are longer than %zu characters",
			 spec, outlen ? outlen - 1 : 0);
		return -EINVAL;
	}
	kv_start(&it, args);
	while (kv_item(&it, &item, &len)) {
		size_t klen = kv_key_len(item, len);
		const struct vdev_alias_key *k = NULL;

		for (unsigned i = 0; a->keys[i].key != NULL && klen > 0; i++)
			if (strlen(a->keys[i].key) == klen && strncmp(item, a->keys[i].key, klen) == 0)
				k = &a->keys[i];
		if (k != NULL) {
			const char *v = item + klen + 1;
			size_t vlen = len - klen - 1;

			if (k->same != NULL && strlen(k->same) == vlen && strncmp(v, k->same, vlen) == 0)
				continue;
			UNIC_LOG(ERR, PORT, "virtual device '%s': DPDK's %.*s is not taken: %s", spec,
				 (int)len, item, k->why);
			return -EINVAL;
		}
		/* Unknown keys and malformed items go on: the driver names them. */
		if (off > 0)
			out[off++] = ',';
		memcpy(out + off, item, len);
		off += len;
	}
	out[off] = '\0';
	*unic_drv = a->unic;
	return 1;
}
