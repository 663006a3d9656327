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

#include "dpif-netdev-iptun-term-key.h"

#include <string.h>

#include "coverage.h"
#include "dpif-netdev-dpcls.h"
#include "dpif-netdev-flow.h"
#include "flow.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "smap.h"

VLOG_DEFINE_THIS_MODULE(dpif_netdev_iptun_term);

COVERAGE_DEFINE(iptun_term_hit);
COVERAGE_DEFINE(iptun_term_insert);
COVERAGE_DEFINE(iptun_term_inner_hit);
COVERAGE_DEFINE(iptun_term_inner_insert);
COVERAGE_DEFINE(iptun_one_pass);
COVERAGE_DEFINE(iptun_one_pass_recirc);
COVERAGE_DEFINE(iptun_term_bypass);
COVERAGE_DEFINE(iptun_term_inner_bypass);
COVERAGE_DEFINE(iptun_one_lookup_insert);
COVERAGE_DEFINE(iptun_one_lookup_bypass);
COVERAGE_DEFINE(iptun_one_pass_bypass);
COVERAGE_DEFINE(iptun_one_lookup);
COVERAGE_DEFINE(iptun_term_hint);

/* A live second-pass entry is replaced at one miss in this many. */
#define TERM_INNER_REPLACE 16

/* The set-associative tables' buckets. */
BUILD_ASSERT_DECL(IS_POW2(IPTUN_TERM_WAYS) && IPTUN_TERM_WAYS <= 32);
BUILD_ASSERT_DECL(IPTUN_TERM_INNER_4IN4_ENTRIES % IPTUN_TERM_WAYS == 0);
BUILD_ASSERT_DECL(IPTUN_TERM_ONE_LOOKUP_ENTRIES % IPTUN_TERM_WAYS == 0);

static struct iptun_term_config term_config = {
    .enabled = true,
    .one_pass = true,
    .one_lookup = true,
};

static void term_outer_set_wild(struct iptun_term_cache *, uint64_t wild);

void
iptun_term_set_config(const struct smap *other_config)
{
    bool enable = smap_get_bool(other_config, "iptun-term-cache", true);
    bool one_pass = smap_get_bool(other_config, "iptun-term-one-pass", true);
    bool one_lookup = smap_get_bool(other_config, "iptun-term-one-lookup",
                                    true);
    bool old_enable, old_one_pass, old_one_lookup;

    atomic_read_relaxed(&term_config.one_lookup, &old_one_lookup);
    if (one_lookup != old_one_lookup) {
        atomic_store_relaxed(&term_config.one_lookup, one_lookup);
        VLOG_INFO("ipip/fou/gue decapsulation with one lookup %s",
                  one_lookup ? "enabled" : "disabled");
    }
    atomic_read_relaxed(&term_config.one_pass, &old_one_pass);
    if (one_pass != old_one_pass) {
        atomic_store_relaxed(&term_config.one_pass, one_pass);
        VLOG_INFO("ipip/fou/gue decapsulation in one pass %s",
                  one_pass ? "enabled" : "disabled");
    }
    atomic_read_relaxed(&term_config.enabled, &old_enable);
    if (enable != old_enable) {
        atomic_store_relaxed(&term_config.enabled, enable);
        VLOG_INFO("ipip/fou/gue tunnel termination cache %s",
                  enable ? "enabled" : "disabled");
    }
}

/* Counts 'n' cache hits of 'pass'. */
void
iptun_term_count_hits(unsigned int n, enum iptun_term_pass pass)
{
    if (pass == IPTUN_TERM_SECOND_PASS) {
        COVERAGE_ADD(iptun_term_inner_hit, n);
    } else {
        COVERAGE_ADD(iptun_term_hit, n);
    }
}

void
iptun_term_count_one_pass(unsigned int n, bool recirculated)
{
    if (recirculated) {
        COVERAGE_ADD(iptun_one_pass_recirc, n);
    } else {
        COVERAGE_ADD(iptun_one_pass, n);
    }
}

