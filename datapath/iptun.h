/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ovs-iptun: metadata-mode ipip, fou and gue tunnel devices.
 */

#ifndef OVS_IPTUN_H
#define OVS_IPTUN_H 1

#include <linux/netdevice.h>
#include <net/gro_cells.h>
#include <net/ip_tunnels.h>

/* Tunnel metadata flags: a __be16 of TUNNEL_* bits before Linux 6.10, a
 * bitmap of IP_TUNNEL_*_BIT since (the kernel no longer sees the uapi
 * TUNNEL_* then).  A set declared with IPTUN_DECLARE_FLAGS() and set with
 * iptun_flags_init() is passed as it is to the metadata_dst builders
 * (ip_tun_rx_dst(), udp_tun_rx_dst(), __ip_tun_set_dst(), ...), which
 * since 6.10 take a pointer to it that must not be NULL.
 */
#ifdef TUNNEL_CSUM
#define IPTUN_DECLARE_FLAGS(name) __be16 name
#define iptun_flags_init(flags, csum) ((flags) = (csum) ? TUNNEL_CSUM : 0)
#define iptun_flag_csum(flags) (!!((flags) & TUNNEL_CSUM))
#define iptun_flag_df(flags) (!!((flags) & TUNNEL_DONT_FRAGMENT))
#else
#define IPTUN_DECLARE_FLAGS(name) IP_TUNNEL_DECLARE_FLAGS(name)
#define iptun_flag_csum(flags) test_bit(IP_TUNNEL_CSUM_BIT, flags)
#define iptun_flag_df(flags) test_bit(IP_TUNNEL_DONT_FRAGMENT_BIT, flags)

/* 'flags': CSUM if 'csum', nothing else. */
static inline void iptun_flags_init(unsigned long *flags, bool csum)
{
	ip_tunnel_flags_zero(flags);
	__assign_bit(IP_TUNNEL_CSUM_BIT, flags, csum);
}
#endif

/* Netlink attributes of kinds iptun_fou and iptun_gue (IFLA_INFO_DATA).
 * ABI: Open vSwitch's dpif-netlink-rtnl.c (patches/0012) uses these
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
struct list_head;
struct sk_buff;
struct sock;

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

/* GRO of the fou and gue devices' UDP sockets (iptun-gro.c), as
 * udp_tunnel_sock_cfg's gro_receive and gro_complete.
 */
struct sk_buff *iptun_fou_gro_receive(struct sock *sk, struct list_head *head,
				      struct sk_buff *skb);
int iptun_fou_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff);
struct sk_buff *iptun_gue_gro_receive(struct sock *sk, struct list_head *head,
				      struct sk_buff *skb);
int iptun_gue_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff);

int iptun_dev_init_module(void);
void iptun_dev_exit_module(void);

#endif /* OVS_IPTUN_H */
