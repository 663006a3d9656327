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

#ifndef DPIF_NETDEV_IPTUN_TERM_H
#define DPIF_NETDEV_IPTUN_TERM_H 1

/* Tunnel termination cache of the userspace datapath.
 *
 * A packet that an ipip, fou or gue port decapsulates crosses the datapath
 * twice.  The first pass only finds the underlay bridge's flow whose single
 * action is tnl_pop; the second finds the overlay bridge's flow for the
 * inner packet.  Each pass costs a full miniflow_extract(), a hash and an
 * exact-match cache lookup.  This per-PMD cache has a table for each pass:
 *
 *   - first pass: the outer header fields that such a flow can match (input
 *     port, Ethernet addresses, IPv4 or IPv6 addresses, protocol or next
 *     header, TOS or traffic class, TTL or hop limit, the IPv6 flow label,
 *     fou's UDP destination port; the UDP source port only when the flow
 *     matches it) map to that flow, used while it is alive and its actions
 *     are a single tnl_pop.  Only unfragmented, option-less IPv4 packets and
 *     IPv6 packets without extension headers, whose lengths
 *     miniflow_extract() would accept, are cached.
 *
 *   - second pass: a packet that an ipip, fou or gue port has just popped (its
 *     metadata is what the pop gave it) with an inner IPv4 or IPv6 (no
 *     extension headers) TCP or UDP header maps, by everything
 *     miniflow_extract() would extract from it (tunnel metadata with its
 *     IPv4 or IPv6 addresses, input port, inner addresses, TOS, TTL, IPv6
 *     flow label, protocol, ports, TCP flags), to its flow: IPv4 in IPv4 in
 *     one table ('inner_4in4'), every other combination (IPv6 outside,
 *     inside or both) in another with larger keys ('inner_any6').  A hit
 *     sets the packet hash as miniflow_extract() does.
 *
 * The flows still decide: the cache holds a reference to the datapath flow
 * that the normal lookup found, uses it only while it is alive, and a hit
 * updates the flow's statistics like any other hit.
 *
 * Decapsulation in one pass: a batch of received packets whose flow's only
 * action is a tnl_pop to an ipip, fou or gue port is popped and its packets
 * looked up in the second-pass table when the batch runs, in the same round
 * over the received packets, instead of through the tnl_pop action and a
 * recirculation (a second pass over the datapath).  If every packet hits,
 * their flows' batches run in the order that the recirculation would give
 * them, at recirculation depth 1, with its counters; otherwise the popped
 * packets are recirculated.  Outputs, their order, flow statistics and
 * counters are those of two passes.
 *
 * One lookup for both passes: the usual packet, IPv4 ipip, fou or gue
 * carrying IPv4 TCP or UDP, is looked up in the first pass in a third
 * table ('direct') keyed by every field that either pass's table holds
 * (iptun_term_direct_key), whose entry refers to both passes' flows and
 * the tunnel port.  A hit leaves a ticket in the packet; if every packet of
 * the tnl_pop flow's batch holds one, the batch's decapsulation in one pass
 * pops them without re-checking what the key proved (only the checksums)
 * and skips the second-pass lookup.  Entries are made by that
 * decapsulation when all its packets hit the second-pass table.
 * other_config:iptun-term-one-lookup (default true) turns it off; packets
 * decapsulated with it are counted in "iptun_one_lookup".
 *
 * A batch decapsulated in one pass whose packets do not all hit the
 * second-pass table is recirculated, each packet that hit with a hint to
 * its flow, which the recirculation's second pass takes instead of looking
 * it up again ("iptun_term_hint").
 *
 * Hits are counted as "tunnel termination cache hits" in
 * dpif-netdev/pmd-stats-show and in the coverage counters "iptun_term_hit"
 * and "iptun_term_inner_hit"; packets decapsulated in one pass in
 * "iptun_one_pass", and those that were then recirculated after all
 * in "iptun_one_pass_recirc".
 * other_config:iptun-term-cache (default true) turns the cache off.
 *
 * This header is what dpif-netdev embeds and calls once per batch or per
 * flow; the per-packet code is inline: the keys in
 * dpif-netdev-iptun-term-key.h, the lookups in
 * dpif-netdev-iptun-term-lookup.h. */

