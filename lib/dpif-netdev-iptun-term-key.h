/*
 * Copyright (c) 2026 The ovs-iptun authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
#ifndef DPIF_NETDEV_IPTUN_TERM_KEY_H
#define DPIF_NETDEV_IPTUN_TERM_KEY_H 1

/* The tunnel termination cache's keys (see dpif-netdev-iptun-term.h):
 * which packets are candidates, the parsers that build a table's key from
 * a packet as miniflow_extract() would see it, the hashes and the key
 * comparisons, inline.  The lookups (dpif-netdev-iptun-term-lookup.h) and
 * the cache's inserts (dpif-netdev-iptun-term.c) build on them. */

#include <netinet/in.h>
#include <netinet/ip6.h>
#include <string.h>
#include "dpif-netdev-dpcls.h"
#include "dpif-netdev-iptun-term.h"
#include "packets.h"

/* Flags in a first-pass key's w[0]: fields that are wildcarded (cleared) in
 * it, the UDP source port (fou), the source IP address, TOS or traffic class
 * with TTL or hop limit and the IPv6 flow label, the source Ethernet
 * address; and the packet is IPv6. */
#define IPTUN_TERM_OUTER_WILD_SPORT (UINT64_C(1) << 24)
#define IPTUN_TERM_OUTER_WILD_ADDR (UINT64_C(1) << 26)
#define IPTUN_TERM_OUTER_WILD_HDR (UINT64_C(1) << 27)
#define IPTUN_TERM_OUTER_WILD_MAC (UINT64_C(1) << 28)
#define IPTUN_TERM_OUTER_WILD_ANY (IPTUN_TERM_OUTER_WILD_SPORT            \
                                   | IPTUN_TERM_OUTER_WILD_ADDR            \
                                   | IPTUN_TERM_OUTER_WILD_HDR             \
                                   | IPTUN_TERM_OUTER_WILD_MAC)
#define IPTUN_TERM_OUTER_IPV6 (UINT64_C(1) << 25)
/* Flags in a one-lookup key's w[0]: the UDP checksum is not zero; a GUE
 * header (variant 0, no flags, protocol 4) comes before the inner packet. */
#define IPTUN_TERM_ONE_LOOKUP_CSUM (UINT64_C(1) << 24)
#define IPTUN_TERM_ONE_LOOKUP_GUE (UINT64_C(1) << 25)

/* True if datapath port 'port' is an ipip, fou or gue port. */
static inline bool
iptun_term_is_port(const struct iptun_term_cache *cache, odp_port_t port)
{
    return iptun_ports_is_odp(cache->ports, port);
}

/* True if 'packet', a first-pass packet, is one that 'cache' may hold. */
static inline bool
iptun_term_outer_candidate(const struct iptun_term_cache *cache,
                           const struct dp_packet *packet)
{
    const struct eth_header *eth = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);
    uint32_t l3_len;
    uint8_t proto;

    if (OVS_LIKELY(eth->eth_type == htons(ETH_TYPE_IP))) {
        const struct ip_header *ip = (const struct ip_header *) (eth + 1);

        if (size < ETH_HEADER_LEN + IP_HEADER_LEN) {
            return false;
        }
        proto = ip->ip_proto;
        l3_len = IP_HEADER_LEN;
    } else if (eth->eth_type == htons(ETH_TYPE_IPV6)) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) (eth + 1);

        if (size < ETH_HEADER_LEN + IPV6_HEADER_LEN) {
            return false;
        }
        proto = ip6->ip6_nxt;
        l3_len = IPV6_HEADER_LEN;
    } else {
        return false;
    }
    if (proto == IPPROTO_IPIP || proto == IPPROTO_IPV6) {
        return iptun_ports_has_ipip(cache->ports);
    }
    if (proto == IPPROTO_UDP
        && size >= ETH_HEADER_LEN + l3_len + UDP_HEADER_LEN) {
        const struct udp_header *udp = (const void *) ((const char *) (eth + 1)
                                                       + l3_len);

        return iptun_ports_is_udp_dst(cache->ports, ntohs(udp->udp_dst));
    }
    return false;
}

