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
#include "dp-packet.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "packets.h"

struct dp_netdev_flow;
struct smap;

#define IPTUN_TERM_CACHE_ENTRIES 1024   /* A power of 2. */

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

struct dp_netdev_flow *iptun_term_cache_lookup(struct iptun_term_cache *,
                                               struct dp_packet *,
                                               odp_port_t in_port);
void iptun_term_cache_insert(struct iptun_term_cache *, struct dp_packet *,
                             struct dp_netdev_flow *);

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

#endif /* dpif-netdev-iptun-term.h */
