// SPDX-License-Identifier: GPL-2.0-only
/*
 * ovs-iptun: GRO for the fou and gue devices' UDP sockets, as Linux's fou
 * and gue sockets do it (net/ipv4/fou_core.c): a stream's packets that
 * arrive one by one on the underlay are merged, outer headers and all, in
 * the underlay device's NAPI poll, before the IP stack, the UDP socket and
 * the device's decapsulation see them; one packet of up to 64 KB is then
 * decapsulated (iptun_rcv() strips the tunnel's GSO types, as
 * iptunnel_pull_header() does) and handed to Open vSwitch.
 *
 * udp_gro_receive() has matched the outer addresses and UDP ports and
 * pulled the UDP header; these callbacks pass the packet on to the inner
 * protocol's GRO (IP-in-IP's or IPv6-in-IP's offloads of the outer family,
 * which then merge inner IPv4 or IPv6 and TCP as for ipip, sit and
 * ip6tnl).  A packet they do not take is flushed and goes through the
 * ordinary receive path unmerged, where iptun_fou_rcv() and
 * iptun_gue_rcv() count what is wrong with it: GRO never drops.
 */

#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/gro.h>
#include <net/gue.h>
#include <net/protocol.h>
#include <net/udp_tunnel.h>

#include "iptun.h"

/* The inner packet's IP protocol by its version nibble 'ver' (4: IPv4 in
 * IP, 41: IPv6 in IP), or 0 for another version.
 */
static u8 iptun_gro_ipproto(u8 ver)
{
	return ver == 4 ? IPPROTO_IPIP : ver == 6 ? IPPROTO_IPV6 : 0;
}

static const struct net_offload *iptun_gro_ops(const struct sk_buff *skb,
					       u8 ipproto)
{
	const struct net_offload __rcu **offloads;

	offloads = NAPI_GRO_CB(skb)->is_ipv6 ? inet6_offloads : inet_offloads;
	return rcu_dereference(offloads[ipproto]);
}

/* Passes 'skb', whose GRO offset is at its inner IP header of protocol
 * 'ipproto', to that protocol's GRO.
 */
static struct sk_buff *iptun_gro_inner(struct list_head *head,
				       struct sk_buff *skb, u8 ipproto)
{
	const struct net_offload *ops = iptun_gro_ops(skb, ipproto);

	if (!ops || !ops->callbacks.gro_receive) {
		NAPI_GRO_CB(skb)->flush = 1;
		return NULL;
	}
	/* The outer header was a UDP tunnel's (encap_mark, set by
	 * udp_gro_receive()): the IP-in-IP offload takes this as a second
	 * encapsulation and would refuse it.  As Linux's fou: it is one.
	 */
	NAPI_GRO_CB(skb)->encap_mark = 0;
	NAPI_GRO_CB(skb)->is_fou = 1;
	return call_gro_receive(ops->callbacks.gro_receive, head, skb);
}

/* The inner packets of merged packets must have the same IP version: the
 * inner GRO compares the held packets' headers as its own version's.
 */
static void iptun_gro_same_version(struct list_head *head, unsigned int off,
				   u8 ver)
{
	struct sk_buff *p;

	list_for_each_entry(p, head, list) {
		if (NAPI_GRO_CB(p)->same_flow && p->data[off] >> 4 != ver)
			NAPI_GRO_CB(p)->same_flow = 0;
	}
}

static int iptun_gro_inner_complete(struct sk_buff *skb, int nhoff,
				    u8 ipproto)
{
	const struct net_offload *ops = iptun_gro_ops(skb, ipproto);
	int err;

	if (WARN_ON_ONCE(!ops || !ops->callbacks.gro_complete))
		return -EINVAL;
	err = ops->callbacks.gro_complete(skb, nhoff);
	skb_set_inner_mac_header(skb, nhoff);
	return err;
}

/* fou: the inner packet follows UDP; its version decides (as on
 * receive, iptun_fou_rcv()).
 */
struct sk_buff *iptun_fou_gro_receive(struct sock *sk, struct list_head *head,
				      struct sk_buff *skb)
{
	unsigned int off = skb_gro_offset(skb);
	const u8 *ver;
	u8 ipproto;

	ver = skb_gro_header(skb, off + 1, off);
	if (!ver || !rcu_dereference_sk_user_data(sk))
		goto flush;
	ipproto = iptun_gro_ipproto(*ver >> 4);
	if (!ipproto)
		goto flush;
	iptun_gro_same_version(head, off, *ver >> 4);
	return iptun_gro_inner(head, skb, ipproto);

flush:
	NAPI_GRO_CB(skb)->flush = 1;
	return NULL;
}

int iptun_fou_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff)
{
	u8 ipproto = iptun_gro_ipproto(skb->data[nhoff] >> 4);

	return ipproto ? iptun_gro_inner_complete(skb, nhoff, ipproto)
		       : -EINVAL;
}