/* True if 'packet', a recirculated packet, is one that an ipip or fou port
 * has just popped: its input port is such a port and it carries the
 * metadata the pop gave it (recirculation id 0; any other recirculation has
 * one). */
static inline bool
iptun_term_inner_candidate(const struct iptun_term_cache *cache,
                           const struct dp_packet *packet)
{
    return (!packet->md.recirc_id
            && iptun_term_is_port(cache, packet->md.in_port.odp_port));
}

/* True if 'packet', in a batch of 'pass' received on a datapath port
 * (first pass) or recirculated (second pass), is one that 'cache' may
 * hold: iptun_term_cache_lookup() may look it up. */
static inline bool
iptun_term_candidate(const struct iptun_term_cache *cache,
                     const struct dp_packet *packet, enum iptun_term_pass pass)
{
    return (pass == IPTUN_TERM_SECOND_PASS
            ? iptun_term_inner_candidate(cache, packet)
            : iptun_term_outer_candidate(cache, packet));
}

/* All-ones masks: the exact first-pass key (iptun_term_outer_parse()). */
static const uint64_t iptun_term_outer_exact[2][8] = {
    { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
      UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX },
    { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
      UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX },
};

/* The total length of the IPv4 header at 'ip', which has 'size' bytes (at
 * least IP_HEADER_LEN) from it to the end of what carries it, if the cache
 * handles it as miniflow_extract() would parse it: no options, not a
 * fragment, a total length from IP_HEADER_LEN to 'size'.  Otherwise 0. */
static inline uint16_t
iptun_term_ipv4_len(const struct ip_header *ip, uint32_t size)
{
    uint16_t tot_len = ntohs(ip->ip_tot_len);

    return (ip->ip_ihl_ver == IP_IHL_VER(5, IP_VERSION)
            && !IP_IS_FRAGMENT(ip->ip_frag_off)
            && tot_len >= IP_HEADER_LEN && tot_len <= size
            ? tot_len : 0);
}

/* Fills the words of a first-pass key 'w' that both families share: w[1]
 * and w[2] (the Ethernet addresses of the frame at 'data' and the UDP
 * 'ports'), ANDed with 'mask'. */
static inline void
iptun_term_outer_key_fill_l2(uint64_t *w, const uint8_t *data,
                             uint32_t ports, const uint64_t *mask)
{
    uint32_t macs_tail;

    memcpy(&w[1], data, sizeof w[1]);                    /* dst, src[0:2] */
    memcpy(&macs_tail, data + 8, sizeof macs_tail);      /* src[2:6] */
    w[1] &= mask[1];
    w[2] = (((uint64_t) macs_tail << 32) | ports) & mask[2];
}

/* The first-pass wildcard flags of 'wild' that apply to a packet of 'proto':
 * the UDP source port's only to UDP. */
static inline uint64_t
iptun_term_outer_wild_for(uint64_t wild, uint8_t proto)
{
    return proto == IPPROTO_UDP ? wild : wild & ~IPTUN_TERM_OUTER_WILD_SPORT;
}

/* The outer IPv4 headers as miniflow_extract() would see them: see
 * iptun_term_outer_parse(). */
