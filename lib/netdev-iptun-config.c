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
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "netdev.h"
#include "netdev-provider.h"
#include "netdev-vport.h"
#include "netdev-vport-private.h"
#include "iptun-ports.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"

VLOG_DEFINE_THIS_MODULE(iptun_config);

bool
netdev_iptun_is_iptun_type(const char *type)
{
    enum iptun_type t;

    return iptun_type_from_name(type, &t);
}

bool
netdev_iptun_is_udp_type(const char *type)
{
    enum iptun_type t;

    return iptun_type_from_name(type, &t) && t != IPTUN_IPIP;
}

/* Parses 'value' as an integer in 'base' (0: C syntax, as "0x28") from 'min'
 * to 'max' into '*n'.  Returns false if it is not one. */
static bool
parse_int_range(const char *value, int base, long int min, long int max,
                long int *n)
{
    char *end;

    *n = strtol(value, &end, base);
    return end != value && !*end && *n >= min && *n <= max;
}

/* Whether 'key' is an option of tunnel ports of 'type' (the options that
 * check_iptun_options() refuses with reasons of their own included). */
static bool
is_iptun_option(const char *type, const char *key)
{
    static const char *const options[] = {
        "remote_ip", "local_ip", "tos", "ttl", "df_default",
        "egress_pkt_mark", "packet_type", "key", "in_key", "out_key",
        "ipproto",
        /* Read by ovs-monitor-ipsec, ignored by ovs-vswitchd. */
        "remote_cert", "remote_name", "psk",
    };
    static const char *const udp_options[] = { "dst_port", "csum" };

    for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
        if (!strcmp(key, options[i])) {
            return true;
        }
    }
    if (netdev_iptun_is_udp_type(type)) {
        for (size_t i = 0; i < ARRAY_SIZE(udp_options); i++) {
            if (!strcmp(key, udp_options[i])) {
                return true;
            }
        }
    }
    return !strncmp(key, "ipsec_", strlen("ipsec_"));
}

static int
check_iptun_options(const char *name, const char *type,
                    const struct smap *args,
                    struct netdev_tunnel_config *tnl_cfg,
                    struct ds *errors)
{
    static const char *const key_options[] = { "key", "in_key", "out_key" };
    static const char *const bool_options[] = { "csum", "df_default" };
    const char *ttl, *tos, *dst_port, *ipproto, *mark;
    struct smap_node *node;
    long int n;
    int err = 0;

    /* set_tunnel_config() only warns about an option it does not know, and
     * ignores some that these types do not have: a typo ("remote_ipp")
     * would go unnoticed. */
    SMAP_FOR_EACH (node, args) {
        if (!is_iptun_option(type, node->key)) {
            char *line = xasprintf("%s: unknown %s argument '%s'\n", name,
                                   type, node->key);

            if (!strstr(ds_cstr(errors), line)) {
                ds_put_cstr(errors, line);
            }
            free(line);
            err = EINVAL;
        }
    }

    for (size_t i = 0; i < ARRAY_SIZE(key_options); i++) {
        if (smap_get(args, key_options[i])) {
            ds_put_format(errors, "%s: %s tunnels have no key field on the "
                          "wire, '%s' is not supported\n",
                          name, type, key_options[i]);
            err = EINVAL;
        }
    }

    /* Both types run over IPv4 and IPv6 underlays (the generic parser
     * refuses endpoints of two families). */

    /* A fou UDP port carries one inner protocol, as Linux binds each of its
     * fou ports to one ("ip fou add port N ipproto 4|41"); ipip's inner
     * packet chooses its protocol. */
    ipproto = smap_get(args, "ipproto");
    if (ipproto && strcmp(type, "fou")) {
        ds_put_format(errors, "%s: 'ipproto' is a fou option (%s %s port "
                      "sends IPv4 as protocol 4 and IPv6 as 41)\n", name,
                      strcmp(type, "ipip") ? "a" : "an", type);
        err = EINVAL;
    } else if (ipproto && strcmp(ipproto, "4") && strcmp(ipproto, "41")) {
        ds_put_format(errors, "%s: invalid 'ipproto' %s (expected 4 for "
                      "IPv4 or 41 for IPv6 inside)\n", name, ipproto);
        err = EINVAL;
    } else if (!strcmp(type, "fou")) {
        tnl_cfg->fou_ipproto = (ipproto && !strcmp(ipproto, "41")
                                ? IPPROTO_IPV6 : IPPROTO_IPIP);
    }

