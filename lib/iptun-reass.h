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

#ifndef IPTUN_REASS_H
#define IPTUN_REASS_H 1

/* Reassembly of outer IPv4 and IPv6 fragments for the userspace datapath's
 * ipip and fou ports, so that it receives what Linux's ipip, sit, ip6tnl and
 * fou (and so the kernel datapath, behind Linux's own reassembly) receive:
 * packets that a sender without DF, or an IPv6 sender, fragmented after
 * encapsulating.
 *
 * Reassembly is a step of its own before the pop, as lib/ipf.c's is before
 * conntrack: netdev_iptun_reass_batch() (netdev-native-iptun.c), which the
 * datapath runs on a batch before the pop of an ipip, fou or gue port,
 * checks each outer fragment's header as the pop would and hands it to
 * iptun_reass_add(), which keeps it until its datagram is complete and then
 * returns the whole datagram, to be popped as if it had arrived
 * unfragmented.  As Linux (RFC 791, RFC 8200, RFC 5722): fragments are
 * grouped by source, destination, identification (and, for IPv4,
 * protocol); a fragment that overlaps another one discards the whole
 * datagram, an exact duplicate is dropped alone; a datagram not completed
 * in 30 s (IPv4) or 60 s (IPv6) is dropped; a datagram beyond 65,535 bytes
 * is dropped; fragments beyond a memory limit (4 MiB, as Linux's
 * ipfrag_high_thresh; other_config:iptun-reass-max-bytes) are dropped.
 * Every drop is counted (coverage counters iptun_reass_*) and logged.
 *
 * Which fragments reach a pop is up to tnl-ports and the translation:
 * every outer IPv4 fragment of ipip names protocol 4 or 41, so tnl-ports
 * hands them all to the ipip port.  A first fragment of fou names its UDP
 * port, so tnl-ports hands it to the fou port of that UDP port.  A later
 * fragment of fou (IPv4 protocol 17, no UDP header) or any later IPv6
 * fragment (whose flow names no protocol: the parse ends at the fragment
 * header) could be the host's: it goes where the bridge sends it, usually
 * to the host, and a copy goes to the pop of each port that could take it
 * (iptun_reass_xlate_later_frag()), whose reassembly step keeps it if its
 * datagram's first fragment came through that port.  So fou datagrams and
 * outer IPv6 ones are reassembled if their first fragment comes first, as
 * senders send them; ipip's over IPv4 in any order.
 *
 * Why not upstream's lib/ipf.c: it serves conntrack.  It reassembles a ct
 * action's fragments only for conntrack to see the datagram, then sends the
 * original fragments on, each with the datagram's conntrack state
 * (ipf_post_execute_reass_pkts()); it keys fragments by conntrack zone and
 * is turned on per datapath (dpctl/ipf-set-enabled).  A tunnel pop needs
 * the whole datagram itself, as the packet it goes on with, before any flow
 * or zone applies to it. */

#include <stdbool.h>
#include <stdint.h>

#include "openvswitch/types.h"

struct dp_packet;
struct flow;
struct flow_wildcards;
struct ofpbuf;
struct smap;

/* What iptun_reass_add() did with a fragment. */
enum iptun_reass_result {
    IPTUN_REASS_DONE,           /* It completed its datagram. */
    IPTUN_REASS_KEPT,           /* Kept for its datagram, or a copy of a
                                 * later fragment that no port claimed (the
                                 * host got the packet too): not lost, not a
                                 * pop error (datapath_drop_tunnel_pop_error).
                                 */
    IPTUN_REASS_DROPPED,        /* Dropped, counted and logged. */
};

/* Takes the outer fragment 'frag', whose outer IPv4 header (or IPv6 header
 * and extension headers up to the fragment header, which starts 'frag_ofs'
 * bytes after the IPv6 header's start) has been checked.  'copy_port' is 0
 * for an ipip port and, for fou and gue, the UDP port that the translation
 * gave a copy of a later fragment (0 for another packet).  For
 * IPTUN_REASS_DONE, stores in '*whole' the complete datagram, a new packet
 * with the metadata of 'frag' and no fragment header (outer IPv4: fragment
 * offset and MF clear, IPv6: the fragment header removed); otherwise NULL. */
enum iptun_reass_result iptun_reass_add(struct dp_packet *frag,
                                        unsigned int frag_ofs,
                                        ovs_be16 copy_port,
                                        struct dp_packet **whole);

/* Called by the translation of a packet that no tunnel port terminates:
 * if it is a later outer fragment that an ipip or fou port could take (see
 * above), adds clone(tnl_pop(<the port>)) to 'odp_actions' for each such
 * port (for a fou port, clone(set(tunnel(tp_dst=<its UDP port>)),
 * tnl_pop(<the port>)), so that its pop knows which UDP port the copy is
 * for). */
void iptun_reass_xlate_later_frag(struct ofpbuf *odp_actions,
                                  const struct flow *,
                                  struct flow_wildcards *);

void iptun_reass_set_config(const struct smap *other_config);

#endif /* iptun-reass.h */