static inline int
iptun_term_outer_parse4(const struct dp_packet *packet, odp_port_t in_port,
                        struct iptun_term_outer_key *key,
                        const uint64_t *mask, uint64_t wild)
{
    const uint8_t *data = dp_packet_data(packet);
    const struct ip_header *ip = (const void *) (data + ETH_HEADER_LEN);
    uint32_t l3_size = dp_packet_size(packet) - ETH_HEADER_LEN;
    uint16_t tot_len = iptun_term_ipv4_len(ip, l3_size);
    uint32_t ports = 0;

    /* iptun_term_outer_candidate() checked the size, the Ethernet type and the
     * protocol. */
    if (packet->packet_type != htonl(PT_ETH)
        || !tot_len || l3_size - tot_len > UINT16_MAX) {
        return -1;
    }
    if (ip->ip_proto == IPPROTO_UDP) {
        if (tot_len < IP_HEADER_LEN + UDP_HEADER_LEN) {
            return -1;
        }
        memcpy(&ports, ip + 1, sizeof ports);
    }

    key->w[0] = ((((uint64_t) odp_to_u32(in_port) << 32)
                  | ((uint32_t) ip->ip_proto << 16)
                  | ((uint32_t) ip->ip_tos << 8) | ip->ip_ttl) & mask[0])
                | iptun_term_outer_wild_for(wild, ip->ip_proto);
    iptun_term_outer_key_fill_l2(key->w, data, ports, mask);
    memcpy(&key->w[3], &ip->ip_src, sizeof key->w[3]);   /* src, dst */
    key->w[3] &= mask[3];
    return l3_size - tot_len;
}

/* The outer IPv6 headers as miniflow_extract() would see them: see
 * iptun_term_outer_parse(). */
static inline int
iptun_term_outer_parse6(const struct dp_packet *packet, odp_port_t in_port,
                        struct iptun_term_outer_key *key,
                        const uint64_t *mask, uint64_t wild)
{
    const uint8_t *data = dp_packet_data(packet);
    const struct ovs_16aligned_ip6_hdr *ip6
        = (const void *) (data + ETH_HEADER_LEN);
    uint32_t l3_size = dp_packet_size(packet) - ETH_HEADER_LEN;
    uint32_t tc_flow = ntohl(get_16aligned_be32(&ip6->ip6_flow));
    uint32_t len = IPV6_HEADER_LEN + ntohs(ip6->ip6_plen);
    uint32_t ports = 0;

    /* iptun_term_outer_candidate() checked the size, the Ethernet type and the
     * next header, which is not an extension header. */
    if (packet->packet_type != htonl(PT_ETH) || tc_flow >> 28 != 6
        || len > l3_size || l3_size - len > UINT16_MAX) {
        return -1;
    }
    if (ip6->ip6_nxt == IPPROTO_UDP) {
        if (len < IPV6_HEADER_LEN + UDP_HEADER_LEN) {
            return -1;
        }
        memcpy(&ports, ip6 + 1, sizeof ports);
    }

    key->w[0] = ((((uint64_t) odp_to_u32(in_port) << 32)
                  | IPTUN_TERM_OUTER_IPV6
                  | ((uint32_t) ip6->ip6_nxt << 16)
                  | (((tc_flow >> 20) & 0xff) << 8) | ip6->ip6_hlim)
                 & mask[0])
                | iptun_term_outer_wild_for(wild, ip6->ip6_nxt);
    iptun_term_outer_key_fill_l2(key->w, data, ports, mask);
    key->w[3] = tc_flow & IPV6_LABEL_MASK & mask[3];
    memcpy(&key->w[4], &ip6->ip6_src, 4 * sizeof key->w[4]);  /* src, dst */
    for (int i = 4; i < 8; i++) {
        key->w[i] &= mask[i];
    }
    return l3_size - len;
}

/* The outer headers as miniflow_extract() would see them.  Fills 'key',
 * wildcarded as term_outer_wildcard() (dpif-netdev-iptun-term.c) would with
 * the flags of 'wild' that apply to the packet, through 'masks' (for IPv4 and
 * IPv6: see iptun_term_cache.outer_mask; iptun_term_outer_exact and 0 for the
 * exact key), and returns the Ethernet padding, or returns -1 if the packet
 * is not one the cache handles: not Ethernet + IPv4 without options or IPv6
 * without extension headers, a fragment, lengths that miniflow_extract()
 * would not accept in full, or not ipip/fou. */
static inline int
iptun_term_outer_parse(const struct dp_packet *packet, odp_port_t in_port,
                       struct iptun_term_outer_key *key,
                       const uint64_t masks[2][8], uint64_t wild)
{
    const struct eth_header *eth = dp_packet_data(packet);

    return (OVS_LIKELY(eth->eth_type == htons(ETH_TYPE_IP))
            ? iptun_term_outer_parse4(packet, in_port, key, masks[0], wild)
            : iptun_term_outer_parse6(packet, in_port, key, masks[1], wild));
}

