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
 * A packet that an ipip or fou port decapsulates crosses the datapath twice:
 * the first pass only finds the underlay bridge's flow whose single action is
 * tnl_pop, at the price of a full miniflow_extract(), a hash and an
 * exact-match cache lookup.  This per-PMD cache maps the outer header fields
 * that such a flow can match (input port, Ethernet addresses, IPv4 addresses,
 * protocol, TOS and TTL, fou's UDP destination port; the UDP source port only
 * when the flow matches it) straight to that flow.  The flow itself still
 * decides: the cache holds a reference to the datapath flow that the normal
 * lookup found, is used only while that flow is alive and its actions are a
 * single tnl_pop, and a hit updates the flow's statistics like any other
 * hit.  Only unfragmented, option-less IPv4 packets whose lengths
 * miniflow_extract() would accept are cached; everything else takes the
 * normal path.
 *
 * Hits are counted as exact-match cache hits in dpif-netdev/pmd-stats-show
 * and in the coverage counter "iptun_term_hit".  other_config:iptun-term-cache
 * (default true) turns the cache off. */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "dp-packet.h"
#include "dpif-netdev-private-flow.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "packets.h"

struct smap;

#define IPTUN_TERM_CACHE_ENTRIES 1024   /* A power of 2. */
#define IPTUN_TERM_CACHE_MASK (IPTUN_TERM_CACHE_ENTRIES - 1)
#define IPTUN_TERM_KEY_WILDCARDED (UINT64_C(1) << 24)   /* In key->w[0]. */

struct iptun_term_key {
    uint64_t w[4];
};

struct iptun_term_entry {
    struct iptun_term_key key;
    struct dp_netdev_flow *flow;        /* Holds a reference, or NULL. */
};

struct iptun_term_cache {
    struct iptun_term_entry entries[IPTUN_TERM_CACHE_ENTRIES];
    uint32_t sweep_idx;
};

void iptun_term_cache_init(struct iptun_term_cache *);
void iptun_term_cache_uninit(struct iptun_term_cache *);
void iptun_term_cache_slow_sweep(struct iptun_term_cache *);

void iptun_term_cache_insert(struct iptun_term_cache *, struct dp_packet *,
                             struct dp_netdev_flow *);
void iptun_term_count_hits(unsigned int n);

void iptun_term_set_config(const struct smap *other_config);
void iptun_term_port_ref(const char *type, ovs_be16 tp_port, bool add);

/* Which outer packets are worth a cache lookup: IPv4 protocol 4 while an
 * ipip port exists, UDP to a fou port's destination port.  Read by the PMD
 * threads without locking; a stale value only costs a lookup or skips the
 * cache for a moment. */
extern atomic_bool iptun_term_ipip_on;
extern atomic_uint64_t iptun_term_udp_ports[65536 / 64];

static inline bool
iptun_term_candidate(const struct dp_packet *packet)
{
    const struct eth_header *eth = dp_packet_data(packet);
    const struct ip_header *ip = (const struct ip_header *) (eth + 1);
    uint32_t size = dp_packet_size(packet);

    if (size < ETH_HEADER_LEN + IP_HEADER_LEN
        || eth->eth_type != htons(ETH_TYPE_IP)) {
        return false;
    }
    if (ip->ip_proto == IPPROTO_IPIP) {
        bool on;

        atomic_read_relaxed(&iptun_term_ipip_on, &on);
        return on;
    }
    if (ip->ip_proto == IPPROTO_UDP
        && size >= ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN) {
        const struct udp_header *udp = (const struct udp_header *) (ip + 1);
        uint16_t port = ntohs(udp->udp_dst);
        uint64_t bits;

        atomic_read_relaxed(&iptun_term_udp_ports[port / 64], &bits);
        return bits & (UINT64_C(1) << (port % 64));
    }
    return false;
}

/* The outer headers as miniflow_extract() would see them.  Fills 'key'
 * (with the UDP source port, which the caller clears when the flow does not
 * match it) and returns the Ethernet padding, or returns -1 if the packet is
 * not one the cache handles: not Ethernet + IPv4 without options, a
 * fragment, lengths that miniflow_extract() would not accept in full, or not
 * ipip/fou. */
static inline int
iptun_term_parse(const struct dp_packet *packet, odp_port_t in_port,
                 struct iptun_term_key *key)
{
    const uint8_t *data = dp_packet_data(packet);
    const struct ip_header *ip = (const void *) (data + ETH_HEADER_LEN);
    uint32_t l3_size = dp_packet_size(packet) - ETH_HEADER_LEN;
    uint16_t tot_len = ntohs(ip->ip_tot_len);
    uint32_t ports = 0;
    uint32_t macs_tail;