#include <netinet/in.h>
#include <netinet/ip6.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "dp-packet.h"
#include "dpif-netdev-dpcls.h"
#include "dpif-netdev-flow.h"
#include "iptun-ports.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "packets.h"

struct smap;

#define IPTUN_TERM_OUTER_ENTRIES 1024   /* A power of 2. */
#define IPTUN_TERM_OUTER_MASK (IPTUN_TERM_OUTER_ENTRIES - 1)
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
/* The second pass's IPv4-in-IPv4 table and the one lookup's table are
 * set-associative, so that they hold every flow of traffic with somewhat
 * fewer flows than entries (decapsulation in one pass and the one lookup
 * take a batch only if all its packets hit): the low bits of a key's hash
 * pick its "home" entry, which lookups try first, and the key may also be
 * in any other entry of the home entry's bucket of IPTUN_TERM_WAYS, where
 * the signature array beside the table (the hash's upper half, 0 for an
 * empty entry) says which entries to compare. */
#define IPTUN_TERM_WAYS 8
#define IPTUN_TERM_INNER_4IN4_ENTRIES 32768   /* A power of 2. */
#define IPTUN_TERM_INNER_4IN4_MASK (IPTUN_TERM_INNER_4IN4_ENTRIES - 1)
#define IPTUN_TERM_INNER_ANY6_ENTRIES 8192   /* A power of 2. */
#define IPTUN_TERM_INNER_ANY6_MASK (IPTUN_TERM_INNER_ANY6_ENTRIES - 1)
#define IPTUN_TERM_INNER_ANY6_WORDS 13
#define IPTUN_TERM_DIRECT_ENTRIES 32768   /* A power of 2, at most 2**15. */
#define IPTUN_TERM_DIRECT_MASK (IPTUN_TERM_DIRECT_ENTRIES - 1)
/* Flags in a one-lookup key's w[0]: the UDP checksum is not zero; a GUE
 * header (variant 0, no flags, protocol 4) comes before the inner packet. */
#define IPTUN_TERM_DIRECT_CSUM (UINT64_C(1) << 24)
#define IPTUN_TERM_DIRECT_GUE (UINT64_C(1) << 25)
/* What a one-lookup hit leaves in the packet's 'md.dp_hash' (which
 * pkt_metadata_init() zeroed and the pop zeroes again) for the batch's
 * decapsulation: this flag, the entry's generation (bits 15-30) and index
 * (bits 0-14). */
#define IPTUN_TERM_DIRECT_TICKET (UINT32_C(1) << 31)
#define IPTUN_TERM_DIRECT_GEN_SHIFT 15

/* A table that hits fewer than one lookup in IPTUN_TERM_MIN_HIT_INV over a
 * window of IPTUN_TERM_WINDOW_ENTRIES times its size (long enough for a
 * table that fits the traffic to fill first) is bypassed, neither looked up
 * nor filled, for IPTUN_TERM_BYPASS_US microseconds: with more flows than
 * entries, a lookup that misses and the entry it replaces cost more than the
 * few hits save.  Then it is tried again. */
#define IPTUN_TERM_MIN_HIT_INV 4
/* The second pass's tables must hit one lookup in this many: the
 * IPv4-in-IPv4 one, 32 times larger than the first pass's, costs more in
 * cache misses than it saves while it holds fewer than half the flows
 * (100,000 inner flows: a third of them held, decapsulation 1.9 x plain
 * forwarding in cycles with it, 1.35 x bypassed). */
#define IPTUN_TERM_INNER_MIN_HIT_INV 2
#define IPTUN_TERM_WINDOW_ENTRIES 4
#define IPTUN_TERM_BYPASS_US 1000000
/* Decapsulation in one pass has a payoff record of its own, by batches: it
 * is bypassed (two passes instead) if fewer than one batch in
 * IPTUN_TERM_MIN_HIT_INV hits the second-pass table in full over a window
 * of IPTUN_TERM_WINDOW_ENTRIES times this many batches: with far more flows
 * than the tables hold, batches that miss in part only add their lookups
 * to the recirculation's. */
