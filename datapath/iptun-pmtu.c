// SPDX-License-Identifier: GPL-2.0-only
/*
 * ovs-iptun: path MTU discovery through metadata-mode ipip, fou and gue
 * devices.
 *
 * A packet too big for the tunnel's path (the route's MTU, learned PMTU
 * included, less the outer headers) is answered as Linux's metadata-mode
 * Ethernet tunnels (geneve, vxlan, bareudp: skb_tunnel_check_pmtu())
 * answer it for a bridge: with the ICMP "fragmentation needed" or ICMPv6
 * "packet too big" that the path would send, from the packet's destination
 * to its source, handed to the device's receive side as if the tunnel's
 * remote end had sent it (tunnel source and destination swapped), so that
 * Open vSwitch's flows take it to the sender as any packet from that
 * remote.  Linux's builder expects an Ethernet header; these devices carry
 * none, hence this file.
 *
 * Which packets, as Linux's ipip, sit and ip6tnl devices: an IPv4 packet
 * with DF is answered; one without DF is sent in outer fragments, as Linux
 * sends it (the receiver reassembles them).  An IPv6 packet is answered,
 * with an MTU of at least 1280 (IPv6's minimum): on a path below that, a
 * packet that fits 1280 bytes goes in outer fragments.
 */

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dst_metadata.h>
#include <net/icmp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/ndisc.h>
#ifdef IPTUN_HAVE_NET_GSO_H	/* Kbuild */
#include <net/gso.h>
#endif

#include "iptun.h"

/* As Linux's builders: the quoted packet keeps the reply within the
 * minimum datagram an IPv4 (576) or IPv6 (1280) host must accept.
 */
#define IPTUN_ICMP4_MAX 576
#define IPTUN_ICMP6_MAX IPV6_MIN_MTU

/* True if 'skb' does not fit 'mtu' bytes once encapsulated (a GSO packet:
 * if its segments do not).
 */
static bool iptun_too_big(const struct sk_buff *skb, u32 mtu)
{
	return skb_is_gso(skb) ? !skb_gso_validate_network_len(skb, mtu)
			       : skb->len > mtu;
}

/* For 'skb', an IPv4 or IPv6 packet too big for 'mtu': the MTU to announce
 * to its sender, or 0 if it is to be sent in outer fragments instead.
 */
static u32 iptun_pmtu_verdict(const struct sk_buff *skb, u32 mtu)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ip_hdr(skb)->frag_off & htons(IP_DF) ? mtu : 0;
	if (mtu >= IPV6_MIN_MTU)
		return mtu;
	/* Below IPv6's minimum MTU the tunnel fragments, as sit and ip6tnl
	 * do, what fits the minimum.
	 */
	return iptun_too_big(skb, IPV6_MIN_MTU) ? IPV6_MIN_MTU : 0;
}

/* True if an IPv4 packet may be answered (as Linux's
 * iptunnel_pmtud_check_icmp()): not a fragment, not from or to a
 * broadcast, multicast, zero or loopback address, not an ICMP error.
 */
static bool iptun_pmtu_answer4(struct sk_buff *skb, u32 mtu)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct icmphdr *icmph;
	struct icmphdr buf;

	if (mtu < IPTUN_ICMP4_MAX || iph->frag_off != htons(IP_DF))
		return false;
	if (ipv4_is_lbcast(iph->daddr) || ipv4_is_multicast(iph->daddr) ||
	    ipv4_is_zeronet(iph->saddr) || ipv4_is_loopback(iph->saddr) ||
	    ipv4_is_lbcast(iph->saddr) || ipv4_is_multicast(iph->saddr))
		return false;
	if (iph->protocol != IPPROTO_ICMP)
		return true;
	icmph = skb_header_pointer(skb, iph->ihl * 4, sizeof(buf), &buf);
	return icmph && !icmp_is_err(icmph->type);
}

