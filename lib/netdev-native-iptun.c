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

#include <config.h>

#include "netdev-native-iptun.h"
#include "netdev-native-iptun-pop.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <string.h>

#include "coverage.h"
#include "csum.h"
#include "iptun-ports.h"
#include "iptun-reass.h"
#include "dp-packet.h"
#include "flow.h"
#include "hash.h"
#include "netdev.h"
#include "netdev-native-tnl.h"
#include "netdev-vport-private.h"
#include "odp-netlink.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "openvswitch/vlog.h"

VLOG_DEFINE_THIS_MODULE(native_iptun);

static struct vlog_rate_limit err_rl = VLOG_RATE_LIMIT_INIT(60, 5);

/* The popped 'packet' starts 'hlen' bytes further on.  Open vSwitch 4.0
 * keeps the checksum offload flags of an encapsulated packet's inner
 * headers in the upper half of its flags (tnl_ol_push() shifts them there,
 * tnl_ol_pop() back): the outer headers' flags must not describe the inner
 * packet (its protocol and checksums). */
static void
iptun_reset_packet(struct dp_packet *packet, unsigned int hlen)
{
    packet->offloads >>= DP_PACKET_OL_SHIFT_COUNT;
    dp_packet_reset_packet(packet, hlen);
}

COVERAGE_DEFINE(iptun_build_refused);
COVERAGE_DEFINE(ipip_pop_bad_outer);
COVERAGE_DEFINE(ipip_pop_bad_inner);
COVERAGE_DEFINE(fou_pop_bad_outer);
COVERAGE_DEFINE(fou_pop_bad_udp_len);
COVERAGE_DEFINE(fou_pop_bad_udp_csum);
COVERAGE_DEFINE(fou_pop_bad_inner);

/* If 'netdev', an ipip or fou port, cannot encapsulate the packet described
 * by 'params', appends ": " and the reason to 'reason' and returns true.  An
 * Ethernet frame (ptap port) or ARP handed to the port is refused, and so is
 * an IP packet of the other version than a fou port's 'ipproto', so that the
 * translation outputs nothing; ofproto/trace shows the reason after "native
 * tunnel header build failed". */
bool
netdev_iptun_build_error(const struct netdev *netdev,
                         const struct netdev_tnl_build_header_params *params,
                         struct ds *reason)
{
    const char *type = netdev_get_type(netdev);
    ovs_be32 pt = params->flow->packet_type;

    if (!netdev_iptun_is_iptun_type(type)) {
        return false;
    }
    if (!strcmp(type, "fou")) {
        bool ipv6 = netdev_fou_ipproto(netdev_get_tunnel_config(netdev))
                    == IPPROTO_IPV6;

        if (pt != htonl(ipv6 ? PT_IPV6 : PT_IPV4)) {
            ds_put_format(reason, ": fou port with ipproto=%d carries %s "
                          "only, not packets of type (%"PRIu16",%#"PRIx16")",
                          ipv6 ? IPPROTO_IPV6 : IPPROTO_IPIP,
                          ipv6 ? "IPv6" : "IPv4", pt_ns(pt), pt_ns_type(pt));
            return true;
        }
    } else if (pt != htonl(PT_IPV4) && pt != htonl(PT_IPV6)) {
        ds_put_format(reason, ": %s tunnels carry IPv4 and IPv6 only, not "
                      "packets of type (%"PRIu16",%#"PRIx16")", type,
                      pt_ns(pt), pt_ns_type(pt));
        return true;
    }
    return false;
}

/* Returns true if 'netdev' can encapsulate the packet described by 'params',
 * otherwise counts it (iptun_build_refused), logs (rate limited) why not and
 * returns false. */
static bool
iptun_can_encapsulate(const struct netdev *netdev,
                      const struct netdev_tnl_build_header_params *params)
{
    struct ds reason = DS_EMPTY_INITIALIZER;
    bool error = netdev_iptun_build_error(netdev, params, &reason);

    if (error) {
        COVERAGE_INC(iptun_build_refused);
        VLOG_WARN_RL(&err_rl, "%s: dropping packet%s",
                     netdev_get_name(netdev), ds_cstr(&reason));
    }
    ds_destroy(&reason);
    return !error;
}

/* iptun_pop_outer() for an outer IPv4 header off its fast path: options
 * (skipped), a checksum not yet verified, lengths to check one by one. */
static void *
iptun_pop_outer4_slow(struct dp_packet *packet, enum iptun_type type,
                      unsigned int *hlen, unsigned int *l4_len)
{
    const struct ip_header *outer = dp_packet_l3(packet);
    unsigned int ihl_len = IP_IHL(outer->ip_ihl_ver) * 4;
    uint32_t l3_size = dp_packet_l3_size(packet);
    uint16_t tot_len = ntohs(outer->ip_tot_len);
    struct flow_tnl *tnl = &packet->md.tunnel;

    if (ihl_len < IP_HEADER_LEN || ihl_len > l3_size || tot_len < ihl_len
        || tot_len > l3_size) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with outer IPv4 header "
                     "length %u, total length %"PRIu16", %"PRIu32" bytes",
                     iptun_type_name(type), ihl_len, tot_len, l3_size);
        return NULL;
    }
    if (!dp_packet_ip_checksum_valid(packet) && csum(outer, ihl_len)) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose outer IPv4 header "
                     "has a bad checksum", iptun_type_name(type));
        return NULL;
    }
    netdev_tnl_ip_set_md(tnl, outer);
    *hlen = ETH_HEADER_LEN + ihl_len;
    *l4_len = tot_len - ihl_len;
    dp_packet_set_size(packet, packet->l3_ofs + tot_len);
    return (char *) outer + ihl_len;
}

/* Why iptun_ip6_skip_ext() stopped before the end of the headers it
 * skips. */
enum iptun_ip6_ext_stop {
    IPTUN_IP6_EXT_OK,           /* At the first header it does not skip. */
    IPTUN_IP6_EXT_TRUNCATED,    /* An extension header past 'len'. */
    IPTUN_IP6_EXT_SEGMENTS_LEFT /* A routing header with segments left. */
};

/* Skips the extension headers of the IPv6 packet 'ip6', 'len' bytes with
 * its header, that a tunnel endpoint skips: hop-by-hop and destination
 * options (among them RFC 2473's tunnel encapsulation limit, which Linux's
 * ip6tnl sends by default) and routing headers with no segments left (RFC
 * 8200 4.4, as Linux).  Stores the next header after them in '*nxt' and
 * their length in '*ext_len' and returns IPTUN_IP6_EXT_OK, or returns why
 * it stopped short, with '*nxt' and '*ext_len' those of the header it
 * stopped at (and a routing header's segments left in '*segs_left').  The
 * pop (iptun_pop_outer6()) and the reassembly step's test
 * (iptun_is_outer_fragment()) walk the headers alike. */
