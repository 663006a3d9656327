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

/* The tunnel termination cache's per-batch and per-packet code (see
 * dpif-netdev-iptun-term.h), inline for dfc_processing() and
 * dp_netdev_input__(): which tables a batch uses, the lookups of the
 * tables by the keys of dpif-netdev-iptun-term-key.h, and the steps of
 * decapsulation in one pass and of the one lookup.
 *
 * Decapsulation in one pass: a batch of received packets whose flow's only
 * action is a tnl_pop to an ipip, fou or gue port is popped and its packets
 * looked up in the second-pass table when the batch runs, in the same round
 * over the received packets, instead of through the tnl_pop action and a
 * recirculation (a second pass over the datapath).  If every packet hits,
 * their flows' batches run in the order that the recirculation would give
 * them, at recirculation depth 1, with its counters; otherwise the popped
 * packets are recirculated.  Outputs, their order, flow statistics and
 * counters are those of two passes.  The steps run in
 * dp_netdev_iptun_one_pass_execute() (dpif-netdev-iptun-one-pass.c, patch
 * "dpif-netdev: Tunnel termination cache..."), the one hook of
 * dp_netdev_input__() for it.
 *
 * One lookup for both passes: the usual packet, IPv4 ipip, fou or gue
 * carrying IPv4 TCP or UDP, is looked up in the first pass in a third
 * table ('one_lookup') keyed by every field that either pass's table holds
 * (iptun_term_one_lookup_key), whose entry refers to both passes' flows and
 * the tunnel port.  A hit gives the packet a ticket, kept in the batch's
 * state (iptun_term_batch); if every packet of the tnl_pop flow's batch
 * holds one, the batch's decapsulation in one pass pops them without
 * re-checking what the key proved (only the checksums) and skips the
 * second-pass lookup.  Entries are made by that
 * decapsulation when all its packets hit the second-pass table.
 * other_config:iptun-term-one-lookup (default true) turns it off; packets
 * decapsulated with it are counted in "iptun_one_lookup".
 *
 * A batch decapsulated in one pass whose packets do not all hit the
 * second-pass table is recirculated, each packet that hit with a hint to
 * its flow, which the recirculation's second pass takes instead of looking
 * it up again ("iptun_term_hint"). */

#include "dpif-netdev-iptun-term-key.h"
#include "netdev-native-iptun-pop.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "ovs-rcu.h"

/* A one-lookup hit's ticket, beside its packet in the batch's state
 * (iptun_term_batch.ticket_entries), for the batch's decapsulation: the
 * entry's generation (bits 15-30) and index (bits 0-14). */
#define IPTUN_TERM_ONE_LOOKUP_GEN_SHIFT 15
/* A ticket has IPTUN_TERM_ONE_LOOKUP_GEN_SHIFT bits for the entry's index and
 * 16 above them for its generation. */
BUILD_ASSERT_DECL(IPTUN_TERM_ONE_LOOKUP_ENTRIES
                  <= 1 << IPTUN_TERM_ONE_LOOKUP_GEN_SHIFT);
BUILD_ASSERT_DECL(IPTUN_TERM_ONE_LOOKUP_GEN_SHIFT + 16 <= 32);

/* Returns the index in the batch's tickets of the next ticket of 'packet'
 * from index 't' on, or the number of tickets if it has none there.  The
 * tickets are in the order of the batch's packets, as are the packets of
 * each of its flows' batches: a flow's batch finds its tickets in one walk
 * from the first not yet redeemed, usually the next ones in a row. */
static inline uint32_t
iptun_term_ticket_find(const struct iptun_term_batch *batch,
                       const struct dp_packet *packet, uint32_t t)
{
    while (t < batch->tickets && batch->ticket_packets[t] != packet) {
        t++;
    }
    return t;
}

/* Redeems the tickets of 'packets', found from index 't' on, when they are
 * not in a row: clears them, so that the walks of the flows' batches that
 * follow skip them. */
