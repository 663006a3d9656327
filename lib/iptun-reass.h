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
 * ipip ports, so that it receives what Linux's ipip, sit and ip6tnl (and so
 * the kernel datapath, behind Linux's own reassembly) receive: packets that
 * a sender without DF, or an IPv6 sender, fragmented after encapsulating.
 *
 * The ipip pop hands each outer fragment to iptun_reass_add(), which keeps
 * it until its datagram is complete and then returns the whole datagram, as
 * if it had arrived unfragmented.  As Linux (RFC 791, RFC 8200, RFC 5722):
 * fragments are grouped by source, destination, identification (and, for
 * IPv4, protocol); a fragment that overlaps another one discards the whole
 * datagram, an exact duplicate is dropped alone; a datagram not completed
 * in 30 s (IPv4) or 60 s (IPv6) is dropped; a datagram beyond 65,535 bytes
 * is dropped; fragments beyond a memory limit (4 MiB, as Linux's
 * ipfrag_high_thresh; other_config:iptun-reass-max-bytes) are dropped.
 * Every drop is counted (coverage counters iptun_reass_*) and logged. */

#include <stdint.h>

struct dp_packet;
struct flow;
struct flow_wildcards;
struct ofpbuf;
struct smap;

/* Takes the outer fragment 'frag', whose outer IPv4 header (or IPv6 header
 * and extension headers up to the fragment header, which starts 'frag_ofs'
 * bytes after the IPv6 header's start) has been checked.  Returns NULL if it
 * was kept or dropped, or the complete datagram, a new packet with the
 * metadata of 'frag' and no fragment header (outer IPv4: fragment offset
 * and MF clear, IPv6: the fragment header removed). */
struct dp_packet *iptun_reass_add(struct dp_packet *frag,
                                  unsigned int frag_ofs);

/* An outer IPv4 fragment names its protocol, 4 or 41 for ipip: tnl-ports
 * hands ipip's to the ipip port.  An IPv6 one past the first does not (the
 * flow's parse ends at the fragment header), so the translation of a later
 * IPv6 fragment to an address that an ipip port terminates calls this
 * function, which adds clone(tnl_pop(<the ipip port>)) to 'odp_actions':
 * the pop keeps the copy if the datagram's first fragment (which names the
 * protocol) came through it before, and drops it otherwise
 * (iptun_reass_unclaimed); the fragment itself goes on where the bridge
 * sends it, usually to the host.  So an IPv6 datagram is reassembled if its
 * first fragment comes first, as senders send them. */
void iptun_reass_xlate_later_frag6(struct ofpbuf *odp_actions,
                                   const struct flow *,
                                   struct flow_wildcards *);

void iptun_reass_set_config(const struct smap *other_config);

#endif /* iptun-reass.h */