/* A 32-bit hash of 'x' in which every bit of 'x' counts: the upper half
 * is folded into the lower one, then one multiplication spreads it. */
static inline uint32_t
iptun_term_mix(uint64_t x)
{
    x ^= x >> 32;
    return (x * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
}

static inline uint32_t
iptun_term_outer_hash(const struct iptun_term_outer_key *key)
{
    /* The MAC addresses (w[1] and the top of w[2]) of the packets of one
     * tunnel rarely differ when the rest does not. */
    uint64_t x = key->w[0] ^ key->w[2] ^ key->w[3];

    if (key->w[0] & IPTUN_TERM_OUTER_IPV6) {
        x ^= key->w[4] ^ key->w[5] ^ key->w[6] ^ key->w[7];
    }
    return iptun_term_mix(x);
}

static inline bool
iptun_term_outer_key_equal(const struct iptun_term_outer_key *a,
                           const struct iptun_term_outer_key *b)
{
    if ((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]) | (a->w[2] ^ b->w[2])
        | (a->w[3] ^ b->w[3])) {
        return false;
    }
    return (!(a->w[0] & IPTUN_TERM_OUTER_IPV6)
            || !((a->w[4] ^ b->w[4]) | (a->w[5] ^ b->w[5])
                 | (a->w[6] ^ b->w[6]) | (a->w[7] ^ b->w[7])));
}

/* True if 'flow' is alive and its actions are one tnl_pop: the only flows
 * for which skipping miniflow_extract() and the packet hash changes
 * nothing (the pop clears the hash anyway). */
static inline bool
iptun_term_flow_usable(const struct dp_netdev_flow *flow)
{
    const struct dp_netdev_actions *actions;

    if (flow->dead) {
        return false;
    }
    actions = ovsrcu_get(struct dp_netdev_actions *, &flow->actions);
    /* nl_attr_type(), inline: this runs for every packet. */
    return actions->size == NL_A_U32_SIZE
           && ((actions->actions->nla_type & NLA_TYPE_MASK)
               == OVS_ACTION_ATTR_TUNNEL_POP);
}

/* Sets the layer offsets of 'packet', whose option-less IPv4 header (or
 * IPv6 header without extension headers, 'l3_len' bytes) is at 'l3_ofs', as
 * miniflow_extract() would. */
static inline void
iptun_term_set_offsets(struct dp_packet *packet, uint16_t l3_ofs,
                       uint16_t l3_len, int l2_pad)
{
    dp_packet_reset_offsets(packet);
    dp_packet_set_l2_pad_size(packet, l2_pad);
    packet->l3_ofs = l3_ofs;
    packet->l4_ofs = l3_ofs + l3_len;
}

/* Records in 'packet' that its L4 header is TCP or UDP, for IP protocol
 * 'proto', as Open vSwitch 4.0's miniflow_extract() does (the checksum
 * offloads need it: dp_packet_ol_send_prepare()); nothing for another
 * protocol (ipip's outer 4 or 41). */
static inline void
iptun_term_set_l4_proto(struct dp_packet *packet,
                        uint8_t proto)
{
    if (proto == IPPROTO_TCP) {
        dp_packet_l4_proto_set_tcp(packet);
    } else if (proto == IPPROTO_UDP) {
        dp_packet_l4_proto_set_udp(packet);
    }
}

/* Gives 'packet', a second-pass hit, the packet hash that miniflow_extract()
 * would: dp_packet_update_rss_hash_ipv4_tcp_udp() or its IPv6 twin computes
 * it from the addresses, protocol and ports, which the entry's key holds,
 * so the entry keeps the value it had when it was cached
 * (iptun_term_cache_insert()). */