static enum iptun_ip6_ext_stop
iptun_ip6_skip_ext(const struct ovs_16aligned_ip6_hdr *ip6, unsigned int len,
                   uint8_t *nxt, unsigned int *ext_len, uint8_t *segs_left)
{
    const uint8_t *ext0 = (const uint8_t *) (ip6 + 1);

    *nxt = ip6->ip6_nxt;
    *ext_len = 0;
    while (*nxt == IPPROTO_HOPOPTS || *nxt == IPPROTO_DSTOPTS
           || *nxt == IPPROTO_ROUTING) {
        const uint8_t *ext = ext0 + *ext_len;

        if (IPV6_HEADER_LEN + *ext_len + 8 > len
            || IPV6_HEADER_LEN + *ext_len + (ext[1] + 1) * 8 > len) {
            return IPTUN_IP6_EXT_TRUNCATED;
        }
        if (*nxt == IPPROTO_ROUTING && ext[3]) {
            *segs_left = ext[3];
            return IPTUN_IP6_EXT_SEGMENTS_LEFT;
        }
        *nxt = ext[0];
        *ext_len += (ext[1] + 1) * 8;
    }
    return IPTUN_IP6_EXT_OK;
}

/* iptun_pop_outer() for an outer IPv6 header: records the
 * outer addresses, traffic class and hop limit, skips the extension
 * headers of iptun_ip6_skip_ext(), and stores the protocol that follows
 * them (4 or 41 for ipip, 17 for fou, or 44, a fragment header) in
 * '*proto'.  Any other extension header (a routing header with segments
 * left, AH, ESP) ends in a drop, as a tunnel endpoint without them
 * configured would drop it. */
static void *
iptun_pop_outer6(struct dp_packet *packet, enum iptun_type type,
                 unsigned int *hlen, unsigned int *l4_len, uint8_t *proto)
{
    bool fou = type != IPTUN_IPIP;             /* fou or gue: UDP. */
    const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(packet);
    uint32_t l3_size = dp_packet_l3_size(packet);
    struct flow_tnl *tnl = &packet->md.tunnel;
    unsigned int len, ext_len;
    uint8_t nxt, segs_left;

    if (l3_size < IPV6_HEADER_LEN) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose outer IPv6 header "
                     "is truncated", iptun_type_name(type));
        return NULL;
    }
    len = IPV6_HEADER_LEN + ntohs(ip6->ip6_plen);
    if (len > l3_size) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with outer IPv6 payload "
                     "length %u in %"PRIu32" bytes", iptun_type_name(type),
                     len - IPV6_HEADER_LEN, l3_size - IPV6_HEADER_LEN);
        return NULL;
    }
    switch (iptun_ip6_skip_ext(ip6, len, &nxt, &ext_len, &segs_left)) {
    case IPTUN_IP6_EXT_OK:
        break;
    case IPTUN_IP6_EXT_TRUNCATED:
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with a truncated "
                     "IPv6 extension header", iptun_type_name(type));
        return NULL;
    case IPTUN_IP6_EXT_SEGMENTS_LEFT:
    default:
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with a routing "
                     "header with %"PRIu8" segments left",
                     iptun_type_name(type), segs_left);
        return NULL;
    }
    if (nxt == IPPROTO_FRAGMENT
        && IPV6_HEADER_LEN + ext_len + sizeof(struct ovs_16aligned_ip6_frag)
           > len) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with a truncated "
                     "IPv6 fragment header", iptun_type_name(type));
        return NULL;
    }
    if (fou ? nxt != IPPROTO_UDP && nxt != IPPROTO_FRAGMENT
            : nxt != IPPROTO_IPIP && nxt != IPPROTO_IPV6
              && nxt != IPPROTO_FRAGMENT) {
        VLOG_WARN_RL(&err_rl, "%s: dropping IPv6 packet whose next header "
                     "after the options is %"PRIu8", not %s",
                     iptun_type_name(type), nxt,
                     fou ? "17" : "4 or 41");
        return NULL;
    }

    netdev_tnl_ipv6_set_md(tnl, ip6);
    *proto = nxt;
    *hlen = ETH_HEADER_LEN + IPV6_HEADER_LEN + ext_len;
    *l4_len = len - IPV6_HEADER_LEN - ext_len;
    dp_packet_set_size(packet, packet->l3_ofs + len);
    return (char *) (ip6 + 1) + ext_len;
}

/* Checks the outer IPv4 header of received 'packet', records its addresses,
 * TOS and TTL in the packet's tunnel metadata, trims whatever follows the
 * outer datagram (Ethernet padding) and returns the outer header's payload,
 * with its length in '*l4_len', the length of the Ethernet and IP headers
 * in '*hlen' and the IP protocol in '*proto'.  Returns NULL if the outer
 * header is not a good IPv4 header (bad checksum, truncated) or a good
 * IPv6 header (iptun_pop_outer6()).  Options are skipped, as Linux's
 * ipip and fou (and so the kernel datapath) skip them; OVS's own tunnels
 * drop such packets in the userspace datapath.  An outer fragment (which
 * tnl-ports and the translation hand to ipip, fou and gue too, see
 * lib/iptun-reass.h) returns with '*proto' IPPROTO_FRAGMENT: the IPv4
 * payload or the IPv6 fragment header (the reassembly step,
 * netdev_iptun_reass(), takes it before the pop). */
static void *
iptun_pop_outer(struct dp_packet *packet, enum iptun_type type,
                unsigned int *hlen, unsigned int *l4_len, uint8_t *proto)
{
    const struct ip_header *outer = dp_packet_l3(packet);
    /* The usual packet: a 20-byte header with a right checksum and a total
     * length that fits the frame.  Anything else takes the general checks
     * below (iptun_pop_outer4_slow()), which log why they drop. */
    bool usual = (outer && packet->l4_ofs != UINT16_MAX
                  && outer->ip_ihl_ver == IP_IHL_VER(5, IP_VERSION)
                  && !IP_IS_FRAGMENT(outer->ip_frag_off));
    void *l4;

    iptun_metadata_init(&packet->md);

    if (OVS_LIKELY(usual)) {
        uint32_t l3_size = dp_packet_l3_size(packet);
        uint16_t tot_len = ntohs(outer->ip_tot_len);

        if (OVS_LIKELY(l3_size >= IP_HEADER_LEN
                       && tot_len >= IP_HEADER_LEN && tot_len <= l3_size
                       && (dp_packet_ip_checksum_valid(packet)
                           || iptun_ip_hdr_csum_ok(outer)))) {
            netdev_tnl_ip_set_md(&packet->md.tunnel, outer);
            *proto = outer->ip_proto;
            *hlen = ETH_HEADER_LEN + IP_HEADER_LEN;
            *l4_len = tot_len - IP_HEADER_LEN;
            dp_packet_set_size(packet, packet->l3_ofs + tot_len);
            return (char *) outer + IP_HEADER_LEN;
        }
    }

    if (!outer || dp_packet_l3_size(packet) < IP_HEADER_LEN) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose outer header is "
                     "truncated", iptun_type_name(type));
        return NULL;
    }
    if (IP_VER(outer->ip_ihl_ver) == 6) {
        return iptun_pop_outer6(packet, type, hlen, l4_len, proto);
    }
    if (IP_VER(outer->ip_ihl_ver) != 4) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose outer header is "
                     "IP version %d",
                     iptun_type_name(type), IP_VER(outer->ip_ihl_ver));
        return NULL;
    }

    l4 = iptun_pop_outer4_slow(packet, type, hlen, l4_len);
    *proto = l4 && IP_IS_FRAGMENT(outer->ip_frag_off)
             ? IPPROTO_FRAGMENT : outer->ip_proto;
    return l4;
}