#define IPTUN_TERM_ONE_PASS_BATCHES 1024

/* First pass.  w[0]: input port, IPTUN_TERM_OUTER_* flags, protocol, TOS,
 * TTL; w[1] and the top of w[2]: the Ethernet addresses; the rest of w[2]:
 * the UDP ports (fou).  Over IPv4, w[3] holds the addresses and w[4..7] are
 * unused; over IPv6 (IPTUN_TERM_OUTER_IPV6), w[3] holds the flow label and
 * w[4..7] the addresses. */
struct iptun_term_outer_key {
    uint64_t w[8];
};

struct iptun_term_outer_entry {
    struct iptun_term_outer_key key;
    struct dp_netdev_flow *flow;        /* Holds a reference, or NULL. */
};

/* Second pass: the packet an ipip, fou or gue port popped, with its tunnel
 * metadata, input port and inner IPv4 TCP or UDP header fields. */
struct iptun_term_inner_4in4_key {
    uint64_t w[5];
};

struct iptun_term_inner_4in4_entry {
    struct iptun_term_inner_4in4_key key;
    struct dp_netdev_flow *flow;        /* Holds a reference, or NULL. */
    uint32_t rss_hash;                  /* The key's packet hash. */
};

/* Second pass of a packet that came over IPv6 or carries IPv6 inside (a
 * table of its own, so that the IPv4-in-IPv4 one keeps its small entries):
 * w[0..4] as in iptun_term_inner_4in4_key, except that w[2]'s low byte says
 * whether the inner packet is IPv6 and, if so, w[3] holds its flow label;
 * w[5..8] the tunnel's IPv6 addresses, w[9..12] the inner IPv6 addresses,
 * zero where the family is IPv4. */
struct iptun_term_inner_any6_key {
    uint64_t w[IPTUN_TERM_INNER_ANY6_WORDS];
};

struct iptun_term_inner_any6_entry {
    struct iptun_term_inner_any6_key key;
    struct dp_netdev_flow *flow;        /* Holds a reference, or NULL. */
    uint32_t rss_hash;                  /* The key's packet hash. */
};

/* One lookup for a terminated packet: an Ethernet frame with an IPv4
 * header (no options, no fragment) and an ipip, fou or gue payload (gue:
 * variant 0 without flags, or variant 1) that is an IPv4 TCP or UDP packet
 * (no options, no fragment).  w[0]: input port, IPTUN_TERM_DIRECT_* flags,
 * outer protocol, TOS, TTL; w[1] and the top of w[2]: the Ethernet
 * addresses; the rest of w[2]: the UDP ports; w[3]: the outer addresses;
 * w[4]: the inner TOS, TTL and protocol (bits 24-31, 16-23, 8-15); w[5]:
 * the inner addresses; w[6]: the inner ports and TCP flags.  Every field
 * that either pass's key holds, exact: the entry stands for an entry of
 * each pass and the pop between them. */
struct iptun_term_direct_key {
    uint64_t w[7];
};

struct iptun_term_direct_entry {
    struct iptun_term_direct_key key;
    struct dp_netdev_flow *outer;       /* The tnl_pop flow (a reference). */
    struct dp_netdev_flow *inner;       /* The popped packet's (a reference),
                                         * NULL if the entry is empty. */
    odp_port_t port;                    /* The tnl_pop's port. */
    uint32_t rss_hash;                  /* The popped packet's hash. */
    uint16_t gen;                       /* Changes when the entry does. */
    uint8_t hlen;                       /* The headers the pop removes. */
};

/* A received packet's frame before its pop (iptun_term_direct_frames()):
 * where it starts, if it may make a one-lookup entry, else NULL. */
struct iptun_term_frame {
    const uint8_t *data;
    uint32_t size;
    odp_port_t in_port;
};