/* The same for IPv6 (as iptunnel_pmtud_check_icmpv6()): not from an
 * unspecified, multicast or loopback address, not a later fragment, not
 * an ICMPv6 error or redirect.
 */
static bool iptun_pmtu_answer6(struct sk_buff *skb)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	int stype = ipv6_addr_type(&ip6h->saddr);
	const struct icmp6hdr *icmp6h;
	u8 proto = ip6h->nexthdr;
	struct icmp6hdr buf;
	__be16 frag_off;
	int offset;

	if (stype == IPV6_ADDR_ANY || stype == IPV6_ADDR_MULTICAST ||
	    stype == IPV6_ADDR_LOOPBACK)
		return false;
	offset = ipv6_skip_exthdr(skb, sizeof(*ip6h), &proto, &frag_off);
	if (offset < 0 || (frag_off & htons(~0x7)))
		return false;
	if (proto != IPPROTO_ICMPV6)
		return true;
	icmp6h = skb_header_pointer(skb, offset, sizeof(buf), &buf);
	return icmp6h && !icmpv6_is_err(icmp6h->icmp6_type) &&
	       icmp6h->icmp6_type != NDISC_REDIRECT;
}

/* Makes 'skb', an IPv4 packet, the ICMP "fragmentation needed" with 'mtu'
 * about it.
 */
static int iptun_pmtu_build4(struct sk_buff *skb, u32 mtu)
{
	struct iphdr orig = *ip_hdr(skb);
	struct icmphdr *icmph;
	struct iphdr *niph;
	int len, err;

	err = pskb_trim(skb, IPTUN_ICMP4_MAX - sizeof(*niph) - sizeof(*icmph));
	if (err)
		return err;
	len = skb->len + sizeof(*icmph);
	err = skb_cow(skb, sizeof(*niph) + sizeof(*icmph));
	if (err)
		return err;

	icmph = skb_push(skb, sizeof(*icmph));
	*icmph = (struct icmphdr) {
		.type = ICMP_DEST_UNREACH,
		.code = ICMP_FRAG_NEEDED,
		.un.frag.mtu = htons(mtu),
	};
	icmph->checksum = csum_fold(skb_checksum(skb, 0, len, 0));
	skb_reset_transport_header(skb);

	niph = skb_push(skb, sizeof(*niph));
	*niph = (struct iphdr) {
		.ihl = sizeof(*niph) / 4,
		.version = 4,
		.tot_len = htons(len + sizeof(*niph)),
		.frag_off = htons(IP_DF),
		.ttl = orig.ttl,
		.protocol = IPPROTO_ICMP,
		.saddr = orig.daddr,
		.daddr = orig.saddr,
	};
	ip_send_check(niph);
	return 0;
}

/* Makes 'skb', an IPv6 packet, the ICMPv6 "packet too big" with 'mtu'
 * about it.
 */
static int iptun_pmtu_build6(struct sk_buff *skb, u32 mtu)
{
	struct ipv6hdr orig = *ipv6_hdr(skb);
	struct icmp6hdr *icmp6h;
	struct ipv6hdr *nip6h;
	int len, err;

	err = pskb_trim(skb, IPTUN_ICMP6_MAX - sizeof(*nip6h) - sizeof(*icmp6h));
	if (err)
		return err;
	len = skb->len + sizeof(*icmp6h);
	err = skb_cow(skb, sizeof(*nip6h) + sizeof(*icmp6h));
	if (err)
		return err;

	icmp6h = skb_push(skb, sizeof(*icmp6h));
	*icmp6h = (struct icmp6hdr) {
		.icmp6_type = ICMPV6_PKT_TOOBIG,
		.icmp6_mtu = htonl(mtu),
	};
	icmp6h->icmp6_cksum = csum_ipv6_magic(&orig.daddr, &orig.saddr, len,
					      IPPROTO_ICMPV6,
					      skb_checksum(skb, 0, len, 0));
	skb_reset_transport_header(skb);

	nip6h = skb_push(skb, sizeof(*nip6h));
	*nip6h = (struct ipv6hdr) {
		.version = 6,
		.payload_len = htons(len),
		.nexthdr = IPPROTO_ICMPV6,
		.hop_limit = orig.hop_limit,
		.saddr = orig.daddr,
		.daddr = orig.saddr,
	};
	return 0;
}

