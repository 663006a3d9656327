// SPDX-License-Identifier: GPL-2.0-only
/*
 * ovs-iptun: metadata-mode ipip, fou and gue tunnel devices (kinds
 * iptun_ipip, iptun_fou and iptun_gue, iptun-link.c), such as the ones Open
 * vSwitch's kernel datapath adds as ports.
 *
 * The device is ARPHRD_NONE, so that openvswitch.ko accepts it as a port
 * and sees the packets as L3 (packet_type=legacy_l3).  Transmit builds the
 * outer IPv4 or IPv6 header (and, for fou, the UDP header; for gue, UDP
 * and GUE) from the skb's tunnel metadata; receive takes IP protocols 4
 * and 41 through tunnel4 (ipip over IPv4, as Linux's ipip and sit send
 * them) and tunnel6 (ipip over IPv6, as Linux's ip6tnl sends them) or one
 * UDP tunnel socket per device and family (fou, gue), attaches the outer
 * addresses as tunnel metadata and hands the inner IPv4 or IPv6 packet to
 * the device, where OVS's rx_handler (or the IP stack, for other users)
 * takes it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/icmp.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dsfield.h>
#include <net/dst_metadata.h>
#include <net/gro_cells.h>
#include <net/gue.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/ip6_route.h>
#include <net/ip6_tunnel.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/rtnetlink.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <net/xfrm.h>

#include "iptun.h"

#define IPTUN_FEATURES (NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_HIGHDMA | \
			NETIF_F_GSO_SOFTWARE | NETIF_F_HW_CSUM)

/* Per network namespace: the one ipip device that is up, if any.  (All OVS
 * ipip ports of a namespace share the datapath port "ipip_sys".)
 */
struct iptun_net {
	struct net_device __rcu *ipip_dev;
};

static unsigned int iptun_net_id __read_mostly;

/* The bytes a packet grows by: the outer IPv4 or IPv6 header, UDP, and
 * GUE's base header.
 */