static inline void
iptun_term_tickets_redeem(struct iptun_term_batch *batch,
                          const struct dp_packet_batch *packets, uint32_t t)
{
    struct dp_packet *packet;

    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        t = iptun_term_ticket_find(batch, packet, t);
        if (t < batch->tickets) {
            batch->ticket_packets[t++] = NULL;
        }
    }
}

/* Per batch: which tables it uses, and their payoff records. */

/* True if decapsulation in one pass may apply: the cache is active
 * (iptun_term_cache_active()) and one pass is enabled.  Read once per
 * batch. */
static inline bool
iptun_term_one_pass_active(const struct iptun_term_cache *cache)
{
    bool one_pass;

    atomic_read_relaxed(&cache->config->one_pass, &one_pass);
    return one_pass && iptun_term_cache_active(cache);
}

/* True if the table of 'pass' is bypassed at time 'now' (us): see
 * IPTUN_TERM_MIN_HIT_INV.  Read once per batch. */
static inline bool
iptun_term_bypassed(struct iptun_term_cache *cache, enum iptun_term_pass pass,
                    long long int now)
{
    return iptun_term_payoff_bypassed(&cache->payoff[pass], now);
}

/* Accounts for one batch of 'pass': 'lookups' lookups in its table, 'hits'
 * of which hit, at time 'now' (us), and for the one lookup's table (the
 * same lookups, its tickets the hits).  Counts the hits (coverage) and
 * bypasses a table that does not pay. */
static inline void
iptun_term_account(struct iptun_term_cache *cache, enum iptun_term_pass pass,
                   uint32_t lookups, uint32_t hits, long long int now)
{
    struct iptun_term_payoff *p = &cache->payoff[pass];

    if (hits) {
        iptun_term_count_hits(hits, pass);
    }
    p->lookups += lookups;
    p->hits += hits;
    if (pass == IPTUN_TERM_SECOND_PASS
        ? iptun_term_payoff_close(p, IPTUN_TERM_INNER_4IN4_ENTRIES,
                                  IPTUN_TERM_INNER_MIN_HIT_INV, now)
        : iptun_term_payoff_close(p, IPTUN_TERM_OUTER_ENTRIES,
                                  IPTUN_TERM_MIN_HIT_INV, now)) {
        iptun_term_count_bypass(pass);
    }
    if (pass == IPTUN_TERM_FIRST_PASS && cache->batch.one_lookup_on) {
        /* Each lookup of the batch looked up the one lookup's table first,
         * and each of its hits left a ticket. */
        cache->one_lookup_payoff.lookups += lookups;
        cache->one_lookup_payoff.hits += cache->batch.tickets;
        if (iptun_term_payoff_close(&cache->one_lookup_payoff,
                                    IPTUN_TERM_ONE_LOOKUP_ENTRIES,
                                    IPTUN_TERM_MIN_HIT_INV, now)) {
            iptun_term_count_one_lookup_bypass();
        }
    }
}

/* True if batches of received packets are decapsulated in one pass at time
 * 'now' (us): one pass enabled (iptun_term_one_pass_active()), neither the
 * second pass's table nor one pass (IPTUN_TERM_ONE_PASS_BATCHES) bypassed.
 * Read once per batch. */
static inline bool
iptun_term_one_pass_on(struct iptun_term_cache *cache, long long int now)
{
    return (iptun_term_one_pass_active(cache)
            && !iptun_term_bypassed(cache, IPTUN_TERM_SECOND_PASS, now)
            && !iptun_term_payoff_bypassed(&cache->one_pass_payoff, now));
}

/* Accounts for a batch of 'n' packets decapsulated in one pass: if
 * 'all_hit', their second-pass lookups (all hits) as iptun_term_account()
 * does, otherwise that they were recirculated after all; and the batch in
 * one pass's payoff record. */
static inline void
iptun_term_account_one_pass(struct iptun_term_cache *cache, uint32_t n,
                            bool all_hit, long long int now)
{
    iptun_term_count_one_pass(n, !all_hit);
    if (all_hit) {
        iptun_term_account(cache, IPTUN_TERM_SECOND_PASS, n, n, now);
    }
    cache->one_pass_payoff.lookups++;
    cache->one_pass_payoff.hits += all_hit;
    if (iptun_term_payoff_close(&cache->one_pass_payoff,
                                IPTUN_TERM_ONE_PASS_BATCHES,
                                IPTUN_TERM_MIN_HIT_INV, now)) {
        iptun_term_count_one_pass_bypass();
    }
}

