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

#ifndef DPIF_NETDEV_IPTUN_TERM_LOOKUP_H
#define DPIF_NETDEV_IPTUN_TERM_LOOKUP_H 1

/* The tunnel termination cache's per-packet code (see
 * dpif-netdev-iptun-term.h): which packets are candidates, the parsers
 * that build a table's key from a packet as miniflow_extract() would see
 * it, the hashes, and the lookups, inline for dfc_processing() and
 * decapsulation in one pass. */

#include "dpif-netdev-iptun-term.h"
#include "netdev-native-iptun-pop.h"

struct iptun_term_outer_entry *iptun_term_outer_find_exact(
    struct iptun_term_cache *, const struct dp_packet *, odp_port_t in_port);
/* The set-associative tables' lookups beyond the home entry of 'hash' (see
 * IPTUN_TERM_WAYS), for 'packet' (received on 'in_port'), whose key has
 * that hash: the entry, or its index, that holds the packet's key, or NULL
 * or -1.  Out of line, parsing the packet again only if a signature
 * matches, so that the usual lookup (a hit in the home entry, or a miss)
 * does not keep its key past the home entry's comparison. */
struct iptun_term_inner_4in4_entry *iptun_term_inner_4in4_find_others(
    struct iptun_term_cache *, const struct dp_packet *, uint32_t hash);
int iptun_term_direct_find_others(const struct iptun_term_cache *,
                                  const struct dp_packet *,
                                  odp_port_t in_port, uint32_t hash);
void iptun_term_direct_insert(struct iptun_term_cache *,
                              const struct iptun_term_direct_key *,
                              struct dp_netdev_flow *outer,
                              struct dp_netdev_flow *inner, odp_port_t port,
                              uint32_t rss_hash);

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

/* iptun_term_inner_4in4_lookup() for the packets of the inner_any6 table. */
static inline struct dp_netdev_flow *
iptun_term_inner_any6_lookup(struct iptun_term_cache *cache,
                             struct dp_packet *packet, uint16_t *tcp_flags)
{
    struct iptun_term_inner_any6_entry *e;
    struct iptun_term_inner_any6_key key;
    bool inner_ipv6;
    int l2_pad;

    l2_pad = iptun_term_inner_any6_parse(packet, &key, tcp_flags,
                                         &inner_ipv6);
    if (l2_pad < 0) {
        return NULL;
    }
    e = &cache->inner_any6[iptun_term_inner_any6_hash(&key)
                           & IPTUN_TERM_INNER_ANY6_MASK];
    if (!e->flow || !iptun_term_inner_any6_key_equal(&e->key, &key)
        || OVS_UNLIKELY(e->flow->dead)) {
        return NULL;
    }

    iptun_term_set_offsets(packet, 0,
                           inner_ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN,
                           l2_pad);
    iptun_term_set_l4_proto(packet,
                            inner_ipv6
                            ? ((const struct ovs_16aligned_ip6_hdr *)
                               dp_packet_data(packet))->ip6_nxt
                            : ((const struct ip_header *)
                               dp_packet_data(packet))->ip_proto);
    iptun_term_set_rss_hash(packet, e->rss_hash);
    return e->flow;
}

/* Returns the second-pass flow for 'packet' (see
 * iptun_term_inner_4in4_parse()) and leaves the packet as
 * miniflow_extract() would: layer offsets and the packet hash.  Returns
 * NULL, packet untouched, on a miss. */
static inline struct dp_netdev_flow *
iptun_term_inner_4in4_lookup(struct iptun_term_cache *cache,
                             struct dp_packet *packet, uint16_t *tcp_flags)
{
    struct iptun_term_inner_4in4_entry *e;
    struct iptun_term_inner_4in4_key key;
    uint32_t hash;
    int l2_pad;