static int iptun_hlen(const struct iptun_dev *t, bool outer6)
{
	return (outer6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
	       (t->fou ? sizeof(struct udphdr) : 0) +
	       (t->gue ? sizeof(struct guehdr) : 0);
}

/* A GUE remote checksum offload: where the inner packet's checksum starts
 * and where its field is, from the inner packet's start.
 */
struct iptun_remcsum {
	u16 start;
	u16 offset;
};

/* Completes the inner checksum that a GUE sender left to the receiver
 * (remote checksum offload), as Linux's gue_remcsum() does with
 * FOU_F_REMCSUM_NOPARTIAL: skb->data is at the inner packet.  False if the
 * field or the start lies beyond the packet (or no memory to write it).
 */
static bool iptun_remcsum(struct sk_buff *skb, const struct iptun_remcsum *rc)
{
	unsigned int len = max_t(unsigned int, rc->offset + sizeof(__sum16),
				 rc->start);

	/* A field before the start: Linux's csum_offset would wrap. */
	if (rc->offset < rc->start || len > skb->len ||
	    skb_ensure_writable(skb, len))
		return false;
	skb_remcsum_process(skb, skb->data, rc->start, rc->offset, true);
	return true;
}

/* Checks the inner IPv6 header at skb->data, as ipv6_rcv() would: a
 * payload length beyond the packet is an error, a shorter one trims.
 */
static bool iptun_inner6_ok(struct sk_buff *skb)
{
	const struct ipv6hdr *ip6h;
	unsigned int len;

	if (!pskb_may_pull(skb, sizeof(struct ipv6hdr)))
		return false;
	ip6h = ipv6_hdr(skb);
	len = sizeof(struct ipv6hdr) + ntohs(ip6h->payload_len);
	if (ip6h->version != 6 || len > skb->len ||
	    (!ip6h->payload_len && ip6h->nexthdr == NEXTHDR_HOP))
		return false;
	return !pskb_trim_rcsum(skb, len);
}

/* Receive: skb->data is at the inner IPv4 (or, for ipip's protocol 41,
 * IPv6) header after pulling hdr_len bytes (0 for ipip, the UDP header for
 * fou, UDP and GUE for gue); ip_hdr() is the outer header.  'rc', if not
 * NULL, is a GUE remote checksum offload to complete.  Always consumes the
 * skb.
 */
static int iptun_rcv(struct iptun_dev *t, struct sk_buff *skb, int hdr_len,
		     __be16 inner_proto, const struct iptun_remcsum *rc)
{
	const bool outer6 = ip_hdr(skb)->version == 6;
	struct net_device *dev = t->dev;
	struct metadata_dst *tun_dst;
	IPTUN_DECLARE_FLAGS(flags);
	const struct iphdr *iph;
	u8 outer_tos;

	outer_tos = outer6 ? ipv6_get_dsfield(ipv6_hdr(skb)) : ip_hdr(skb)->tos;
	iptun_flags_init(flags, t->fou && udp_hdr(skb)->check);
	if (t->fou)
		tun_dst = udp_tun_rx_dst(skb, outer6 ? AF_INET6 : AF_INET,
					 flags, 0, 0);
	else if (outer6)
		tun_dst = ipv6_tun_rx_dst(skb, flags, 0, 0);
	else
		tun_dst = ip_tun_rx_dst(skb, flags, 0, 0);
	if (!tun_dst) {
		DEV_STATS_INC(dev, rx_dropped);
		goto drop;
	}

	if (iptunnel_pull_header(skb, hdr_len, inner_proto,
				 !net_eq(dev_net(skb->dev), dev_net(dev)))) {
		DEV_STATS_INC(dev, rx_length_errors);
		goto drop_md;
	}
	skb_reset_network_header(skb);

	if (inner_proto == htons(ETH_P_IPV6)) {
		if (skb->len < sizeof(struct ipv6hdr)) {
			DEV_STATS_INC(dev, rx_length_errors);
			goto drop_md;
		}
		if (!iptun_inner6_ok(skb)) {
			DEV_STATS_INC(dev, rx_frame_errors);
			goto drop_md;
		}
		if (INET_ECN_decapsulate(skb, outer_tos,
					 ipv6_get_dsfield(ipv6_hdr(skb))) > 1) {
			DEV_STATS_INC(dev, rx_frame_errors);
			goto drop_md;
		}
		goto remcsum;
	}

	/* The inner packet must be a complete IPv4 header at least. */
	if (!pskb_may_pull(skb, sizeof(struct iphdr))) {
		DEV_STATS_INC(dev, rx_length_errors);
		goto drop_md;
	}
	iph = ip_hdr(skb);
	if (iph->version != 4 || iph->ihl < 5 ||
	    ntohs(iph->tot_len) < iph->ihl * 4 ||
	    ntohs(iph->tot_len) > skb->len) {
		DEV_STATS_INC(dev, rx_frame_errors);
		goto drop_md;
	}
	/* A shorter total length trims, as ip_rcv() does. */
	if (pskb_trim_rcsum(skb, ntohs(iph->tot_len))) {
		DEV_STATS_INC(dev, rx_dropped);
		goto drop_md;
	}
	if (INET_ECN_decapsulate(skb, outer_tos, ip_hdr(skb)->tos) > 1) {
		DEV_STATS_INC(dev, rx_frame_errors);
		goto drop_md;
	}

remcsum:
	/* Always, whatever skb->remcsum_offload says: GRO leaves the
	 * inner checksum to this path (iptun-gro.c clears the flag), and a
	 * sender's GSO sets the flag on the segments it cuts, which a veth
	 * hands to its peer as they are.
	 */
	if (rc && !iptun_remcsum(skb, rc)) {
		DEV_STATS_INC(dev, rx_length_errors);
		goto drop_md;
	}

	skb_reset_mac_header(skb);
	skb->dev = dev;
	skb->pkt_type = PACKET_HOST;
	skb_dst_set(skb, &tun_dst->dst);
	dev_sw_netstats_rx_add(dev, skb->len);
	gro_cells_receive(&t->gro_cells, skb);
	return 0;

drop_md:
	dst_release(&tun_dst->dst);
drop:
	DEV_STATS_INC(dev, rx_errors);
	kfree_skb(skb);
	return 0;
}

/* The tunnel4 and tunnel6 handlers: IP protocols (next headers) 4 and 41
 * behind an outer IPv4 header (Linux's ipip and sit) or IPv6 header
 * (Linux's ip6tnl: ipip6, ip6ip6; the IPv6 stack has already skipped the
 * extension headers it knows, among them the destination options header
 * with ip6tnl's tunnel encapsulation limit, RFC 2473).  'family' is the
 * outer header's.  Return nonzero for packets in a namespace without an
 * iptun_ipip device up, so that Linux's own ipip, sit and ip6tnl devices
 * (or tunnel4's and tunnel6's ICMP "port unreachable") see them.
 */
static int iptun_tunnel_rcv(struct sk_buff *skb, unsigned short family,
			    __be16 inner_proto)
{
	struct iptun_net *in = net_generic(dev_net(skb->dev), iptun_net_id);
	struct net_device *dev = rcu_dereference(in->ipip_dev);

	if (!dev)
		return -1;
	if (!xfrm_policy_check(NULL, XFRM_POLICY_IN, skb, family)) {
		DEV_STATS_INC(dev, rx_dropped);
		kfree_skb(skb);
		return 0;
	}
	return iptun_rcv(netdev_priv(dev), skb, 0, inner_proto, NULL);
}

static int iptun_ipip_rcv(struct sk_buff *skb)
{
	return iptun_tunnel_rcv(skb, AF_INET, htons(ETH_P_IP));
}

static int iptun_sit_rcv(struct sk_buff *skb)
{
	return iptun_tunnel_rcv(skb, AF_INET, htons(ETH_P_IPV6));
}

static int iptun_ip4ip6_rcv(struct sk_buff *skb)
{
	return iptun_tunnel_rcv(skb, AF_INET6, htons(ETH_P_IP));
}

static int iptun_ip6ip6_rcv(struct sk_buff *skb)
{
	return iptun_tunnel_rcv(skb, AF_INET6, htons(ETH_P_IPV6));
}

/* ICMPv6 errors about our outer packets: learn the path MTU and
 * redirects.
 */
static int iptun_ip6_err(struct sk_buff *skb, struct inet6_skb_parm *opt,
			 u8 type, u8 code, int offset, __be32 info)
{
	struct net *net = dev_net(skb->dev);
	struct iptun_net *in = net_generic(net, iptun_net_id);

	if (!rcu_access_pointer(in->ipip_dev))
		return -ENOENT;

	if (type == ICMPV6_PKT_TOOBIG)
		ip6_update_pmtu(skb, net, info, 0, 0, sock_net_uid(net, NULL));
	else if (type == NDISC_REDIRECT)
		ip6_redirect(skb, net, skb->dev->ifindex, 0,
			     sock_net_uid(net, NULL));
	return 0;
}

/* After Linux's ip6tnl (1), which claims the packets of its own devices'
 * tunnels, before xfrm6_tunnel (3), which takes them all.
 */
static struct xfrm6_tunnel iptun_ip4ip6_handler __read_mostly = {
	.handler	= iptun_ip4ip6_rcv,
	.err_handler	= iptun_ip6_err,
	.priority	= 2,
};

static struct xfrm6_tunnel iptun_ip6ip6_handler __read_mostly = {
	.handler	= iptun_ip6ip6_rcv,
	.err_handler	= iptun_ip6_err,
	.priority	= 2,
};

/* ICMP errors about our outer packets: learn the path MTU and redirects,
 * so that the next transmit sees them in the route.
 */
static int iptun_ipip_err(struct sk_buff *skb, u32 info)
{
	struct net *net = dev_net(skb->dev);
	struct iptun_net *in = net_generic(net, iptun_net_id);
	/* skb->data is at the quoted outer header of our packet. */
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	const int type = icmp_hdr(skb)->type;
	const int code = icmp_hdr(skb)->code;

	if (!rcu_access_pointer(in->ipip_dev))
		return -ENOENT;

	if (type == ICMP_DEST_UNREACH && code == ICMP_FRAG_NEEDED)
		ipv4_update_pmtu(skb, net, info, 0, iph->protocol);
	else if (type == ICMP_REDIRECT)
		ipv4_redirect(skb, net, 0, iph->protocol);
	return 0;
}

/* IP protocol 4 goes to tunnel4 handlers in order of priority: after
 * Linux's ipip (1) and sit (2), which claim the packets of their own
 * devices' tunnels, before xfrm4_tunnel (4), which takes them all.  (3 is
 * xfrm4_tunnel's priority among the handlers of IPv6 in IPv4.)
 */
static struct xfrm_tunnel iptun_ipip_handler __read_mostly = {
	.handler	= iptun_ipip_rcv,
	.err_handler	= iptun_ipip_err,
	.priority	= 3,
};

/* IP protocol 41: after Linux's sit (1), before xfrm4_tunnel (3). */
static struct xfrm_tunnel iptun_sit_handler __read_mostly = {
	.handler	= iptun_sit_rcv,
	.err_handler	= iptun_ipip_err,
	.priority	= 2,
};

/* UDP encap_rcv of a fou device's sockets (UDP and UDPv6): skb->data is at
 * the UDP header, whose length and checksum the UDP layer has already
 * verified.  The inner header's version decides between IPv4 and IPv6,
 * whatever the device sends (as Open vSwitch's userspace datapath: the
 * version tells them apart safely); any other version is an IPv4 header
 * that iptun_rcv() refuses.
 */
static int iptun_fou_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct iptun_dev *t = rcu_dereference_sk_user_data(sk);
	__be16 inner_proto = htons(ETH_P_IP);
	u8 *ver, buf;

	if (!t) {
		kfree_skb(skb);
		return 0;
	}
	ver = skb_header_pointer(skb, sizeof(struct udphdr), 1, &buf);
	if (ver && *ver >> 4 == 6)
		inner_proto = htons(ETH_P_IPV6);
	return iptun_rcv(t, skb, sizeof(struct udphdr), inner_proto, NULL);
}

