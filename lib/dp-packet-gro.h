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

#ifndef DP_PACKET_GRO_H
#define DP_PACKET_GRO_H 1

/* Receive aggregation (GRO) of TCP segments for the userspace datapath.
 *
 * After a tunnel pop, and before the lookup that the decapsulated packets
 * go to, dp_packet_gro_batch() merges in-order TCP segments of one inner
 * connection in a batch into one TSO packet (segment size set, IPv4 and
 * TCP checksums left to the output), as Linux's GRO does before its
 * stack, and so before OVS's kernel datapath: an output that takes TSO
 * (a tap with its virtio-net header, vhost-user with guest TSO, a NIC)
 * gets it whole, any other one gets it segmented again by netdev_send()
 * (dp-packet-gso.c).  The rules are Linux's (tcp_gro_receive(),
 * inet_gro_receive(), ipv6_gro_receive()):
 *
 *   - Ethernet (no VLAN), IPv4 without options or IPv6 without extension
 *     headers, then TCP; no fragment; no padding beyond the IP length;
 *   - same tunnel metadata, input port and mark (so same outer headers),
 *     same addresses, ports, TOS (traffic class, flow label) and TTL (hop
 *     limit), same DF bit; without DF, IP IDs that increase by one;
 *   - contiguous sequence numbers, same acknowledgement number, window and
 *     TCP options (byte for byte, timestamps included), data offset;
 *   - flags ACK alone, with PSH or FIN on the last segment merged (which
 *     ends the packet); SYN, RST, URG, CWR or a segment without payload
 *     ends what is held for its connection and passes alone;
 *   - the first segment's payload is the segment size: a longer one ends
 *     the packet before it, a shorter one ends it after it; at most 64 KB
 *     of IP packet;
 *   - the TCP checksum verified (in software unless the receiving port
 *     vouched for it): a segment with a bad one is never merged, and
 *     passes alone to be dropped where it would have been.
 *
 * Nothing is held beyond the batch (Linux holds across one NAPI poll): the
 * batch that comes in goes out, with the merged segments' places taken by
 * none, and the packets of each connection in their order.
 *
 * Enabled by other_config:userspace-gro-enable, default the value of
 * userspace-tso-enable (without TSO, netdev_send() does not segment TSO
 * packets again: aggregation needs it, and is refused without it). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_packet_batch;
struct smap;

void dp_packet_gro_set_config(const struct smap *other_config);
bool dp_packet_gro_enabled(void);

/* What one dp_packet_gro_batch() did, for the caller's statistics
 * (pmd-perf-show's "GRO" lines). */
struct dp_packet_gro_stats {
    unsigned int merged;        /* Segments merged into the one before. */
    unsigned int packets;       /* Packets made of two or more segments. */
    unsigned int flushed;       /* Held packets ended early, Linux's flush:
                                 * by a packet of their connection or
                                 * addresses that did not continue them. */
};

size_t dp_packet_gro_batch(struct dp_packet_batch *,
                           struct dp_packet_gro_stats *);

#endif /* dp-packet-gro.h */
