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

#include "dp-packet-gro.h"

#include <netinet/ip6.h>
#include <string.h>

#include "coverage.h"
#include "csum.h"
#include "dp-packet.h"
#include "hash.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "smap.h"
#include "unaligned.h"
#include "userspace-tso.h"
#include "openvswitch/vlog.h"

VLOG_DEFINE_THIS_MODULE(dp_packet_gro);

/* Segments merged into the packet before them. */
COVERAGE_DEFINE(gro_merged);
/* Packets made of two or more segments. */
COVERAGE_DEFINE(gro_packets);
/* Segments not merged because their IPv4 or TCP checksum was bad. */
COVERAGE_DEFINE(gro_bad_csum);
/* Held packets ended early by a packet of their connection or addresses
 * that did not continue them (Linux's flush). */
COVERAGE_DEFINE(gro_flushed);

static atomic_bool gro_enabled = false;

/* The largest IP packet (IPv4 total length, IPv6 header and payload). */
#define GRO_MAX_L3 65535

/* TCP flags that a segment merged last may carry (and that end its
 * packet); those compared besides are the rest but CWR, which ends the
 * packet before the segment. */
#define GRO_END_FLAGS (TCP_PSH | TCP_FIN)

/* One TCP segment of the batch, parsed. */
struct gro_seg {
    struct dp_packet *pkt;
    uint16_t l3_ofs;          /* IPv4 or IPv6 header. */
    uint16_t l4_ofs;          /* TCP header. */
    uint16_t payload_ofs;     /* TCP payload. */
    uint16_t payload_len;
    bool ipv6;
    uint32_t hash;            /* Of the addresses and ports. */
};

/* A packet that segments are merged into, while the batch lasts. */
struct gro_held {
    struct gro_seg first;     /* Its first segment, the packet built. */
    size_t idx;               /* Its place in the batch (after compaction). */
    uint32_t next_seq;        /* Sequence number that continues it. */
    uint16_t mss;             /* First segment's payload: the segment size. */
    uint16_t last_ip_id;      /* IPv4 ID of its last segment. */
    uint16_t n_segs;
    uint16_t tcp_flags;       /* PSH and FIN of the segments merged. */
    bool open;                /* Takes more segments? */
};

/* The per-batch state of dp_packet_gro_batch(). */
struct gro_batch {
    struct gro_held held[NETDEV_MAX_BURST];
    size_t n_held;
    struct dp_packet_gro_stats *stats;
};

/* Ends 'h', still open, before the end of its batch. */
static void
gro_flush(struct gro_batch *gb, struct gro_held *h)
{
    h->open = false;
    gb->stats->flushed++;
    COVERAGE_INC(gro_flushed);
}

void
dp_packet_gro_set_config(const struct smap *other_config)
{
    bool tso = userspace_tso_enabled();
    bool want = smap_get_bool(other_config, "userspace-gro-enable", tso);
    bool was;

    if (want && !tso) {
        VLOG_WARN_ONCE("userspace-gro-enable needs userspace-tso-enable "
                       "(without it, outputs do not segment aggregated "
                       "packets again): receive aggregation stays off");
        want = false;
    }
    atomic_read_relaxed(&gro_enabled, &was);
    if (want != was) {
        VLOG_INFO("Userspace receive aggregation (GRO) of tunnelled TCP %s.",
                  want ? "enabled" : "disabled");
        atomic_store_relaxed(&gro_enabled, want);
    }
}

bool
dp_packet_gro_enabled(void)
{
    bool on;

    atomic_read_relaxed(&gro_enabled, &on);
    return on;
}

/* Parses 'pkt' into 'seg' if it is a TCP segment that could be merged
 * (its flags, checksums and contiguity aside). */