/* UDP encap_rcv of a gue device's sockets, as Linux's gue_udp_recv() with
 * validate_gue_flags(), and as Open vSwitch's userspace datapath pops GUE:
 * after the UDP header, variant 1 (the version nibble of an inner IPv4 or
 * IPv6 packet) or a variant 0 header, whose flags may be P alone, whose
 * private flags may be remote checksum offload alone (its field within
 * Hlen, its offset not below its start: Linux refuses both), and whose
 * data message must carry protocol 4 or 41 (Linux hands any protocol to
 * the IP stack).  Truncated headers count as rx_length_errors, invalid
 * ones as rx_frame_errors; control messages and other protocols, which
 * this device does not take, as rx_dropped.
 */
static int iptun_gue_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct iptun_dev *t = rcu_dereference_sk_user_data(sk);
	struct iptun_remcsum rc, *rcp = NULL;
	size_t len = sizeof(struct udphdr) + sizeof(struct guehdr);
	struct net_device *dev;
	struct guehdr *guehdr;
	__be16 inner_proto;
	size_t optlen;

	if (!t) {
		kfree_skb(skb);
		return 0;
	}
	dev = t->dev;
	if (!pskb_may_pull(skb, len))
		goto length_error;
	guehdr = (struct guehdr *)&udp_hdr(skb)[1];

	switch (guehdr->version) {
	case 0:
		break;
	case 1:
		/* The inner packet itself: its version nibble is Ver. */
		switch (((struct iphdr *)guehdr)->version) {
		case 4:
			inner_proto = htons(ETH_P_IP);
			break;
		case 6:
			inner_proto = htons(ETH_P_IPV6);
			break;
		default:
			goto frame_error;
		}
		return iptun_rcv(t, skb, sizeof(struct udphdr), inner_proto,
				 NULL);
	default:
		goto frame_error;
	}

	optlen = guehdr->hlen << 2;
	len += optlen;
	if (!pskb_may_pull(skb, len))
		goto length_error;
	guehdr = (struct guehdr *)&udp_hdr(skb)[1];

	if (guehdr->flags & ~GUE_FLAG_PRIV)
		goto frame_error;
	if (guehdr->flags & GUE_FLAG_PRIV) {
		__be32 pflags;
		__be16 *pd;

		if (optlen < GUE_LEN_PRIV)
			goto frame_error;
		pflags = *(__be32 *)&guehdr[1];
		if (pflags & ~GUE_PFLAG_REMCSUM)
			goto frame_error;
		if (pflags & GUE_PFLAG_REMCSUM) {
			if (optlen < GUE_LEN_PRIV + GUE_PLEN_REMCSUM)
				goto frame_error;
			pd = (__be16 *)((u8 *)&guehdr[1] + GUE_LEN_PRIV);
			rc.start = ntohs(pd[0]);
			rc.offset = ntohs(pd[1]);
			rcp = &rc;
		}
	}
	if (guehdr->control)
		goto not_taken;
	switch (guehdr->proto_ctype) {
	case IPPROTO_IPIP:
		inner_proto = htons(ETH_P_IP);
		break;
	case IPPROTO_IPV6:
		inner_proto = htons(ETH_P_IPV6);
		break;
	default:
		goto not_taken;
	}
	return iptun_rcv(t, skb, len, inner_proto, rcp);

