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

#ifndef NETDEV_NATIVE_IPTUN_POP_H
#define NETDEV_NATIVE_IPTUN_POP_H 1

/* The per-packet steps of the ipip, fou and gue pops (netdev-native-iptun.c)
 * that the tunnel termination cache's one lookup shares, inline: the
 * metadata and checksum steps, and its pop of a packet whose headers the
 * lookup's key has already checked (iptun_pop_known_ok(),
 * iptun_pop_known()). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "csum.h"
#include "dp-packet.h"
#include "netdev-native-tnl.h"
#include "packets.h"

/* Returns true if the UDP checksum of 'udp' ('len' bytes, behind the IPv4
 * or IPv6 header 'l3') is correct. */
static inline bool
iptun_udp_csum_ok(const void *l3, const struct udp_header *udp,
                  unsigned int len)
{
    const struct ip_header *ip = l3;
    uint32_t partial = 0;

    if (IP_VER(ip->ip_ihl_ver) == 6) {
        return !packet_csum_upperlayer6(l3, udp, IPPROTO_UDP, len);
    }
    /* Not packet_csum_pseudoheader(): the UDP length, not the IPv4 payload
     * length, as Linux's udp_rcv() sums it. */
    partial = csum_add32(partial, get_16aligned_be32(&ip->ip_src));
    partial = csum_add32(partial, get_16aligned_be32(&ip->ip_dst));
    partial = csum_add16(partial, htons(IPPROTO_UDP));
    partial = csum_add16(partial, htons(len));
    return !csum_finish(csum_continue(partial, udp, len));
}

/* pkt_metadata_init_tnl() without zeroing the conntrack original tuple
 * (md->cacheline1, which nothing reads while ct_state is 0, as
 * pkt_metadata_init() also relies on): that cache line is otherwise touched
 * by nothing on the receive path, so zeroing it cost a cache miss per
 * packet.  Zeroes the rest of the metadata up to the tunnel options and
 * keeps the input port as 'orig_in_port', as pkt_metadata_init_tnl() does. */
static inline void
iptun_metadata_init(struct pkt_metadata *md)
{
    odp_port_t orig_in_port = md->in_port.odp_port;

    memset(md, 0, offsetof(struct pkt_metadata, ct_orig_tuple));
    memset(&md->tunnel, 0, offsetof(struct flow_tnl, metadata.opts));
    md->orig_in_port = orig_in_port;
}

/* True if the 20-byte IPv4 header 'ip' has a correct checksum: its 16-bit
 * one's complement sum is 0xffff.  (The sum of 32-bit words folded to 16
 * bits is the same in either byte order.) */
static inline bool
iptun_ip_hdr_csum_ok(const struct ip_header *ip)
{
    uint32_t w[5];
    uint64_t sum;

    memcpy(w, ip, sizeof w);
    sum = (uint64_t) w[0] + w[1] + w[2] + w[3] + w[4];
    sum = (sum & 0xffffffff) + (sum >> 32);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return sum == 0xffff;
}

/* The pop of a packet whose headers the caller has already parsed and
 * checked (the tunnel termination cache's one lookup,
 * dpif-netdev-iptun-term.h): an Ethernet frame with an option-less,
 * unfragmented IPv4 header whose total length fits the frame, then, for
 * protocol 17, a UDP header whose length fits the IPv4 payload, and an
 * inner option-less IPv4 header whose total length fits what carries it,
 * 'hlen' bytes from the start.  iptun_pop_known_ok() checks what no parse
 * of the fields proves, the outer IPv4 header checksum and a nonzero UDP
 * checksum, as the pops do; iptun_pop_known() then leaves the packet and
 * its metadata as netdev_pop_header() with the ipip, fou or gue pop
 * would. */
static inline bool
iptun_pop_known_ok(const struct dp_packet *packet)
{
    const struct ip_header *outer
        = (const void *) ((const char *) dp_packet_data(packet)
                          + ETH_HEADER_LEN);

    if (!dp_packet_ip_checksum_valid(packet) && !iptun_ip_hdr_csum_ok(outer)) {
        return false;
    }
    if (outer->ip_proto == IPPROTO_UDP) {
        const struct udp_header *udp = (const void *) (outer + 1);

        return (!udp->udp_csum || dp_packet_l4_checksum_valid(packet)
                || iptun_udp_csum_ok(outer, udp, ntohs(udp->udp_len)));
    }
    return true;
}

static inline void
iptun_pop_known(struct dp_packet *packet, unsigned int hlen)
{
    const char *data = dp_packet_data(packet);
    const struct ip_header *outer = (const void *) (data + ETH_HEADER_LEN);
    const struct ip_header *inner = (const void *) (data + hlen);
    struct flow_tnl *tnl = &packet->md.tunnel;

    iptun_metadata_init(&packet->md);
    netdev_tnl_ip_set_md(tnl, outer);
    if (outer->ip_proto == IPPROTO_UDP) {
        netdev_tnl_udp_set_md(tnl, (const void *) (outer + 1));
    }
    packet->packet_type = htonl(PT_IPV4);
    /* iptun_reset_packet() without its shift of the offload flags, which
     * netdev_pop_header() resets after a pop anyway (as here). */
    dp_packet_reset_packet(packet, hlen);
    dp_packet_set_size(packet, ntohs(inner->ip_tot_len));
    dp_packet_reset_offload(packet);
    pkt_metadata_init_conn(&packet->md);
}

#endif /* netdev-native-iptun-pop.h */