    /* ...and reads the mark with strtoul(), as 0 if it is not a number. */
    mark = smap_get(args, "egress_pkt_mark");
    if (mark && !parse_int_range(mark, 10, 0, UINT32_MAX, &n)) {
        ds_put_format(errors, "%s: invalid 'egress_pkt_mark' %s (expected "
                      "0 to 4294967295)\n", name, mark);
        err = EINVAL;
    }

    ttl = smap_get(args, "ttl");
    if (ttl && strcmp(ttl, "inherit")
        && !parse_int_range(ttl, 10, 1, 255, &n)) {
        ds_put_format(errors, "%s: invalid 'ttl' %s (expected 1 to 255 "
                      "or 'inherit')\n", name, ttl);
        err = EINVAL;
    }

    /* set_tunnel_config() only warns about a bad 'tos' and runs with 0. */
    tos = smap_get(args, "tos");
    if (tos && strcmp(tos, "inherit")
        && (!parse_int_range(tos, 0, 0, 255, &n) || n & ~IP_DSCP_MASK)) {
        ds_put_format(errors, "%s: invalid 'tos' %s (expected a DSCP "
                      "value shifted left by 2, 0 to 252 with the two low "
                      "bits clear, or 'inherit')\n", name, tos);
        err = EINVAL;
    }

    /* ...and ignores any value of these but "true" or "false". */
    for (size_t i = 0; i < ARRAY_SIZE(bool_options); i++) {
        const char *value = smap_get(args, bool_options[i]);

        if (value && strcmp(value, "true") && strcmp(value, "false")) {
            ds_put_format(errors, "%s: invalid '%s' %s (expected 'true' or "
                          "'false')\n", name, bool_options[i], value);
            err = EINVAL;
        }
    }