length_error:
	DEV_STATS_INC(dev, rx_length_errors);
	DEV_STATS_INC(dev, rx_errors);
	goto drop;
frame_error:
	DEV_STATS_INC(dev, rx_frame_errors);
	DEV_STATS_INC(dev, rx_errors);
	goto drop;
not_taken:
	DEV_STATS_INC(dev, rx_dropped);
drop:
	kfree_skb(skb);
	return 0;
}

/* The GUE header of a packet to be sent, in front of the inner packet: as
 * Linux's __gue_build_header() writes it without remote checksum offload
 * (variant 0, no optional fields, the inner protocol).
 */
static void iptun_gue_push(struct sk_buff *skb, u8 ipproto)
{
	struct guehdr *guehdr = __skb_push(skb, sizeof(*guehdr));

	guehdr->word = 0;
	guehdr->proto_ctype = ipproto;
}

/* Transmit over an IPv4 underlay.  Consumes the skb; returns 0 or a
 * negative error after counting it (the caller counts the drop).
 *
 * The route comes from the metadata's dst_cache when it has one (Open
 * vSwitch's set(tunnel()) action gives each flow's metadata one), as for
 * Linux's metadata-mode vxlan and geneve: one route lookup per flow and
 * CPU, not per packet, until the route changes or learns a path MTU
 * (dst_check()).  Not with a packet mark or TUNNEL_NOCACHE, as theirs.
 */
