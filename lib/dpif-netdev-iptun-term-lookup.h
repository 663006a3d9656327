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
 * dpif-netdev-iptun-term.h): the lookups of its tables, by the keys of
 * dpif-netdev-iptun-term-key.h, and the steps of decapsulation in one pass,
 * inline for dfc_processing() and dp_netdev_input__(). */

#include "dpif-netdev-iptun-term-key.h"
#include "netdev-native-iptun-pop.h"

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
    cache->batch.direct_tickets++;
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
    *tcp_flags = cache->batch.hint_tcp_flags[ticket];
    return cache->batch.hint_flows[ticket];
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
        if (OVS_UNLIKELY(cache->batch.hints_now)) {
            return iptun_term_hint_take(cache, packet, tcp_flags);
        }
        return (OVS_LIKELY(iptun_term_inner_is_4in4(packet))
                ? iptun_term_inner_4in4_lookup(cache, packet, tcp_flags)
                : iptun_term_inner_any6_lookup(cache, packet, tcp_flags));
    }
    *tcp_flags = 0;
    if (cache->batch.direct_on) {
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
            cache->batch.hint_flows[i] = flows[i];
            cache->batch.hint_tcp_flags[i] = tcp_flags[i];
            packet->md.dp_hash = IPTUN_TERM_DIRECT_TICKET | i;
            n++;
        }
    }
    cache->batch.hints_pending = true;
    iptun_term_count_hints(n);
}

/* Begins a batch of dfc_processing() of 'pass' at time 'now' (us): returns
 * true if the cache is to be used for it (active, its pass's table not
 * bypassed).  For the first pass, also decides whether the one lookup's
 * table is looked up and filled (decapsulation in one pass and the one
 * lookup enabled, neither its table nor the second pass's bypassed, no
 * hardware offload: 'offload'; see iptun_term_batch.direct_fill). */
static inline bool
iptun_term_batch_begin(struct iptun_term_cache *cache,
                       enum iptun_term_pass pass, bool offload,
                       long long int now)
{
    bool one_lookup;

    if (pass == IPTUN_TERM_FIRST_PASS) {
        cache->batch.direct_tickets = 0;
        cache->batch.direct_on = cache->batch.direct_fill = false;
        cache->batch.hints_now = false;
    } else {
        /* The pass of a batch with tickets (iptun_term_hint()) takes them
         * all, even if the table has just been bypassed. */
        cache->batch.hints_now = cache->batch.hints_pending;
        cache->batch.hints_pending = false;
        if (cache->batch.hints_now) {
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
    cache->batch.direct_on = cache->direct_used > 0;
    cache->batch.direct_fill = true;
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

    if (!cache->batch.direct_tickets) {
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

    if (OVS_UNLIKELY(cache->batch.direct_tickets)) {
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
 * not fill the one lookup's table (iptun_term_batch.direct_fill). */
static inline bool
iptun_term_direct_frames(const struct iptun_term_cache *cache,
                         const struct dp_packet_batch *packets,
                         struct iptun_term_frame *frames)
{
    struct dp_packet *packet;

    if (!cache->batch.direct_fill) {
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