static inline void
iptun_term_set_rss_hash(struct dp_packet *packet, uint32_t rss_hash)
{
    if (OVS_LIKELY(!dp_packet_rss_valid(packet))) {
        dp_packet_set_rss_hash(packet, rss_hash);
    }
}

/* The TCP or UDP header ('l4_size' bytes at 'l4') of an inner packet of IP
 * protocol 'proto', as miniflow_extract() would parse it: stores its ports
 * (as on the wire) in '*ports' and its TCP flags (0 for UDP) in
 * '*tcp_flags', or returns false for another protocol or a header that
 * miniflow_extract() would not parse in full. */
static inline bool
iptun_term_parse_l4(const void *l4, uint32_t l4_size, uint8_t proto,
                    uint32_t *ports, uint16_t *tcp_flags)
{
    if (proto == IPPROTO_UDP) {
        if (l4_size < UDP_HEADER_LEN) {
            return false;
        }
        *tcp_flags = 0;
    } else if (proto == IPPROTO_TCP) {
        const struct tcp_header *tcp = l4;
        unsigned int tcp_len;

        if (l4_size < TCP_HEADER_LEN) {
            return false;
        }
        tcp_len = TCP_OFFSET(tcp->tcp_ctl) * 4;
        if (tcp_len < TCP_HEADER_LEN || tcp_len > l4_size) {
            return false;
        }
        *tcp_flags = TCP_FLAGS(tcp->tcp_ctl);
    } else {
        return false;
    }
    memcpy(ports, l4, sizeof *ports);
    return true;
}

/* Fills the words of a second-pass key that both tables share (w[0], w[1],
 * w[2] but its low byte, w[4]: see iptun_term_inner_4in4_key) from the
 * tunnel metadata and input port of 'packet' and the inner header fields
 * given. */
static inline void
iptun_term_inner_key_fill(uint64_t *w, const struct dp_packet *packet,
                          uint8_t tos, uint8_t ttl, uint8_t proto,
                          uint32_t ports, uint16_t tcp_flags)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;

    w[0] = ((uint64_t) odp_to_u32(packet->md.in_port.odp_port) << 32)
           | ((uint32_t) tnl->flags << 16)
           | ((uint32_t) tnl->ip_tos << 8) | tnl->ip_ttl;
    w[1] = ((uint64_t) ntohl(tnl->ip_src) << 32) | ntohl(tnl->ip_dst);
    w[2] = ((uint64_t) ntohs(tnl->tp_src) << 48)
           | ((uint64_t) ntohs(tnl->tp_dst) << 32)
           | ((uint32_t) tos << 24) | ((uint32_t) ttl << 16)
           | ((uint32_t) proto << 8);
    w[4] = ((uint64_t) ports << 32) | tcp_flags;
}

/* The second pass as miniflow_extract() would see it: 'packet' is the
 * inner IPv4 packet (packet type IPv4) that an ipip, fou or gue pop left,
 * with the tunnel metadata of iptun_metadata_init() plus the outer
 * addresses, TOS, TTL, flags and (fou, gue) UDP ports.  Fills 'key' and
 * '*tcp_flags' and returns the padding after the IPv4 datagram, or -1 if
 * the cache does not handle the packet: not TCP or UDP, options, a
 * fragment, or a header that miniflow_extract() would not parse in full.
 * Only for packets for which iptun_term_inner_is_4in4() is true (the key
 * holds IPv4 tunnel addresses); the others take
 * iptun_term_inner_any6_parse(). */
static inline int
iptun_term_inner_4in4_parse(const struct dp_packet *packet,
                            struct iptun_term_inner_4in4_key *key,
                            uint16_t *tcp_flags)
{
    const struct ip_header *ip = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);
    uint16_t tot_len, l4_size;
    uint32_t ports;

    if (size < IP_HEADER_LEN) {
        return -1;
    }
    tot_len = iptun_term_ipv4_len(ip, size);
    if (!tot_len) {
        return -1;
    }
    l4_size = tot_len - IP_HEADER_LEN;
    if (!iptun_term_parse_l4(ip + 1, l4_size, ip->ip_proto, &ports,
                             tcp_flags)) {
        return -1;
    }

    iptun_term_inner_key_fill(key->w, packet, ip->ip_tos, ip->ip_ttl,
                              ip->ip_proto, ports, *tcp_flags);
    memcpy(&key->w[3], &ip->ip_src, sizeof key->w[3]);
    return size - tot_len;
}