    l2_pad = iptun_term_inner_4in4_parse(packet, &key, tcp_flags);
    if (l2_pad < 0) {
        return NULL;
    }
    hash = iptun_term_inner_4in4_hash(&key);
    e = &cache->inner_4in4[hash & IPTUN_TERM_INNER_4IN4_MASK];
    if (OVS_UNLIKELY(!e->flow
                     || !iptun_term_inner_4in4_key_equal(&e->key, &key))) {
        e = iptun_term_inner_4in4_find_others(cache, packet, hash);
        if (!e) {
            return NULL;
        }
    }
    if (OVS_UNLIKELY(e->flow->dead)) {
        return NULL;
    }

    iptun_term_set_offsets(packet, 0, IP_HEADER_LEN, l2_pad);
    iptun_term_set_l4_proto(packet, ((const struct ip_header *)
                                     dp_packet_data(packet))->ip_proto);
    iptun_term_set_rss_hash(packet, e->rss_hash);
    return e->flow;
}

/* Returns the flow for 'packet', a first-pass packet received on 'in_port'
 * for which iptun_term_outer_candidate() is true, and sets the packet's layer
 * offsets as miniflow_extract() would, or returns NULL (offsets untouched)
 * if the cache has nothing for it. */
static inline struct dp_netdev_flow *
iptun_term_outer_lookup(struct iptun_term_cache *cache,
                        struct dp_packet *packet, odp_port_t in_port)
{
    struct iptun_term_outer_entry *e;
    struct iptun_term_outer_key key;
    int l2_pad;

    /* A flow that matches the UDP source port, or the remote's address, is
     * cached with it, others (the usual case) without: try the key without
     * the fields that the entries made so far left out first, then the
     * exact key. */
    l2_pad = iptun_term_outer_parse(packet, in_port, &key, cache->outer_mask,
                                    cache->outer_wild);
    if (l2_pad < 0) {
        return NULL;
    }
    e = &cache->outer[iptun_term_outer_hash(&key) & IPTUN_TERM_OUTER_MASK];
    if (e->flow && iptun_term_outer_key_equal(&e->key, &key)
        && OVS_LIKELY(iptun_term_flow_usable(e->flow))) {
        goto found;
    }
    if (!(key.w[0] & IPTUN_TERM_OUTER_WILD_ANY)) {
        return NULL;
    }
    e = iptun_term_outer_find_exact(cache, packet, in_port);
    if (!e) {
        return NULL;
    }

found:
    iptun_term_set_offsets(packet, ETH_HEADER_LEN,
                           (key.w[0] & IPTUN_TERM_OUTER_IPV6
                            ? IPV6_HEADER_LEN : IP_HEADER_LEN), l2_pad);
    iptun_term_set_l4_proto(packet,
                            key.w[0] & IPTUN_TERM_OUTER_IPV6
                            ? ((const struct ovs_16aligned_ip6_hdr *)
                               dp_packet_l3(packet))->ip6_nxt
                            : ((const struct ip_header *)
                               dp_packet_l3(packet))->ip_proto);
    return e->flow;
}

/* The GUE header that the one lookup takes: variant 0, no flags, no
 * optional fields, protocol 4. */
static const uint8_t iptun_term_gue_v0_ipip[4] = { 0, IPPROTO_IPIP, 0, 0 };

/* The one-lookup key of Ethernet frame 'data' of 'size' bytes (at least
 * an Ethernet and an IPv4 header), received on 'in_port' (see
 * iptun_term_direct_key): fills 'key' and returns the Ethernet padding, or
 * returns -1 if the frame is not one that the one lookup handles, or has
 * lengths that the pop or miniflow_extract() of either pass would not
 * accept in full. */
