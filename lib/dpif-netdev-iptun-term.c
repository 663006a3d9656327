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

#include "dpif-netdev-iptun-term.h"

#include <string.h>

#include "coverage.h"
#include "dpif-netdev-private-flow.h"
#include "flow.h"
#include "hash.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "ovs-rcu.h"
#include "smap.h"

VLOG_DEFINE_THIS_MODULE(dpif_netdev_iptun_term);

COVERAGE_DEFINE(iptun_term_hit);
COVERAGE_DEFINE(iptun_term_insert);

atomic_bool iptun_term_ipip_on;
atomic_uint64_t iptun_term_udp_ports[65536 / 64];

/* Control side: how many ipip ports and fou ports per UDP destination port
 * exist, and whether the cache is enabled. */
static struct ovs_mutex term_mutex = OVS_MUTEX_INITIALIZER;
static bool term_enabled OVS_GUARDED_BY(term_mutex) = true;
static unsigned int term_ipip_ports OVS_GUARDED_BY(term_mutex);
static unsigned int term_udp_refs[65536] OVS_GUARDED_BY(term_mutex);

#define TERM_MASK (IPTUN_TERM_CACHE_ENTRIES - 1)
#define TERM_KEY_WILDCARDED (UINT64_C(1) << 24)   /* In key->w[0]. */

/* Publishes the candidate set for UDP port 'port' (host order). */
static void
term_publish_udp(uint16_t port)
    OVS_REQUIRES(term_mutex)
{
    uint64_t bit = UINT64_C(1) << (port % 64);
    uint64_t bits;

    atomic_read_relaxed(&iptun_term_udp_ports[port / 64], &bits);
    bits = term_enabled && term_udp_refs[port] ? bits | bit : bits & ~bit;
    atomic_store_relaxed(&iptun_term_udp_ports[port / 64], bits);
}

static void
term_publish_all(void)
    OVS_REQUIRES(term_mutex)
{
    atomic_store_relaxed(&iptun_term_ipip_on,
                         term_enabled && term_ipip_ports > 0);
    for (int port = 0; port < 65536; port++) {
        term_publish_udp(port);
    }
}

/* Called by tnl-ports when the userspace datapath starts ('add') or stops
 * terminating tunnel port type 'type' on UDP port 'tp_port'. */
void
iptun_term_port_ref(const char *type, ovs_be16 tp_port, bool add)
{
    ovs_mutex_lock(&term_mutex);
    if (!strcmp(type, "ipip")) {
        if (add) {
            term_ipip_ports++;
        } else if (term_ipip_ports) {
            term_ipip_ports--;
        }
        atomic_store_relaxed(&iptun_term_ipip_on,
                             term_enabled && term_ipip_ports > 0);
    } else if (!strcmp(type, "fou")) {
        uint16_t port = ntohs(tp_port);

        if (add) {
            term_udp_refs[port]++;
        } else if (term_udp_refs[port]) {
            term_udp_refs[port]--;
        }
        term_publish_udp(port);
    }
    ovs_mutex_unlock(&term_mutex);
}

void
iptun_term_set_config(const struct smap *other_config)
{
    bool enable = smap_get_bool(other_config, "iptun-term-cache", true);

    ovs_mutex_lock(&term_mutex);
    if (enable != term_enabled) {
        term_enabled = enable;
        term_publish_all();
        VLOG_INFO("ipip/fou tunnel termination cache %s",
                  enable ? "enabled" : "disabled");
    }
    ovs_mutex_unlock(&term_mutex);
}

void
iptun_term_cache_init(struct iptun_term_cache *cache)
{
    memset(cache, 0, sizeof *cache);
}

static void
term_entry_clear(struct iptun_term_entry *e)
{
    if (e->flow) {
        dp_netdev_flow_unref(e->flow);
        e->flow = NULL;
    }
}

void
iptun_term_cache_uninit(struct iptun_term_cache *cache)
{
    for (int i = 0; i < IPTUN_TERM_CACHE_ENTRIES; i++) {
        term_entry_clear(&cache->entries[i]);
    }
}

/* Releases the reference of one entry whose flow is dead, so that deleted
 * flows are freed even if their slot is never reused. */
void
iptun_term_cache_slow_sweep(struct iptun_term_cache *cache)
{
    struct iptun_term_entry *e = &cache->entries[cache->sweep_idx];

    if (e->flow && e->flow->dead) {
        term_entry_clear(e);
    }
    cache->sweep_idx = (cache->sweep_idx + 1) & TERM_MASK;
}