static int iptun_xmit4(struct iptun_dev *t, struct sk_buff *skb,
		       struct ip_tunnel_info *info, u8 ipproto,
		       struct socket *sock, __be16 dport)
{
	const struct ip_tunnel_key *key = &info->key;
	bool use_cache = ip_tunnel_dst_cache_usable(skb, info);
	struct net_device *dev = t->dev;
	struct net *net = dev_net(dev);
	int hlen = iptun_hlen(t, false);
	struct rtable *rt = NULL;
	struct flowi4 fl4;
	__be16 df;
	u8 tos, ttl;
	int err;

	tos = key->tos;
	ip_tunnel_init_flow(&fl4, t->fou ? IPPROTO_UDP : ipproto,
			    key->u.ipv4.dst, key->u.ipv4.src, 0, RT_TOS(tos),
			    net, 0, skb->mark, skb_get_hash(skb),
			    key->flow_flags);
	if (use_cache)
		rt = dst_cache_get_ip4(&info->dst_cache, &fl4.saddr);
	if (!rt) {
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt)) {
			DEV_STATS_INC(dev, tx_carrier_errors);
			return PTR_ERR(rt);
		}
		if (rt->dst.dev == dev) {
			/* The route to the remote goes into this tunnel. */
			DEV_STATS_INC(dev, collisions);
			goto err_rt;
		}
		if (use_cache)
			dst_cache_set_ip4(&info->dst_cache, &rt->dst,
					  fl4.saddr);
	}

	df = iptun_flag_df(key->tun_flags) ? htons(IP_DF) : 0;
	if (df) {
		err = iptun_pmtu_check(t, skb, dst_mtu(&rt->dst) - hlen, key,
				       false, &fl4.saddr);
		if (err < 0) {
			ip_rt_put(rt);
			return err;
		}
		if (err)
			df = 0;
	}

	ttl = key->ttl ? key->ttl : ip4_dst_hoplimit(&rt->dst);
	if (skb_cow_head(skb, LL_RESERVED_SPACE(rt->dst.dev) +
			 rt->dst.header_len + hlen))
		goto err_rt;

	if (t->fou) {
		bool csum = iptun_flag_csum(key->tun_flags);
		__be16 sport;

		/* GSO types as Linux's ipip and sit with "encap fou" give
		 * theirs: the UDP tunnel's and the IP-in-IP one beneath it,
		 * which the inner protocol's segmentation (ipip_gso_segment(),
		 * sit_gso_segment()) requires: without it, a device that
		 * cannot segment UDP tunnels itself drops every GSO packet.
		 */
		if (iptunnel_handle_offloads(skb, SKB_GSO_IPXIP4) ||
		    udp_tunnel_handle_offloads(skb, csum))
			goto err_rt;
		skb_set_inner_ipproto(skb, ipproto);
		sport = udp_flow_src_port(net, skb, 0, 0, true);
		if (t->gue)
			iptun_gue_push(skb, ipproto);
		udp_tunnel_xmit_skb(rt, sock->sk, skb, fl4.saddr, fl4.daddr,
				    tos, ttl, df, sport, dport, false, !csum);
	} else {
		if (iptunnel_handle_offloads(skb, SKB_GSO_IPXIP4))
			goto err_rt;
		skb_set_inner_ipproto(skb, ipproto);
		iptunnel_xmit(NULL, rt, skb, fl4.saddr, fl4.daddr,
			      ipproto, tos, ttl, df, false);
	}
	return 0;

err_rt:
	ip_rt_put(rt);
	kfree_skb(skb);
	return -EINVAL;
}