/* The first-pass entry of 'packet', received on 'in_port', by its exact key
 * (the second lookup of iptun_term_outer_lookup(), out of line: rare), or
 * NULL. */
struct iptun_term_outer_entry *
iptun_term_outer_find_exact(struct iptun_term_cache *cache,
                            const struct dp_packet *packet, odp_port_t in_port)
{
    struct iptun_term_outer_entry *e;
    struct iptun_term_outer_key key;

    iptun_term_outer_parse(packet, in_port, &key, iptun_term_outer_exact, 0);
    e = &cache->outer[iptun_term_outer_hash(&key) & IPTUN_TERM_OUTER_MASK];
    return (e->flow && iptun_term_outer_key_equal(&e->key, &key)
            && iptun_term_flow_usable(e->flow) ? e : NULL);
}

/* Counts a table bypassed (iptun_term_account()). */
void
iptun_term_count_bypass(enum iptun_term_pass pass)
{
    if (pass == IPTUN_TERM_SECOND_PASS) {
        COVERAGE_INC(iptun_term_inner_bypass);
    } else {
        COVERAGE_INC(iptun_term_bypass);
    }
}

void
iptun_term_count_one_lookup_bypass(void)
{
    COVERAGE_INC(iptun_one_lookup_bypass);
}

void
iptun_term_count_one_pass_bypass(void)
{
    COVERAGE_INC(iptun_one_pass_bypass);
}

void
iptun_term_count_one_lookup(unsigned int n)
{
    COVERAGE_ADD(iptun_one_lookup, n);
}

void
iptun_term_count_hints(unsigned int n)
{
    COVERAGE_ADD(iptun_term_hint, n);
}

void
iptun_term_cache_init(struct iptun_term_cache *cache)
{
    memset(cache, 0, sizeof *cache);
    term_outer_set_wild(cache, 0);
    cache->config = &term_config;
    cache->ports = iptun_ports_map();
}

/* The signature of a key with hash 'hash' in a set-associative table
 * (IPTUN_TERM_WAYS): the hash's upper half, whose bits the entry's index
 * does not use, never 0 (an empty entry's). */
static uint16_t
term_sig(uint32_t hash)
{
    return (hash >> 16) | 1;
}

/* A map of the entries of the bucket of entry 'home' of a set-associative
 * table, other than 'home', whose signature in 'sigs' is 'sig' (bit 'i' for
 * the bucket's entry 'i'). */
static uint32_t
term_sig_others(const uint16_t *sigs, uint32_t home, uint16_t sig)
{
    const uint16_t *bucket = &sigs[home & ~(IPTUN_TERM_WAYS - 1)];
    uint32_t map = 0;

    for (int i = 0; i < IPTUN_TERM_WAYS; i++) {
        map |= (uint32_t) (bucket[i] == sig) << i;
    }
    return map & ~(UINT32_C(1) << (home & (IPTUN_TERM_WAYS - 1)));
}

/* The entry of the IPv4-in-IPv4 second-pass table among those of 'map'
 * (term_sig_others()) in the bucket of 'hash' that holds 'key', or NULL. */
static struct iptun_term_inner_4in4_entry *
term_inner_4in4_find_in(struct iptun_term_cache *cache,
                        const struct iptun_term_inner_4in4_key *key,
                        uint32_t hash, uint32_t map)
{
    uint32_t base = hash & IPTUN_TERM_INNER_4IN4_MASK & ~(IPTUN_TERM_WAYS - 1);

    for (; map; map = zero_rightmost_1bit(map)) {
        struct iptun_term_inner_4in4_entry *e
            = &cache->inner_4in4[base + raw_ctz(map)];

        if (e->flow && iptun_term_inner_4in4_key_equal(&e->key, key)) {
            return e;
        }
    }
    return NULL;
}

/* term_inner_4in4_find_in() for the one lookup's table: the index, or
 * -1. */