/* The outer headers as miniflow_extract() would see them.  Fills 'key'
 * (with the UDP source port, which the caller clears when the flow does not
 * match it) and returns the Ethernet padding, or returns -1 if the packet is
 * not one the cache handles: not Ethernet + IPv4 without options, a
 * fragment, lengths that miniflow_extract() would not accept in full, or not
 * ipip/fou. */
static int
term_parse(const struct dp_packet *packet, odp_port_t in_port,
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
static void
term_key_wildcard_udp_src(struct iptun_term_key *key)
{
    struct udp_header udp = { .udp_src = OVS_BE16_MAX };
    uint32_t src_mask;

    memcpy(&src_mask, &udp, sizeof src_mask);
    key->w[2] &= ~(uint64_t) src_mask;
    key->w[0] |= TERM_KEY_WILDCARDED;
}

static uint32_t
term_hash(const struct iptun_term_key *key)
{
    return hash_uint64_basis(key->w[0] ^ key->w[3], key->w[1] ^ key->w[2]);
}

static bool
term_key_equal(const struct iptun_term_key *a, const struct iptun_term_key *b)
{
    return !((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1])
             | (a->w[2] ^ b->w[2]) | (a->w[3] ^ b->w[3]));
}

/* True if 'flow' is alive and its actions are one tnl_pop: the only flows
 * for which skipping miniflow_extract() and the packet hash changes
 * nothing (the pop clears the hash anyway). */
static bool
term_flow_usable(const struct dp_netdev_flow *flow)
{
    const struct dp_netdev_actions *actions;

    if (flow->dead) {
        return false;
    }
    actions = ovsrcu_get(struct dp_netdev_actions *, &flow->actions);
    return actions->size == NL_A_U32_SIZE
           && nl_attr_type(actions->actions) == OVS_ACTION_ATTR_TUNNEL_POP;
}

static void
term_set_offsets(struct dp_packet *packet, int l2_pad)
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
struct dp_netdev_flow *
iptun_term_cache_lookup(struct iptun_term_cache *cache,
                        struct dp_packet *packet, odp_port_t in_port)
{
    struct iptun_term_entry *e;
    struct iptun_term_key key;
    int l2_pad;

    l2_pad = term_parse(packet, in_port, &key);
    if (l2_pad < 0) {
        return NULL;
    }

    /* A fou flow that matches the UDP source port is cached with it, others
     * without: try the exact key first, then the wildcarded one. */
    e = &cache->entries[term_hash(&key) & TERM_MASK];
    if (!e->flow || !term_key_equal(&e->key, &key)) {
        if (((key.w[0] >> 16) & 0xff) != IPPROTO_UDP) {
            return NULL;
        }
        term_key_wildcard_udp_src(&key);
        e = &cache->entries[term_hash(&key) & TERM_MASK];
        if (!e->flow || !term_key_equal(&e->key, &key)) {
            return NULL;
        }
    }
    if (OVS_UNLIKELY(!term_flow_usable(e->flow))) {
        return NULL;
    }

    term_set_offsets(packet, l2_pad);
    COVERAGE_INC(iptun_term_hit);
    return e->flow;
}

/* Remembers that 'flow', found by the normal lookup, is the flow of
 * 'packet', a first-pass packet, if the cache can handle both. */
void
iptun_term_cache_insert(struct iptun_term_cache *cache,
                        struct dp_packet *packet, struct dp_netdev_flow *flow)
{
    const struct pkt_metadata *md = &packet->md;
    struct iptun_term_entry *e;
    struct iptun_term_key key;

    /* Only packets as they came from a port: the metadata that
     * pkt_metadata_init() gives, which the key does not hold. */
    if (md->recirc_id || md->dp_hash || md->skb_priority || md->pkt_mark
        || md->ct_state || flow_tnl_dst_is_set(&md->tunnel)
        || !iptun_term_candidate(packet)
        || term_parse(packet, md->in_port.odp_port, &key) < 0
        || !term_flow_usable(flow)) {
        return;
    }
    if (((key.w[0] >> 16) & 0xff) == IPPROTO_UDP
        && !MINIFLOW_GET_BE16(&flow->cr.mask->mf, tp_src)) {
        term_key_wildcard_udp_src(&key);
    }

    e = &cache->entries[term_hash(&key) & TERM_MASK];
    if (e->flow == flow && term_key_equal(&e->key, &key)) {
        return;
    }
    if (!ovs_refcount_try_ref_rcu(&flow->ref_cnt)) {
        return;
    }
    term_entry_clear(e);
    e->key = key;
    e->flow = flow;
    COVERAGE_INC(iptun_term_insert);
}
