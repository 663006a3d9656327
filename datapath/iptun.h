/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ovs-iptun: ipip and fou tunnel devices for Open vSwitch's kernel datapath.
 */

#ifndef OVS_IPTUN_H
#define OVS_IPTUN_H 1

#include <linux/netdevice.h>
#include <net/gro_cells.h>

/* One metadata-mode tunnel device, owned by one OVS vport. */
struct iptun_dev {
	struct net_device *dev;
	struct gro_cells gro_cells;
	bool fou;			/* false: ipip (IP protocol 4). */
	__be16 dst_port;		/* fou: the UDP port, network order. */
	struct socket __rcu *sock;	/* fou: the receive socket, when up. */
};

struct net_device *iptun_dev_create(struct net *net, const char *name,
				    bool fou, __be16 dst_port);
int iptun_dev_init_module(void);
void iptun_dev_exit_module(void);

#endif /* OVS_IPTUN_H */