static int
term_one_lookup_find_in(const struct iptun_term_cache *cache,
                        const struct iptun_term_one_lookup_key *key,
                        uint32_t hash, uint32_t map)
{
    uint32_t base = hash & IPTUN_TERM_ONE_LOOKUP_MASK & ~(IPTUN_TERM_WAYS - 1);

    for (; map; map = zero_rightmost_1bit(map)) {
        uint32_t idx = base + raw_ctz(map);
        const struct iptun_term_one_lookup_entry *e = &cache->one_lookup[idx];

        if (e->inner && iptun_term_one_lookup_key_equal(&e->key, key)) {
            return idx;
        }
    }
    return -1;
}

struct iptun_term_inner_4in4_entry *
iptun_term_inner_4in4_find_others(struct iptun_term_cache *cache,
                                  const struct dp_packet *packet,
                                  uint32_t hash)
{
    uint32_t map = term_sig_others(cache->inner_4in4_sig,
                                   hash & IPTUN_TERM_INNER_4IN4_MASK,
                                   term_sig(hash));
    struct iptun_term_inner_4in4_key key;
    uint16_t tcp_flags;

    if (!map || iptun_term_inner_4in4_parse(packet, &key, &tcp_flags) < 0) {
        return NULL;
    }
    return term_inner_4in4_find_in(cache, &key, hash, map);
}

int
iptun_term_one_lookup_find_others(const struct iptun_term_cache *cache,
                                  const struct dp_packet *packet,
                                  odp_port_t in_port, uint32_t hash)
{
    uint32_t map = term_sig_others(cache->one_lookup_sig,
                                   hash & IPTUN_TERM_ONE_LOOKUP_MASK,
                                   term_sig(hash));
    struct iptun_term_one_lookup_key key;

    if (!map || iptun_term_one_lookup_parse(packet, in_port, &key) < 0) {
        return -1;
    }
    return term_one_lookup_find_in(cache, &key, hash, map);
}

/* Drops the reference an entry of either table holds in '*flowp'. */
static void
term_flow_release(struct dp_netdev_flow **flowp)
{
    if (*flowp) {
        dp_netdev_flow_unref(*flowp);
        *flowp = NULL;
    }
}

/* Empties one-lookup entry 'e'. */
static void
term_one_lookup_release(struct iptun_term_cache *cache,
                        struct iptun_term_one_lookup_entry *e)
{
    if (e->inner) {
        term_flow_release(&e->inner);
        term_flow_release(&e->outer);
        e->gen++;
        cache->one_lookup_used--;
        cache->one_lookup_sig[e - cache->one_lookup] = 0;
    }
}

/* The entry of a set-associative table whose bucket of entry 'home' has
 * signatures 'sigs' that a new key with that home takes, given 'entry_dead'
 * (true for an entry whose flow is dead): the home entry if it is empty,
 * else the first empty entry of the bucket, else the first whose flow is
 * dead, else the home entry (whose key gives way). */
static uint32_t
term_bucket_place(const uint16_t *sigs, uint32_t home,
                  bool (*entry_dead)(const void *table, uint32_t idx),
                  const void *table)
{
    uint32_t base = home & ~(IPTUN_TERM_WAYS - 1);

    if (!sigs[home]) {
        return home;
    }
    for (uint32_t i = base; i < base + IPTUN_TERM_WAYS; i++) {
        if (!sigs[i]) {
            return i;
        }
    }
    for (uint32_t i = base; i < base + IPTUN_TERM_WAYS; i++) {
        if (entry_dead(table, i)) {
            return i;
        }
    }
    return home;
}

static bool
term_one_lookup_dead(const void *table, uint32_t idx)
{
    const struct iptun_term_one_lookup_entry *e
        = &((const struct iptun_term_one_lookup_entry *) table)[idx];

    return e->inner->dead || e->outer->dead;
}

static bool
term_inner_4in4_dead(const void *table, uint32_t idx)
{
    const struct iptun_term_inner_4in4_entry *e
        = &((const struct iptun_term_inner_4in4_entry *) table)[idx];

    return e->flow->dead;
}

