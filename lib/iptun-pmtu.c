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

#include "iptun-pmtu.h"

#include <netinet/icmp6.h>
#include <string.h>

#include "coverage.h"
#include "csum.h"
#include "dp-packet.h"
#include "dp-packet-gso.h"
#include "flow.h"
#include "netdev.h"
#include "netdev-native-iptun.h"
#include "odp-netlink.h"
#include "openvswitch/token-bucket.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "packets.h"

VLOG_DEFINE_THIS_MODULE(iptun_pmtu);

COVERAGE_DEFINE(iptun_pmtu_icmp);
COVERAGE_DEFINE(iptun_pmtu_icmp6);
COVERAGE_DEFINE(iptun_pmtu_unanswered);
COVERAGE_DEFINE(iptun_pmtu_ratelimited);
COVERAGE_DEFINE(iptun_pmtu_fragmented);

/* As Linux's builders: the quoted packet keeps the reply within the minimum
 * datagram an IPv4 (576) or IPv6 (1280) host must accept. */
#define IPTUN_ICMP4_MAX 576
#define IPTUN_ICMP6_MAX 1280

/* Linux's defaults for net.ipv4.icmp_msgs_per_sec and icmp_msgs_burst,
 * which also limit its tunnels' PMTU answers (icmp_global_allow()). */
#define IPTUN_ICMP_PER_MS 1
#define IPTUN_ICMP_BURST 50

static struct ovs_mutex rate_mutex = OVS_MUTEX_INITIALIZER;
static struct token_bucket rate OVS_GUARDED_BY(rate_mutex)
    = TOKEN_BUCKET_INIT(IPTUN_ICMP_PER_MS, IPTUN_ICMP_BURST);

uint16_t
iptun_pmtu_tunnel_mtu(const struct netdev *out_dev,
                      const struct netdev *tnl_dev,
                      const struct ovs_action_push_tnl *push)
{
    int outer = push->header_len - ETH_HEADER_LEN;
    int mtu = UINT16_MAX + 1;
    int dev_mtu;

    if (!netdev_iptun_is_tnl_type(push->tnl_type)) {
        return 0;
    }
    if (!netdev_get_mtu(out_dev, &dev_mtu)) {
        mtu = dev_mtu - outer;
    }
    if (!netdev_get_mtu(tnl_dev, &dev_mtu)) {
        mtu = MIN(mtu, dev_mtu);
    }
    return mtu > 0 && mtu <= UINT16_MAX ? mtu : 0;
}

static const void *
inner_l3(const struct dp_packet *packet, size_t *size)
{
    const char *l3 = dp_packet_l3(packet);

    if (!l3) {
        l3 = dp_packet_data(packet);
    }
    *size = (const char *) dp_packet_tail(packet) - l3;
    return l3;
}

static bool
icmp4_is_error(uint8_t type)
{
    return type == ICMP4_DST_UNREACH || type == ICMP4_SOURCEQUENCH
           || type == ICMP4_REDIRECT || type == ICMP4_TIME_EXCEEDED
           || type == ICMP4_PARAM_PROB;
}

/* As Linux's iptunnel_pmtud_check_icmp(): not a fragment, not from or to a
 * broadcast, multicast, zero or loopback address, not an ICMP error. */
static bool
answer4(const struct flow *flow, const struct ip_header *ip, uint16_t mtu)
{
    ovs_be32 src = flow->nw_src, dst = flow->nw_dst;

    if (mtu < IPTUN_ICMP4_MAX || ip->ip_frag_off != htons(IP_DONT_FRAGMENT)) {
        return false;
    }
    if (dst == htonl(INADDR_BROADCAST) || ip_is_multicast(dst)
        || !src || (src & htonl(0xff000000)) == htonl(0x7f000000)
        || src == htonl(INADDR_BROADCAST) || ip_is_multicast(src)) {
        return false;
    }
    return flow->nw_proto != IPPROTO_ICMP
           || !icmp4_is_error(ntohs(flow->tp_src));
}