/* Logs the drop of an outer fragment that reached the pop of a 'type'
 * port: the reassembly step (netdev_iptun_reass()) takes every one before
 * the pop, and the datagrams it completes have no fragment header left, so
 * this is an IPv6 datagram that had two. */
static void
iptun_pop_log_fragment(enum iptun_type type)
{
    VLOG_WARN_RL(&err_rl, "%s: dropping packet with two outer IPv6 "
                 "fragment headers", iptun_type_name(type));
}

/* Makes 'packet' the inner IPv4 packet at offset 'hlen', of 'len' bytes.
 * Returns false if that is not a consistent IPv4 packet. */
static bool
iptun_pop_inner(struct dp_packet *packet, enum iptun_type type,
                unsigned int hlen, unsigned int len)
{
    const struct ip_header *inner;
    unsigned int ihl_len, inner_len;

    if (len < IP_HEADER_LEN) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with a truncated inner "
                     "IPv4 header (%u bytes)", iptun_type_name(type), len);
        return false;
    }
    inner = ALIGNED_CAST(const struct ip_header *,
                         (const char *) dp_packet_data(packet) + hlen);
    if (IP_VER(inner->ip_ihl_ver) != 4) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose inner header is "
                     "IP version %d, not 4",
                     iptun_type_name(type), IP_VER(inner->ip_ihl_ver));
        return false;
    }
    /* As Linux's ip_rcv() checks the inner packet after its ipip device:
     * a header length below 20 bytes or a total length that does not fit
     * what the tunnel carried is an error, a shorter one trims. */
    ihl_len = IP_IHL(inner->ip_ihl_ver) * 4;
    inner_len = ntohs(inner->ip_tot_len);
    if (ihl_len < IP_HEADER_LEN || inner_len < ihl_len || inner_len > len) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose inner IPv4 header "
                     "(header length %u, total length %u) does not fit its "
                     "%u bytes",
                     iptun_type_name(type), ihl_len, inner_len, len);
        return false;
    }

    packet->packet_type = htonl(PT_IPV4);
    iptun_reset_packet(packet, hlen);
    dp_packet_set_size(packet, inner_len);
    return true;
}

/* Makes 'packet' the inner IPv6 packet at offset 'hlen', of 'len' bytes.
 * Returns false if that is not a consistent IPv6 packet. */
static bool
iptun_pop_inner6(struct dp_packet *packet, enum iptun_type type,
                 unsigned int hlen, unsigned int len)
{
    const struct ovs_16aligned_ip6_hdr *inner;
    unsigned int inner_len;

    if (len < IPV6_HEADER_LEN) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with a truncated inner "
                     "IPv6 header (%u bytes)", iptun_type_name(type), len);
        return false;
    }
    inner = ALIGNED_CAST(const struct ovs_16aligned_ip6_hdr *,
                         (const char *) dp_packet_data(packet) + hlen);
    if (IP_VER(inner->ip6_vfc) != 6) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose inner header is "
                     "IP version %d, not 6",
                     iptun_type_name(type), IP_VER(inner->ip6_vfc));
        return false;
    }
    /* As Linux's ipv6_rcv(): a payload length that does not fit what the
     * tunnel carried is an error, a shorter one trims.  (A jumbogram,
     * payload length 0 with a hop-by-hop header, cannot be tunnelled in
     * IPv4.) */
    inner_len = IPV6_HEADER_LEN + ntohs(inner->ip6_plen);
    if (inner_len > len
        || (!inner->ip6_plen && inner->ip6_nxt == IPPROTO_HOPOPTS)) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet whose inner IPv6 header "
                     "(payload length %u) does not fit its %u bytes",
                     iptun_type_name(type),
                     ntohs(inner->ip6_plen), len);
        return false;
    }

    packet->packet_type = htonl(PT_IPV6);
    iptun_reset_packet(packet, hlen);
    dp_packet_set_size(packet, inner_len);
    return true;
}

/* ipip: IP protocol 4 (IPv4 inside) or 41 (IPv6 inside), the inner packet
 * right after the outer IPv4 header (Linux's ipip and sit) or IPv6 header
 * (Linux's ip6tnl, modes ipip6 and ip6ip6). */

/* Builds, once per megaflow, the Ethernet + IPv4 or IPv6 header (protocol 4
 * for an IPv4 packet, 41 for IPv6) that netdev_ipip_push_header() puts in
 * front of every packet. */
int
netdev_ipip_build_header(const struct netdev *netdev,
                         struct ovs_action_push_tnl *data,
                         const struct netdev_tnl_build_header_params *params)
{
    if (!iptun_can_encapsulate(netdev, params)) {
        return EINVAL;
    }

    /* The flow label is set per packet (iptun_flow_label()); the IPv4
     * header checksum of the template is left zero, to be computed when the
     * packet goes out (iptun_push_outer()). */
    netdev_tnl_ip_build_header(data, params,
                               params->flow->packet_type == htonl(PT_IPV6)
                               ? IPPROTO_IPV6 : IPPROTO_IPIP, 0);
    data->tnl_type = OVS_VPORT_TYPE_IPIP;
    return 0;
}

/* Gives 'packet', an IPv4 or IPv6 packet about to be encapsulated, the
 * same RSS hash for every fragment of one datagram: if it is a fragment,
 * the hash of its addresses and protocol only.  The first fragment's ports
 * would otherwise make its hash differ from the later ones' (which carry
 * no ports), and fou's and gue's source port and the IPv6 flow label,
 * which ECMP routers hash, would send the pieces of one datagram different
 * ways.  Linux's flow dissector hashes fragments so (without
 * FLOW_DISSECTOR_F_PARSE_1ST_FRAG); datagrams between different hosts, or
 * of different protocols, still spread.  (iptun_hash_fragment() is the
 * inline test for the usual packet, an unfragmented IPv4 one.) */