void
iptun_term_one_lookup_insert(struct iptun_term_cache *cache,
                             const struct iptun_term_one_lookup_key *key,
                             struct dp_netdev_flow *outer,
                             struct dp_netdev_flow *inner, odp_port_t port,
                             uint32_t rss_hash)
{
    uint32_t hash = iptun_term_one_lookup_hash(key);
    struct iptun_term_one_lookup_entry *e;
    int idx;

    idx = hash & IPTUN_TERM_ONE_LOOKUP_MASK;
    if (!cache->one_lookup[idx].inner
        || !iptun_term_one_lookup_key_equal(&cache->one_lookup[idx].key,
                                            key)) {
        uint32_t map = term_sig_others(cache->one_lookup_sig, idx,
                                       term_sig(hash));

        idx = term_one_lookup_find_in(cache, key, hash, map);
    }
    if (idx < 0) {
        idx = term_bucket_place(cache->one_lookup_sig,
                                hash & IPTUN_TERM_ONE_LOOKUP_MASK,
                                term_one_lookup_dead, cache->one_lookup);
    }
    e = &cache->one_lookup[idx];
    if (e->inner == inner && e->outer == outer && e->port == port
        && iptun_term_one_lookup_key_equal(&e->key, key)) {
        return;
    }
    /* As term_inner_take(): a live entry gives way to one miss in
     * TERM_INNER_REPLACE. */
    if (e->inner && !e->inner->dead && !e->outer->dead
        && ++cache->inner_replace % TERM_INNER_REPLACE) {
        return;
    }
    if (outer->dead || inner->dead
        || !ovs_refcount_try_ref_rcu(&outer->ref_cnt)) {
        return;
    }
    if (!ovs_refcount_try_ref_rcu(&inner->ref_cnt)) {
        dp_netdev_flow_unref(outer);
        return;
    }
    term_one_lookup_release(cache, e);
    e->key = *key;
    e->outer = outer;
    e->inner = inner;
    e->port = port;
    e->rss_hash = rss_hash;
    e->hlen = iptun_term_one_lookup_hlen(key);
    e->gen++;
    cache->one_lookup_used++;
    cache->one_lookup_sig[idx] = term_sig(hash);
    COVERAGE_INC(iptun_one_lookup_insert);
}

void
iptun_term_cache_uninit(struct iptun_term_cache *cache)
{
    for (int i = 0; i < IPTUN_TERM_ONE_LOOKUP_ENTRIES; i++) {
        term_one_lookup_release(cache, &cache->one_lookup[i]);
    }
    for (int i = 0; i < IPTUN_TERM_OUTER_ENTRIES; i++) {
        term_flow_release(&cache->outer[i].flow);
    }
    for (int i = 0; i < IPTUN_TERM_INNER_4IN4_ENTRIES; i++) {
        term_flow_release(&cache->inner_4in4[i].flow);
    }
    for (int i = 0; i < IPTUN_TERM_INNER_ANY6_ENTRIES; i++) {
        term_flow_release(&cache->inner_any6[i].flow);
    }
}

/* Releases the reference of one entry whose flow is dead, so that deleted
 * flows are freed even if their slot is never reused. */
void
iptun_term_cache_slow_sweep(struct iptun_term_cache *cache)
{
    struct iptun_term_outer_entry *e = &cache->outer[cache->outer_sweep_idx];
    struct iptun_term_inner_4in4_entry *ie
        = &cache->inner_4in4[cache->inner_4in4_sweep_idx];
    struct iptun_term_inner_any6_entry *ie6
        = &cache->inner_any6[cache->inner_any6_sweep_idx];
    struct iptun_term_one_lookup_entry *de
        = &cache->one_lookup[cache->one_lookup_sweep_idx];

    if (e->flow && e->flow->dead) {
        term_flow_release(&e->flow);
    }
    if (ie->flow && ie->flow->dead) {
        term_flow_release(&ie->flow);
        cache->inner_4in4_sig[cache->inner_4in4_sweep_idx] = 0;
    }
    if (ie6->flow && ie6->flow->dead) {
        term_flow_release(&ie6->flow);
    }
    if (de->inner && (de->inner->dead || de->outer->dead)) {
        term_one_lookup_release(cache, de);
    }
    cache->one_lookup_sweep_idx = (cache->one_lookup_sweep_idx + 1)
                                  & IPTUN_TERM_ONE_LOOKUP_MASK;
    cache->outer_sweep_idx = (cache->outer_sweep_idx + 1)
                             & IPTUN_TERM_OUTER_MASK;
    cache->inner_4in4_sweep_idx = (cache->inner_4in4_sweep_idx + 1)
                                  & IPTUN_TERM_INNER_4IN4_MASK;
    cache->inner_any6_sweep_idx = (cache->inner_any6_sweep_idx + 1)
                                  & IPTUN_TERM_INNER_ANY6_MASK;
}