/* Transmit over an IPv6 underlay, as Linux's ip6tnl (and fou over IPv6)
 * send: no destination options (no encapsulation limit), the traffic class
 * and hop limit from the metadata (the route's hop limit for 0), the flow
 * label from the metadata or else from the inner flow's hash (Linux's auto
 * flow labels: ECMP entropy).  fou always sends a UDP checksum over IPv6,
 * as the userspace datapath does (RFC 8200: a zero one is the exception).
 * A packet too big for the route is answered or sent in outer fragments
 * (iptun-pmtu.c).  Consumes the skb.
 */
static int iptun_xmit6(struct iptun_dev *t, struct sk_buff *skb,
		       struct ip_tunnel_info *info, u8 ipproto,
		       struct socket *sock, __be16 dport)
{
	const struct ip_tunnel_key *key = &info->key;
	bool use_cache = ip_tunnel_dst_cache_usable(skb, info);
	struct net_device *dev = t->dev;
	struct net *net = dev_net(dev);
	int hlen = iptun_hlen(t, true);
	struct dst_entry *dst = NULL;
	struct ipv6hdr *ip6h;
	struct flowi6 fl6;
	__be32 label;
	u8 prio, ttl;
	int frag;

	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_mark = skb->mark;
	fl6.flowi6_proto = t->fou ? IPPROTO_UDP : ipproto;
	fl6.daddr = key->u.ipv6.dst;
	fl6.saddr = key->u.ipv6.src;
	prio = key->tos;
	fl6.flowlabel = ip6_make_flowinfo(RT_TOS(prio), key->label);
	/* The route from the metadata's dst_cache, as over IPv4. */
	if (use_cache)
		dst = dst_cache_get_ip6(&info->dst_cache, &fl6.saddr);
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(net,
						      sock ? sock->sk : NULL,
						      &fl6, NULL);
		if (IS_ERR(dst)) {
			DEV_STATS_INC(dev, tx_carrier_errors);
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		if (dst->dev == dev) {
			DEV_STATS_INC(dev, collisions);
			goto err_dst;
		}
		if (use_cache)
			dst_cache_set_ip6(&info->dst_cache, dst, &fl6.saddr);
	}

	frag = iptun_pmtu_check(t, skb, dst_mtu(dst) - hlen, key, true,
				&fl6.saddr);
	if (frag < 0) {
		dst_release(dst);
		return frag;
	}

	ttl = key->ttl ? key->ttl : ip6_dst_hoplimit(dst);
	label = ip6_make_flowlabel(net, skb, key->label, true, &fl6);
	if (skb_cow_head(skb, LL_RESERVED_SPACE(dst->dev) +
			 dst->header_len + hlen))
		goto err_dst;

	/* From here on the tunnel metadata (key) is gone. */
	skb_scrub_packet(skb, false);
	/* The source may fragment an outer IPv6 packet (iptun_pmtu.c). */
	skb->ignore_df = frag;
	if (t->fou) {
		__be16 sport;

		/* (ip4ip6_gso_segment(), ip6ip6_gso_segment(): IPXIP6.) */
		if (iptunnel_handle_offloads(skb, SKB_GSO_IPXIP6) ||
		    udp_tunnel_handle_offloads(skb, true))
			goto err_dst;
		skb_set_inner_ipproto(skb, ipproto);
		sport = udp_flow_src_port(net, skb, 0, 0, true);
		if (t->gue)
			iptun_gue_push(skb, ipproto);
		udp_tunnel6_xmit_skb(dst, sock->sk, skb, dev, &fl6.saddr,
				     &fl6.daddr, prio, ttl, label, sport,
				     dport, false);
		return 0;
	}

	if (iptunnel_handle_offloads(skb, SKB_GSO_IPXIP6))
		goto err_dst;
	skb_set_inner_ipproto(skb, ipproto);
	skb_dst_set(skb, dst);
	skb_push(skb, sizeof(struct ipv6hdr));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, prio, label);
	ip6h->payload_len = htons(skb->len - sizeof(struct ipv6hdr));
	ip6h->nexthdr = ipproto;
	ip6h->hop_limit = ttl;
	ip6h->saddr = fl6.saddr;
	ip6h->daddr = fl6.daddr;
	ip6tunnel_xmit(NULL, skb, dev);
	return 0;

err_dst:
	dst_release(dst);
	kfree_skb(skb);
	return -EINVAL;
}

