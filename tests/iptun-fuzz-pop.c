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

/* libFuzzer target for the ipip, fou and gue receive paths of the userspace
 * datapath.  The input's first byte chooses the path (modulo 3: 0 ipip, 1
 * fou, 2 gue),
 * the rest is an Ethernet frame.  The frame is parsed as the datapath's first
 * pass does (flow_extract() sets the header offsets that the pop functions
 * use), goes through the reassembly step and is popped, and what a pop
 * returns is parsed again, as the second pass does. */

#include <config.h>
#include "tests/oss-fuzz/fuzzer.h"
#include "dp-packet.h"
#include "flow.h"
#include "netdev-native-iptun.h"
#include "openvswitch/vlog.h"
#include "util.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool initialized;
    struct dp_packet *packet;
    struct flow flow;
    bool kept;
    int type;

    if (!initialized) {
        /* The pop functions log every drop. */
        vlog_set_verbosity("off");
        initialized = true;
    }
    if (size < 1) {
        return 0;
    }
    type = data[0] % 3;

    packet = dp_packet_clone_data_with_headroom(data + 1, size - 1, 64);
    pkt_metadata_init(&packet->md, 1);
    flow_extract(packet, &flow);

    /* The reassembly step first, as the datapath runs it: an outer
     * fragment is kept (until its datagram is complete, expires or
     * overflows the reassembly's memory) or dropped here. */
    packet = netdev_iptun_reass(type == 0 ? IPTUN_IPIP
                                : type == 1 ? IPTUN_FOU : IPTUN_GUE,
                                packet, &kept);
    if (!packet) {
        return 0;
    }
    packet = (type == 0 ? netdev_ipip_pop_header(packet)
              : type == 1 ? netdev_fou_pop_header(packet)
              : netdev_gue_pop_header(packet));
    if (packet) {
        /* A decapsulated packet is an IPv4 packet (packet_type (1,0x800))
         * or an IPv6 one (1,0x86dd): ipip's protocol 4 or 41, fou's by the
         * inner version, gue's by its protocol or the inner version. */
        if (packet->packet_type != htonl(PT_IPV4)
            && packet->packet_type != htonl(PT_IPV6)) {
            ovs_abort(0, "decapsulated packet is not of type IPv4 or IPv6");
        }
        flow_extract(packet, &flow);
        dp_packet_delete(packet);
    }
    return 0;
}