/* Second pass: lets the inner entry whose flow is '*slot' take 'flow' (with
 * a reference) and returns true, or returns false if it keeps its own.  With
 * more inner flows than entries, replacing a live entry at every miss would
 * only churn (and take and drop flow references): one in TERM_INNER_REPLACE
 * times, so that a stable part of the flows stays cached. */
static bool
term_inner_take(struct iptun_term_cache *cache, struct dp_netdev_flow **slot,
                struct dp_netdev_flow *flow)
{
    if (*slot && !(*slot)->dead
        && ++cache->inner_replace % TERM_INNER_REPLACE) {
        return false;
    }
    if (!ovs_refcount_try_ref_rcu(&flow->ref_cnt)) {
        return false;
    }
    term_flow_release(slot);
    *slot = flow;
    COVERAGE_INC(iptun_term_inner_insert);
    return true;
}

/* Second pass: remembers that 'flow' is the flow of 'packet', which an
 * ipip or fou port popped. */
static void
term_inner_4in4_insert(struct iptun_term_cache *cache,
                       struct dp_packet *packet,
                       struct dp_netdev_flow *flow)
{
    struct iptun_term_inner_4in4_entry *e;
    struct iptun_term_inner_4in4_key key;
    uint16_t tcp_flags;
    uint32_t hash;

    if (flow->dead || !dp_packet_rss_valid(packet)
        || iptun_term_inner_4in4_parse(packet, &key, &tcp_flags) < 0) {
        return;
    }
    hash = iptun_term_inner_4in4_hash(&key);
    e = &cache->inner_4in4[hash & IPTUN_TERM_INNER_4IN4_MASK];
    if (!e->flow || !iptun_term_inner_4in4_key_equal(&e->key, &key)) {
        e = term_inner_4in4_find_in(cache, &key, hash,
                                    term_sig_others(
                                        cache->inner_4in4_sig,
                                        hash & IPTUN_TERM_INNER_4IN4_MASK,
                                        term_sig(hash)));
    }
    if (!e) {
        e = &cache->inner_4in4[term_bucket_place(
                                   cache->inner_4in4_sig,
                                   hash & IPTUN_TERM_INNER_4IN4_MASK,
                                   term_inner_4in4_dead, cache->inner_4in4)];
    }
    if (e->flow == flow && iptun_term_inner_4in4_key_equal(&e->key, &key)) {
        return;
    }
    if (term_inner_take(cache, &e->flow, flow)) {
        e->key = key;
        e->rss_hash = dp_packet_get_rss_hash(packet);
        cache->inner_4in4_sig[e - cache->inner_4in4] = term_sig(hash);
    }
}

/* term_inner_4in4_insert() for the packets of the inner_any6 table. */
static void
term_inner_any6_insert(struct iptun_term_cache *cache,
                       struct dp_packet *packet,
                       struct dp_netdev_flow *flow)
{
    struct iptun_term_inner_any6_entry *e;
    struct iptun_term_inner_any6_key key;
    uint16_t tcp_flags;
    bool inner_ipv6;

