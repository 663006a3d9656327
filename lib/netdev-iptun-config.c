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

/* Option checks for the ovs-iptun tunnel types, on top of the generic ones in
 * set_tunnel_config() (lib/netdev-vport.c), and the UDP port check that keeps
 * fou and the other UDP tunnel types off each other's ports. */

#include <config.h>

#include "netdev-native-iptun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netdev.h"
#include "netdev-provider.h"
#include "netdev-vport.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "smap.h"

bool
netdev_iptun_is_iptun_type(const char *type)
{
    return !strcmp(type, "ipip") || !strcmp(type, "fou");
}

/* An IPv4 tunnel endpoint option is an IPv4 address, "flow" or absent: the
 * generic parser stores IPv4 addresses as v4-mapped IPv6 ones. */
static bool
endpoint_is_ipv6(const struct in6_addr *addr)
{
    return ipv6_addr_is_set(addr) && !IN6_IS_ADDR_V4MAPPED(addr);
}

/* Parses 'value' as a decimal integer from 'min' to 'max' into '*n'.
 * Returns false if it is not one. */
static bool
parse_int_range(const char *value, long int min, long int max, long int *n)
{
    char *end;

    *n = strtol(value, &end, 10);
    return end != value && !*end && *n >= min && *n <= max;
}

static int
check_iptun_options(const char *name, const char *type,
                    const struct smap *args,
                    const struct netdev_tunnel_config *tnl_cfg,
                    struct ds *errors)
{
    static const char *const key_options[] = { "key", "in_key", "out_key" };
    const char *ttl, *dst_port;
    long int n;
    int err = 0;

    for (size_t i = 0; i < ARRAY_SIZE(key_options); i++) {
        if (smap_get(args, key_options[i])) {
            ds_put_format(errors, "%s: %s tunnels have no key field on the "
                          "wire, '%s' is not supported\n",
                          name, type, key_options[i]);
            err = EINVAL;
        }
    }

    if (endpoint_is_ipv6(&tnl_cfg->ipv6_dst)) {
        ds_put_format(errors, "%s: %s tunnels run over IPv4, 'remote_ip' "
                      "must be an IPv4 address or 'flow'\n", name, type);
        err = EINVAL;
    }
    if (endpoint_is_ipv6(&tnl_cfg->ipv6_src)) {
        ds_put_format(errors, "%s: %s tunnels run over IPv4, 'local_ip' "
                      "must be an IPv4 address or 'flow'\n", name, type);
        err = EINVAL;
    }

    ttl = smap_get(args, "ttl");
    if (ttl && strcmp(ttl, "inherit") && !parse_int_range(ttl, 1, 255, &n)) {
        ds_put_format(errors, "%s: invalid 'ttl' %s (expected 1 to 255 "
                      "or 'inherit')\n", name, ttl);
        err = EINVAL;
    }

    if (!strcmp(type, "fou")) {
        /* Foo-over-UDP has no assigned port, and Linux no default. */
        dst_port = smap_get(args, "dst_port");
        if (!dst_port) {
            ds_put_format(errors, "%s: fou tunnels need 'dst_port' (the UDP "
                          "port the peer's fou receives on)\n", name);
            err = EINVAL;
        } else if (!parse_int_range(dst_port, 1, 65535, &n)) {
            ds_put_format(errors, "%s: invalid 'dst_port' %s (expected 1 to "
                          "65535)\n", name, dst_port);
            err = EINVAL;
        }
    }

    return err;
}

static bool
is_udp_tunnel_type(const char *type)
{
    static const char *const udp_types[] = {
        "fou", "vxlan", "geneve", "gtpu", "lisp", "bareudp",
    };

    for (size_t i = 0; i < ARRAY_SIZE(udp_types); i++) {
        if (!strcmp(type, udp_types[i])) {
            return true;
        }
    }
    return false;
}

/* tnl-ports delivers a UDP port's packets to the first tunnel type that
 * listened on it, so a fou port and a port of another UDP tunnel type on the
 * same UDP port would silently shadow one another.  Refuses 'dev' (of 'type'
 * on UDP port 'dst_port') if a port of another UDP tunnel type already uses
 * that UDP port and one of the two is fou. */
static int
check_udp_port_clash(const struct netdev *dev, const char *type,
                     ovs_be16 dst_port, struct ds *errors)
{
    struct netdev **vports;
    size_t n_vports;
    int err = 0;

    if (!is_udp_tunnel_type(type)) {
        return 0;
    }

    vports = netdev_get_vports(&n_vports);
    for (size_t i = 0; i < n_vports; i++) {
        const struct netdev *other = vports[i];
        const char *other_type = netdev_get_type(other);
        const char *dpif_port;
        const struct netdev_tunnel_config *cfg;

        if (err || other == dev || !strcmp(other_type, type)
            || (strcmp(type, "fou") && strcmp(other_type, "fou"))
            || !is_udp_tunnel_type(other_type)) {
            continue;
        }
        /* Skip the datapath-level netdevs ("vxlan_sys_4789", ...): they
         * mirror the ports the user configured. */
        dpif_port = netdev_vport_class_get_dpif_port(other->netdev_class);
        if (dpif_port && !strncmp(netdev_get_name(other), dpif_port,
                                  strlen(dpif_port))) {
            continue;
        }
        cfg = netdev_get_tunnel_config(other);
        if (cfg && cfg->dst_port == dst_port) {
            ds_put_format(errors, "%s: UDP port %"PRIu16" is already used by "
                          "%s port %s\n", netdev_get_name(dev),
                          ntohs(dst_port), other_type,
                          netdev_get_name(other));
            err = EEXIST;
        }
    }
    for (size_t i = 0; i < n_vports; i++) {
        netdev_close(vports[i]);
    }
    free(vports);

    return err;
}

/* Checks the configuration 'tnl_cfg', parsed from 'args', of tunnel port
 * 'dev'.  Returns 0 if it is valid, otherwise appends the reasons to
 * 'errors' (one line each) and returns a positive errno value. */
int
netdev_iptun_check_config(const struct netdev *dev, const struct smap *args,
                          const struct netdev_tunnel_config *tnl_cfg,
                          struct ds *errors)
{
    const char *type = netdev_get_type(dev);
    int err = 0;

    if (netdev_iptun_is_iptun_type(type)) {
        err = check_iptun_options(netdev_get_name(dev), type, args, tnl_cfg,
                                  errors);
    }
    if (!err && tnl_cfg->dst_port) {
        err = check_udp_port_clash(dev, type, tnl_cfg->dst_port, errors);
    }
    return err;
}