static inline uint32_t
iptun_term_inner_4in4_hash(const struct iptun_term_inner_4in4_key *key)
{
    /* The inner ports (w[4]) are rotated away from the fou source port
     * (w[2]), which a sender derives from them. */
    uint64_t w4 = (key->w[4] << 21) | (key->w[4] >> 43);

    return iptun_term_mix(key->w[0] ^ key->w[1] ^ key->w[2] ^ key->w[3]
                          ^ w4);
}

static inline bool
iptun_term_inner_4in4_key_equal(const struct iptun_term_inner_4in4_key *a,
                                const struct iptun_term_inner_4in4_key *b)
{
    return !((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1])
             | (a->w[2] ^ b->w[2]) | (a->w[3] ^ b->w[3])
             | (a->w[4] ^ b->w[4]));
}

/* True if 'packet', a second-pass candidate, belongs to the IPv4-in-IPv4
 * table (iptun_term_inner_4in4_parse()): an inner IPv4 packet that came
 * over IPv4 (the table's key holds IPv4 tunnel addresses; a packet that
 * came over IPv6 has no IPv4 destination).  The others go to the
 * inner_any6 table. */
static inline bool
iptun_term_inner_is_4in4(const struct dp_packet *packet)
{
    return packet->packet_type == htonl(PT_IPV4) && packet->md.tunnel.ip_dst;
}

/* The second pass as miniflow_extract() would see it, for a packet that
 * came over IPv6 or carries IPv6 (iptun_term_inner_is_4in4() false): fills
 * 'key', '*tcp_flags' and '*inner_ipv6' (whether the inner packet is IPv6)
 * and returns the padding after the inner datagram, or -1 if the cache does
 * not handle the packet: not IPv4 without options or IPv6 without
 * extension headers, not TCP or UDP, a fragment, or a header that
 * miniflow_extract() would not parse in full. */
static inline int
iptun_term_inner_any6_parse(const struct dp_packet *packet,
                            struct iptun_term_inner_any6_key *key,
                            uint16_t *tcp_flags, bool *inner_ipv6)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    const uint8_t *data = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);
    uint32_t len, l3_len, l4_size;
    uint8_t proto, tos, ttl;
    uint32_t ports;

    memset(key, 0, sizeof *key);
    if (packet->packet_type == htonl(PT_IPV4)) {
        const struct ip_header *ip = (const void *) data;

        if (size < IP_HEADER_LEN
            || ip->ip_ihl_ver != IP_IHL_VER(5, IP_VERSION)
            || IP_IS_FRAGMENT(ip->ip_frag_off)) {
            return -1;
        }
        len = ntohs(ip->ip_tot_len);
        l3_len = IP_HEADER_LEN;
        proto = ip->ip_proto;
        tos = ip->ip_tos;
        ttl = ip->ip_ttl;
        memcpy(&key->w[3], &ip->ip_src, sizeof key->w[3]);
        *inner_ipv6 = false;
    } else if (packet->packet_type == htonl(PT_IPV6)) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) data;
        uint32_t tc_flow;

        if (size < IPV6_HEADER_LEN) {
            return -1;
        }
        tc_flow = ntohl(get_16aligned_be32(&ip6->ip6_flow));
        if (tc_flow >> 28 != 6) {
            return -1;
        }
        len = IPV6_HEADER_LEN + ntohs(ip6->ip6_plen);
        l3_len = IPV6_HEADER_LEN;
        proto = ip6->ip6_nxt;
        tos = tc_flow >> 20;
        ttl = ip6->ip6_hlim;
        key->w[3] = tc_flow & IPV6_LABEL_MASK;
        memcpy(&key->w[9], &ip6->ip6_src, 4 * sizeof key->w[9]);
        *inner_ipv6 = true;
    } else {
        return -1;
    }
    if (len > size || len < l3_len || size - len > UINT16_MAX) {
        return -1;
    }
    l4_size = len - l3_len;
    if (!iptun_term_parse_l4(data + l3_len, l4_size, proto, &ports,
                             tcp_flags)) {
        return -1;
    }

    iptun_term_inner_key_fill(key->w, packet, tos, ttl, proto, ports,
                              *tcp_flags);
    key->w[2] |= *inner_ipv6;
    memcpy(&key->w[5], &tnl->ipv6_src, 2 * sizeof key->w[5]);
    memcpy(&key->w[7], &tnl->ipv6_dst, 2 * sizeof key->w[7]);
    return size - len;
}