static inline ALWAYS_INLINE int
iptun_term_direct_parse_frame(const uint8_t *data, uint32_t size,
                              odp_port_t in_port,
                              struct iptun_term_direct_key *key)
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
            flags |= IPTUN_TERM_DIRECT_CSUM;
        }
        in = (const void *) (udp + 1);
        if (avail >= sizeof iptun_term_gue_v0_ipip
            && !memcmp(in, iptun_term_gue_v0_ipip,
                       sizeof iptun_term_gue_v0_ipip)) {
            /* gue's header (fou's pop would drop the packet: no entry). */
            flags |= IPTUN_TERM_DIRECT_GUE;
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

/* iptun_term_direct_parse_frame() for 'packet', a first-pass candidate
 * (iptun_term_outer_candidate()). */
static inline int
iptun_term_direct_parse(const struct dp_packet *packet, odp_port_t in_port,
                        struct iptun_term_direct_key *key)
{
    if (packet->packet_type != htonl(PT_ETH)) {
        return -1;
    }
    return iptun_term_direct_parse_frame(dp_packet_data(packet),
                                         dp_packet_size(packet), in_port,
                                         key);
}

static inline uint32_t
iptun_term_direct_hash(const struct iptun_term_direct_key *key)
{
    /* As iptun_term_outer_hash() (the MAC addresses left out) and
     * iptun_term_inner_4in4_hash() (the inner ports rotated). */
    uint64_t w6 = (key->w[6] << 21) | (key->w[6] >> 43);

    return iptun_term_mix(key->w[0] ^ key->w[2] ^ key->w[3]
                          ^ (key->w[4] << 32) ^ key->w[5] ^ w6);
}

static inline bool
iptun_term_direct_key_equal(const struct iptun_term_direct_key *a,
                            const struct iptun_term_direct_key *b)
{
    return !((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]) | (a->w[2] ^ b->w[2])
             | (a->w[3] ^ b->w[3]) | (a->w[4] ^ b->w[4])
             | (a->w[5] ^ b->w[5]) | (a->w[6] ^ b->w[6]));
}

/* The length of the headers that the pop of a packet with one-lookup key
 * 'key' removes. */
static inline unsigned int
iptun_term_direct_hlen(const struct iptun_term_direct_key *key)
{
    unsigned int hlen = ETH_HEADER_LEN + IP_HEADER_LEN;

    if (((key->w[0] >> 16) & 0xff) == IPPROTO_UDP) {
        hlen += UDP_HEADER_LEN;
        if (key->w[0] & IPTUN_TERM_DIRECT_GUE) {
            hlen += sizeof iptun_term_gue_v0_ipip;
        }
    }
    return hlen;
}

/* One lookup for 'packet', a first-pass candidate received on 'in_port'
 * (iptun_term_direct_key): on a hit, returns the tnl_pop flow, sets the
 * layer offsets as iptun_term_outer_lookup() does and gives the packet the
 * entry's ticket (IPTUN_TERM_DIRECT_TICKET), which its batch's
 * decapsulation in one pass redeems (iptun_term_direct_pop()).  Returns
 * NULL, the packet untouched, on a miss. */
static inline struct dp_netdev_flow *
iptun_term_direct_lookup(struct iptun_term_cache *cache,
                         struct dp_packet *packet, odp_port_t in_port)
{
    struct iptun_term_direct_entry *e;
    struct iptun_term_direct_key key;
    uint32_t hash, idx;
    int l2_pad;

    l2_pad = iptun_term_direct_parse(packet, in_port, &key);
    if (l2_pad < 0) {
        return NULL;
    }
    hash = iptun_term_direct_hash(&key);
    idx = hash & IPTUN_TERM_DIRECT_MASK;
    e = &cache->direct[idx];
    if (OVS_UNLIKELY(!e->inner
                     || !iptun_term_direct_key_equal(&e->key, &key))) {
        int other = iptun_term_direct_find_others(cache, packet, in_port,
                                                  hash);

        if (other < 0) {
            return NULL;
        }
        idx = other;
        e = &cache->direct[idx];
    }
    if (OVS_UNLIKELY(e->inner->dead)
        || !OVS_LIKELY(iptun_term_flow_usable(e->outer))) {
        return NULL;
    }
    cache->direct_tickets++;
    packet->md.dp_hash = (IPTUN_TERM_DIRECT_TICKET
                          | ((uint32_t) e->gen
                             << IPTUN_TERM_DIRECT_GEN_SHIFT) | idx);
    iptun_term_set_offsets(packet, ETH_HEADER_LEN, IP_HEADER_LEN, l2_pad);
    iptun_term_set_l4_proto(packet, (key.w[0] >> 16) & 0xff);
    return e->outer;
}