static void
iptun_hash_fragment__(struct dp_packet *packet)
{
    const void *l3 = dp_packet_l3(packet);
    size_t size = l3 ? dp_packet_l3_size(packet) : 0;
    uint8_t version = size ? IP_VER(*(const uint8_t *) l3) : 0;
    uint32_t hash;

    if (version == 4 && size >= IP_HEADER_LEN) {
        const struct ip_header *ip = l3;

        if (OVS_LIKELY(!IP_IS_FRAGMENT(ip->ip_frag_off))) {
            return;
        }
        hash = hash_add(0, get_16aligned_be32(&ip->ip_src));
        hash = hash_add(hash, get_16aligned_be32(&ip->ip_dst));
        hash = hash_finish(hash_add(hash, ip->ip_proto), 12);
    } else if (version == 6 && size >= IPV6_HEADER_LEN) {
        const struct ovs_16aligned_ip6_hdr *ip6 = l3;
        const struct ovs_16aligned_ip6_frag *frag_hdr;
        const struct ip6_rt_hdr *rt_hdr;
        const void *data = ip6 + 1;
        uint8_t proto = ip6->ip6_nxt;
        uint8_t nw_frag = 0;

        size -= IPV6_HEADER_LEN;
        if (OVS_LIKELY(proto == IPPROTO_TCP || proto == IPPROTO_UDP)
            || !parse_ipv6_ext_hdrs(&data, &size, &proto, &nw_frag,
                                    &frag_hdr, &rt_hdr)
            || !nw_frag) {
            return;
        }
        /* The fragmented datagram's protocol (a later fragment's 'proto'
         * is the fragment header's). */
        hash = hash_bytes(&ip6->ip6_src, 2 * sizeof ip6->ip6_src,
                          frag_hdr->ip6f_nxt);
    } else {
        return;
    }
    dp_packet_set_rss_hash(packet, hash);
}

static inline ALWAYS_INLINE void
iptun_hash_fragment(struct dp_packet *packet)
{
    if (OVS_LIKELY(packet->l3_ofs != UINT16_MAX)) {
        const struct ip_header *ip = dp_packet_l3(packet);

        if (OVS_LIKELY(dp_packet_l3_size(packet) >= IP_HEADER_LEN
                       && IP_VER(ip->ip_ihl_ver) == 4
                       && !IP_IS_FRAGMENT(ip->ip_frag_off))) {
            return;
        }
    }
    iptun_hash_fragment__(packet);
}

/* The outer flow label, over IPv6, of 'packet' pushed with template 'data':
 * the inner flow's hash (the packet's RSS hash), for ECMP (as Linux's
 * automatic flow labels do, and fou's source port). */
static inline ovs_be32
iptun_flow_label(const struct dp_packet *packet,
                 const struct ovs_action_push_tnl *data)
{
    return (netdev_tnl_is_header_ipv6(data->header)
            ? htonl(dp_packet_get_rss_hash(packet) & IPV6_LABEL_MASK)
            : 0);
}

/* Copies the 'n' bytes (at least 16) of the header template 'src' to 'dst'
 * in 16-byte pieces, the last one overlapping the one before: templates are
 * 34 to 66 bytes, too short for memcpy()'s call to pay. */
static inline ALWAYS_INLINE void
iptun_copy_header(void *dst, const void *src, size_t n)
{
    size_t i;

    for (i = 0; i + 16 < n; i += 16) {
        memcpy((char *) dst + i, (const char *) src + i, 16);
    }
    memcpy((char *) dst + n - 16, (const char *) src + n - 16, 16);
}

/* Puts the outer headers of template 'data' in front of 'packet', an IPv4
 * or IPv6 packet, L3 or Ethernet, and returns the outer L4 header (the
 * inner packet for ipip) with the number of bytes from it to the end in
 * '*l4_len': netdev_tnl_push_ip_header()'s work, in one step with what
 * pop_eth would remove from an Ethernet packet (everything before its L3
 * header, VLAN tags included; the translation leaves the pop_eth out,
 * netdev_iptun_push_replaces_eth()), the template copied inline and the
 * inner packet's offsets kept. */
static inline ALWAYS_INLINE void *
iptun_push_outer(struct dp_packet *packet,
                 const struct ovs_action_push_tnl *data, int *l4_len)
{
    unsigned int hlen = data->header_len;
    ovs_be32 label = iptun_flow_label(packet, data);
    unsigned int strip = 0;
    /* The inner L4 header's offset from the inner L3 header. */
    uint16_t inner_l4 = (packet->l3_ofs != UINT16_MAX
                         && packet->l4_ofs != UINT16_MAX
                         ? packet->l4_ofs - packet->l3_ofs : UINT16_MAX);
    bool inner_l3 = packet->l3_ofs != UINT16_MAX;
    void *l4;

    /* As tnl_ol_push(): the inner packet's checksum and TSO flags become
     * the inner ones, to be completed and segmented at the output, by
     * software (dp_packet_ol_send_prepare(), dp_packet_gso()) or by a port
     * that knows the tunnel type marked here. */
    packet->offloads <<= DP_PACKET_OL_SHIFT_COUNT;
    if (OVS_LIKELY(inner_l3)) {
        if (data->tnl_type == OVS_VPORT_TYPE_IPIP) {
            dp_packet_tunnel_set_ipip(packet);
        } else {
            dp_packet_tunnel_set_udp(packet);
        }
    }

    if (dp_packet_is_eth(packet)) {
        if (OVS_LIKELY(packet->l2_5_ofs == UINT16_MAX
                       && packet->l3_ofs <= hlen)) {
            strip = packet->l3_ofs;
        } else {
            pop_eth(packet);
        }
    }
    iptun_copy_header(dp_packet_push_uninit(packet, hlen - strip),
                      data->header, hlen);
    /* Open vSwitch 4.0's IPv4 templates have no header checksum (it would
     * be that of a zero total length): the output computes it, or has the
     * NIC compute it. */
    l4 = netdev_tnl_complete_ip_header(packet, l4_len, label);
    if (inner_l3) {
        packet->inner_l3_ofs = hlen;
        if (inner_l4 != UINT16_MAX) {
            packet->inner_l4_ofs = hlen + inner_l4;
        }
    }
    return l4;
}

int
netdev_iptun_push_replaces_eth(const char *type, ovs_be32 packet_type,
                               const struct flow *flow,
                               const struct flow *base_flow,
                               struct flow_wildcards *wc)
{
    int n;

