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

/* "ovstest test-iptun-odp-execute ACTIONS STEAL SIZE...": runs the datapath
 * actions ACTIONS (odp_actions_from_string() syntax) with
 * odp_execute_actions() on one batch of packets of the given sizes, 'steal'
 * as STEAL ("steal" or "keep"), and prints each call the datapath would get
 * (an output, a userspace action) with the sizes of the packets of that
 * call's batch, and "(trunc)" if the batch is to be truncated, then the
 * sizes left in the batch: the batch handling of actions such as
 * check_pkt_len, call by call, which a netdev-dummy port (one packet per
 * batch, or options:rx_batch packets) shows only in its outputs. */

#include <config.h>
#include <stdio.h>
#include <string.h>

#include "dp-packet.h"
#include "odp-execute.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "ovstest.h"
#include "packets.h"
#include "util.h"

static void
print_sizes(const char *what, const struct dp_packet_batch *batch)
{
    struct dp_packet *packet;

    printf("%s:", what);
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        printf(" %"PRIu32, dp_packet_size(packet));
    }
    printf("\n");
}

static void
record_action(void *dp OVS_UNUSED, struct dp_packet_batch *batch,
              const struct nlattr *action, bool should_steal)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    format_odp_actions(&s, action, action->nla_len, NULL);
    if (batch->trunc) {
        ds_put_cstr(&s, " (trunc)");
    }
    print_sizes(ds_cstr(&s), batch);
    ds_destroy(&s);
    dp_packet_delete_batch(batch, should_steal);
}

static void
test_iptun_odp_execute_main(int argc, char *argv[])
{
    struct dp_packet_batch batch;
    struct ofpbuf actions;
    bool steal;

    if (argc < 4) {
        ovs_fatal(0, "usage: %s ACTIONS steal|keep SIZE...", argv[0]);
    }
    ofpbuf_init(&actions, 0);
    if (odp_actions_from_string(argv[1], NULL, &actions)) {
        ovs_fatal(0, "%s: cannot parse the actions", argv[1]);
    }
    steal = !strcmp(argv[2], "steal");

    dp_packet_batch_init(&batch);
    for (int i = 3; i < argc && i - 3 < NETDEV_MAX_BURST; i++) {
        struct dp_packet *packet = dp_packet_new(0);

        dp_packet_put_zeros(packet, atoi(argv[i]));
        dp_packet_batch_add(&batch, packet);
    }

    odp_execute_actions(NULL, &batch, steal, actions.data, actions.size,
                        record_action);
    if (!steal) {
        print_sizes("left", &batch);
        dp_packet_delete_batch(&batch, true);
    }
    dp_packet_batch_destroy(&batch);
    ofpbuf_uninit(&actions);
}

OVSTEST_REGISTER("test-iptun-odp-execute", test_iptun_odp_execute_main);

/* test-iptun-push-eth HEADROOM...: push_eth() on the same IPv4 packet (layer
 * offsets set, or, with a "-" before the headroom, unset) with each
 * HEADROOM bytes in front of it; prints the frame, the packet type and the
 * layer offsets, which must be the same whether push_eth() has the room
 * (its inline path) or must make it. */
static void
test_iptun_push_eth_main(int argc, char *argv[])
{
    static const uint8_t ip[] = {
        0x45, 0x00, 0x00, 0x1c, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11,
        0xf8, 0xaa, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
        0x04, 0xd2, 0x16, 0x2e, 0x00, 0x08, 0x00, 0x00,
    };
    const struct eth_addr dst = ETH_ADDR_C(50, 54, 00, 00, 00, 07);
    const struct eth_addr src = ETH_ADDR_C(aa, 55, aa, 55, 00, 01);

    for (int i = 1; i < argc; i++) {
        bool offsets = argv[i][0] != '-';
        size_t headroom = atoi(argv[i] + !offsets);
        struct dp_packet *packet = dp_packet_new_with_headroom(sizeof ip,
                                                               headroom);
        struct ds s = DS_EMPTY_INITIALIZER;

        dp_packet_put(packet, ip, sizeof ip);
        packet->packet_type = htonl(PT_IPV4);
        dp_packet_reset_offsets(packet);
        if (offsets) {
            packet->l2_5_ofs = 0;
            packet->l3_ofs = 0;
            packet->l4_ofs = IP_HEADER_LEN;
        }
        push_eth(packet, &dst, &src);
        ds_put_hex(&s, dp_packet_data(packet), dp_packet_size(packet));
        printf("%s %s type=%#"PRIx32" l2_5=%d l3=%d l4=%d\n", argv[i],
               ds_cstr(&s), ntohl(packet->packet_type),
               packet->l2_5_ofs == UINT16_MAX ? -1 : packet->l2_5_ofs,
               packet->l3_ofs == UINT16_MAX ? -1 : packet->l3_ofs,
               packet->l4_ofs == UINT16_MAX ? -1 : packet->l4_ofs);
        ds_destroy(&s);
        dp_packet_delete(packet);
    }
}

OVSTEST_REGISTER("test-iptun-push-eth", test_iptun_push_eth_main);