/* Per packet: the lookups. */

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
 * (iptun_term_one_lookup_key): on a hit, returns the tnl_pop flow, sets the
 * layer offsets as iptun_term_outer_lookup() does and gives the packet the
 * entry's ticket, in the batch's state, which its batch's decapsulation in
 * one pass redeems (iptun_term_one_lookup_pop()).  Returns NULL, the
 * packet untouched, on a miss. */
static inline ALWAYS_INLINE struct dp_netdev_flow *
iptun_term_one_lookup_lookup(struct iptun_term_cache *cache,
                             struct dp_packet *packet, odp_port_t in_port)
{
    struct iptun_term_one_lookup_entry *e;
    struct iptun_term_one_lookup_key key;
    uint32_t hash, idx;
    int l2_pad;

    l2_pad = iptun_term_one_lookup_parse(packet, in_port, &key);
    if (l2_pad < 0) {
        return NULL;
    }
    hash = iptun_term_one_lookup_hash(&key);
    idx = hash & IPTUN_TERM_ONE_LOOKUP_MASK;
    e = &cache->one_lookup[idx];
    if (OVS_UNLIKELY(!e->inner
                     || !iptun_term_one_lookup_key_equal(&e->key, &key))) {
        int other = iptun_term_one_lookup_find_others(cache, packet, in_port,
                                                      hash);

        if (other < 0) {
            return NULL;
        }
        idx = other;
        e = &cache->one_lookup[idx];
    }
    if (OVS_UNLIKELY(e->inner->dead)
        || !OVS_LIKELY(iptun_term_flow_usable(e->outer))) {
        return NULL;
    }
    if (OVS_LIKELY(cache->batch.tickets < NETDEV_MAX_BURST)) {
        uint32_t t = cache->batch.tickets++;

        cache->batch.ticket_packets[t] = packet;
        cache->batch.ticket_entries[t]
            = ((uint32_t) e->gen << IPTUN_TERM_ONE_LOOKUP_GEN_SHIFT) | idx;
    }
    iptun_term_set_offsets(packet, ETH_HEADER_LEN, IP_HEADER_LEN, l2_pad);
    iptun_term_set_l4_proto(packet, (key.w[0] >> 16) & 0xff);
    return e->outer;
}

/* In the second pass of a batch that decapsulation in one pass
 * recirculated (iptun_term_hint()): returns the flow that the lookup of the
 * batch's packet 'idx' found there, with its TCP flags, or NULL if that
 * lookup missed (a second one would miss too). */
static inline struct dp_netdev_flow *
iptun_term_hint_take(const struct iptun_term_cache *cache, size_t idx,
                     uint16_t *tcp_flags)
{
    if (idx >= NETDEV_MAX_BURST || !cache->batch.hint_flows[idx]) {
        return NULL;
    }
    *tcp_flags = cache->batch.hint_tcp_flags[idx];
    return cache->batch.hint_flows[idx];
}

/* The second-pass lookup of 'packet', which an ipip, fou or gue port has
 * just popped: its flow and TCP flags, or NULL. */
static inline struct dp_netdev_flow *
iptun_term_inner_lookup(struct iptun_term_cache *cache,
                        struct dp_packet *packet, uint16_t *tcp_flags)
{
    return (OVS_LIKELY(iptun_term_inner_is_4in4(packet))
            ? iptun_term_inner_4in4_lookup(cache, packet, tcp_flags)
            : iptun_term_inner_any6_lookup(cache, packet, tcp_flags));
}

/* The cache lookup of dfc_processing(), for 'packet', the batch's packet
 * 'idx', of 'pass', for which iptun_term_candidate() is true, received on
 * 'in_port' (first pass).  Returns the packet's flow and its TCP flags, or
 * NULL. */