/* As iptunnel_pmtud_check_icmpv6(): not from an unspecified, multicast or
 * loopback address, not a later fragment, not an ICMPv6 error or
 * redirect. */
static bool
answer6(const struct flow *flow)
{
    const struct in6_addr *src = &flow->ipv6_src;

    if (!ipv6_addr_is_set(src) || ipv6_addr_is_multicast(src)
        || ipv6_addr_equals(src, &in6addr_loopback)
        || flow->nw_frag & FLOW_NW_FRAG_LATER) {
        return false;
    }
    if (flow->nw_proto != IPPROTO_ICMPV6) {
        return true;
    }
    uint8_t type = ntohs(flow->tp_src);
    return type >= 128 && type != ND_REDIRECT;
}

enum iptun_pmtu_verdict
iptun_pmtu_classify(const struct flow *flow, const struct dp_packet *packet,
                    uint16_t mtu, uint16_t *announce)
{
    size_t size;
    const void *l3 = inner_l3(packet, &size);

    *announce = mtu;
    if (flow->dl_type == htons(ETH_TYPE_IP) && size >= IP_HEADER_LEN) {
        const struct ip_header *ip = l3;

        if (!(ip->ip_frag_off & htons(IP_DONT_FRAGMENT))) {
            return IPTUN_PMTU_FRAGMENT;
        }
        if (answer4(flow, ip, mtu)) {
            return IPTUN_PMTU_ICMP;
        }
    } else if (flow->dl_type == htons(ETH_TYPE_IPV6)) {
        /* Below IPv6's minimum MTU the sender cannot go lower: Linux's sit
         * and ip6tnl then fragment the outer packet, which this datapath
         * cannot; such a packet is dropped, counted, unanswered. */
        if (mtu < IPTUN_ICMP6_MAX && size <= IPTUN_ICMP6_MAX) {
            COVERAGE_INC(iptun_pmtu_unanswered);
            return IPTUN_PMTU_DROP;
        }
        *announce = MAX(mtu, IPTUN_ICMP6_MAX);
        if (answer6(flow)) {
            return IPTUN_PMTU_ICMP;
        }
    }
    COVERAGE_INC(iptun_pmtu_unanswered);
    return IPTUN_PMTU_DROP;
}

static bool
rate_allow(void)
{
    bool ok;

    ovs_mutex_lock(&rate_mutex);
    ok = token_bucket_withdraw(&rate, 1);
    ovs_mutex_unlock(&rate_mutex);
    if (!ok) {
        COVERAGE_INC(iptun_pmtu_ratelimited);
    }
    return ok;
}

static struct dp_packet *
icmp4(const struct ip_header *orig, size_t size, uint16_t mtu)
{
    size_t quote = MIN(size, IPTUN_ICMP4_MAX - IP_HEADER_LEN
                             - ICMP_HEADER_LEN);
    size_t len = IP_HEADER_LEN + ICMP_HEADER_LEN + quote;
    struct dp_packet *p = dp_packet_new_with_headroom(len, 64);
    struct ip_header *ip = dp_packet_put_zeros(p, IP_HEADER_LEN);
    struct icmp_header *icmp = dp_packet_put_zeros(p, ICMP_HEADER_LEN);

    dp_packet_put(p, orig, quote);
    icmp->icmp_type = ICMP4_DST_UNREACH;
    icmp->icmp_code = 4;        /* Fragmentation needed and DF set. */
    icmp->icmp_fields.frag.mtu = htons(mtu);
    icmp->icmp_csum = csum(icmp, ICMP_HEADER_LEN + quote);

    ip->ip_ihl_ver = IP_IHL_VER(5, IP_VERSION);
    ip->ip_tot_len = htons(len);
    ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    ip->ip_ttl = orig->ip_ttl;
    ip->ip_proto = IPPROTO_ICMP;
    ip->ip_src = orig->ip_dst;
    ip->ip_dst = orig->ip_src;
    ip->ip_csum = csum(ip, IP_HEADER_LEN);

    p->packet_type = htonl(PT_IPV4);
    COVERAGE_INC(iptun_pmtu_icmp);
    return p;
}