    /* iptun_term_candidate() checked the size, the Ethernet type and the
     * protocol. */
    if (packet->packet_type != htonl(PT_ETH)
        || ip->ip_ihl_ver != IP_IHL_VER(5, IP_VERSION)
        || IP_IS_FRAGMENT(ip->ip_frag_off)
        || tot_len > l3_size || l3_size - tot_len > UINT16_MAX
        || tot_len < IP_HEADER_LEN) {
        return -1;
    }
    if (ip->ip_proto == IPPROTO_UDP) {
        if (tot_len < IP_HEADER_LEN + UDP_HEADER_LEN) {
            return -1;
        }
        memcpy(&ports, ip + 1, sizeof ports);
    }

    key->w[0] = ((uint64_t) odp_to_u32(in_port) << 32)
                | ((uint32_t) ip->ip_proto << 16)
                | ((uint32_t) ip->ip_tos << 8) | ip->ip_ttl;
    memcpy(&key->w[1], data, sizeof key->w[1]);          /* dst, src[0:2] */
    memcpy(&macs_tail, data + 8, sizeof macs_tail);      /* src[2:6] */
    key->w[2] = ((uint64_t) macs_tail << 32) | ports;
    memcpy(&key->w[3], &ip->ip_src, sizeof key->w[3]);   /* src, dst */
    return l3_size - tot_len;
}

/* Clears the UDP source port in 'key' and marks it as cleared, so that a
 * packet from source port 0 never finds a flow that matches source port 0
 * through another packet's wildcarded key, or the reverse. */
static inline void
iptun_term_key_wildcard_udp_src(struct iptun_term_key *key)
{
    struct udp_header udp = { .udp_src = OVS_BE16_MAX };
    uint32_t src_mask;

    memcpy(&src_mask, &udp, sizeof src_mask);
    key->w[2] &= ~(uint64_t) src_mask;
    key->w[0] |= IPTUN_TERM_KEY_WILDCARDED;
}

static inline uint32_t
iptun_term_hash(const struct iptun_term_key *key)
{
    /* One multiplication: the MAC addresses (w[1] and the top of w[2]) of
     * the packets of one tunnel rarely differ when the rest does not. */
    uint64_t x = key->w[0] ^ key->w[2] ^ key->w[3];

    return (x * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
}

static inline bool
iptun_term_key_equal(const struct iptun_term_key *a,
                     const struct iptun_term_key *b)
{
    return !((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1])
             | (a->w[2] ^ b->w[2]) | (a->w[3] ^ b->w[3]));
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
    return actions->size == NL_A_U32_SIZE
           && nl_attr_type(actions->actions) == OVS_ACTION_ATTR_TUNNEL_POP;
}

static inline void
iptun_term_set_offsets(struct dp_packet *packet, int l2_pad)
{
    dp_packet_reset_offsets(packet);
    dp_packet_set_l2_pad_size(packet, l2_pad);
    packet->l3_ofs = ETH_HEADER_LEN;
    packet->l4_ofs = ETH_HEADER_LEN + IP_HEADER_LEN;
}

/* Returns the flow for 'packet', a first-pass packet received on 'in_port'
 * for which iptun_term_candidate() is true, and sets the packet's layer
 * offsets as miniflow_extract() would, or returns NULL (offsets untouched)
 * if the cache has nothing for it. */
static inline struct dp_netdev_flow *
iptun_term_cache_lookup(struct iptun_term_cache *cache,
                        struct dp_packet *packet, odp_port_t in_port)
{
    struct iptun_term_entry *e;
    struct iptun_term_key key;
    int l2_pad;

    l2_pad = iptun_term_parse(packet, in_port, &key);
    if (l2_pad < 0) {
        return NULL;
    }

    /* A fou flow that matches the UDP source port is cached with it, others
     * (the usual case) without: try the wildcarded key first. */
    if (((key.w[0] >> 16) & 0xff) == IPPROTO_UDP) {
        struct iptun_term_key wild = key;

        iptun_term_key_wildcard_udp_src(&wild);
        e = &cache->entries[iptun_term_hash(&wild) & IPTUN_TERM_CACHE_MASK];
        if (e->flow && iptun_term_key_equal(&e->key, &wild)
            && OVS_LIKELY(iptun_term_flow_usable(e->flow))) {
            goto found;
        }
    }
    e = &cache->entries[iptun_term_hash(&key) & IPTUN_TERM_CACHE_MASK];
    if (!e->flow || !iptun_term_key_equal(&e->key, &key)
        || OVS_UNLIKELY(!iptun_term_flow_usable(e->flow))) {
        return NULL;
    }

found:
    iptun_term_set_offsets(packet, l2_pad);
    return e->flow;
}

#endif /* dpif-netdev-iptun-term.h */