    if (flow->dead || !dp_packet_rss_valid(packet)
        || iptun_term_inner_any6_parse(packet, &key, &tcp_flags,
                                       &inner_ipv6) < 0) {
        return;
    }
    e = &cache->inner_any6[iptun_term_inner_any6_hash(&key)
                           & IPTUN_TERM_INNER_ANY6_MASK];
    if (e->flow == flow && iptun_term_inner_any6_key_equal(&e->key, &key)) {
        return;
    }
    if (term_inner_take(cache, &e->flow, flow)) {
        e->key = key;
        e->rss_hash = dp_packet_get_rss_hash(packet);
    }
}

/* Clears in 'key' the fields of 'wild', IPTUN_TERM_OUTER_WILD_SPORT and
 * IPTUN_TERM_OUTER_WILD_* flags (the fields that tell one remote endpoint
 * from another, or the fou source port), and marks them as cleared, so that
 * a packet whose fields are 0 never finds a flow that matches them through
 * another packet's wildcarded key, or the reverse. */
static void
term_outer_wildcard(struct iptun_term_outer_key *key, uint64_t wild)
{
    if (wild & IPTUN_TERM_OUTER_WILD_SPORT) {
        struct udp_header udp = { .udp_src = OVS_BE16_MAX };
        uint32_t src_mask;

        memcpy(&src_mask, &udp, sizeof src_mask);
        key->w[2] &= ~(uint64_t) src_mask;
    }
    if (wild & IPTUN_TERM_OUTER_WILD_MAC) {
        static const uint8_t mac_src_head[8] = { [6] = 0xff, [7] = 0xff };
        uint64_t mask;

        memcpy(&mask, mac_src_head, sizeof mask);
        key->w[1] &= ~mask;
        key->w[2] &= UINT32_MAX;
    }
    if (wild & IPTUN_TERM_OUTER_WILD_HDR) {
        key->w[0] &= ~UINT64_C(0xffff);                   /* TOS, TTL. */
        if (key->w[0] & IPTUN_TERM_OUTER_IPV6) {
            key->w[3] = 0;                                /* Flow label. */
        }
    }
    if (wild & IPTUN_TERM_OUTER_WILD_ADDR) {
        if (key->w[0] & IPTUN_TERM_OUTER_IPV6) {
            key->w[4] = key->w[5] = 0;
        } else {
            ovs_be32 addrs[2] = { OVS_BE32_MAX, 0 };      /* src, dst */
            uint64_t mask;

            memcpy(&mask, addrs, sizeof mask);
            key->w[3] &= ~mask;
        }
    }
    key->w[0] |= wild;
}

/* Sets the wildcards that first-pass lookups try first to 'wild', and the
 * masks that apply them. */
static void
term_outer_set_wild(struct iptun_term_cache *cache, uint64_t wild)
{
    for (int ipv6 = 0; ipv6 < 2; ipv6++) {
        struct iptun_term_outer_key ones;

        memset(&ones, 0xff, sizeof ones);
        ones.w[0] &= ~(IPTUN_TERM_OUTER_IPV6 | wild);
        ones.w[0] |= ipv6 ? IPTUN_TERM_OUTER_IPV6 : 0;
        term_outer_wildcard(&ones, wild);
        memcpy(cache->outer_mask[ipv6], ones.w, sizeof ones.w);
        cache->outer_mask[ipv6][0] |= IPTUN_TERM_OUTER_IPV6;
        cache->outer_mask[ipv6][0] &= ~wild;
    }
    cache->outer_wild = wild;
}

/* The IPTUN_TERM_OUTER_* wildcards that a first-pass entry with key word
 * 'w0' (flags, protocol) may have for a flow with 'mask': those of the fields
 * that the flow does not match. */
