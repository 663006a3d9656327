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
 * set_tunnel_config() (lib/netdev-vport.c). */

#include <config.h>

#include "netdev-native-iptun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netdev.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "smap.h"

bool
netdev_iptun_is_iptun_type(const char *type)
{
    return !strcmp(type, "ipip");
}

/* An IPv4 tunnel endpoint option is an IPv4 address, "flow" or absent: the
 * generic parser stores IPv4 addresses as v4-mapped IPv6 ones. */
static bool
endpoint_is_ipv6(const struct in6_addr *addr)
{
    return ipv6_addr_is_set(addr) && !IN6_IS_ADDR_V4MAPPED(addr);
}

/* Checks the options of port 'name' of ovs-iptun type 'type'.  Returns 0 if
 * they are valid, otherwise appends the reasons to 'errors' (one line each)
 * and returns EINVAL. */
int
netdev_iptun_check_config(const char *name, const char *type,
                          const struct smap *args,
                          const struct netdev_tunnel_config *tnl_cfg,
                          struct ds *errors)
{
    static const char *const key_options[] = { "key", "in_key", "out_key" };
    const char *ttl;
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
    if (ttl && strcmp(ttl, "inherit")) {
        char *end;
        long int value = strtol(ttl, &end, 10);

        if (*end || end == ttl || value < 1 || value > 255) {
            ds_put_format(errors, "%s: invalid 'ttl' %s (expected 1 to 255 "
                          "or 'inherit')\n", name, ttl);
            err = EINVAL;
        }
    }

    return err;
}
