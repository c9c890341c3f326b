/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_xdp port's XDP program: libxdp's default one or the user's object
 * (xdp_prog=), what is already attached to the interface (a program libxdp
 * cannot share is refused; libxdp's own, left by a crashed process, is
 * taken over and detached at stop), and libxdp's and libbpf's messages
 * into the debug log (docs/ports.md, "af_xdp").
 */
#include <errno.h>
#include <linux/if_link.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "af_xdp_priv.h"

/* libxdp and libbpf talk to stderr by default; their messages go to the
 * debug log, ours say what happened and what to do. */
static int afxdp_lib_print(const char *fmt, va_list ap)
{
	char buf[256];
	size_t len;

	if (UNIC_LOG_DEBUG > unic_log_levels[UNIC_LOGC_PMD])
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	unic_log(UNIC_LOG_DEBUG, UNIC_LOGC_PMD, "af_xdp: libxdp: %s", buf);
	return 0;
}

static int afxdp_xdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return afxdp_lib_print(fmt, ap);
}

static int afxdp_bpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return afxdp_lib_print(fmt, ap);
}

/* ---- the XDP program ---------------------------------------------------- */

static enum xdp_attach_mode afxdp_attach_mode(const struct afxdp_port *xp)
{
	if (xp->xdp_mode == XDP_FLAGS_DRV_MODE)
		return XDP_MODE_NATIVE;
	if (xp->xdp_mode == XDP_FLAGS_SKB_MODE)
		return XDP_MODE_SKB;
	return XDP_MODE_UNSPEC;
}

const char *afxdp_mode_name(enum xdp_attach_mode m)
{
	switch (m) {
	case XDP_MODE_NATIVE: return "native";
	case XDP_MODE_SKB: return "generic (skb)";
	case XDP_MODE_HW: return "offloaded";
	default: return "unknown";
	}
}

/*
 * What is attached to the interface now: refuse a program libxdp cannot
 * share (one not attached through its dispatcher), and drop the
 * references a crashed process left in bpffs (libxdp_clean_references).
 */
int afxdp_check_attached(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);
	struct xdp_multiprog *mp;
	int rc = 0;

	libxdp_clean_references(xp->ifindex);
	mp = xdp_multiprog__get_from_ifindex(xp->ifindex);
	if (libxdp_get_error(mp) || mp == NULL)
		return 0;  /* nothing attached */
	if (xdp_multiprog__is_legacy(mp)) {
		struct xdp_program *main = xdp_multiprog__main_prog(mp);

		if (xp->prog_path[0] == '\0' && main &&
		    strcmp(xdp_program__name(main), "xsk_def_prog") == 0) {
			/* libxdp's own program, attached without the dispatcher
			 * (no bpffs): a crashed process left it, or another one
			 * uses it. libxdp takes it over, and detaches it when its
			 * last socket here closes. */
			UNIC_PORT_LOG(port, WARNING, "%s already has libxdp's AF_XDP program attached "
				      "(left by a process that crashed, or in use by another): reusing it; "
				      "this port detaches it when it stops (or run `ip link set dev %s "
				      "xdp off`)", xp->ifname, xp->ifname);
			xp->adopted_prog_id = xdp_program__id(main);
			xdp_multiprog__close(mp);
			return 0;
		}

		UNIC_PORT_LOG(port, ERR,
			      "%s has XDP program '%s' attached (%s mode) outside libxdp's dispatcher, "
			      "which cannot be shared with the AF_XDP program; remove it with "
			      "`ip link set dev %s xdp off` (or xdpgeneric off), or load it with "
			      "`xdp-loader load %s FILE.o` so both go through the dispatcher",
			      xp->ifname, main ? xdp_program__name(main) : "?",
			      afxdp_mode_name(xdp_multiprog__attach_mode(mp)), xp->ifname, xp->ifname);
		rc = -EBUSY;
	}
	xdp_multiprog__close(mp);
	return rc;
}

int afxdp_prog_load(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);
	struct xdp_program *prog;
	char err[128];
	int rc;

	prog = xdp_program__open_file(xp->prog_path, xp->prog_sec[0] ? xp->prog_sec : NULL, NULL);
	rc = (int)libxdp_get_error(prog);
	if (rc || prog == NULL) {
		libxdp_strerror(rc, err, sizeof(err));
		UNIC_PORT_LOG(port, ERR, "xdp_prog=%s%s%s: cannot open it: %s; expected a BPF object "
			      "file (clang -target bpf) with an XDP program and an XSKMAP named xsks_map",
			      xp->prog_path, xp->prog_sec[0] ? " section " : "", xp->prog_sec, err);
		return rc ? rc : -EINVAL;
	}
	rc = xdp_program__attach(prog, xp->ifindex, afxdp_attach_mode(xp), 0);
	if (rc) {
		libxdp_strerror(rc, err, sizeof(err));
		UNIC_PORT_LOG(port, ERR, "xdp_prog=%s: cannot attach it to %s: %s", xp->prog_path,
			      xp->ifname, err);
		xdp_program__close(prog);
		return rc;
	}
	xp->xsks_map_fd = bpf_object__find_map_fd_by_name(xdp_program__bpf_obj(prog), "xsks_map");
	if (xp->xsks_map_fd < 0) {
		UNIC_PORT_LOG(port, ERR, "xdp_prog=%s has no map named xsks_map: the program must "
			      "redirect to an XSKMAP of that name (bpf_redirect_map(&xsks_map, "
			      "ctx->rx_queue_index, XDP_PASS))", xp->prog_path);
		xdp_program__detach(prog, xp->ifindex, afxdp_attach_mode(xp), 0);
		xdp_program__close(prog);
		return -EINVAL;
	}
	xp->prog = prog;
	return 0;
}

void afxdp_prog_unload(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);

	if (xp->prog == NULL)
		return;
	xdp_program__detach(xp->prog, xp->ifindex, afxdp_attach_mode(xp), 0);
	xdp_program__close(xp->prog);
	xp->prog = NULL;
	xp->xsks_map_fd = -1;
}

/* libxdp detaches the program it attached when the last socket closes, but
 * not one it found attached: detach the one this port took over, if it is
 * still there. */
void afxdp_adopted_detach(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);
	struct xdp_multiprog *mp;

	if (xp->adopted_prog_id == 0)
		return;
	mp = xdp_multiprog__get_from_ifindex(xp->ifindex);
	if (!libxdp_get_error(mp) && mp) {
		struct xdp_program *main = xdp_multiprog__main_prog(mp);

		if (xdp_multiprog__is_legacy(mp) && main && xdp_program__id(main) == xp->adopted_prog_id &&
		    xdp_multiprog__detach(mp) == 0)
			UNIC_PORT_LOG(port, INFO, "detached the AF_XDP program it found on %s", xp->ifname);
		xdp_multiprog__close(mp);
	}
	xp->adopted_prog_id = 0;
}

void afxdp_lib_print_init(void)
{
	libxdp_set_print(afxdp_xdp_print);
	libbpf_set_print(afxdp_bpf_print);
}

