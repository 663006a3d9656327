/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ovs-iptun: metadata-mode ipip, fou and gue tunnel devices.
 */

#ifndef OVS_IPTUN_H
#define OVS_IPTUN_H 1

#include <linux/netdevice.h>
#include <net/gro_cells.h>

/* Netlink attributes of kinds iptun_fou and iptun_gue (IFLA_INFO_DATA).
 * ABI: Open vSwitch's dpif-netlink-rtnl.c (patches/0013) uses these
 * numbers.
 */
enum {
	IFLA_IPTUN_FOU_UNSPEC,
	IFLA_IPTUN_FOU_PORT,		/* be16: the UDP port, required. */
	IFLA_IPTUN_FOU_IPPROTO,		/* u8, iptun_fou only: the inner
					 * protocol sent, 4 (IPv4, default) or
					 * 41 (IPv6).
					 */
	__IFLA_IPTUN_FOU_MAX
};
#define IFLA_IPTUN_FOU_MAX (__IFLA_IPTUN_FOU_MAX - 1)

/* One metadata-mode tunnel device. */
struct iptun_dev {
	struct net_device *dev;
	struct gro_cells gro_cells;
	bool fou;			/* false: ipip (IP protocols 4, 41). */
	bool gue;			/* fou with a GUE header (iptun_gue):
					 * both inner protocols.
					 */
	u8 ipproto;			/* fou: the inner protocol sent. */
	__be16 dst_port;		/* fou, gue: the UDP port, network
					 * order.
					 */
	struct socket __rcu *sock;	/* fou, gue: the UDP socket, when up. */
	struct socket __rcu *sock6;	/* fou, gue: the UDPv6 socket, when
					 * up.
					 */
};

struct ip_tunnel_key;
struct sk_buff;

void iptun_dev_setup(struct net_device *dev);

/* Path MTU (iptun-pmtu.c): for 'skb', to be sent on a path that leaves it
 * 'mtu' bytes (the route's MTU less the tunnel's headers), from the local
 * address 'saddr' (__be32 or struct in6_addr, as 'outer6' says) to the
 * remote end in 'key': 0 if it fits, 1 if it is to be sent in outer
 * fragments, or -EMSGSIZE if it cannot be sent (counted, answered with
 * ICMP or ICMPv6 as if the remote end had sent it, and consumed).
 */
int iptun_pmtu_check(struct iptun_dev *t, struct sk_buff *skb, u32 mtu,
		     const struct ip_tunnel_key *key, bool outer6,
		     const void *saddr);

int iptun_dev_init_module(void);
void iptun_dev_exit_module(void);

#endif /* OVS_IPTUN_H */