/* In the second pass of a batch that decapsulation in one pass
 * recirculated (iptun_term_hint()): returns the flow that 'packet''s
 * lookup found there, with its TCP flags, taking back its ticket, or NULL
 * if that lookup missed (a second one would miss too). */
static inline struct dp_netdev_flow *
iptun_term_hint_take(struct iptun_term_cache *cache, struct dp_packet *packet,
                     uint16_t *tcp_flags)
{
    uint32_t ticket = packet->md.dp_hash;

    if (!(ticket & IPTUN_TERM_DIRECT_TICKET)) {
        return NULL;
    }
    packet->md.dp_hash = 0;
    ticket &= NETDEV_MAX_BURST - 1;
    *tcp_flags = cache->hint_tcp_flags[ticket];
    return cache->hint_flows[ticket];
}

/* The cache lookup of dfc_processing(), for a packet of 'pass' for which
 * iptun_term_candidate() is true, received on 'in_port' (first pass).
 * Returns the packet's flow and its TCP flags, or NULL. */
static inline struct dp_netdev_flow *
iptun_term_cache_lookup(struct iptun_term_cache *cache,
                        struct dp_packet *packet, enum iptun_term_pass pass,
                        odp_port_t in_port, uint16_t *tcp_flags)
{
    if (pass == IPTUN_TERM_SECOND_PASS) {
        if (OVS_UNLIKELY(cache->hints_now)) {
            return iptun_term_hint_take(cache, packet, tcp_flags);
        }
        return (OVS_LIKELY(iptun_term_inner_is_4in4(packet))
                ? iptun_term_inner_4in4_lookup(cache, packet, tcp_flags)
                : iptun_term_inner_any6_lookup(cache, packet, tcp_flags));
    }
    *tcp_flags = 0;
    if (cache->direct_on) {
        struct dp_netdev_flow *flow;

        flow = iptun_term_direct_lookup(cache, packet, in_port);
        if (flow) {
            return flow;
        }
    }
    return iptun_term_outer_lookup(cache, packet, in_port);
}

/* True if 'flow', the flow of a batch of received packets, is one whose
 * batch decapsulation in one pass can run: alive, with a single tnl_pop
 * action to an ipip, fou or gue port, which it stores in '*port'. */
static inline bool
iptun_term_one_pass_port(const struct iptun_term_cache *cache,
                         const struct dp_netdev_flow *flow, odp_port_t *port)
{
    const struct dp_netdev_actions *actions;

    if (!iptun_term_flow_usable(flow)) {
        return false;
    }
    actions = ovsrcu_get(struct dp_netdev_actions *, &flow->actions);
    *port = nl_attr_get_odp_port(actions->actions);
    return iptun_term_is_port(cache, *port);
}

/* Looks up each packet of 'packets', which an ipip, fou or gue port has just
 * popped, in the second-pass table, as the second pass would: stores its
 * flow (NULL on a miss) and TCP flags in 'flows' and 'tcp_flags' and
 * returns the number of hits. */
static inline size_t
iptun_term_one_pass_lookup(struct iptun_term_cache *cache,
                           struct dp_packet_batch *packets,
                           struct dp_netdev_flow **flows,
                           uint16_t *tcp_flags)
{
    struct dp_packet *packet;
    size_t n_hit = 0;

    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        flows[i] = (iptun_term_inner_candidate(cache, packet)
                    ? iptun_term_cache_lookup(cache, packet,
                                              IPTUN_TERM_SECOND_PASS,
                                              packet->md.in_port.odp_port,
                                              &tcp_flags[i])
                    : NULL);
        n_hit += flows[i] != NULL;
    }
    return n_hit;
}

/* Before the recirculation of 'packets', which missed the second-pass table
 * (iptun_term_one_pass_lookup()) in part: gives each packet that hit a
 * ticket to its flow, 'flows' and 'tcp_flags', that the recirculation's
 * second pass takes (iptun_term_hint_take()) instead of its lookup. */