static struct dp_packet *
icmp6(const struct ovs_16aligned_ip6_hdr *orig, size_t size, uint16_t mtu)
{
    size_t quote = MIN(size, IPTUN_ICMP6_MAX - IPV6_HEADER_LEN
                             - ICMP6_DATA_HEADER_LEN);
    size_t plen = ICMP6_DATA_HEADER_LEN + quote;
    struct dp_packet *p = dp_packet_new_with_headroom(IPV6_HEADER_LEN + plen,
                                                      64);
    struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_put_zeros(p,
                                                            IPV6_HEADER_LEN);
    struct icmp6_data_header *icmp = dp_packet_put_zeros(
        p, ICMP6_DATA_HEADER_LEN);

    dp_packet_put(p, orig, quote);
    put_16aligned_be32(&ip6->ip6_ctlun.ip6_un1.ip6_un1_flow, htonl(6 << 28));
    ip6->ip6_ctlun.ip6_un1.ip6_un1_plen = htons(plen);
    ip6->ip6_ctlun.ip6_un1.ip6_un1_nxt = IPPROTO_ICMPV6;
    ip6->ip6_ctlun.ip6_un1.ip6_un1_hlim = orig->ip6_ctlun.ip6_un1.ip6_un1_hlim;
    ip6->ip6_src = orig->ip6_dst;
    ip6->ip6_dst = orig->ip6_src;

    icmp->icmp6_base.icmp6_type = ICMP6_PACKET_TOO_BIG;
    put_16aligned_be32(&icmp->icmp6_data.be32[0], htonl(mtu));
    icmp->icmp6_base.icmp6_cksum = packet_csum_upperlayer6(
        ip6, icmp, IPPROTO_ICMPV6, plen);

    p->packet_type = htonl(PT_IPV6);
    COVERAGE_INC(iptun_pmtu_icmp6);
    return p;
}

struct dp_packet *
iptun_pmtu_icmp(const struct dp_packet *packet, uint16_t mtu)
{
    size_t size;
    const uint8_t *l3 = inner_l3(packet, &size);

    if (!rate_allow()) {
        return NULL;
    }
    return (*l3 >> 4) == 6 ? icmp6((const void *) l3, size, mtu)
                           : icmp4((const void *) l3, size, mtu);
}

/* Replaces the options that RFC 791 does not copy into later fragments
 * (copied flag clear) by no-operations, as Linux's ip_options_fragment(). */
static void
options_fragment(uint8_t *opt, size_t len)
{
    size_t i = 0;

    while (i < len) {
        uint8_t type = opt[i];

        if (type == 0) {                /* End of options. */
            break;
        } else if (type == 1) {         /* No operation. */
            i++;
            continue;
        } else if (i + 1 >= len || opt[i + 1] < 2 || opt[i + 1] > len - i) {
            break;
        }
        if (!(type & 0x80)) {
            memset(&opt[i], 1, opt[i + 1]);
        }
        i += opt[i + 1];
    }
}

/* Appends to 'frags' the fragments of 'ip', an IPv4 packet of 'size' bytes
 * whose checksums are complete, each at most 'mtu' bytes.  Returns false (and
 * appends nothing) if 'ip' is malformed. */
static bool
fragment(const struct ip_header *ip, size_t size, uint16_t mtu,
         struct dp_packet_batch *frags)
{
    size_t hlen, tot_len, data_len, step;
    uint8_t hdr[60];

