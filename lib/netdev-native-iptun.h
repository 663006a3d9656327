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

#ifndef NETDEV_NATIVE_IPTUN_H
#define NETDEV_NATIVE_IPTUN_H 1

/* Native (userspace datapath) tunnelling for the L3 tunnel types of
 * ovs-iptun:
 *
 *   - "ipip": an inner IPv4 (IPv6) packet directly after an outer IPv4 or
 *     IPv6 header with protocol 4 (41), as Linux's "ipip", "sit" and
 *     "ip6tnl" devices send it.
 *
 *   - "fou": foo-over-UDP, an inner IPv4 or IPv6 packet directly after an
 *     outer IPv4 or IPv6 and UDP header, as Linux's "ip fou add port N
 *     ipproto 4|41 [-6]" receives and an "ipip|sit|ip6tnl ... encap fou"
 *     device sends it.  The UDP source port carries the inner flow's hash;
 *     the UDP checksum is optional over IPv4, always sent over IPv6.
 *
 *   - "gue": Generic UDP Encapsulation, fou with a 4-byte header that names
 *     the inner protocol, so that one UDP port carries IPv4 and IPv6, as
 *     Linux's "ip fou add port N gue [-6]" receives and an "ipip|sit|ip6tnl
 *     ... encap gue" device sends it (kube-router's FoU overlay).
 *
 * The functions follow the netdev_class build_header / push_header /
 * pop_header contract of lib/netdev-provider.h.  push and pop depend only on
 * the header template that build_header produced: the datapath-level netdev
 * they receive is never configured. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iptun-ports.h"
#include "openvswitch/types.h"

struct dp_packet;
struct dp_packet_batch;
struct ds;
struct flow;
struct flow_wildcards;
struct netdev;
struct netdev_tnl_build_header_params;
struct netdev_tunnel_config;
struct ovs_action_push_tnl;
struct smap;

int netdev_ipip_build_header(const struct netdev *,
                             struct ovs_action_push_tnl *,
                             const struct netdev_tnl_build_header_params *);
void netdev_ipip_push_header(const struct netdev *,
                             const struct netdev *ingress_netdev,
                             struct dp_packet *,
                             const struct ovs_action_push_tnl *);
struct dp_packet *netdev_ipip_pop_header(struct dp_packet *);

int netdev_fou_build_header(const struct netdev *,
                            struct ovs_action_push_tnl *,
                            const struct netdev_tnl_build_header_params *);
void netdev_fou_push_header(const struct netdev *,
                            const struct netdev *ingress_netdev,
                            struct dp_packet *,
                            const struct ovs_action_push_tnl *);
struct dp_packet *netdev_fou_pop_header(struct dp_packet *);

/* gue's push is fou's (netdev_fou_push_header()). */
int netdev_gue_build_header(const struct netdev *,
                            struct ovs_action_push_tnl *,
                            const struct netdev_tnl_build_header_params *);
struct dp_packet *netdev_gue_pop_header(struct dp_packet *);

/* Reassembly of outer fragments (lib/iptun-reass.h), the step that the
 * userspace datapath runs on a batch before the pop of an ipip, fou or gue
 * port 'netdev', as lib/ipf.c's runs before conntrack: hands each outer
 * fragment of 'batch' whose outer header is good (the pop's checks) to
 * iptun_reass_add() and puts the datagram it completes in its place, to be
 * popped as if it had come whole.  Fragments kept for their datagram (and
 * copies of later fragments that no port claimed) leave the batch; so do
 * fragments dropped, counted as the pop counts its drops.  Returns the
 * number kept, which the datapath does not count as pop errors.  Does
 * nothing for another port, or a batch without a fragment. */
size_t netdev_iptun_reass_batch(const struct netdev *,
                                struct dp_packet_batch *);

/* The same for one 'packet' received on a port of 'type' (enum iptun_type,
 * lib/iptun-ports.h): returns 'packet' if it is no outer fragment, the
 * complete datagram if it completed one, or NULL if it was kept ('*kept'
 * true) or dropped. */
struct dp_packet *netdev_iptun_reass(enum iptun_type, struct dp_packet *,
                                     bool *kept);

/* The pushes of ipip, fou and gue ports take an IPv4 or IPv6 packet, L3 or
 * Ethernet: an Ethernet packet's Ethernet header, VLAN tags included
 * (everything before its L3 header), is replaced by the outer headers in
 * the same step, so that the translation of an output to such a port need
 * not put a pop_eth before the tnl_push.  Returns the length of the
 * Ethernet header the push replaces, or 0 if a pop_eth must come first:
 * 'type' is not one of these types, the output does not turn the packet
 * (the translation's 'flow', whose packet type was 'packet_type' before the
 * output) from Ethernet into L3, the packet in the datapath ('base_flow')
 * is MPLS or has VLAN tags still to be pushed or popped.  Adds to 'wc' what
 * the answer depends on (the number of VLAN tags). */
int netdev_iptun_push_replaces_eth(const char *type, ovs_be32 packet_type,
                                   const struct flow *flow,
                                   const struct flow *base_flow,
                                   struct flow_wildcards *wc);

/* True if 'tnl_type' (enum ovs_vport_type, of a tnl_push) is ipip's, fou's
 * or gue's: a push that replaces an Ethernet packet's Ethernet header (not
 * a plain raw encapsulation, for hardware offload), with a path MTU. */
bool netdev_iptun_is_tnl_type(uint32_t tnl_type);

/* Why build_header refused a packet, for ofproto/trace. */
bool netdev_iptun_build_error(const struct netdev *,
                              const struct netdev_tnl_build_header_params *,
                              struct ds *reason);

/* Port configuration checks, called from set_tunnel_config() in
 * netdev-vport.c: the ovs-iptun types' own options, and UDP port clashes
 * between fou and the other UDP tunnel types. */
bool netdev_iptun_is_iptun_type(const char *type);
/* fou and gue: those of the types above that run over UDP. */
bool netdev_iptun_is_udp_type(const char *type);
int netdev_iptun_check_config(const struct netdev *,
                              const struct smap *args,
                              struct netdev_tunnel_config *,
                              struct ds *errors);

/* The MTU the user set on an ipip or fou port (Interface mtu_request), the
 * largest inner packet it sends whole; without one, get_mtu returns
 * EOPNOTSUPP.  Minimum 68, as Linux's ipip devices. */
#define IPTUN_MIN_MTU 68
int netdev_iptun_get_mtu(const struct netdev *, int *mtup);
int netdev_iptun_set_mtu(struct netdev *, int mtu);

/* The one inner IP protocol a fou port sends (options:ipproto): 4 or 41.
 * The kernel datapath's fou device takes it as IFLA_IPTUN_FOU_IPPROTO. */
uint8_t netdev_fou_ipproto(const struct netdev_tunnel_config *);

#endif /* netdev-native-iptun.h */