/* Answers 'skb' with the ICMP or ICMPv6 message that announces 'mtu', as if
 * the remote end of the tunnel (key's destination) had sent it to 'saddr',
 * the local address the packet would have left from: on the device's
 * receive side.  Nothing for packets that Linux would not answer or beyond
 * the ICMP rate limit (net.ipv4.icmp_msgs_per_sec).  Consumes the skb.
 */
static void iptun_pmtu_reply(struct iptun_dev *t, struct sk_buff *skb,
			     u32 mtu, const struct ip_tunnel_key *key,
			     bool outer6, const void *saddr)
{
	struct net_device *dev = t->dev;
	struct metadata_dst *tun_dst;
	bool ipv4 = skb->protocol == htons(ETH_P_IP);
	__be16 tp_dst = t->fou ? t->dst_port : 0;
	IPTUN_DECLARE_FLAGS(flags);

	/* From here on the packet starts at its IP header. */
	if (skb_network_offset(skb) > 0)
		skb_pull(skb, skb_network_offset(skb));
	skb_reset_network_header(skb);
	if (!(ipv4 ? iptun_pmtu_answer4(skb, mtu) : iptun_pmtu_answer6(skb)) ||
	    !icmp_global_allow(dev_net(dev)))
		goto drop;
	/* As __icmp_send(): icmp_global_allow() only looks at the credit
	 * since Linux 6.11 (and the stable kernels it went to, Debian's 6.1
	 * among them); the answer takes one.
	 */
	icmp_global_consume(dev_net(dev));

	/* The tunnel metadata of a packet from the remote end: its address
	 * the source, the local one the destination.
	 */
	iptun_flags_init(flags, iptun_flag_csum(key->tun_flags));
	if (outer6)
		tun_dst = __ipv6_tun_set_dst(&key->u.ipv6.dst, saddr, 0,
					     key->ttl, tp_dst, 0, flags, 0, 0);
	else
		tun_dst = __ip_tun_set_dst(key->u.ipv4.dst,
					   *(const __be32 *)saddr, 0, key->ttl,
					   tp_dst, flags, 0, 0);
	if (!tun_dst)
		goto drop;

	skb_dst_drop(skb);
	skb_orphan(skb);
	skb_gso_reset(skb);
	skb->encapsulation = 0;
	if (ipv4 ? iptun_pmtu_build4(skb, mtu) : iptun_pmtu_build6(skb, mtu)) {
		dst_release(&tun_dst->dst);
		goto drop;
	}
	skb_reset_network_header(skb);
	skb_reset_mac_header(skb);
	skb->ip_summed = CHECKSUM_NONE;
	skb->pkt_type = PACKET_HOST;
	skb->dev = dev;
	skb_dst_set(skb, &tun_dst->dst);
	dev_sw_netstats_rx_add(dev, skb->len);
	netif_rx(skb);
	return;

drop:
	kfree_skb(skb);
}

int iptun_pmtu_check(struct iptun_dev *t, struct sk_buff *skb, u32 mtu,
		     const struct ip_tunnel_key *key, bool outer6,
		     const void *saddr)
{
	u32 icmp_mtu;

	if (!iptun_too_big(skb, mtu))
		return 0;
	icmp_mtu = iptun_pmtu_verdict(skb, mtu);
	if (!icmp_mtu)
		return 1;
	/* It cannot be sent: the sender hears why. */
	DEV_STATS_INC(t->dev, tx_aborted_errors);
	iptun_pmtu_reply(t, skb, icmp_mtu, key, outer6, saddr);
	return -EMSGSIZE;
}