    if (!netdev_iptun_is_iptun_type(type)
        || packet_type != htonl(PT_ETH)
        || flow->packet_type == htonl(PT_ETH)
        || base_flow->packet_type != htonl(PT_ETH)
        || eth_type_mpls(base_flow->dl_type)
        || memcmp(flow->vlans, base_flow->vlans, sizeof flow->vlans)) {
        /* Not one of ours, not an Ethernet packet becoming L3, or an MPLS
         * packet or VLAN tags still to be pushed or popped: pop_eth. */
        return 0;
    }
    /* The number of VLAN tags, in the megaflow too. */
    for (n = 0; n < FLOW_MAX_VLAN_HEADERS; n++) {
        wc->masks.vlans[n].tci |= htons(VLAN_CFI);
        if (!(base_flow->vlans[n].tci & htons(VLAN_CFI))) {
            break;
        }
    }
    return ETH_HEADER_LEN + n * VLAN_HEADER_LEN;
}

bool
netdev_iptun_is_tnl_type(uint32_t tnl_type)
{
    return (tnl_type == OVS_VPORT_TYPE_IPIP || tnl_type == OVS_VPORT_TYPE_FOU
            || tnl_type == OVS_VPORT_TYPE_GUE);
}

void
netdev_ipip_push_header(const struct netdev *netdev OVS_UNUSED,
                        const struct netdev *ingress OVS_UNUSED,
                        struct dp_packet *packet,
                        const struct ovs_action_push_tnl *data)
{
    int l4_len;

    if (netdev_tnl_is_header_ipv6(data->header)) {
        iptun_hash_fragment(packet);
    }
    iptun_push_outer(packet, data, &l4_len);
}

/* Removes the Ethernet and outer IP headers of 'packet', records the outer
 * addresses, TOS and TTL in its tunnel metadata and marks it as an IPv4
 * (protocol 4) or IPv6 (protocol 41) packet.  Frees 'packet' and returns
 * NULL if the outer header is not a good IPv4 header or if what follows it
 * is not a consistent packet of the protocol's IP version.  (Outer
 * fragments went to the reassembly step before, netdev_iptun_reass().) */
struct dp_packet *
netdev_ipip_pop_header(struct dp_packet *packet)
{
    unsigned int hlen, len;
    uint8_t proto;
    void *l4;
    bool ok;

    l4 = iptun_pop_outer(packet, IPTUN_IPIP, &hlen, &len, &proto);
    if (OVS_UNLIKELY(l4 && proto == IPPROTO_FRAGMENT)) {
        iptun_pop_log_fragment(IPTUN_IPIP);
        l4 = NULL;
    }
    if (!l4) {
        COVERAGE_INC(ipip_pop_bad_outer);
        goto drop;
    }
    /* tnl-ports hands ipip_sys protocols 4 and 41 only. */
    if (proto == IPPROTO_IPV6) {
        ok = iptun_pop_inner6(packet, IPTUN_IPIP, hlen, len);
    } else {
        ok = iptun_pop_inner(packet, IPTUN_IPIP, hlen, len);
    }
    if (!ok) {
        COVERAGE_INC(ipip_pop_bad_inner);
        goto drop;
    }
    return packet;

drop:
    dp_packet_delete(packet);
    return NULL;
}

/* fou: IP protocol 17, a UDP header to the port's dst_port, then the inner
 * packet (Linux's "ip fou add port N ipproto 4|41 [-6]"). */

/* Builds the Ethernet + IPv4 or IPv6 + UDP header template of fou and gue
 * port 'netdev' and returns its UDP header.  The UDP source port (the inner
 * flow's hash), length and checksum are filled in per packet by
 * netdev_tnl_push_udp_header(), which computes the checksum only if the
 * template's is nonzero, that is, over IPv6 or if the port has
 * options:csum=true. */
static struct udp_header *
iptun_build_udp_header(const struct netdev *netdev,
                       struct ovs_action_push_tnl *data,
                       const struct netdev_tnl_build_header_params *params)
{
    struct udp_header *udp;

    udp = netdev_tnl_ip_build_header(data, params, IPPROTO_UDP, 0);
    udp->udp_dst = netdev_get_tunnel_config(netdev)->dst_port;
    if (params->is_ipv6 || params->flow->tunnel.flags & FLOW_TNL_F_CSUM) {
        /* Any nonzero value asks for the checksum; 0xffff does not change
         * the sum it is added to.  Over IPv6 always, as OVS's other UDP
         * tunnels send it (Linux's fou receives both). */
        udp->udp_csum = htons(0xffff);
    }
    data->header_len += sizeof *udp;
    return udp;
}

/* fou's template: the UDP header, then the inner packet. */
int
netdev_fou_build_header(const struct netdev *netdev,
                        struct ovs_action_push_tnl *data,
                        const struct netdev_tnl_build_header_params *params)
{
    if (!iptun_can_encapsulate(netdev, params)) {
        return EINVAL;
    }

    iptun_build_udp_header(netdev, data, params);
    data->tnl_type = OVS_VPORT_TYPE_FOU;
    return 0;
}

/* fou's push (and gue's: the GUE header is in the template): the UDP
 * header as netdev_tnl_push_udp_header() fills it in (the source port from
 * the packet's hash; the checksum if the template's is nonzero) and, over
 * IPv6, the flow label. */
void
netdev_fou_push_header(const struct netdev *netdev OVS_UNUSED,
                       const struct netdev *ingress OVS_UNUSED,
                       struct dp_packet *packet,
                       const struct ovs_action_push_tnl *data)
{
    struct udp_header *udp;
    ovs_be16 udp_src;
    int l4_len;

    /* Open vSwitch 4.0's netdev_tnl_get_src_port() hashes the packet's flow
     * if it has no hash yet: the inner packet's, before the push. */
    iptun_hash_fragment(packet);
    udp_src = netdev_tnl_get_src_port(packet);

    udp = iptun_push_outer(packet, data, &l4_len);
    udp->udp_src = udp_src;
    udp->udp_len = htons(l4_len);
    /* As netdev_tnl_push_udp_header(): the checksum (the template's is
     * nonzero, 0xffff, if it is wanted; a zero one stays zero) is computed
     * at the output, by software or the NIC, over the whole datagram. */
    dp_packet_l4_proto_set_udp(packet);
    if (udp->udp_csum) {
        dp_packet_l4_checksum_set_partial(packet);
    } else {
        dp_packet_l4_checksum_set_good(packet);
    }
}

/* Why iptun_pop_udp() did not return a UDP header. */
enum iptun_udp_drop {
    IPTUN_UDP_BAD_OUTER,        /* Bad outer IPv4 or IPv6 header. */
    IPTUN_UDP_BAD_LEN,          /* UDP length does not fit. */
    IPTUN_UDP_BAD_CSUM,         /* Wrong nonzero UDP checksum. */
};

/* The outer part of fou's and gue's pop: checks the outer IPv4 or IPv6 and
 * UDP headers of 'packet', records
 * the outer addresses, TOS, TTL and UDP ports (and whether it had a
 * checksum) in its tunnel metadata and returns the UDP header, with the
 * length of the headers up to it in '*hlen' and the UDP length in
 * '*udp_len'.  Returns NULL with the reason in '*why' if the packet is not
 * good: UDP length larger than the IP payload or smaller than the UDP
 * header, a nonzero UDP checksum that is wrong (a zero checksum means none,
 * over IPv6 too, as Linux's fou and gue accept it); the caller drops
 * 'packet'. */
