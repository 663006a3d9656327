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

#ifndef IPTUN_PMTU_H
#define IPTUN_PMTU_H 1

/* Path MTU for the userspace datapath's ipip and fou ports: what happens to
 * an inner packet too big for the tunnel's path.
 *
 * The translation of an output to an ipip or fou port checks the packet's
 * length in the datapath (check_pkt_len): a packet that fits is pushed as
 * before; a bigger one goes to userspace (ofproto-dpif-iptun-pmtu.c), which
 * treats it as Linux treats a packet routed into an ipip, sit or ip6tnl
 * device whose MTU is the tunnel's:
 *
 *   - an IPv4 packet with DF, and any IPv6 packet, is dropped and answered
 *     with ICMP "fragmentation needed" / ICMPv6 "packet too big" carrying
 *     the tunnel MTU (IPv6: at least 1280), from the packet's destination
 *     to its source, as the kernel module (datapath/iptun-pmtu.c) builds it
 *     byte for byte, and as Linux decides which packets to answer (no
 *     ICMP about ICMP errors, later fragments, or to broadcast, multicast,
 *     zero or loopback sources) and how often (net.ipv4.icmp_msgs_per_sec
 *     and its burst: 1000/s, 50);
 *
 *   - an IPv4 packet without DF is fragmented to the tunnel MTU, as Linux's
 *     IP forwarding fragments it before an ipip device (RFC 791), and each
 *     fragment goes through the tunnel. */

#include <stdbool.h>
#include <stdint.h>

struct dp_packet;
struct dp_packet_batch;
struct flow;
struct netdev;
struct ovs_action_push_tnl;

enum iptun_pmtu_verdict {
    IPTUN_PMTU_DROP,            /* Dropped without an answer. */
    IPTUN_PMTU_ICMP,            /* Dropped and answered. */
    IPTUN_PMTU_FRAGMENT,        /* Fragmented to fit. */
};

/* The MTU of the tunnel port 'tnl_dev' whose outer headers are 'push'
 * leaving through 'out_dev' (the underlay port the route leads to): the
 * largest inner packet that fits 'out_dev''s MTU, or the MTU set on
 * 'tnl_dev' (mtu_request) if that is smaller.  0 if 'push' is not ipip's or
 * fou's, or if neither has an MTU. */
uint16_t iptun_pmtu_tunnel_mtu(const struct netdev *out_dev,
                               const struct netdev *tnl_dev,
                               const struct ovs_action_push_tnl *push);

/* For 'packet', an inner IPv4 or IPv6 packet (L3, or Ethernet with its L3
 * offset set) whose flow is 'flow', too big for a tunnel of MTU 'mtu': what
 * to do.  For IPTUN_PMTU_ICMP, '*announce' is the MTU to announce. */
enum iptun_pmtu_verdict iptun_pmtu_classify(const struct flow *flow,
                                            const struct dp_packet *packet,
                                            uint16_t mtu, uint16_t *announce);

/* Returns a new L3 packet: the ICMP or ICMPv6 message announcing 'mtu'
 * about 'packet', or NULL if the ICMP rate limit does not allow one now. */
struct dp_packet *iptun_pmtu_icmp(const struct dp_packet *packet,
                                  uint16_t mtu);

/* Appends to 'frags' the IPv4 fragments of 'packet', each at most 'mtu'
 * bytes, with complete checksums; a TSO packet's segments each fragmented.
 * Returns false (and appends nothing) if 'packet' is malformed. */
bool iptun_pmtu_fragment(const struct dp_packet *packet, uint16_t mtu,
                         struct dp_packet_batch *frags);

#endif /* iptun-pmtu.h */
