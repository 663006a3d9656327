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

#include "netdev-native-iptun.h"

#include <errno.h>
#include <netinet/in.h>

#include "coverage.h"
#include "dp-packet.h"
#include "netdev.h"
#include "netdev-native-tnl.h"
#include "odp-netlink.h"
#include "packets.h"
#include "openvswitch/vlog.h"

VLOG_DEFINE_THIS_MODULE(native_iptun);

static struct vlog_rate_limit err_rl = VLOG_RATE_LIMIT_INIT(60, 5);

COVERAGE_DEFINE(ipip_build_non_ipv4);
COVERAGE_DEFINE(ipip_pop_bad_outer);
COVERAGE_DEFINE(ipip_pop_bad_inner);

/* Builds, once per megaflow, the Ethernet + IPv4 (protocol 4) header that
 * netdev_ipip_push_header() puts in front of every packet.
 *
 * ipip carries IPv4 only: an Ethernet frame (ptap port), ARP or IPv6 handed to
 * an ipip port is refused here, so the translation outputs nothing. */
int
netdev_ipip_build_header(const struct netdev *netdev,
                         struct ovs_action_push_tnl *data,
                         const struct netdev_tnl_build_header_params *params)
{
    if (params->flow->packet_type != htonl(PT_IPV4)) {
        COVERAGE_INC(ipip_build_non_ipv4);
        VLOG_WARN_RL(&err_rl, "%s: ipip tunnels carry IPv4 only, dropping "
                     "packet of type (%"PRIu16",%#"PRIx16")",
                     netdev_get_name(netdev),
                     pt_ns(params->flow->packet_type),
                     pt_ns_type(params->flow->packet_type));
        return EINVAL;
    }
    if (params->is_ipv6) {
        COVERAGE_INC(ipip_build_non_ipv4);
        VLOG_WARN_RL(&err_rl, "%s: ipip tunnels need an IPv4 underlay, "
                     "dropping packet to an IPv6 tunnel endpoint",
                     netdev_get_name(netdev));
        return EINVAL;
    }

    netdev_tnl_ip_build_header(data, params, IPPROTO_IPIP);
    data->tnl_type = OVS_VPORT_TYPE_IPIP;
    return 0;
}

void
netdev_ipip_push_header(const struct netdev *netdev OVS_UNUSED,
                        struct dp_packet *packet,
                        const struct ovs_action_push_tnl *data)
{
    int ip_tot_size;

    netdev_tnl_push_ip_header(packet, data->header, data->header_len,
                              &ip_tot_size);
}

/* Removes the Ethernet and outer IPv4 headers of 'packet', records the outer
 * addresses, TOS and TTL in its tunnel metadata and marks it as an IPv4
 * packet.  Frees 'packet' and returns NULL if the outer header is not a
 * plain IPv4 header (IPv6, options, bad checksum, truncated) or if what
 * follows it is not an IPv4 header. */
struct dp_packet *
netdev_ipip_pop_header(struct dp_packet *packet)
{
    struct pkt_metadata *md = &packet->md;
    const struct ip_header *outer = dp_packet_l3(packet);
    const struct ip_header *inner;
    unsigned int hlen;
    uint16_t tot_len;

    pkt_metadata_init_tnl(md);

    if (!outer || IP_VER(outer->ip_ihl_ver) != 4) {
        /* tnl-ports also hands us IPv6 packets with next header 4 (4in6)
         * sent to our IPv6 addresses. */
        COVERAGE_INC(ipip_pop_bad_outer);
        VLOG_WARN_RL(&err_rl, "ipip: dropping packet whose outer header is "
                     "not IPv4");
        goto drop;
    }

    inner = netdev_tnl_ip_extract_tnl_md(packet, &md->tunnel, &hlen);
    if (!inner) {
        COVERAGE_INC(ipip_pop_bad_outer);
        goto drop;
    }

    /* Trim Ethernet padding (or anything else) after the outer datagram. */
    tot_len = ntohs(outer->ip_tot_len);
    if (tot_len < 2 * IP_HEADER_LEN) {
        COVERAGE_INC(ipip_pop_bad_inner);
        VLOG_WARN_RL(&err_rl, "ipip: dropping packet with a truncated inner "
                     "IPv4 header (outer length %"PRIu16")", tot_len);
        goto drop;
    }
    dp_packet_set_size(packet, packet->l3_ofs + tot_len);

    if (IP_VER(inner->ip_ihl_ver) != 4) {
        COVERAGE_INC(ipip_pop_bad_inner);
        VLOG_WARN_RL(&err_rl, "ipip: dropping packet whose inner header is "
                     "IP version %d, not 4", IP_VER(inner->ip_ihl_ver));
        goto drop;
    }

    packet->packet_type = htonl(PT_IPV4);
    dp_packet_reset_packet(packet, hlen);
    return packet;

drop:
    dp_packet_delete(packet);
    return NULL;
}