    if (netdev_iptun_is_udp_type(type)) {
        /* Foo-over-UDP has no assigned port, and Linux no default for fou
         * or gue (the GUE draft's 6080 is not assigned). */
        dst_port = smap_get(args, "dst_port");
        if (!dst_port) {
            ds_put_format(errors, "%s: %s tunnels need 'dst_port' (the UDP "
                          "port the peer's %s receives on)\n", name, type,
                          type);
            err = EINVAL;
        } else if (!parse_int_range(dst_port, 10, 1, 65535, &n)) {
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
        "fou", "gue", "vxlan", "geneve", "gtpu", "lisp", "bareudp",
    };

    for (size_t i = 0; i < ARRAY_SIZE(udp_types); i++) {
        if (!strcmp(type, udp_types[i])) {
            return true;
        }
    }
    return false;
}

/* tnl-ports delivers a UDP port's packets to the first tunnel type that
 * listened on it, so a fou (or gue) port and a port of another UDP tunnel
 * type on the same UDP port would silently shadow one another.  Returns
 * EEXIST (and says why in 'errors') if 'dev' (of 'type', configured as
 * 'tnl_cfg') and 'other' (of 'other_type', configured as 'other_cfg'), both
 * UDP tunnels on the same UDP port, are of different types and one of them
 * is fou or gue. */
static int
check_udp_port_clash(const struct netdev *dev, const char *type,
                     const struct netdev_tunnel_config *tnl_cfg,
                     const struct netdev *other, const char *other_type,
                     const struct netdev_tunnel_config *other_cfg,
                     struct ds *errors)
{
    if (!tnl_cfg->dst_port || other_cfg->dst_port != tnl_cfg->dst_port
        || !strcmp(other_type, type)
        || (!netdev_iptun_is_udp_type(type)
            && !netdev_iptun_is_udp_type(other_type))
        || !is_udp_tunnel_type(type) || !is_udp_tunnel_type(other_type)) {
        return 0;
    }
    ds_put_format(errors, "%s: UDP port %"PRIu16" is already used by %s port "
                  "%s\n", netdev_get_name(dev), ntohs(tnl_cfg->dst_port),
                  other_type, netdev_get_name(other));
    return EEXIST;
}

/* One fou UDP port, one inner protocol: returns EEXIST (and says why in
 * 'errors') if fou ports 'dev' and 'other' share a UDP port but not their
 * 'ipproto'. */
static int
check_fou_ipproto(const struct netdev *dev, const char *type,
                  const struct netdev_tunnel_config *tnl_cfg,
                  const struct netdev *other, const char *other_type,
                  const struct netdev_tunnel_config *other_cfg,
                  struct ds *errors)
{
    if (strcmp(type, "fou") || strcmp(other_type, "fou")
        || other_cfg->dst_port != tnl_cfg->dst_port
        || other_cfg->fou_ipproto == tnl_cfg->fou_ipproto) {
        return 0;
    }
    ds_put_format(errors, "%s: fou port %s carries ipproto %d on UDP port "
                  "%"PRIu16" (a fou UDP port carries one inner protocol)\n",
                  netdev_get_name(dev), netdev_get_name(other),
                  other_cfg->fou_ipproto, ntohs(tnl_cfg->dst_port));
    return EEXIST;
}

/* ofproto's tunnel map tells the ports of one datapath port apart by their
 * endpoints, packet type and key, and ipip and fou have no key: returns
 * EEXIST (and says why in 'errors') if ipip or fou port 'dev' (of 'type',
 * configured as 'tnl_cfg') and 'other' would receive the same packets.
 * (Without this check ofproto refuses the second port with a bare "File
 * exists".) */
static int
check_same_endpoints(const struct netdev *dev, const char *type,
                     const struct netdev_tunnel_config *tnl_cfg,
                     const struct netdev *other, const char *other_type,
                     const struct netdev_tunnel_config *other_cfg,
                     struct ds *errors)
{
    if (strcmp(type, other_type)
        || !netdev_iptun_is_iptun_type(type)
        || other_cfg->dst_port != tnl_cfg->dst_port
        || other_cfg->pt_mode != tnl_cfg->pt_mode
        || other_cfg->ip_src_flow != tnl_cfg->ip_src_flow
        || other_cfg->ip_dst_flow != tnl_cfg->ip_dst_flow
        || !ipv6_addr_equals(&other_cfg->ipv6_src, &tnl_cfg->ipv6_src)
        || !ipv6_addr_equals(&other_cfg->ipv6_dst, &tnl_cfg->ipv6_dst)) {
        return 0;
    }
    ds_put_format(errors, "%s: %s port %s already has these endpoints (%s "
                  "tunnels have no key: a port is identified by its "
                  "local_ip and remote_ip%s)\n", netdev_get_name(dev), type,
                  netdev_get_name(other), type,
                  netdev_iptun_is_udp_type(type) ? " on its dst_port" : "");
    return EEXIST;
}

/* Checks the configuration 'tnl_cfg', parsed from 'args', of tunnel port
 * 'dev'.  Returns 0 if it is valid, otherwise appends the reasons to
 * 'errors' (one line each) and returns a positive errno value. */
int
netdev_iptun_check_config(const struct netdev *dev, const struct smap *args,
                          struct netdev_tunnel_config *tnl_cfg,
                          struct ds *errors)
{
    const char *type = netdev_get_type(dev);
    struct netdev **vports;
    size_t n_vports;
    int err = 0;

    if (netdev_iptun_is_iptun_type(type)) {
        err = check_iptun_options(netdev_get_name(dev), type, args, tnl_cfg,
                                  errors);
    } else if (!is_udp_tunnel_type(type)) {
        return 0;
    }