/* other_config:iptun-term-cache, iptun-term-one-pass and
 * iptun-term-one-lookup: one set for the process, written by
 * iptun_term_set_config(), read by the PMD threads without locking through
 * their caches' const pointer. */
struct iptun_term_config {
    atomic_bool enabled;        /* The cache. */
    atomic_bool one_pass;       /* Decapsulation in one pass. */
    atomic_bool one_lookup;     /* One lookup for both passes. */
};

/* The two passes of a decapsulated packet, each with a table (two for the
 * second pass, which share one payoff record). */
enum iptun_term_pass {
    IPTUN_TERM_FIRST_PASS,      /* The outer headers: the tnl_pop flow. */
    IPTUN_TERM_SECOND_PASS,     /* The popped packet: the overlay's flow. */
    IPTUN_TERM_N_PASSES
};

/* Which pass a batch of dfc_processing() is: the second if its packets'
 * metadata is valid (a recirculation). */
static inline enum iptun_term_pass
iptun_term_pass_of(bool md_is_valid)
{
    return md_is_valid ? IPTUN_TERM_SECOND_PASS : IPTUN_TERM_FIRST_PASS;
}

/* Whether a pass's table pays: see IPTUN_TERM_MIN_HIT_INV. */
struct iptun_term_payoff {
    uint32_t lookups;           /* In the current window. */
    uint32_t hits;              /* In the current window. */
    long long int until;        /* Bypassed until this time (us), or 0. */
};

/* The state of the batch being processed, which lives from
 * iptun_term_batch_begin() to the next batch of the same pass: whether the
 * received batch looks the one lookup's table up (when it has entries) and
 * fills it, and how many of its packets hold a ticket; and for a batch that
 * decapsulation in one pass recirculates after a second-pass miss, the
 * flows that its packets' lookups found (the tickets in their 'md.dp_hash'
 * index them), for the recirculation's second pass, which takes them
 * instead of looking the packets up again ('hints_pending': from the
 * recirculation until that pass begins; 'hints_now': during it). */
struct iptun_term_batch {
    bool direct_on;             /* Looked up in this batch. */
    bool direct_fill;           /* Filled in this batch. */
    uint32_t direct_tickets;
    bool hints_pending;
    bool hints_now;
    struct dp_netdev_flow *hint_flows[NETDEV_MAX_BURST];
    uint16_t hint_tcp_flags[NETDEV_MAX_BURST];
};

struct iptun_term_cache {
    const struct iptun_term_config *config;
    const struct iptun_ports_map *ports;        /* Which packets to take. */
    struct iptun_term_payoff payoff[IPTUN_TERM_N_PASSES];
    struct iptun_term_outer_entry outer[IPTUN_TERM_OUTER_ENTRIES];
    struct iptun_term_inner_4in4_entry
        inner_4in4[IPTUN_TERM_INNER_4IN4_ENTRIES];
    uint16_t inner_4in4_sig[IPTUN_TERM_INNER_4IN4_ENTRIES];
    struct iptun_term_inner_any6_entry
        inner_any6[IPTUN_TERM_INNER_ANY6_ENTRIES];
    /* The IPTUN_TERM_OUTER_WILD_* flags of the entries made so far: lookups
     * try a key without those fields first, ANDed with 'outer_mask' (IPv4,
     * IPv6), which clears them. */
    uint64_t outer_wild;
    uint64_t outer_mask[2][8];
    uint32_t outer_sweep_idx;
    uint32_t inner_4in4_sweep_idx;
    uint32_t inner_any6_sweep_idx;
    uint32_t inner_replace;     /* Counts misses on live inner entries. */
    /* One lookup: its table and payoff. */
    struct iptun_term_direct_entry direct[IPTUN_TERM_DIRECT_ENTRIES];
    uint16_t direct_sig[IPTUN_TERM_DIRECT_ENTRIES];
    struct iptun_term_payoff direct_payoff;
    struct iptun_term_payoff one_pass_payoff;   /* By batches. */
    uint32_t direct_used;       /* Entries in use. */
    uint32_t direct_sweep_idx;
    struct iptun_term_batch batch;
};

