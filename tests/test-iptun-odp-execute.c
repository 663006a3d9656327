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
 * sizes left in the batch.  The netdev-dummy ports of
 * the unit tests receive one packet per batch, so this is where the batch
 * handling of actions such as check_pkt_len is seen. */

#include <config.h>
#include <stdio.h>
#include <string.h>

#include "dp-packet.h"
#include "odp-execute.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "ovstest.h"
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
    ofpbuf_uninit(&actions);
}

OVSTEST_REGISTER("test-iptun-odp-execute", test_iptun_odp_execute_main);