    vports = netdev_get_vports(&n_vports);
    for (size_t i = 0; i < n_vports; i++) {
        const struct netdev *other = vports[i];
        const char *dpif_port;
        const struct netdev_tunnel_config *other_cfg;

        if (err || other == dev) {
            continue;
        }
        /* Skip the datapath-level netdevs ("vxlan_sys_4789", ...): they
         * mirror the ports the user configured. */
        dpif_port = netdev_vport_class_get_dpif_port(other->netdev_class);
        if (dpif_port && !strncmp(netdev_get_name(other), dpif_port,
                                  strlen(dpif_port))) {
            continue;
        }
        other_cfg = netdev_get_tunnel_config(other);
        if (other_cfg) {
            const char *other_type = netdev_get_type(other);

            err = check_udp_port_clash(dev, type, tnl_cfg, other, other_type,
                                       other_cfg, errors);
            if (!err) {
                err = check_fou_ipproto(dev, type, tnl_cfg, other,
                                        other_type, other_cfg, errors);
            }
            if (!err) {
                err = check_same_endpoints(dev, type, tnl_cfg, other,
                                           other_type, other_cfg, errors);
            }
        }
    }
    for (size_t i = 0; i < n_vports; i++) {
        netdev_close(vports[i]);
    }
    free(vports);

    return err;
}

uint8_t
netdev_fou_ipproto(const struct netdev_tunnel_config *tnl_cfg)
{
    return (tnl_cfg && tnl_cfg->fou_ipproto == IPPROTO_IPV6
            ? IPPROTO_IPV6 : IPPROTO_IPIP);
}

/* True if 'netdev' is a port of the kernel datapath, whose tunnel MTU is the
 * route's (datapath/iptun-pmtu.c). */
static bool
is_kernel_port(const struct netdev *netdev)
{
    const char *dpif_type = netdev_get_dpif_type(netdev);

    return dpif_type && !strcmp(dpif_type, "system");
}

/* The MTU of an ipip or fou port: the largest inner packet it sends whole,
 * as a Linux tunnel device's MTU.  Only what the user asked for with the
 * Interface's mtu_request: without it, there is none (EOPNOTSUPP, as for
 * the other tunnel types) and the tunnel MTU follows the underlay port the
 * route to the remote leaves from (iptun_pmtu_tunnel_mtu()). */
int
netdev_iptun_get_mtu(const struct netdev *netdev_, int *mtup)
{
    struct netdev_vport *netdev = netdev_vport_cast(netdev_);
    int mtu;

    ovs_mutex_lock(&netdev->mutex);
    mtu = netdev_->mtu_user_config && !is_kernel_port(netdev_)
          ? netdev->mtu : 0;
    ovs_mutex_unlock(&netdev->mutex);

    if (!mtu) {
        return EOPNOTSUPP;
    }
    *mtup = mtu;
    return 0;
}

/* Sets the MTU of 'netdev_', an ipip or fou port of the userspace datapath,
 * to 'mtu' (mtu_request): from 68 (IPv4's minimum, as Linux's ipip) to 65535.
 * A value out of range is refused, and the port keeps the MTU it had, as
 * Open vSwitch's other ports do. */
int
netdev_iptun_set_mtu(struct netdev *netdev_, int mtu)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
    struct netdev_vport *netdev = netdev_vport_cast(netdev_);
    int error = 0;

    if (is_kernel_port(netdev_)) {
        VLOG_WARN_RL(&rl, "%s: mtu_request applies to the userspace "
                     "datapath; in the kernel datapath, lower the MTU of "
                     "the route to the remote", netdev_get_name(netdev_));
        mtu = 0;
        error = EOPNOTSUPP;
    } else if (mtu < IPTUN_MIN_MTU || mtu > UINT16_MAX) {
        VLOG_WARN_RL(&rl, "%s: mtu_request=%d is not from %d to %d",
                     netdev_get_name(netdev_), mtu, IPTUN_MIN_MTU,
                     UINT16_MAX);
        return EINVAL;
    }

    ovs_mutex_lock(&netdev->mutex);
    if (netdev->mtu != mtu) {
        netdev->mtu = mtu;
        netdev_change_seq_changed(netdev_);
    }
    ovs_mutex_unlock(&netdev->mutex);
    return error;
}