static inline ALWAYS_INLINE struct dp_netdev_flow *
iptun_term_cache_lookup(struct iptun_term_cache *cache,
                        struct dp_packet *packet, size_t idx,
                        enum iptun_term_pass pass, odp_port_t in_port,
                        uint16_t *tcp_flags)
{
    if (pass == IPTUN_TERM_SECOND_PASS) {
        if (OVS_UNLIKELY(cache->batch.hints_now)) {
            return iptun_term_hint_take(cache, idx, tcp_flags);
        }
        return iptun_term_inner_lookup(cache, packet, tcp_flags);
    }
    *tcp_flags = 0;
    if (cache->batch.one_lookup_on) {
        struct dp_netdev_flow *flow;

        flow = iptun_term_one_lookup_lookup(cache, packet, in_port);
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
 * returns the number of hits.  (Never by the hints of a recirculated batch,
 * which may be those of a batch that ran before.) */
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
                    ? iptun_term_inner_lookup(cache, packet, &tcp_flags[i])
                    : NULL);
        n_hit += flows[i] != NULL;
    }
    return n_hit;
}

/* Before the recirculation of 'packets', which missed the second-pass table
 * (iptun_term_one_pass_lookup()) in part: keeps, by each packet's index in
 * the batch (which the recirculation's dfc_processing() keeps), the flow
 * that its lookup found ('flows', NULL on a miss) and its 'tcp_flags', for
 * that second pass to take (iptun_term_hint_take()) instead of looking the
 * packets up again. */
static inline void
iptun_term_hint(struct iptun_term_cache *cache,
                const struct dp_packet_batch *packets,
                struct dp_netdev_flow **flows, const uint16_t *tcp_flags)
{
    size_t i, n = dp_packet_batch_size(packets);
    unsigned int n_hints = 0;

    for (i = 0; i < n && i < NETDEV_MAX_BURST; i++) {
        cache->batch.hint_flows[i] = flows[i];
        cache->batch.hint_tcp_flags[i] = flows[i] ? tcp_flags[i] : 0;
        n_hints += flows[i] != NULL;
    }
    cache->batch.hints_pending = true;
    iptun_term_count_hints(n_hints);
}

/* Begins a batch of dfc_processing() of 'pass' at time 'now' (us): returns
 * true if the cache is to be used for it (active, its pass's table not
 * bypassed).  For the first pass, also decides whether the one lookup's
 * table is looked up and filled (decapsulation in one pass and the one
 * lookup enabled, neither its table nor the second pass's bypassed, no
 * hardware offload: 'offload'; see iptun_term_batch.one_lookup_fill). */