static bool
gro_parse(struct dp_packet *pkt, struct gro_seg *seg)
{
    const uint8_t *data = dp_packet_data(pkt);
    size_t size = dp_packet_size(pkt);
    const struct tcp_header *tcp;
    size_t l3, l4, tcp_len;

    if (dp_packet_get_tso_segsz(pkt) || dp_packet_tunnel(pkt)) {
        return false;
    }
    switch (ntohl(pkt->packet_type)) {
    case PT_ETH: {
        ovs_be16 type;

        if (size < ETH_HEADER_LEN) {
            return false;
        }
        type = ALIGNED_CAST(const struct eth_header *, data)->eth_type;
        if (type != htons(ETH_TYPE_IP) && type != htons(ETH_TYPE_IPV6)) {
            return false;
        }
        l3 = ETH_HEADER_LEN;
        seg->ipv6 = type == htons(ETH_TYPE_IPV6);
        break;
    }
    case PT_IPV4:
        l3 = 0;
        seg->ipv6 = false;
        break;
    case PT_IPV6:
        l3 = 0;
        seg->ipv6 = true;
        break;
    default:
        return false;
    }

    if (!seg->ipv6) {
        const struct ip_header *ip = (const void *) (data + l3);

        if (size < l3 + IP_HEADER_LEN
            || ip->ip_ihl_ver != IP_IHL_VER(5, 4)
            || ip->ip_proto != IPPROTO_TCP
            || ntohs(ip->ip_tot_len) != size - l3
            || ip->ip_frag_off & htons(IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK)) {
            return false;
        }
        l4 = l3 + IP_HEADER_LEN;
        seg->hash = hash_3words(
            (OVS_FORCE uint32_t) get_16aligned_be32(&ip->ip_src),
            (OVS_FORCE uint32_t) get_16aligned_be32(&ip->ip_dst),
            (OVS_FORCE uint32_t) get_unaligned_be32((const void *)
                                                    (data + l4)));
    } else {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) (data + l3);

        if (size < l3 + IPV6_HEADER_LEN
            || (ntohl(get_16aligned_be32(&ip6->ip6_flow)) >> 28) != 6
            || ip6->ip6_nxt != IPPROTO_TCP
            || ntohs(ip6->ip6_plen) != size - l3 - IPV6_HEADER_LEN) {
            return false;
        }
        l4 = l3 + IPV6_HEADER_LEN;
        seg->hash = hash_bytes(&ip6->ip6_src, 2 * sizeof ip6->ip6_src,
                               (OVS_FORCE uint32_t) get_unaligned_be32(
                                   (const void *) (data + l4)));
    }

    if (size < l4 + TCP_HEADER_LEN) {
        return false;
    }
    tcp = (const void *) (data + l4);
    tcp_len = TCP_OFFSET(tcp->tcp_ctl) * 4;
    if (tcp_len < TCP_HEADER_LEN || size < l4 + tcp_len) {
        return false;
    }
    seg->pkt = pkt;
    seg->l3_ofs = l3;
    seg->l4_ofs = l4;
    seg->payload_ofs = l4 + tcp_len;
    seg->payload_len = size - seg->payload_ofs;
    return true;
}

static const void *
gro_l3(const struct gro_seg *seg)
{
    return (const uint8_t *) dp_packet_data(seg->pkt) + seg->l3_ofs;
}

static const struct tcp_header *
gro_tcp(const struct gro_seg *seg)
{
    return (const void *) ((const uint8_t *) dp_packet_data(seg->pkt)
                           + seg->l4_ofs);
}

/* True if 'a' and 'b' belong to one connection through one port and
 * tunnel: what Linux's GRO calls the same flow. */
static bool
gro_same_flow(const struct gro_seg *a, const struct gro_seg *b)
{
    const struct dp_packet *pa = a->pkt, *pb = b->pkt;
    const uint8_t *la = gro_l3(a), *lb = gro_l3(b);

    if (a->hash != b->hash || a->ipv6 != b->ipv6
        || a->l3_ofs != b->l3_ofs
        || pa->packet_type != pb->packet_type
        || pa->md.in_port.odp_port != pb->md.in_port.odp_port
        || pa->md.pkt_mark != pb->md.pkt_mark
        || pa->md.skb_priority != pb->md.skb_priority
        || memcmp(dp_packet_data(pa), dp_packet_data(pb), a->l3_ofs)
        || memcmp(gro_tcp(a), gro_tcp(b), 4)) {
        return false;
    }
    if (a->ipv6) {
        if (memcmp(la + offsetof(struct ovs_16aligned_ip6_hdr, ip6_src),
                   lb + offsetof(struct ovs_16aligned_ip6_hdr, ip6_src),
                   2 * sizeof(struct in6_addr))) {
            return false;
        }
    } else if (memcmp(la + offsetof(struct ip_header, ip_src),
                      lb + offsetof(struct ip_header, ip_src), 8)) {
        return false;
    }
    return flow_tnl_equal(&pa->md.tunnel, &pb->md.tunnel);
}

/* True if the IP and TCP checksums of 'seg' are good: verified by the
 * port that received it, or here. */
static bool
gro_csum_ok(const struct gro_seg *seg)
{
    const struct dp_packet *pkt = seg->pkt;
    const void *l3 = gro_l3(seg);
    const void *tcp = gro_tcp(seg);
    size_t tcp_len = dp_packet_size(pkt) - seg->l4_ofs;

    if (!seg->ipv6 && !dp_packet_ip_checksum_valid(pkt)
        && csum(l3, IP_HEADER_LEN)) {
        return false;
    }
    if (dp_packet_l4_checksum_valid(pkt)) {
        return true;
    }
    if (!seg->ipv6) {
        return !csum_finish(csum_continue(packet_csum_pseudoheader(l3),
                                          tcp, tcp_len));
    }
    return !packet_csum_upperlayer6(l3, tcp, IPPROTO_TCP, tcp_len);
}