static inline void
iptun_term_hint(struct iptun_term_cache *cache,
                struct dp_packet_batch *packets,
                struct dp_netdev_flow **flows, const uint16_t *tcp_flags)
{
    struct dp_packet *packet;
    unsigned int n = 0;

    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        if (flows[i]) {
            cache->hint_flows[i] = flows[i];
            cache->hint_tcp_flags[i] = tcp_flags[i];
            packet->md.dp_hash = IPTUN_TERM_DIRECT_TICKET | i;
            n++;
        }
    }
    cache->hints_pending = true;
    iptun_term_count_hints(n);
}

/* Begins a batch of dfc_processing() of 'pass' at time 'now' (us): returns
 * true if the cache is to be used for it (active, its pass's table not
 * bypassed).  For the first pass, also decides whether the one lookup's
 * table is looked up and filled (decapsulation in one pass and the one
 * lookup enabled, neither its table nor the second pass's bypassed, no
 * hardware offload: 'offload'; see iptun_term_cache.direct_fill). */
static inline bool
iptun_term_batch_begin(struct iptun_term_cache *cache,
                       enum iptun_term_pass pass, bool offload,
                       long long int now)
{
    bool one_lookup;

    if (pass == IPTUN_TERM_FIRST_PASS) {
        cache->direct_tickets = 0;
        cache->direct_on = cache->direct_fill = false;
        cache->hints_now = false;
    } else {
        /* The pass of a batch with tickets (iptun_term_hint()) takes them
         * all, even if the table has just been bypassed. */
        cache->hints_now = cache->hints_pending;
        cache->hints_pending = false;
        if (cache->hints_now) {
            return true;
        }
    }
    if (!iptun_term_cache_active(cache)
        || iptun_term_bypassed(cache, pass, now)) {
        return false;
    }
    if (pass == IPTUN_TERM_SECOND_PASS) {
        return true;
    }
    atomic_read_relaxed(&cache->config->one_lookup, &one_lookup);
    if (!one_lookup || offload || !iptun_term_one_pass_on(cache, now)) {
        return true;
    }
    if (iptun_term_payoff_bypassed(&cache->direct_payoff, now)) {
        return true;
    }
    cache->direct_on = cache->direct_used > 0;
    cache->direct_fill = true;
    return true;
}

/* The decapsulation in one pass of 'packets', a batch of flow 'outer' whose
 * action is a tnl_pop to 'port', by the one lookup's tickets: if every
 * packet holds a ticket of a live entry of that flow and port whose inner
 * flow is alive, and its checksums are right (iptun_pop_known_ok()),
 * pops every packet as the port's pop would (iptun_pop_known()),
 * leaves it as the second-pass lookup would (input port, layer offsets,
 * packet hash), stores its flow and TCP flags in 'flows' and 'tcp_flags'
 * and returns true.  Otherwise returns false, the packets untouched, for
 * the pop and second-pass lookup of every packet (which drop and count a
 * packet with a wrong checksum, and miss a dead flow). */
static inline bool
iptun_term_direct_pop(struct iptun_term_cache *cache,
                      const struct dp_netdev_flow *outer, odp_port_t port,
                      struct dp_packet_batch *packets,
                      struct dp_netdev_flow **flows, uint16_t *tcp_flags)
{
    struct iptun_term_direct_entry *entries[NETDEV_MAX_BURST];
    struct dp_packet *packet;