static inline uint32_t
iptun_term_inner_any6_hash(const struct iptun_term_inner_any6_key *key)
{
    /* As iptun_term_inner_4in4_hash(): the inner ports rotated. */
    uint64_t x = (key->w[4] << 21) | (key->w[4] >> 43);

    for (int i = 0; i < IPTUN_TERM_INNER_ANY6_WORDS; i++) {
        x ^= i == 4 ? 0 : key->w[i];
    }
    return iptun_term_mix(x);
}

static inline bool
iptun_term_inner_any6_key_equal(const struct iptun_term_inner_any6_key *a,
                                const struct iptun_term_inner_any6_key *b)
{
    uint64_t diff = 0;

    for (int i = 0; i < IPTUN_TERM_INNER_ANY6_WORDS; i++) {
        diff |= a->w[i] ^ b->w[i];
    }
    return !diff;
}

/* The GUE header that the one lookup takes: variant 0, no flags, no
 * optional fields, protocol 4. */
static const uint8_t iptun_term_gue_v0_ipip[4] = { 0, IPPROTO_IPIP, 0, 0 };

/* The one-lookup key of Ethernet frame 'data' of 'size' bytes (at least
 * an Ethernet and an IPv4 header), received on 'in_port' (see
 * iptun_term_one_lookup_key): fills 'key' and returns the Ethernet padding, or
 * returns -1 if the frame is not one that the one lookup handles, or has
 * lengths that the pop or miniflow_extract() of either pass would not
 * accept in full. */
static inline ALWAYS_INLINE int
iptun_term_one_lookup_parse_frame(const uint8_t *data, uint32_t size,
                                  odp_port_t in_port,
                                  struct iptun_term_one_lookup_key *key)
{
    const struct eth_header *eth = (const void *) data;
    const struct ip_header *ip = (const void *) (data + ETH_HEADER_LEN);
    uint32_t l3_size = size - ETH_HEADER_LEN;
    const struct ip_header *in;
    uint32_t avail, ports = 0, in_ports;
    uint16_t tot_len, in_len, tcp_flags;
    uint64_t flags = 0;

    /* The caller checked the size of an IPv4 header. */
    if (eth->eth_type != htons(ETH_TYPE_IP)) {
        return -1;
    }
    tot_len = iptun_term_ipv4_len(ip, l3_size);
    if (!tot_len || l3_size - tot_len > UINT16_MAX) {
        return -1;
    }
    avail = tot_len - IP_HEADER_LEN;
    in = ip + 1;
    if (ip->ip_proto == IPPROTO_UDP) {
        const struct udp_header *udp = (const void *) (ip + 1);
        uint32_t udp_len;

        if (avail < UDP_HEADER_LEN + IP_HEADER_LEN) {
            return -1;
        }
        udp_len = ntohs(udp->udp_len);
        if (udp_len < UDP_HEADER_LEN || udp_len > avail) {
            return -1;
        }
        avail = udp_len - UDP_HEADER_LEN;
        memcpy(&ports, udp, sizeof ports);
        if (udp->udp_csum) {
            flags |= IPTUN_TERM_ONE_LOOKUP_CSUM;
        }
        in = (const void *) (udp + 1);
        if (avail >= sizeof iptun_term_gue_v0_ipip
            && !memcmp(in, iptun_term_gue_v0_ipip,
                       sizeof iptun_term_gue_v0_ipip)) {
            /* gue's header (fou's pop would drop the packet: no entry). */
            flags |= IPTUN_TERM_ONE_LOOKUP_GUE;
            avail -= sizeof iptun_term_gue_v0_ipip;
            in = (const void *) ((const uint8_t *) in
                                 + sizeof iptun_term_gue_v0_ipip);
        }
    } else if (ip->ip_proto != IPPROTO_IPIP) {
        return -1;
    }
    if (avail < IP_HEADER_LEN) {
        return -1;
    }
    in_len = iptun_term_ipv4_len(in, avail);
    if (!in_len
        || !iptun_term_parse_l4(in + 1, in_len - IP_HEADER_LEN, in->ip_proto,
                                &in_ports, &tcp_flags)) {
        return -1;
    }

