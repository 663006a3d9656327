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

#ifndef IPTUN_PORTS_H
#define IPTUN_PORTS_H 1

/* The ipip, fou and gue ports that the userspace datapath terminates.
 *
 * One registry for the process, fed by one tnl-ports hook
 * (iptun_ports_ref(), when tnl-ports starts or stops terminating a tunnel
 * port on the datapath) and read by:
 *
 *   - the tunnel termination cache (dpif-netdev-iptun-term.h), per packet,
 *     without locking: whether an ipip port exists, whether a UDP
 *     destination port is a fou or gue port's, whether a datapath port is
 *     one of these ports ('iptun_ports_map', published with relaxed atomics:
 *     a stale value only costs a lookup or skips the cache for a moment);
 *
 *   - tnl-ports and outer reassembly (iptun-reass.h), per rule or per
 *     fragment, under a mutex: which datapath port is which type, on which
 *     UDP port.
 *
 * Also the tunnel type as an enum, resolved once from the port's type
 * name, for the per-packet code. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "openvswitch/types.h"
#include "ovs-atomic.h"

enum iptun_type {
    IPTUN_IPIP,                 /* ipip: IPv4 or IPv6 in IP (4, 41). */
    IPTUN_FOU,                  /* fou: IPv4 or IPv6 in UDP. */
    IPTUN_GUE,                  /* gue: GUE in UDP. */
};

/* Stores in '*type' the type that 'name' ("ipip", "fou", "gue") names and
 * returns true, or returns false for any other name. */
bool iptun_type_from_name(const char *name, enum iptun_type *type);
const char *iptun_type_name(enum iptun_type);

/* Datapath port numbers the map covers (a multiple of 64): all that
 * dpif-netdev's choose_port() hands out, up to UINT16_MAX.  (Only the dummy
 * datapath of the tests numbers a port after the digits of its name, so
 * that a fou port, "fou_sys_5555", gets its UDP port's number there.) */
#define IPTUN_PORTS_MAX_ODP 65536

struct iptun_ports_map {
    atomic_bool any;            /* Any ipip, fou or gue port. */
    atomic_bool has_ipip;       /* An ipip port exists. */
    atomic_uint64_t udp_dst[65536 / 64];          /* fou's and gue's. */
    atomic_uint64_t odp[IPTUN_PORTS_MAX_ODP / 64];
};

/* tnl-ports: datapath port 'odp_port' of type 'type' (any type: others are
 * ignored) starts ('add') or stops terminating tunnels, on UDP port
 * 'tp_port' (fou, gue). */
void iptun_ports_ref(const char *type, odp_port_t odp_port, ovs_be16 tp_port,
                     bool add);

/* The lock-free map, for the PMD threads. */
const struct iptun_ports_map *iptun_ports_map(void);

/* Under the registry's mutex: true if 'odp_port' is an ipip port; true if
 * it is a fou or gue port on UDP port 'tp_port'. */
bool iptun_ports_is_ipip(odp_port_t odp_port);
bool iptun_ports_is_udp(odp_port_t odp_port, ovs_be16 tp_port);

/* A copy of the fou and gue ports, for the caller to free(). */
struct iptun_udp_port {
    odp_port_t odp_port;
    ovs_be16 tp_port;
};
size_t iptun_ports_udp_snapshot(struct iptun_udp_port **ports);

static inline bool
iptun_ports_map_bit(const atomic_uint64_t *map, uint32_t idx)
{
    uint64_t bits;

    atomic_read_relaxed(&map[idx / 64], &bits);
    return bits & (UINT64_C(1) << (idx % 64));
}

/* True if 'map' has any port. */
static inline bool
iptun_ports_any(const struct iptun_ports_map *map)
{
    bool any;

    atomic_read_relaxed(&map->any, &any);
    return any;
}

/* True if 'map' has an ipip port. */
static inline bool
iptun_ports_has_ipip(const struct iptun_ports_map *map)
{
    bool has_ipip;

    atomic_read_relaxed(&map->has_ipip, &has_ipip);
    return has_ipip;
}

/* True if UDP port 'port' (host order) is a fou or gue port's. */
static inline bool
iptun_ports_is_udp_dst(const struct iptun_ports_map *map, uint16_t port)
{
    return iptun_ports_map_bit(map->udp_dst, port);
}

/* True if datapath port 'port' is an ipip, fou or gue port. */
static inline bool
iptun_ports_is_odp(const struct iptun_ports_map *map, odp_port_t port)
{
    uint32_t p = (OVS_FORCE uint32_t) port;     /* odp_to_u32(). */

    return p < IPTUN_PORTS_MAX_ODP && iptun_ports_map_bit(map->odp, p);
}

#endif /* iptun-ports.h */
