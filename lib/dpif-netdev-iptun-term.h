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
 * Two steps build on those tables, described in
 * dpif-netdev-iptun-term-lookup.h: decapsulation in one pass (the popped
 * packets looked up without a recirculation, dpif-netdev-iptun-one-pass.c)
 * and the one lookup (a third table for both passes at once).
 *
 * other_config:iptun-term-cache, -one-pass and -one-lookup turn it and
 * those steps off; its counters are in the README's "Statistics".
 *
 * This header is the cache's structure and its out-of-line functions; the
 * code that runs per packet or per batch is inline: the keys in
 * dpif-netdev-iptun-term-key.h, the payoff records in
 * dpif-netdev-iptun-term-payoff.h, the lookups and the per-batch steps in
 * dpif-netdev-iptun-term-lookup.h. */

#include <stdbool.h>
#include <stdint.h>
#include "dp-packet.h"
#include "dpif-netdev-flow.h"
#include "dpif-netdev-iptun-term-payoff.h"
#include "iptun-ports.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"

struct smap;

#define IPTUN_TERM_OUTER_ENTRIES 1024   /* A power of 2. */
#define IPTUN_TERM_OUTER_MASK (IPTUN_TERM_OUTER_ENTRIES - 1)
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
#define IPTUN_TERM_ONE_LOOKUP_ENTRIES 32768   /* A power of 2, <= 2**15. */
#define IPTUN_TERM_ONE_LOOKUP_MASK (IPTUN_TERM_ONE_LOOKUP_ENTRIES - 1)

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
 * (no options, no fragment).  w[0]: input port, IPTUN_TERM_ONE_LOOKUP_* flags,
 * outer protocol, TOS, TTL; w[1] and the top of w[2]: the Ethernet
 * addresses; the rest of w[2]: the UDP ports; w[3]: the outer addresses;
 * w[4]: the inner TOS, TTL and protocol (bits 24-31, 16-23, 8-15); w[5]:
 * the inner addresses; w[6]: the inner ports and TCP flags.  Every field
 * that either pass's key holds, exact: the entry stands for an entry of
 * each pass and the pop between them. */
struct iptun_term_one_lookup_key {
    uint64_t w[7];
};

struct iptun_term_one_lookup_entry {
    struct iptun_term_one_lookup_key key;
    struct dp_netdev_flow *outer;       /* The tnl_pop flow (a reference). */
    struct dp_netdev_flow *inner;       /* The popped packet's (a reference),
                                         * NULL if the entry is empty. */
    odp_port_t port;                    /* The tnl_pop's port. */
    uint32_t rss_hash;                  /* The popped packet's hash. */
    uint16_t gen;                       /* Changes when the entry does. */
    uint8_t hlen;                       /* The headers the pop removes. */
};

/* A received packet's frame before its pop (iptun_term_one_lookup_frames()):
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

/* The state of the batch being processed, from iptun_term_batch_begin()
 * to the next batch of its pass: whether a received batch looks up and
 * fills the one lookup's table; its one-lookup hits' tickets (packet and
 * entry, in the batch's order, redeemed before 'ticket_first'); for a batch
 * that decapsulation in one pass recirculates, the flows its packets'
 * lookups found, by index, for the recirculation's second pass
 * ('hints_pending' until it begins, 'hints_now' during it). */
struct iptun_term_batch {
    bool one_lookup_on;         /* Looked up in this batch. */
    bool one_lookup_fill;       /* Filled in this batch. */
    uint32_t tickets, ticket_first;
    const struct dp_packet *ticket_packets[NETDEV_MAX_BURST];
    uint32_t ticket_entries[NETDEV_MAX_BURST];
    bool hints_pending, hints_now;
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
    struct iptun_term_one_lookup_entry
        one_lookup[IPTUN_TERM_ONE_LOOKUP_ENTRIES];
    uint16_t one_lookup_sig[IPTUN_TERM_ONE_LOOKUP_ENTRIES];
    struct iptun_term_payoff one_lookup_payoff;
    struct iptun_term_payoff one_pass_payoff;   /* By batches. */
    uint32_t one_lookup_used;       /* Entries in use. */
    uint32_t one_lookup_sweep_idx;
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
int iptun_term_one_lookup_find_others(const struct iptun_term_cache *,
                                      const struct dp_packet *,
                                      odp_port_t in_port, uint32_t hash);
void iptun_term_one_lookup_insert(struct iptun_term_cache *,
                                  const struct iptun_term_one_lookup_key *,
                                  struct dp_netdev_flow *outer,
                                  struct dp_netdev_flow *inner,
                                  odp_port_t port, uint32_t rss_hash);

/* Internal: coverage counters, out of line. */
void iptun_term_count_hits(unsigned int n, enum iptun_term_pass);
void iptun_term_count_one_pass(unsigned int n, bool recirculated);
void iptun_term_count_bypass(enum iptun_term_pass);
void iptun_term_count_one_lookup_bypass(void);
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

#endif /* dpif-netdev-iptun-term.h */