static uint64_t
term_outer_flow_wild(const struct miniflow *mask, uint64_t w0)
{
    /* The two words that hold the source Ethernet address. */
    size_t mac_word = FLOW_U64_OFFSET(dl_src);
    uint64_t macs[2] = { miniflow_get(mask, mac_word),
                         miniflow_get(mask, mac_word + 1) };
    struct eth_addr mac_src;
    uint64_t wild = 0;

    BUILD_ASSERT_DECL(FLOW_U64_OFFREM(dl_src) + sizeof mac_src
                      <= sizeof macs);
    memcpy(&mac_src, (uint8_t *) macs + FLOW_U64_OFFREM(dl_src),
           sizeof mac_src);

    if (((w0 >> 16) & 0xff) == IPPROTO_UDP
        && !MINIFLOW_GET_BE16(mask, tp_src)) {
        wild |= IPTUN_TERM_OUTER_WILD_SPORT;
    }
    if (eth_addr_is_zero(mac_src)) {
        wild |= IPTUN_TERM_OUTER_WILD_MAC;
    }
    if (!MINIFLOW_GET_U8(mask, nw_tos) && !MINIFLOW_GET_U8(mask, nw_ttl)
        && (!(w0 & IPTUN_TERM_OUTER_IPV6)
            || !MINIFLOW_GET_BE32(mask, ipv6_label))) {
        wild |= IPTUN_TERM_OUTER_WILD_HDR;
    }
    if (w0 & IPTUN_TERM_OUTER_IPV6
        ? ovs_u128_is_zero(MINIFLOW_GET_U128(mask, ipv6_src))
        : !MINIFLOW_GET_BE32(mask, nw_src)) {
        wild |= IPTUN_TERM_OUTER_WILD_ADDR;
    }
    return wild;
}

/* Remembers that 'flow', found by the normal lookup, is the flow of
 * 'packet', if the cache can handle both: a first-pass packet of an ipip or
 * fou tunnel, or a packet that an ipip or fou port has just popped. */
void
iptun_term_cache_insert(struct iptun_term_cache *cache,
                        struct dp_packet *packet, struct dp_netdev_flow *flow)
{
    const struct pkt_metadata *md = &packet->md;
    struct iptun_term_outer_entry *e;
    struct iptun_term_outer_key key;
    uint64_t wild;

    if (!iptun_term_cache_active(cache)) {
        return;
    }
    if (flow_tnl_dst_is_set(&md->tunnel)) {
        if (!cache->payoff[IPTUN_TERM_SECOND_PASS].until
            && iptun_term_inner_candidate(cache, packet)) {
            if (iptun_term_inner_is_4in4(packet)) {
                term_inner_4in4_insert(cache, packet, flow);
            } else {
                term_inner_any6_insert(cache, packet, flow);
            }
        }
        return;
    }

    /* Only packets as they came from a port: the metadata that
     * pkt_metadata_init() gives, which the key does not hold. */
    if (cache->payoff[IPTUN_TERM_FIRST_PASS].until
        || md->recirc_id || md->dp_hash || md->skb_priority || md->pkt_mark
        || md->ct_state || !iptun_term_outer_candidate(cache, packet)
        || iptun_term_outer_parse(packet, md->in_port.odp_port, &key,
                                  iptun_term_outer_exact, 0) < 0
        || !iptun_term_flow_usable(flow)) {
        return;
    }
    wild = term_outer_flow_wild(&flow->cr.mask->mf, key.w[0]);
    if ((cache->outer_wild | wild) != cache->outer_wild) {
        term_outer_set_wild(cache, cache->outer_wild | wild);
    }
    if (wild && wild == iptun_term_outer_wild_for(cache->outer_wild,
                                                  (key.w[0] >> 16) & 0xff)) {
        /* The key that lookups try first.  Otherwise they would not try this
         * combination: the exact key, which they try next, is right for
         * every flow. */
        iptun_term_outer_parse(packet, md->in_port.odp_port, &key,
                               cache->outer_mask, cache->outer_wild);
    }

    e = &cache->outer[iptun_term_outer_hash(&key) & IPTUN_TERM_OUTER_MASK];
    if (e->flow == flow && iptun_term_outer_key_equal(&e->key, &key)) {
        return;
    }
    if (!ovs_refcount_try_ref_rcu(&flow->ref_cnt)) {
        return;
    }
    term_flow_release(&e->flow);
    e->key = key;
    e->flow = flow;
    COVERAGE_INC(iptun_term_insert);
}