/* True if 'seg' continues 'h' (open, gro_find()'s: both of one
 * connection): everything but the sequence number, the PSH and FIN flags
 * and the payload as the last segment, the IP ID one more without DF. */
static bool
gro_continues(const struct gro_held *h, const struct gro_seg *seg)
{
    const struct tcp_header *ht = gro_tcp(&h->first), *st = gro_tcp(seg);
    size_t tcp_len = seg->payload_ofs - seg->l4_ofs;
    const uint8_t *hl3 = gro_l3(&h->first), *sl3 = gro_l3(seg);

    if (ntohl(get_16aligned_be32(&st->tcp_seq)) != h->next_seq
        || !seg->payload_len || seg->payload_len > h->mss
        || (dp_packet_size(h->first.pkt) - h->first.l3_ofs
            + seg->payload_len > GRO_MAX_L3)
        || TCP_FLAGS(st->tcp_ctl) & TCP_CWR
        || ((ht->tcp_ctl ^ st->tcp_ctl) & ~htons(GRO_END_FLAGS))
        || ht->tcp_winsz != st->tcp_winsz
        || h->first.payload_ofs - h->first.l4_ofs != tcp_len
        || memcmp(&ht->tcp_ack, &st->tcp_ack, sizeof ht->tcp_ack)
        || memcmp(ht + 1, st + 1, tcp_len - TCP_HEADER_LEN)) {
        return false;
    }
    if (!seg->ipv6) {
        const struct ip_header *hip = (const void *) hl3;
        const struct ip_header *sip = (const void *) sl3;

        if (hip->ip_tos != sip->ip_tos || hip->ip_ttl != sip->ip_ttl
            || (hip->ip_frag_off ^ sip->ip_frag_off) & htons(IP_DONT_FRAGMENT)
            || (!(sip->ip_frag_off & htons(IP_DONT_FRAGMENT))
                && ntohs(sip->ip_id) != (uint16_t) (h->last_ip_id + 1))) {
            return false;
        }
    } else {
        const struct ovs_16aligned_ip6_hdr *hip = (const void *) hl3;
        const struct ovs_16aligned_ip6_hdr *sip = (const void *) sl3;

        if (get_16aligned_be32(&hip->ip6_flow)
            != get_16aligned_be32(&sip->ip6_flow)
            || hip->ip6_hlim != sip->ip6_hlim) {
            return false;
        }
    }
    return true;
}

/* True if 'seg' may start a packet: ACK, perhaps ECE, no other flag, and a
 * payload. */
static bool
gro_may_hold(const struct gro_seg *seg)
{
    uint16_t flags = TCP_FLAGS(gro_tcp(seg)->tcp_ctl);

    return seg->payload_len && (flags & ~TCP_ECE) == TCP_ACK;
}

static void
gro_hold(struct gro_batch *gb, const struct gro_seg *seg, size_t idx)
{
    struct gro_held *h = &gb->held[gb->n_held++];
    const struct tcp_header *tcp = gro_tcp(seg);

    h->first = *seg;
    h->idx = idx;
    h->next_seq = ntohl(get_16aligned_be32(&tcp->tcp_seq))
                  + seg->payload_len;
    h->mss = seg->payload_len;
    h->last_ip_id = seg->ipv6 ? 0
                    : ntohs(((const struct ip_header *) gro_l3(seg))->ip_id);
    h->n_segs = 1;
    h->tcp_flags = 0;
    h->open = true;
}

/* Appends the payload of 'seg' to 'h', which may move to a packet of its
 * own (in 'batch' too) with room for the largest packet. */
static void
gro_merge(struct dp_packet_batch *batch, struct gro_held *h,
          const struct gro_seg *seg)
{
    struct dp_packet *pkt = h->first.pkt;
    const struct tcp_header *st = gro_tcp(seg);
    size_t room = GRO_MAX_L3 + h->first.l3_ofs - dp_packet_size(pkt);

    if (h->n_segs == 1) {
        if (pkt->source != DPBUF_MALLOC) {
            struct dp_packet *copy;

            copy = dp_packet_clone_with_headroom(pkt, dp_packet_headroom(pkt));
            dp_packet_delete(pkt);
            pkt = h->first.pkt = batch->packets[h->idx] = copy;
        }
        dp_packet_prealloc_tailroom(pkt, room);
    }
    dp_packet_put(pkt, (const uint8_t *) dp_packet_data(seg->pkt)
                       + seg->payload_ofs, seg->payload_len);
    h->n_segs++;
    h->next_seq += seg->payload_len;
    h->tcp_flags |= TCP_FLAGS(st->tcp_ctl) & GRO_END_FLAGS;
    if (!seg->ipv6) {
        h->last_ip_id = ntohs(((const struct ip_header *) gro_l3(seg))->ip_id);
    }
    if (h->tcp_flags || seg->payload_len < h->mss) {
        h->open = false;
    }
    COVERAGE_INC(gro_merged);
}