/* Setup, in dfc_cache_init() and dfc_cache_uninit(); the PMD's slow sweep
 * of stale entries; the datapath's other_config (iptun-term-cache,
 * iptun-term-one-pass, iptun-term-one-lookup).  (Which ports are tunnel
 * ports, the cache reads from the registry of iptun-ports.h.) */
void iptun_term_cache_init(struct iptun_term_cache *);
void iptun_term_cache_uninit(struct iptun_term_cache *);
void iptun_term_cache_slow_sweep(struct iptun_term_cache *);
void iptun_term_set_config(const struct smap *other_config);

/* Caches 'flow', which the datapath's lookup found for 'packet' (a cache
 * miss), if the packet is a candidate. */
void iptun_term_cache_insert(struct iptun_term_cache *, struct dp_packet *,
                             struct dp_netdev_flow *);

/* The per-packet lookups (iptun_term_candidate(), iptun_term_cache_lookup(),
 * iptun_term_one_pass_port(), iptun_term_one_pass_lookup()) are inline in
 * dpif-netdev-iptun-term-lookup.h. */

/* Internal: the tables' out-of-line steps (dpif-netdev-iptun-term.c) that
 * the lookups call.  */
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

/* Internal: coverage counters, out of line. */
void iptun_term_count_hits(unsigned int n, enum iptun_term_pass);
void iptun_term_count_one_pass(unsigned int n, bool recirculated);
void iptun_term_count_bypass(enum iptun_term_pass);
void iptun_term_count_direct_bypass(void);
void iptun_term_count_one_pass_bypass(void);
void iptun_term_count_one_lookup(unsigned int n);
void iptun_term_count_hints(unsigned int n);

/* True if 'cache' may hold anything: the cache is enabled and the datapath
 * has an ipip, fou or gue port.  Read once per batch, so that a datapath
 * without such ports pays nothing per packet. */
static inline bool
iptun_term_cache_active(const struct iptun_term_cache *cache)
{
    bool enabled;

    atomic_read_relaxed(&cache->config->enabled, &enabled);
    return enabled && iptun_ports_any(cache->ports);
}

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

/* True if the table whose payoff record is 'p' is bypassed at time 'now'
 * (us): see IPTUN_TERM_MIN_HIT_INV. */
static inline bool
iptun_term_payoff_bypassed(struct iptun_term_payoff *p, long long int now)
{
    if (OVS_UNLIKELY(p->until)) {
        if (now < p->until) {
            return true;
        }
        p->until = 0;
    }
    return false;
}

/* Ends the window of payoff record 'p', of a table of 'entries' entries,
 * once it has seen IPTUN_TERM_WINDOW_ENTRIES times that many lookups:
 * returns true if the table is then bypassed from time 'now' (us), because
 * it hit fewer than one lookup in 'min_hit_inv'. */
static inline bool
iptun_term_payoff_close(struct iptun_term_payoff *p, uint32_t entries,
                        uint32_t min_hit_inv, long long int now)
{
    bool bypass;

    if (OVS_LIKELY(p->lookups < IPTUN_TERM_WINDOW_ENTRIES * entries)) {
        return false;
    }
    bypass = p->hits < p->lookups / min_hit_inv;
    if (bypass) {
        p->until = now + IPTUN_TERM_BYPASS_US;
    }
    p->lookups = p->hits = 0;
    return bypass;
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
    if (pass == IPTUN_TERM_FIRST_PASS && cache->batch.direct_on) {
        /* Each lookup of the batch looked up the one lookup's table first,
         * and each of its hits left a ticket. */
        cache->direct_payoff.lookups += lookups;
        cache->direct_payoff.hits += cache->batch.direct_tickets;
        if (iptun_term_payoff_close(&cache->direct_payoff,
                                    IPTUN_TERM_DIRECT_ENTRIES,
                                    IPTUN_TERM_MIN_HIT_INV, now)) {
            iptun_term_count_direct_bypass();
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

#endif /* dpif-netdev-iptun-term.h */