static netdev_tx_t iptun_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);
	struct ip_tunnel_info *info;
	struct socket *sock = NULL;
	__be16 dport = 0;
	bool outer6;
	u8 ipproto;
	int err;

	info = skb_tunnel_info(skb);
	if (unlikely(!info || !(info->mode & IP_TUNNEL_INFO_TX)))
		goto tx_error;
	/* L3 tunnels of IPv4 (IP protocol 4) and IPv6 (41): anything else
	 * (an Ethernet frame from OVS arrives as ETH_P_TEB, ARP) has nothing
	 * to be carried as.
	 */
	if (skb->protocol == htons(ETH_P_IP))
		ipproto = IPPROTO_IPIP;
	else if (skb->protocol == htons(ETH_P_IPV6))
		ipproto = IPPROTO_IPV6;
	else
		goto tx_error;
	/* A fou device sends one inner protocol, as a Linux fou port; gue
	 * names it in each packet.
	 */
	if (t->fou && !t->gue && ipproto != t->ipproto)
		goto tx_error;
	if (unlikely(!pskb_inet_may_pull(skb)))
		goto tx_error;

	outer6 = ip_tunnel_info_af(info) == AF_INET6;
	if (t->fou) {
		sock = outer6 ? rcu_dereference_bh(t->sock6)
			      : rcu_dereference_bh(t->sock);
		if (unlikely(!sock))
			goto tx_error;
		dport = info->key.tp_dst ? info->key.tp_dst : t->dst_port;
	}

	if (outer6)
		err = iptun_xmit6(t, skb, info, ipproto, sock, dport);
	else
		err = iptun_xmit4(t, skb, info, ipproto, sock, dport);
	if (err) {
		DEV_STATS_INC(dev, tx_errors);
		DEV_STATS_INC(dev, tx_dropped);
	}
	return NETDEV_TX_OK;

tx_error:
	DEV_STATS_INC(dev, tx_errors);
	DEV_STATS_INC(dev, tx_dropped);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

/* A fou or gue device's UDP ('ipv6' false) or UDPv6 socket on its port, on
 * every address (the UDPv6 one IPv6-only, as Linux's "ip fou add ... -6").
 */
static struct socket *iptun_sock_open(struct iptun_dev *t, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = t,
		.encap_type = 1,
		.encap_rcv = t->gue ? iptun_gue_rcv : iptun_fou_rcv,
		.gro_receive = t->gue ? iptun_gue_gro_receive
				      : iptun_fou_gro_receive,
		.gro_complete = t->gue ? iptun_gue_gro_complete
				       : iptun_fou_gro_complete,
	};
	struct udp_port_cfg cfg = {	/* local_ip(6): any address */
		.family = ipv6 ? AF_INET6 : AF_INET,
		.ipv6_v6only = ipv6,
		.local_udp_port = t->dst_port,
	};
	struct net *net = dev_net(t->dev);
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &cfg, &sock);
	if (err) {
		netdev_warn(t->dev, "cannot listen on UDP%s port %u: %d\n",
			    ipv6 ? "v6" : "", ntohs(t->dst_port), err);
		return ERR_PTR(err);
	}
	setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

static int iptun_open(struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);
	struct net *net = dev_net(dev);

	if (t->fou) {
		struct socket *sock, *sock6;

		sock = iptun_sock_open(t, false);
		if (IS_ERR(sock))
			return PTR_ERR(sock);
		/* Without IPv6 (ipv6.disable=1), IPv4 only, as Linux's
		 * metadata-mode vxlan and geneve.
		 */
		sock6 = ipv6_mod_enabled() ? iptun_sock_open(t, true) : NULL;
		if (IS_ERR(sock6)) {
			udp_tunnel_sock_release(sock);
			return PTR_ERR(sock6);
		}
		rcu_assign_pointer(t->sock, sock);
		rcu_assign_pointer(t->sock6, sock6);
	} else {
		struct iptun_net *in = net_generic(net, iptun_net_id);

		if (rtnl_dereference(in->ipip_dev))
			return -EBUSY;
		rcu_assign_pointer(in->ipip_dev, dev);
	}
	return 0;
}

static int iptun_stop(struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);

	if (t->fou) {
		struct socket *sock = rtnl_dereference(t->sock);
		struct socket *sock6 = rtnl_dereference(t->sock6);

		RCU_INIT_POINTER(t->sock, NULL);
		RCU_INIT_POINTER(t->sock6, NULL);
		synchronize_net();
		if (sock)
			udp_tunnel_sock_release(sock);
		if (sock6)
			udp_tunnel_sock_release(sock6);
	} else {
		struct iptun_net *in = net_generic(dev_net(dev),
						   iptun_net_id);

		if (rtnl_dereference(in->ipip_dev) == dev) {
			RCU_INIT_POINTER(in->ipip_dev, NULL);
			synchronize_net();
		}
	}
	return 0;
}

