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

#include "iptun-ports.h"

#include <string.h>

#include "flow.h"
#include "openvswitch/thread.h"
#include "util.h"

/* The registry: one entry per tunnel port that tnl-ports terminates. */
struct iptun_port_entry {
    odp_port_t odp_port;
    ovs_be16 tp_port;           /* fou, gue: the UDP port; ipip: 0. */
    enum iptun_type type;
};

static struct ovs_mutex ports_mutex = OVS_MUTEX_INITIALIZER;
static struct iptun_port_entry *entries OVS_GUARDED_BY(ports_mutex);
static size_t n_entries OVS_GUARDED_BY(ports_mutex);
static struct iptun_ports_map map;

static const char *const type_names[] = {
    [IPTUN_IPIP] = "ipip",
    [IPTUN_FOU] = "fou",
    [IPTUN_GUE] = "gue",
};

bool
iptun_type_from_name(const char *name, enum iptun_type *type)
{
    for (size_t i = 0; i < ARRAY_SIZE(type_names); i++) {
        if (!strcmp(name, type_names[i])) {
            *type = i;
            return true;
        }
    }
    return false;
}

const char *
iptun_type_name(enum iptun_type type)
{
    return type < ARRAY_SIZE(type_names) ? type_names[type] : "?";
}

const struct iptun_ports_map *
iptun_ports_map(void)
{
    return &map;
}

static void
map_set_bit(atomic_uint64_t *bitmap, uint32_t idx, bool on)
{
    uint64_t bit = UINT64_C(1) << (idx % 64);
    uint64_t bits;

    atomic_read_relaxed(&bitmap[idx / 64], &bits);
    atomic_store_relaxed(&bitmap[idx / 64], on ? bits | bit : bits & ~bit);
}

/* Publishes what the map says of 'e''s ports after a change. */
static void
map_update(const struct iptun_port_entry *e)
    OVS_REQUIRES(ports_mutex)
{
    uint32_t odp = odp_to_u32(e->odp_port);
    bool odp_used = false, udp_used = false, has_ipip = false;

    for (size_t i = 0; i < n_entries; i++) {
        odp_used |= entries[i].odp_port == e->odp_port;
        has_ipip |= entries[i].type == IPTUN_IPIP;
        udp_used |= (entries[i].type != IPTUN_IPIP
                     && entries[i].tp_port == e->tp_port);
    }
    if (odp < IPTUN_PORTS_MAX_ODP) {
        map_set_bit(map.odp, odp, odp_used);
    }
    if (e->type != IPTUN_IPIP) {
        map_set_bit(map.udp_dst, ntohs(e->tp_port), udp_used);
    }
    atomic_store_relaxed(&map.has_ipip, has_ipip);
    atomic_store_relaxed(&map.any, n_entries > 0);
}

void
iptun_ports_ref(const char *type_name, odp_port_t odp_port, ovs_be16 tp_port,
                bool add)
{
    struct iptun_port_entry e;

    if (!iptun_type_from_name(type_name, &e.type)) {
        return;
    }
    e.odp_port = odp_port;
    e.tp_port = e.type == IPTUN_IPIP ? 0 : tp_port;

    ovs_mutex_lock(&ports_mutex);
    if (add) {
        entries = xrealloc(entries, (n_entries + 1) * sizeof *entries);
        entries[n_entries++] = e;
    } else {
        for (size_t i = 0; i < n_entries; i++) {
            if (entries[i].odp_port == e.odp_port
                && entries[i].tp_port == e.tp_port
                && entries[i].type == e.type) {
                entries[i] = entries[--n_entries];
                break;
            }
        }
    }
    map_update(&e);
    ovs_mutex_unlock(&ports_mutex);
}

bool
iptun_ports_is_ipip(odp_port_t odp_port)
{
    bool found = false;

    ovs_mutex_lock(&ports_mutex);
    for (size_t i = 0; i < n_entries && !found; i++) {
        found = (entries[i].odp_port == odp_port
                 && entries[i].type == IPTUN_IPIP);
    }
    ovs_mutex_unlock(&ports_mutex);
    return found;
}

bool
iptun_ports_is_udp(odp_port_t odp_port, ovs_be16 tp_port)
{
    bool found = false;

    ovs_mutex_lock(&ports_mutex);
    for (size_t i = 0; i < n_entries && !found; i++) {
        found = (entries[i].odp_port == odp_port
                 && entries[i].tp_port == tp_port
                 && entries[i].type != IPTUN_IPIP);
    }
    ovs_mutex_unlock(&ports_mutex);
    return found;
}

size_t
iptun_ports_udp_snapshot(struct iptun_udp_port **ports)
{
    size_t n = 0;

    ovs_mutex_lock(&ports_mutex);
    *ports = xmalloc((n_entries ? n_entries : 1) * sizeof **ports);
    for (size_t i = 0; i < n_entries; i++) {
        if (entries[i].type != IPTUN_IPIP) {
            (*ports)[n++] = (struct iptun_udp_port) { entries[i].odp_port,
                                                      entries[i].tp_port };
        }
    }
    ovs_mutex_unlock(&ports_mutex);
    return n;
}