/* gue: what iptun_gue_rcv() takes, and nothing else: variant 1 (the inner
 * IPv4 or IPv6 header itself) or a variant 0 data message with protocol 4
 * or 41, the P flag alone, and of the private flags remote checksum
 * offload alone.  Packets merge only with packets whose GUE headers,
 * optional fields included, are the same.
 */
struct sk_buff *iptun_gue_gro_receive(struct sock *sk, struct list_head *head,
				      struct sk_buff *skb)
{
	unsigned int off = skb_gro_offset(skb);
	size_t len = off + sizeof(struct guehdr);
	struct sk_buff *pp = NULL;
	struct gro_remcsum grc;
	struct guehdr *guehdr;
	size_t optlen, hdrlen;
	struct sk_buff *p;
	u8 ipproto;
	u8 ver;
	int flush = 1;

	skb_gro_remcsum_init(&grc);
	guehdr = skb_gro_header(skb, len, off);
	if (!guehdr || !rcu_dereference_sk_user_data(sk))
		goto out;

	switch (guehdr->version) {
	case 0:
		break;
	case 1:
		ver = ((struct iphdr *)guehdr)->version;
		ipproto = iptun_gro_ipproto(ver);
		if (!ipproto)
			goto out;
		iptun_gro_same_version(head, off, ver);
		pp = iptun_gro_inner(head, skb, ipproto);
		flush = 0;
		goto out;
	default:
		goto out;
	}

	optlen = guehdr->hlen << 2;
	len += optlen;
	guehdr = skb_gro_header(skb, len, off);
	if (!guehdr || guehdr->control ||
	    (guehdr->flags & ~GUE_FLAG_PRIV) ||
	    validate_gue_flags(guehdr, optlen))
		goto out;
	switch (guehdr->proto_ctype) {
	case IPPROTO_IPIP:
	case IPPROTO_IPV6:
		ipproto = guehdr->proto_ctype;
		break;
	default:
		goto out;
	}
	hdrlen = sizeof(*guehdr) + optlen;
	/* NAPI_GRO_CB(skb)->csum from the inner packet on, where a remote
	 * checksum offload's start counts from.
	 */
	skb_gro_postpull_rcsum(skb, guehdr, hdrlen);

	if (guehdr->flags & GUE_FLAG_PRIV) {
		__be32 pflags = *(__be32 *)&guehdr[1];
		__be16 *pd;

		if (pflags & ~GUE_PFLAG_REMCSUM)
			goto out;
		if (pflags & GUE_PFLAG_REMCSUM) {
			/* A remote checksum offload, as Linux's
			 * gue_gro_remcsum() without
			 * FOU_F_REMCSUM_NOPARTIAL: GRO does not check the inner
			 * checksum that the sender left to the receiver (the
			 * outer UDP checksum, which GRO checked, covers the
			 * packet); the receive path completes it in the merged
			 * packet.  Not with NOPARTIAL: that writes the checksum
			 * here and undoes it when the packet leaves GRO, at
			 * the same offset from skb->data, which for a packet
			 * merged onto the frag_list GRO has moved to the
			 * payload (2 bytes of payload altered).  Whatever
			 * skb->remcsum_offload says on arrival: a sender's GSO
			 * sets it on the segments it cuts, and a veth hands
			 * them on with it (Linux's gue trusts it, and merges
			 * nothing: the inner checksum fails GRO's check).  A
			 * valid (checked) outer checksum is required.
			 */
			if (!NAPI_GRO_CB(skb)->csum_valid)
				goto out;
			pd = (__be16 *)((u8 *)&guehdr[1] + GUE_LEN_PRIV);
			guehdr = skb_gro_remcsum_process(skb, guehdr, off,
							 hdrlen, ntohs(pd[0]),
							 ntohs(pd[1]), &grc,
							 false);
			skb->remcsum_offload = 1;
		}
	}

	skb_gro_pull(skb, hdrlen);
	list_for_each_entry(p, head, list) {
		const struct guehdr *guehdr2;

		if (!NAPI_GRO_CB(p)->same_flow)
			continue;
		guehdr2 = (const struct guehdr *)(p->data + off);
		if (guehdr->word != guehdr2->word ||
		    memcmp(&guehdr[1], &guehdr2[1], optlen))
			NAPI_GRO_CB(p)->same_flow = 0;
	}
	pp = iptun_gro_inner(head, skb, ipproto);
	flush = 0;

out:
	skb_gro_flush_final_remcsum(skb, pp, flush, &grc);
	return pp;
}

int iptun_gue_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff)
{
	const struct guehdr *guehdr = (struct guehdr *)(skb->data + nhoff);
	unsigned int guehlen = 0;
	u8 ipproto;

	if (guehdr->version == 1) {
		ipproto = iptun_gro_ipproto(((struct iphdr *)guehdr)->version);
	} else {
		ipproto = guehdr->proto_ctype;
		guehlen = sizeof(*guehdr) + (guehdr->hlen << 2);
	}
	if (ipproto != IPPROTO_IPIP && ipproto != IPPROTO_IPV6)
		return -EINVAL;
	return iptun_gro_inner_complete(skb, nhoff + guehlen, ipproto);
}