static inline ALWAYS_INLINE const struct udp_header *
iptun_pop_udp(struct dp_packet *packet, enum iptun_type type,
              unsigned int *hlen, unsigned int *udp_len,
              enum iptun_udp_drop *why)
{
    const struct udp_header *udp;
    unsigned int l4_len, len;
    uint8_t proto;

    udp = iptun_pop_outer(packet, type, hlen, &l4_len, &proto);
    if (OVS_UNLIKELY(udp && proto == IPPROTO_FRAGMENT)) {
        iptun_pop_log_fragment(type);
        udp = NULL;
    }
    if (!udp) {
        *why = IPTUN_UDP_BAD_OUTER;
        return NULL;
    }

    /* As Linux's udp_rcv(): a UDP length beyond the IPv4 payload is an
     * error, a shorter one trims the payload. */
    len = l4_len >= UDP_HEADER_LEN ? ntohs(udp->udp_len) : 0;
    if (len < UDP_HEADER_LEN || len > l4_len) {
        VLOG_WARN_RL(&err_rl, "%s: dropping packet with UDP length %u in "
                     "an IP payload of %u bytes",
                     iptun_type_name(type), len, l4_len);
        *why = IPTUN_UDP_BAD_LEN;
        return NULL;
    }

    if (udp->udp_csum) {
        if (!dp_packet_l4_checksum_valid(packet)
            && !iptun_udp_csum_ok(dp_packet_l3(packet), udp, len)) {
            VLOG_WARN_RL(&err_rl, "%s: dropping packet with a bad UDP "
                         "checksum", iptun_type_name(type));
            *why = IPTUN_UDP_BAD_CSUM;
            return NULL;
        }
    }
    netdev_tnl_udp_set_md(&packet->md.tunnel, udp);
    *hlen += UDP_HEADER_LEN;
    *udp_len = len;
    return udp;
}

/* Counts in TYPE's coverage counters (TYPE_pop_bad_outer, _bad_udp_len,
 * _bad_udp_csum) why iptun_pop_udp() refused a packet ('why'). */