static int iptun_init(struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);
	int err;

#ifndef IPTUN_CORE_TSTATS
	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		return -ENOMEM;
#endif
	err = gro_cells_init(&t->gro_cells, dev);
	if (err) {
#ifndef IPTUN_CORE_TSTATS
		free_percpu(dev->tstats);
		dev->tstats = NULL;
#endif
		return err;
	}
	return 0;
}

static void iptun_free(struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);

	gro_cells_destroy(&t->gro_cells);
#ifndef IPTUN_CORE_TSTATS
	free_percpu(dev->tstats);
	dev->tstats = NULL;
#endif
}

static const struct net_device_ops iptun_netdev_ops = {
	.ndo_init	= iptun_init,
	.ndo_open	= iptun_open,
	.ndo_stop	= iptun_stop,
	.ndo_start_xmit	= iptun_xmit,
	.ndo_get_stats64 = dev_get_tstats64,
};

/* Common setup of all kinds (iptun-link.c); t->fou and t->gue are already
 * set.  Like OVS's other tunnel devices, the MTU does not restrict what
 * OVS can send: the route to the remote decides.
 */
void iptun_dev_setup(struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);

	t->dev = dev;
	dev->netdev_ops = &iptun_netdev_ops;
	dev->type = ARPHRD_NONE;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP;
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->needed_headroom = LL_MAX_HEADER + iptun_hlen(t, true);
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = IP_MAX_MTU - iptun_hlen(t, false);
	dev->mtu = dev->max_mtu;
	dev->priv_flags |= IFF_NO_QUEUE;
	dev->needs_free_netdev = true;
#ifdef IPTUN_CORE_TSTATS
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
#endif
	dev->priv_destructor = iptun_free;
	dev->features |= NETIF_F_RXCSUM | IPTUN_FEATURES;
	/* Linux 6.12 made these two features device flags; netns_local is
	 * netns_immutable in later kernels (Kbuild says which).
	 */
#ifdef NETIF_F_LLTX
	dev->features |= NETIF_F_LLTX;
#else
	dev->lltx = true;
#endif
#ifdef NETIF_F_NETNS_LOCAL
	dev->features |= NETIF_F_NETNS_LOCAL;
#elif defined(IPTUN_NETNS_IMMUTABLE)
	dev->netns_immutable = true;
#else
	dev->netns_local = true;
#endif
	dev->hw_features |= IPTUN_FEATURES;
	netif_keep_dst(dev);
}

static struct pernet_operations iptun_net_ops = {
	.id	= &iptun_net_id,
	.size	= sizeof(struct iptun_net),
};

int iptun_dev_init_module(void)
{
	int err;

	err = register_pernet_device(&iptun_net_ops);
	if (err)
		return err;
	err = xfrm4_tunnel_register(&iptun_ipip_handler, AF_INET);
	if (err) {
		pr_err("cannot register the IP protocol 4 handler: %d\n", err);
		goto err_pernet;
	}
	err = xfrm4_tunnel_register(&iptun_sit_handler, AF_INET6);
	if (err) {
		pr_err("cannot register the IP protocol 41 handler: %d\n", err);
		goto err_ipip;
	}
	err = xfrm6_tunnel_register(&iptun_ip4ip6_handler, AF_INET);
	if (err) {
		pr_err("cannot register the IPv6 next header 4 handler: %d\n",
		       err);
		goto err_sit;
	}
	err = xfrm6_tunnel_register(&iptun_ip6ip6_handler, AF_INET6);
	if (err) {
		pr_err("cannot register the IPv6 next header 41 handler: %d\n",
		       err);
		goto err_ip4ip6;
	}
	return 0;

err_ip4ip6:
	xfrm6_tunnel_deregister(&iptun_ip4ip6_handler, AF_INET);
err_sit:
	xfrm4_tunnel_deregister(&iptun_sit_handler, AF_INET6);
err_ipip:
	xfrm4_tunnel_deregister(&iptun_ipip_handler, AF_INET);
err_pernet:
	unregister_pernet_device(&iptun_net_ops);
	return err;
}

void iptun_dev_exit_module(void)
{
	xfrm6_tunnel_deregister(&iptun_ip6ip6_handler, AF_INET6);
	xfrm6_tunnel_deregister(&iptun_ip4ip6_handler, AF_INET);
	xfrm4_tunnel_deregister(&iptun_sit_handler, AF_INET6);
	xfrm4_tunnel_deregister(&iptun_ipip_handler, AF_INET);
	unregister_pernet_device(&iptun_net_ops);
}