    if (!cache->direct_tickets) {
        return false;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        uint32_t ticket = packet->md.dp_hash;
        struct iptun_term_direct_entry *e;

        e = &cache->direct[ticket & IPTUN_TERM_DIRECT_MASK];
        if (!(ticket & IPTUN_TERM_DIRECT_TICKET)
            || e->gen != ((ticket >> IPTUN_TERM_DIRECT_GEN_SHIFT)
                          & UINT16_MAX)
            || e->outer != outer || !e->inner || e->port != port
            || OVS_UNLIKELY(e->inner->dead)
            || !iptun_pop_known_ok(packet)) {
            return false;
        }
        entries[i] = e;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        const struct iptun_term_direct_entry *e = entries[i];

        /* The pop reset the layer offsets and the packet hash: the
         * second-pass lookup's iptun_term_set_offsets() and
         * iptun_term_set_rss_hash() come down to these stores. */
        iptun_pop_known(packet, e->hlen);
        packet->md.in_port.odp_port = port;
        packet->l3_ofs = 0;
        packet->l4_ofs = IP_HEADER_LEN;
        iptun_term_set_l4_proto(packet, (e->key.w[4] >> 8) & 0xff);
        dp_packet_set_rss_hash(packet, e->rss_hash);
        flows[i] = e->inner;
        tcp_flags[i] = e->key.w[6] & UINT16_MAX;
    }
    return true;
}

/* Takes back the tickets of 'packets', a batch of received packets that
 * does not take iptun_term_direct_pop() (its flow's actions may no longer
 * be the tnl_pop that would have cleared them). */
static inline void
iptun_term_direct_forget(struct iptun_term_cache *cache,
                         struct dp_packet_batch *packets)
{
    struct dp_packet *packet;

    if (OVS_UNLIKELY(cache->direct_tickets)) {
        DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
            if (packet->md.dp_hash & IPTUN_TERM_DIRECT_TICKET) {
                packet->md.dp_hash = 0;
            }
        }
    }
}

/* Before the pop of 'packets' (received packets of a tnl_pop flow),
 * stores in 'frames' where each packet's frame is, if it may make a
 * one-lookup entry (an unfragmented IPv4 frame without options, without a
 * ticket: the pop leaves such a packet's headers where they are, in its
 * headroom), for iptun_term_direct_remember() after the batch's
 * second-pass lookups.  Returns false, nothing stored, if the batch does
 * not fill the one lookup's table (iptun_term_cache.direct_fill). */
static inline bool
iptun_term_direct_frames(const struct iptun_term_cache *cache,
                         const struct dp_packet_batch *packets,
                         struct iptun_term_frame *frames)
{
    struct dp_packet *packet;

    if (!cache->direct_fill) {
        return false;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        const uint8_t *data = dp_packet_data(packet);
        const struct eth_header *eth = (const void *) data;
        const struct ip_header *ip = (const void *) (eth + 1);
        uint32_t size = dp_packet_size(packet);

        frames[i].data = NULL;
        if (!(packet->md.dp_hash & IPTUN_TERM_DIRECT_TICKET)
            && packet->packet_type == htonl(PT_ETH)
            && size >= ETH_HEADER_LEN + IP_HEADER_LEN
            && eth->eth_type == htons(ETH_TYPE_IP)
            && iptun_term_ipv4_len(ip, size - ETH_HEADER_LEN)) {
            frames[i].data = data;
            frames[i].size = size;
            frames[i].in_port = packet->md.in_port.odp_port;
        }
    }
    return true;
}

/* After iptun_term_direct_frames() and the pop of the batch of flow 'outer'
 * to 'port', whose 'n' popped packets (none dropped, none taken by the
 * reassembly) all hit the second pass with 'flows': makes an entry of each
 * frame that has a one-lookup key. */
static inline void
iptun_term_direct_remember(struct iptun_term_cache *cache,
                           const struct iptun_term_frame *frames, size_t n,
                           struct dp_netdev_flow *outer, odp_port_t port,
                           struct dp_netdev_flow **flows,
                           struct dp_packet_batch *packets)
{
    for (size_t i = 0; i < n; i++) {
        struct iptun_term_direct_key key;

        if (frames[i].data
            && iptun_term_direct_parse_frame(frames[i].data, frames[i].size,
                                             frames[i].in_port, &key) >= 0) {
            iptun_term_direct_insert(cache, &key, outer, flows[i], port,
                                     dp_packet_get_rss_hash(
                                         packets->packets[i]));
        }
    }
}

#endif /* dpif-netdev-iptun-term-lookup.h */