    key->w[0] = ((uint64_t) odp_to_u32(in_port) << 32) | flags
                | ((uint32_t) ip->ip_proto << 16)
                | ((uint32_t) ip->ip_tos << 8) | ip->ip_ttl;
    iptun_term_outer_key_fill_l2(key->w, data, ports,
                                 iptun_term_outer_exact[0]);
    memcpy(&key->w[3], &ip->ip_src, sizeof key->w[3]);    /* src, dst */
    key->w[4] = ((uint32_t) in->ip_tos << 24) | ((uint32_t) in->ip_ttl << 16)
                | ((uint32_t) in->ip_proto << 8);
    memcpy(&key->w[5], &in->ip_src, sizeof key->w[5]);    /* src, dst */
    key->w[6] = ((uint64_t) in_ports << 32) | tcp_flags;
    return l3_size - tot_len;
}

/* iptun_term_one_lookup_parse_frame() for 'packet', a first-pass candidate
 * (iptun_term_outer_candidate()). */
static inline int
iptun_term_one_lookup_parse(const struct dp_packet *packet, odp_port_t in_port,
                            struct iptun_term_one_lookup_key *key)
{
    if (packet->packet_type != htonl(PT_ETH)) {
        return -1;
    }
    return iptun_term_one_lookup_parse_frame(dp_packet_data(packet),
                                             dp_packet_size(packet), in_port,
                                             key);
}

static inline uint32_t
iptun_term_one_lookup_hash(const struct iptun_term_one_lookup_key *key)
{
    /* As iptun_term_outer_hash() (the MAC addresses left out) and
     * iptun_term_inner_4in4_hash() (the inner ports rotated). */
    uint64_t w6 = (key->w[6] << 21) | (key->w[6] >> 43);

    return iptun_term_mix(key->w[0] ^ key->w[2] ^ key->w[3]
                          ^ (key->w[4] << 32) ^ key->w[5] ^ w6);
}

static inline bool
iptun_term_one_lookup_key_equal(const struct iptun_term_one_lookup_key *a,
                                const struct iptun_term_one_lookup_key *b)
{
    return !((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]) | (a->w[2] ^ b->w[2])
             | (a->w[3] ^ b->w[3]) | (a->w[4] ^ b->w[4])
             | (a->w[5] ^ b->w[5]) | (a->w[6] ^ b->w[6]));
}

/* The length of the headers that the pop of a packet with one-lookup key
 * 'key' removes. */
static inline unsigned int
iptun_term_one_lookup_hlen(const struct iptun_term_one_lookup_key *key)
{
    unsigned int hlen = ETH_HEADER_LEN + IP_HEADER_LEN;

    if (((key->w[0] >> 16) & 0xff) == IPPROTO_UDP) {
        hlen += UDP_HEADER_LEN;
        if (key->w[0] & IPTUN_TERM_ONE_LOOKUP_GUE) {
            hlen += sizeof iptun_term_gue_v0_ipip;
        }
    }
    return hlen;
}

#endif /* dpif-netdev-iptun-term-key.h */