    if (size < IP_HEADER_LEN) {
        return false;
    }
    hlen = IP_IHL(ip->ip_ihl_ver) * 4;
    tot_len = ntohs(ip->ip_tot_len);
    if (hlen < IP_HEADER_LEN || tot_len < hlen || tot_len > size
        || mtu < hlen + 8) {
        return false;
    }
    data_len = tot_len - hlen;
    step = (mtu - hlen) & ~7u;

    uint16_t frag_off = ntohs(ip->ip_frag_off);
    uint16_t base = frag_off & IP_FRAG_OFF_MASK;
    bool last_more = frag_off & IP_MORE_FRAGMENTS;
    const uint8_t *data = (const uint8_t *) ip + hlen;

    memcpy(hdr, ip, hlen);
    for (size_t ofs = 0; ofs < data_len; ofs += step) {
        size_t n = MIN(step, data_len - ofs);
        bool more = ofs + n < data_len || last_more;
        struct dp_packet *p = dp_packet_new_with_headroom(hlen + n, 128);
        struct ip_header *fip = dp_packet_put(p, hdr, hlen);

        dp_packet_put(p, data + ofs, n);
        fip->ip_tot_len = htons(hlen + n);
        fip->ip_frag_off = htons((frag_off & IP_DONT_FRAGMENT)
                                 | (more ? IP_MORE_FRAGMENTS : 0)
                                 | (base + ofs / 8));
        fip->ip_csum = 0;
        fip->ip_csum = csum(fip, hlen);
        p->packet_type = htonl(PT_IPV4);
        dp_packet_batch_add(frags, p);

        if (!ofs && hlen > IP_HEADER_LEN) {
            options_fragment(hdr + IP_HEADER_LEN, hlen - IP_HEADER_LEN);
        }
    }
    return true;
}

bool
iptun_pmtu_fragment(const struct dp_packet *packet, uint16_t mtu,
                    struct dp_packet_batch *frags)
{
    size_t size;
    const struct ip_header *ip = inner_l3(packet, &size);

    /* TSO metadata on another protocol is not believed (segmenting would
     * read its payload as a TCP header): such a packet is fragmented
     * whole. */
    bool tso = (dp_packet_get_tso_segsz(packet) && size >= IP_HEADER_LEN
                && ip->ip_proto == IPPROTO_TCP);

    if (tso || dp_packet_ip_checksum_partial(packet)
        || dp_packet_l4_checksum_partial(packet)) {
        /* As Linux's ip_finish_output_gso() and ip_fragment(): a TSO packet
         * is cut into its segments, each then fragmented, and checksums
         * left to offload are completed first (a fragment cannot have its
         * transport checksum offloaded).  dp_packet_gso_batch() wants the
         * Ethernet packet that a port would send. */
        struct dp_packet *copy = dp_packet_clone(packet);
        struct dp_packet_batch segs;
        struct dp_packet *seg;
        bool ok = true;

        if (!tso) {
            dp_packet_set_tso_segsz(copy, 0);
        }
        if (!dp_packet_is_eth(copy)) {
            push_eth(copy, &eth_addr_zero, &eth_addr_zero);
        }
        dp_packet_batch_init_packet(&segs, copy);
        dp_packet_gso_batch(&segs);
        DP_PACKET_BATCH_FOR_EACH (i, seg, &segs) {
            dp_packet_ol_send_prepare(seg, 0);
            ip = inner_l3(seg, &size);
            if (ok && !fragment(ip, size, mtu, frags)) {
                ok = false;
            }
        }
        dp_packet_delete_batch(&segs, true);
        dp_packet_batch_destroy(&segs);
        if (!ok) {
            dp_packet_delete_batch(frags, true);
            dp_packet_batch_destroy(frags);
            dp_packet_batch_init(frags);
            return false;
        }
    } else if (!fragment(ip, size, mtu, frags)) {
        return false;
    }
    COVERAGE_INC(iptun_pmtu_fragmented);
    return true;
}