static inline bool
iptun_term_batch_begin(struct iptun_term_cache *cache,
                       enum iptun_term_pass pass, bool offload,
                       long long int now)
{
    bool one_lookup;

    if (pass == IPTUN_TERM_FIRST_PASS) {
        cache->batch.tickets = cache->batch.ticket_first = 0;
        cache->batch.one_lookup_on = cache->batch.one_lookup_fill = false;
        cache->batch.hints_now = false;
    } else {
        /* The pass of a batch with hints (iptun_term_hint()) takes them
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
    if (iptun_term_payoff_bypassed(&cache->one_lookup_payoff, now)) {
        return true;
    }
    cache->batch.one_lookup_on = cache->one_lookup_used > 0;
    cache->batch.one_lookup_fill = true;
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
iptun_term_one_lookup_pop(struct iptun_term_cache *cache,
                          const struct dp_netdev_flow *outer, odp_port_t port,
                          struct dp_packet_batch *packets,
                          struct dp_netdev_flow **flows, uint16_t *tcp_flags)
{
    struct iptun_term_one_lookup_entry *entries[NETDEV_MAX_BURST];
    struct iptun_term_batch *batch = &cache->batch;
    uint32_t first = batch->ticket_first, t = first;
    struct dp_packet *packet;
    bool in_a_row = true;

    if (t >= batch->tickets) {
        return false;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        struct iptun_term_one_lookup_entry *e;
        uint32_t ticket;

        if (OVS_UNLIKELY(t >= batch->tickets
                         || batch->ticket_packets[t] != packet)) {
            t = iptun_term_ticket_find(batch, packet, t);
            if (t >= batch->tickets) {
                return false;
            }
            in_a_row = false;
        }
        ticket = batch->ticket_entries[t++];
        e = &cache->one_lookup[ticket & IPTUN_TERM_ONE_LOOKUP_MASK];
        if (e->gen != ticket >> IPTUN_TERM_ONE_LOOKUP_GEN_SHIFT
            || e->outer != outer || !e->inner || e->port != port
            || OVS_UNLIKELY(e->inner->dead)
            || !iptun_pop_known_ok(packet)) {
            return false;
        }
        entries[i] = e;
    }
    if (OVS_LIKELY(in_a_row)) {
        /* The tickets from the first not yet redeemed on, in a row: the
         * walk of the next flow's batch begins after them. */
        batch->ticket_first = t;
    } else {
        iptun_term_tickets_redeem(batch, packets, first);
    }
    /* And after those that batches before cleared. */
    while (batch->ticket_first < batch->tickets
           && !batch->ticket_packets[batch->ticket_first]) {
        batch->ticket_first++;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        const struct iptun_term_one_lookup_entry *e = entries[i];

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

/* Before the pop of 'packets' (received packets of a tnl_pop flow),
 * stores in 'frames' where each packet's frame is, if it may make a
 * one-lookup entry (an unfragmented IPv4 frame without options, without a
 * ticket, which its entry already gave it: the pop leaves such a packet's
 * headers where they are, in its headroom), for
 * iptun_term_one_lookup_remember() after the batch's second-pass lookups.
 * Returns false, nothing stored, if the batch does not fill the one
 * lookup's table (iptun_term_batch.one_lookup_fill). */
static inline bool
iptun_term_one_lookup_frames(const struct iptun_term_cache *cache,
                             const struct dp_packet_batch *packets,
                             struct iptun_term_frame *frames)
{
    struct dp_packet *packet;

    if (!cache->batch.one_lookup_fill) {
        return false;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, packets) {
        const uint8_t *data = dp_packet_data(packet);
        const struct eth_header *eth = (const void *) data;
        const struct ip_header *ip = (const void *) (eth + 1);
        uint32_t size = dp_packet_size(packet);

        frames[i].data = NULL;
        if (packet->packet_type == htonl(PT_ETH)
            && size >= ETH_HEADER_LEN + IP_HEADER_LEN
            && eth->eth_type == htons(ETH_TYPE_IP)
            && iptun_term_ipv4_len(ip, size - ETH_HEADER_LEN)
            && iptun_term_ticket_find(&cache->batch, packet,
                                      cache->batch.ticket_first)
               == cache->batch.tickets) {
            frames[i].data = data;
            frames[i].size = size;
            frames[i].in_port = packet->md.in_port.odp_port;
        }
    }
    return true;
}

/* After iptun_term_one_lookup_frames() and the pop of the batch of flow
 * 'outer' to 'port', whose 'n' popped packets (none dropped, none taken by the
 * reassembly) all hit the second pass with 'flows': makes an entry of each
 * frame that has a one-lookup key. */
static inline void
iptun_term_one_lookup_remember(struct iptun_term_cache *cache,
                               const struct iptun_term_frame *frames, size_t n,
                               struct dp_netdev_flow *outer, odp_port_t port,
                               struct dp_netdev_flow **flows,
                               struct dp_packet_batch *packets)
{
    for (size_t i = 0; i < n; i++) {
        struct iptun_term_one_lookup_key key;

        if (frames[i].data
            && iptun_term_one_lookup_parse_frame(frames[i].data,
                                                 frames[i].size,
                                                 frames[i].in_port,
                                                 &key) >= 0) {
            uint32_t rss_hash = dp_packet_get_rss_hash(packets->packets[i]);

            iptun_term_one_lookup_insert(cache, &key, outer, flows[i], port,
                                         rss_hash);
        }
    }
}

#endif /* dpif-netdev-iptun-term-lookup.h */
