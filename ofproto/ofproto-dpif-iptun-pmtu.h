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

#ifndef OFPROTO_DPIF_IPTUN_PMTU_H
#define OFPROTO_DPIF_IPTUN_PMTU_H 1

/* Path MTU for the userspace datapath's ipip and fou ports: the datapath
 * actions that send a packet too big for the tunnel to userspace, and what
 * userspace does with it (lib/iptun-pmtu.h says what and why).
 *
 * The translation of an output to such a port becomes
 *
 *     check_pkt_len(size=<tunnel MTU>,
 *                   gt(set(tunnel(<the outer addresses and UDP port>)),
 *                      userspace(pid=P,iptun_pmtu(port=<port>,mtu=<MTU>))),
 *                   le(<tnl_push and output, as before>))
 *
 * so that a packet that fits pays one comparison.  The tunnel MTU is the
 * MTU of the underlay port the route to the remote leaves from, less the
 * outer headers.  If the tnl_push replaces the packet's Ethernet header
 * (netdev_iptun_push_replaces_eth()), the packet checked still has it: the
 * size is the MTU plus the header's length, and the "greater" branch starts
 * with pop_eth, so that userspace gets the L3 packet either way. */

#include <stdint.h>

#include "openvswitch/types.h"

struct dp_packet;
struct flow;
struct flow_tnl;
struct in6_addr;
struct ofpbuf;
struct ofproto_dpif;
struct user_action_cookie;
struct uuid;

struct iptun_pmtu_check {
    size_t cpl_ofs;             /* Offset of check_pkt_len. */
    size_t le_ofs;              /* Offset of its "less or equal" branch. */
};

/* Opens, in 'odp_actions', the check of a packet about to be sent to
 * 'tnl_port' (tunnel metadata 'tnl', outer addresses 'src' and 'dst')
 * against 'mtu' (iptun_pmtu_tunnel_mtu()), up to the "fits" branch, where
 * the caller puts the usual actions; iptun_pmtu_check_end() closes it.
 * 'eth_len' is the length of the Ethernet header the packet checked still
 * has, 0 for an L3 packet. */
void iptun_pmtu_check_start(struct ofpbuf *odp_actions, uint16_t mtu,
                            int eth_len,
                            const struct flow_tnl *tnl,
                            const struct in6_addr *src,
                            const struct in6_addr *dst, const char *tnl_type,
                            const struct uuid *ofproto_uuid,
                            ofp_port_t tnl_port, uint32_t pid,
                            struct iptun_pmtu_check *);
void iptun_pmtu_check_end(struct ofpbuf *odp_actions,
                          const struct iptun_pmtu_check *);

/* Handles an upcall of a packet too big for its tunnel (cookie type
 * USER_ACTION_COOKIE_IPTUN_PMTU): answers, fragments or drops it, and
 * counts it on the tunnel port. */
void iptun_pmtu_upcall(struct ofproto_dpif *,
                       const struct user_action_cookie *,
                       const struct dp_packet *, const struct flow *);

#endif /* ofproto-dpif-iptun-pmtu.h */