#define IPTUN_POP_UDP_COUNT(TYPE, WHY)                                   \
    ((WHY) == IPTUN_UDP_BAD_OUTER ? COVERAGE_INC(TYPE##_pop_bad_outer)   \
     : (WHY) == IPTUN_UDP_BAD_LEN ? COVERAGE_INC(TYPE##_pop_bad_udp_len) \
     : COVERAGE_INC(TYPE##_pop_bad_udp_csum))

/* Makes 'packet' the inner IPv4 or IPv6 packet, by its version nibble, at
 * offset 'hlen', of 'len' bytes; false if it is no consistent packet. */
static inline ALWAYS_INLINE bool
iptun_pop_inner_any(struct dp_packet *packet, enum iptun_type type,
                    unsigned int hlen, unsigned int len)
{
    const uint8_t *inner = (const uint8_t *) dp_packet_data(packet) + hlen;

    return len && IP_VER(inner[0]) == 6
           ? iptun_pop_inner6(packet, type, hlen, len)
           : iptun_pop_inner(packet, type, hlen, len);
}

/* Removes the Ethernet, outer IPv4 or IPv6 and UDP headers of 'packet'
 * (iptun_pop_udp()) and marks it as an IPv4 or IPv6 packet by the inner
 * version.  Frees 'packet' and returns NULL if the outer headers are not
 * valid or the inner packet is not consistent IPv4 or IPv6. */
struct dp_packet *
netdev_fou_pop_header(struct dp_packet *packet)
{
    enum iptun_udp_drop why;
    unsigned int hlen, udp_len;

    if (!iptun_pop_udp(packet, IPTUN_FOU, &hlen, &udp_len, &why)) {
        IPTUN_POP_UDP_COUNT(fou, why);
        goto drop;
    }

    /* The inner packet's version nibble tells IPv4 from IPv6, whatever the
     * port's 'ipproto' (which decides what it sends). */
    if (!iptun_pop_inner_any(packet, IPTUN_FOU, hlen,
                             udp_len - UDP_HEADER_LEN)) {
        COVERAGE_INC(fou_pop_bad_inner);
        goto drop;
    }
    return packet;

drop:
    dp_packet_delete(packet);
    return NULL;
}

/* gue: Generic UDP Encapsulation (draft-ietf-intarea-gue), as Linux's "ip
 * fou add port N gue [-6]" receives and an "ipip|sit|ip6tnl ... encap gue"
 * device sends it: after the UDP header, a variant 0 header
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   |Ver|C|  Hlen   | Proto/ctype   |        Standard flags       |P|
 *   ~                 optional fields, Hlen 32-bit words            ~
 *
 * and the inner IPv4 (protocol 4) or IPv6 (41) packet, or, variant 1, the
 * inner IPv4 or IPv6 packet directly (its version nibble 4 or 6 makes Ver
 * 1).  Of the flags Linux knows one, P: private flags in the first optional
 * word, of which it knows one, remote checksum offload (RFC 7605's
 * "remcsum"), whose 4-byte field follows (checksum start and offset,
 * counted from the inner packet). */

#define GUE_HLEN 4                      /* The base header. */
#define GUE_VER_SHIFT 6
#define GUE_C 0x20                      /* Byte 0: control message. */
#define GUE_HLEN_MASK 0x1f              /* Byte 0: optional words. */
#define GUE_FLAG_PRIV 0x0001            /* Flags (host order): P. */
#define GUE_PFLAG_REMCSUM 0x80000000    /* Private flags: remcsum. */

COVERAGE_DEFINE(gue_pop_bad_outer);
COVERAGE_DEFINE(gue_pop_bad_udp_len);
COVERAGE_DEFINE(gue_pop_bad_udp_csum);
COVERAGE_DEFINE(gue_pop_bad_header);
COVERAGE_DEFINE(gue_pop_control);
COVERAGE_DEFINE(gue_pop_bad_proto);
COVERAGE_DEFINE(gue_pop_bad_remcsum);
COVERAGE_DEFINE(gue_pop_bad_inner);

/* Builds the Ethernet + IPv4 or IPv6 + UDP + GUE header template: fou's
 * (source port, length and checksum per packet, the checksum over IPv6
 * always and over IPv4 with options:csum=true), then a variant 0 data
 * header without optional fields naming the inner protocol, 4 or 41, as
 * Linux's __gue_build_header() writes it without remote checksum offload.
 * The megaflow matches the packet type, so the protocol is fixed. */
int
netdev_gue_build_header(const struct netdev *netdev,
                        struct ovs_action_push_tnl *data,
                        const struct netdev_tnl_build_header_params *params)
{
    uint8_t *gue;

    if (!iptun_can_encapsulate(netdev, params)) {
        return EINVAL;
    }

    gue = (uint8_t *) (iptun_build_udp_header(netdev, data, params) + 1);
    memset(gue, 0, GUE_HLEN);
    gue[1] = (params->flow->packet_type == htonl(PT_IPV6)
              ? IPPROTO_IPV6 : IPPROTO_IPIP);
    data->header_len += GUE_HLEN;
    data->tnl_type = OVS_VPORT_TYPE_GUE;
    return 0;
}

/* Completes the inner transport checksum that a remote checksum offload
 * left to the receiver, as Linux's skb_remcsum_process() does without
 * CHECKSUM_PARTIAL ("remcsum_nopartial"): the 16-bit field at 'offset' of
 * the inner packet in 'packet' (which holds the pseudo-header's sum) gets
 * the checksum of the packet from 'start' to its end.  False if the field
 * or the start lies beyond the inner packet. */
static bool
gue_remcsum(struct dp_packet *packet, unsigned int start,
            unsigned int offset)
{
    uint8_t *inner = dp_packet_data(packet);
    unsigned int size = dp_packet_size(packet);
    uint16_t all, head, field;
    uint32_t sum;

    if (start > size || offset + 2 > size || offset < start) {
        /* (A field before the start: Linux's skb csum_offset, offset less
         * start, would wrap, and the packet is not delivered.) */
        return false;
    }
    /* The sum from 'start' is the sum of all less the sum before 'start',
     * so that an odd 'start' keeps its bytes in their lanes. */
    all = ~csum_finish(csum_continue(0, inner, size));
    head = ~csum_finish(csum_continue(0, inner, start));
    sum = (uint32_t) all + (uint16_t) ~head;
    sum = (sum & 0xffff) + (sum >> 16);
    field = ~sum;
    memcpy(inner + offset, &field, sizeof field);
    return true;
}

/* Why gue_pop_check() refused a header. */
enum gue_drop {
    GUE_OK,
    GUE_BAD_HEADER,             /* Truncated, version, unknown flags. */
    GUE_CONTROL,                /* A control message. */
    GUE_BAD_PROTO,              /* Not IPv4 (4) or IPv6 (41). */
};

/* Checks the GUE header at 'gue', 'len' bytes of UDP payload: sets
 * '*hdr_len' to the length of the header (with its optional fields) and
 * '*remcsum' to whether it carries a remote checksum offload field, whose
 * start and offset it stores in '*start' and '*offset'.  Variant 1 is a
 * header of length 0.  As Linux 6.1's gue_udp_recv() and
 * validate_gue_flags() (a remote checksum field must fit Hlen there too),
 * except that a data message must carry IPv4 or IPv6 (Linux hands any
 * protocol to its IP handler). */
static enum gue_drop
gue_pop_check(const uint8_t *gue, unsigned int len, unsigned int *hdr_len,
              bool *remcsum, unsigned int *start, unsigned int *offset)
{
    unsigned int optlen;
    uint16_t flags;

    *remcsum = false;
    if (len < GUE_HLEN) {
        /* (Linux pulls 4 bytes even for variant 1.) */
        VLOG_WARN_RL(&err_rl, "gue: dropping packet with %u bytes after "
                     "the UDP header", len);
        return GUE_BAD_HEADER;
    }
    switch (gue[0] >> GUE_VER_SHIFT) {
    case 0:
        break;
    case 1:
        if (IP_VER(gue[0]) != 4 && IP_VER(gue[0]) != 6) {
            VLOG_WARN_RL(&err_rl, "gue: dropping variant 1 packet of IP "
                         "version %d", IP_VER(gue[0]));
            return GUE_BAD_HEADER;
        }
        *hdr_len = 0;
        return GUE_OK;
    default:
        VLOG_WARN_RL(&err_rl, "gue: dropping packet of GUE version %d",
                     gue[0] >> GUE_VER_SHIFT);
        return GUE_BAD_HEADER;
    }

    optlen = (gue[0] & GUE_HLEN_MASK) * 4;
    flags = (gue[2] << 8) | gue[3];
    if (GUE_HLEN + optlen > len) {
        VLOG_WARN_RL(&err_rl, "gue: dropping packet whose GUE header (%u "
                     "bytes) is longer than its %u bytes", GUE_HLEN + optlen,
                     len);
        return GUE_BAD_HEADER;
    }
    if (flags & ~GUE_FLAG_PRIV || (flags & GUE_FLAG_PRIV && optlen < 4)) {
        VLOG_WARN_RL(&err_rl, "gue: dropping packet with GUE flags %#"PRIx16
                     " in a header of %u bytes", flags, GUE_HLEN + optlen);
        return GUE_BAD_HEADER;
    }
    if (flags & GUE_FLAG_PRIV) {
        const uint8_t *p = gue + GUE_HLEN;
        uint32_t pflags = ((uint32_t) p[0] << 24) | (p[1] << 16)
                          | (p[2] << 8) | p[3];

        if (pflags & ~GUE_PFLAG_REMCSUM
            || (pflags & GUE_PFLAG_REMCSUM && optlen < 8)) {
            VLOG_WARN_RL(&err_rl, "gue: dropping packet with GUE private "
                         "flags %#"PRIx32" in a header of %u bytes", pflags,
                         GUE_HLEN + optlen);
            return GUE_BAD_HEADER;
        }
        if (pflags & GUE_PFLAG_REMCSUM) {
            *remcsum = true;
            *start = (p[4] << 8) | p[5];
            *offset = (p[6] << 8) | p[7];
        }
    }
    if (gue[0] & GUE_C) {
        VLOG_WARN_RL(&err_rl, "gue: dropping control message type %"PRIu8,
                     gue[1]);
        return GUE_CONTROL;
    }
    if (gue[1] != IPPROTO_IPIP && gue[1] != IPPROTO_IPV6) {
        VLOG_WARN_RL(&err_rl, "gue: dropping data message of IP protocol "
                     "%"PRIu8", not 4 or 41", gue[1]);
        return GUE_BAD_PROTO;
    }
    *hdr_len = GUE_HLEN + optlen;
    return GUE_OK;
}

/* Removes the Ethernet, outer IPv4 or IPv6, UDP and GUE headers of 'packet'
 * (iptun_pop_udp(), gue_pop_check()), completes a remote checksum offload
 * and marks it as an IPv4 or IPv6 packet: by the protocol of a variant 0
 * header (the inner version must match), by the version nibble in variant
 * 1.  Frees 'packet' and returns NULL if any of it is not valid, counting
 * why. */
struct dp_packet *
netdev_gue_pop_header(struct dp_packet *packet)
{
    unsigned int hlen, udp_len, hdr_len, start = 0, offset = 0;
    const struct udp_header *udp;
    enum iptun_udp_drop why;
    const uint8_t *gue;
    bool remcsum, ok;

    udp = iptun_pop_udp(packet, IPTUN_GUE, &hlen, &udp_len, &why);
    if (!udp) {
        IPTUN_POP_UDP_COUNT(gue, why);
        goto drop;
    }

    gue = (const uint8_t *) (udp + 1);
    if (OVS_LIKELY(udp_len >= UDP_HEADER_LEN + GUE_HLEN
                   && !gue[0] && !gue[2] && !gue[3]
                   && (gue[1] == IPPROTO_IPIP || gue[1] == IPPROTO_IPV6))) {
        /* What Linux and this port send: an IPv4 or IPv6 data message
         * without flags or optional fields; anything else takes
         * gue_pop_check(). */
        udp_len -= UDP_HEADER_LEN + GUE_HLEN;
        hlen += GUE_HLEN;
        ok = (gue[1] == IPPROTO_IPV6
              ? iptun_pop_inner6(packet, IPTUN_GUE, hlen, udp_len)
              : iptun_pop_inner(packet, IPTUN_GUE, hlen, udp_len));
        if (!ok) {
            COVERAGE_INC(gue_pop_bad_inner);
            goto drop;
        }
        return packet;
    }
    switch (gue_pop_check(gue, udp_len - UDP_HEADER_LEN, &hdr_len, &remcsum,
                          &start, &offset)) {
    case GUE_OK:
        break;
    case GUE_BAD_HEADER:
        COVERAGE_INC(gue_pop_bad_header);
        goto drop;
    case GUE_CONTROL:
        COVERAGE_INC(gue_pop_control);
        goto drop;
    case GUE_BAD_PROTO:
    default:
        COVERAGE_INC(gue_pop_bad_proto);
        goto drop;
    }

    udp_len -= UDP_HEADER_LEN + hdr_len;
    if (!hdr_len) {
        ok = iptun_pop_inner_any(packet, IPTUN_GUE, hlen, udp_len);
    } else if (gue[1] == IPPROTO_IPV6) {
        ok = iptun_pop_inner6(packet, IPTUN_GUE, hlen + hdr_len, udp_len);
    } else {
        ok = iptun_pop_inner(packet, IPTUN_GUE, hlen + hdr_len, udp_len);
    }
    if (!ok) {
        COVERAGE_INC(gue_pop_bad_inner);
        goto drop;
    }
    if (remcsum && !gue_remcsum(packet, start, offset)) {
        COVERAGE_INC(gue_pop_bad_remcsum);
        VLOG_WARN_RL(&err_rl, "gue: dropping packet whose remote checksum "
                     "start %u and offset %u do not fit its %"PRIu32" bytes",
                     start, offset, dp_packet_size(packet));
        goto drop;
    }
    return packet;

drop:
    dp_packet_delete(packet);
    return NULL;
}

/* The reassembly step. */

/* True if 'packet', received on an ipip, fou or gue port, is an outer
 * fragment: an IPv4 fragment, or an IPv6 packet with a fragment header
 * after the extension headers that the pop skips (iptun_ip6_skip_ext()).
 * Looks, does not check: the pop checks the headers of what is not a
 * fragment. */
static bool
iptun_is_outer_fragment(const struct dp_packet *packet)
{
    const uint8_t *l3 = dp_packet_l3(packet);
    unsigned int ext_len;
    uint8_t nxt, segs_left;
    uint32_t size;

    if (!l3 || (size = dp_packet_l3_size(packet)) < IP_HEADER_LEN) {
        return false;
    }
    if (IP_VER(l3[0]) == 4) {
        const struct ip_header *ip = (const void *) l3;

        return IP_IS_FRAGMENT(ip->ip_frag_off);
    }
    return (IP_VER(l3[0]) == 6 && size >= IPV6_HEADER_LEN
            && (iptun_ip6_skip_ext((const void *) l3, size, &nxt, &ext_len,
                                   &segs_left)
                == IPTUN_IP6_EXT_OK)
            && nxt == IPPROTO_FRAGMENT);
}

struct dp_packet *
netdev_iptun_reass(enum iptun_type type, struct dp_packet *packet,
                   bool *kept)
{
    unsigned int hlen, l4_len;
    struct dp_packet *whole;
    unsigned int frag_ofs;
    ovs_be16 copy_port;
    uint8_t proto;
    void *l4;

    *kept = false;
    if (OVS_LIKELY(!iptun_is_outer_fragment(packet))) {
        return packet;
    }
    /* The UDP port that a copy of a later outer fragment is for, before
     * the pop's metadata reset (iptun_reass_xlate_later_frag()): a packet
     * from a port has no tunnel destination. */
    copy_port = (type != IPTUN_IPIP && flow_tnl_dst_is_set(&packet->md.tunnel)
                 ? packet->md.tunnel.tp_dst : 0);
    /* The fragment's outer header checked, as the pop checks it. */
    l4 = iptun_pop_outer(packet, type, &hlen, &l4_len, &proto);
    if (!l4 || proto != IPPROTO_FRAGMENT) {
        if (type == IPTUN_IPIP) {
            COVERAGE_INC(ipip_pop_bad_outer);
        } else if (type == IPTUN_FOU) {
            COVERAGE_INC(fou_pop_bad_outer);
        } else {
            COVERAGE_INC(gue_pop_bad_outer);
        }
        dp_packet_delete(packet);
        return NULL;
    }
    frag_ofs = (char *) l4 - (char *) dp_packet_l3(packet);
    switch (iptun_reass_add(packet, frag_ofs, copy_port, &whole)) {
    case IPTUN_REASS_DONE:
        return whole;
    case IPTUN_REASS_KEPT:
        *kept = true;
        return NULL;
    case IPTUN_REASS_DROPPED:
    default:
        return NULL;
    }
}

size_t
netdev_iptun_reass_batch(const struct netdev *netdev,
                         struct dp_packet_batch *batch)
{
    size_t i, first, n = dp_packet_batch_size(batch), n_kept = 0;
    struct dp_packet *packet;
    enum iptun_type type;

    for (first = 0; first < n; first++) {
        if (OVS_UNLIKELY(iptun_is_outer_fragment(batch->packets[first]))) {
            break;
        }
    }
    if (OVS_LIKELY(first == n)
        || !iptun_type_from_name(netdev_get_type(netdev), &type)) {
        return 0;
    }
    /* The packets before the first fragment stay as they are. */
    DP_PACKET_BATCH_REFILL_FOR_EACH (i, n, packet, batch) {
        bool kept = false;

        if (i >= first) {
            packet = netdev_iptun_reass(type, packet, &kept);
        }
        n_kept += kept;
        if (packet) {
            dp_packet_batch_add(batch, packet);
        }
    }
    return n_kept;
}