/* Writes the headers of 'h', two or more segments merged, for its new
 * length, and marks it a TSO packet of 'h->mss' byte segments. */
static void
gro_finish(struct gro_held *h)
{
    struct dp_packet *pkt = h->first.pkt;
    uint8_t *data = dp_packet_data(pkt);
    size_t l3_len = dp_packet_size(pkt) - h->first.l3_ofs;
    struct tcp_header *tcp = (void *) (data + h->first.l4_ofs);

    if (!h->first.ipv6) {
        struct ip_header *ip = (void *) (data + h->first.l3_ofs);

        ip->ip_tot_len = htons(l3_len);
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, IP_HEADER_LEN);
    } else {
        struct ovs_16aligned_ip6_hdr *ip6 = (void *) (data + h->first.l3_ofs);

        ip6->ip6_plen = htons(l3_len - IPV6_HEADER_LEN);
    }
    tcp->tcp_ctl |= htons(h->tcp_flags);
    pkt->l3_ofs = h->first.l3_ofs;
    pkt->l4_ofs = h->first.l4_ofs;
    dp_packet_l4_checksum_set_partial(pkt);
    dp_packet_set_tso_segsz(pkt, h->mss);
    COVERAGE_INC(gro_packets);
}

static struct gro_held *
gro_find(struct gro_batch *gb, const struct gro_seg *seg)
{
    for (size_t i = 0; i < gb->n_held; i++) {
        struct gro_held *h = &gb->held[i];

        if (h->open && gro_same_flow(&h->first, seg)) {
            return h;
        }
    }
    return NULL;
}

/* Closes every packet held between the addresses of 'pkt', which is no
 * TCP segment that could be merged (a fragment, say): what comes after it
 * stays after it. */
static void
gro_close_addresses(struct gro_batch *gb, struct dp_packet *pkt)
{
    const uint8_t *data = dp_packet_data(pkt);
    size_t size = dp_packet_size(pkt);

    for (size_t i = 0; i < gb->n_held; i++) {
        struct gro_held *h = &gb->held[i];
        const uint8_t *hl3 = gro_l3(&h->first);
        size_t l3 = h->first.l3_ofs;

        if (!h->open || pkt->packet_type != h->first.pkt->packet_type
            || size < l3 || memcmp(data, dp_packet_data(h->first.pkt), l3)) {
            continue;
        }
        if (h->first.ipv6) {
            size_t o = offsetof(struct ovs_16aligned_ip6_hdr, ip6_src);

            if (size >= l3 + IPV6_HEADER_LEN
                && !memcmp(data + l3 + o, hl3 + o, 32)) {
                gro_flush(gb, h);
            }
        } else {
            size_t o = offsetof(struct ip_header, ip_src);

            if (size >= l3 + IP_HEADER_LEN
                && !memcmp(data + l3 + o, hl3 + o, 8)) {
                gro_flush(gb, h);
            }
        }
    }
}

/* Merges the TCP segments of 'batch' as described in dp-packet-gro.h and
 * says what it did in '*stats'.  Returns the number of packets that merged
 * into others (and left the batch). */
size_t
dp_packet_gro_batch(struct dp_packet_batch *batch,
                    struct dp_packet_gro_stats *stats)
{
    size_t n = dp_packet_batch_size(batch), k = 0, i;
    struct gro_batch gb;

    memset(stats, 0, sizeof *stats);
    if (n < 2) {
        return 0;
    }
    gb.n_held = 0;
    gb.stats = stats;
    for (i = 0; i < n; i++) {
        struct dp_packet *pkt = batch->packets[i];
        struct gro_held *h;
        struct gro_seg seg;

        if (!gro_parse(pkt, &seg)) {
            gro_close_addresses(&gb, pkt);
            goto keep;
        }
        h = gro_find(&gb, &seg);
        if (h && gro_continues(h, &seg)) {
            if (gro_csum_ok(&seg)) {
                gro_merge(batch, h, &seg);
                dp_packet_delete(pkt);
                stats->merged++;
                continue;
            }
            COVERAGE_INC(gro_bad_csum);
            gro_flush(&gb, h);
            goto keep;
        }
        if (h) {
            gro_flush(&gb, h);
        }
        if (gro_may_hold(&seg)) {
            if (gro_csum_ok(&seg)) {
                gro_hold(&gb, &seg, k);
            } else {
                COVERAGE_INC(gro_bad_csum);
            }
        }
keep:
        batch->packets[k++] = pkt;
    }
    for (i = 0; i < gb.n_held; i++) {
        if (gb.held[i].n_segs > 1) {
            gro_finish(&gb.held[i]);
            stats->packets++;
        }
    }
    batch->count = k;
    return n - k;
}
