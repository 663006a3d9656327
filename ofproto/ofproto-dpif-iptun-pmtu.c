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

#include <config.h>

#include "ofproto-dpif-iptun-pmtu.h"

#include "dp-packet.h"
#include "flow.h"
#include "iptun-pmtu.h"
#include "netdev-vport.h"
#include "netlink.h"
#include "odp-util.h"
#include "ofproto-dpif.h"
#include "ofproto-provider.h"
#include "openvswitch/meta-flow.h"
#include "openvswitch/ofp-actions.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "packets.h"

VLOG_DEFINE_THIS_MODULE(ofproto_dpif_iptun_pmtu);

void
iptun_pmtu_check_start(struct ofpbuf *odp_actions, uint16_t mtu, int eth_len,
                       const struct flow_tnl *tnl,
                       const struct in6_addr *src, const struct in6_addr *dst,
                       const char *tnl_type, const struct uuid *ofproto_uuid,
                       ofp_port_t tnl_port, uint32_t pid,
                       struct iptun_pmtu_check *c)
{
    struct user_action_cookie cookie;
    struct flow_tnl out = *tnl;
    ovs_be32 dst4 = in6_addr_get_mapped_ipv4(dst);
    size_t gt_ofs;

    if (dst4) {
        out.ip_dst = dst4;
        out.ip_src = in6_addr_get_mapped_ipv4(src);
        out.ipv6_src = out.ipv6_dst = in6addr_any;
    } else {
        out.ip_dst = out.ip_src = 0;
        out.ipv6_dst = *dst;
        out.ipv6_src = *src;
    }

    memset(&cookie, 0, sizeof cookie);
    cookie.type = USER_ACTION_COOKIE_IPTUN_PMTU;
    cookie.ofp_in_port = tnl_port;
    cookie.ofproto_uuid = *ofproto_uuid;
    cookie.iptun_pmtu.mtu = mtu;

    c->cpl_ofs = nl_msg_start_nested(odp_actions,
                                     OVS_ACTION_ATTR_CHECK_PKT_LEN);
    nl_msg_put_u16(odp_actions, OVS_CHECK_PKT_LEN_ATTR_PKT_LEN,
                   MIN(mtu + eth_len, UINT16_MAX));
    gt_ofs = nl_msg_start_nested(odp_actions,
                                 OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER);
    if (eth_len) {
        odp_put_pop_eth_action(odp_actions);
    }
    /* The outer addresses travel with the packet to userspace: with
     * remote_ip=flow nothing else knows them. */
    odp_put_tunnel_action(&out, odp_actions, tnl_type);
    odp_put_userspace_action(pid, &cookie, sizeof cookie, ODPP_NONE, false,
                             odp_actions, NULL);
    nl_msg_end_nested(odp_actions, gt_ofs);
    c->le_ofs = nl_msg_start_nested(
        odp_actions, OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL);
}

void
iptun_pmtu_check_end(struct ofpbuf *odp_actions,
                     const struct iptun_pmtu_check *c)
{
    nl_msg_end_nested(odp_actions, c->le_ofs);
    nl_msg_end_nested(odp_actions, c->cpl_ofs);
}

/* Runs 'packet', whose flow is 'flow', through the OpenFlow actions
 * 'ofpacts' in 'ofproto', ending with output:'out_port'. */
static void
execute_output(struct ofproto_dpif *ofproto, const struct flow *flow,
               struct ofpbuf *ofpacts, ofp_port_t out_port,
               struct dp_packet *packet)
{
    struct ofpact_output *output = ofpact_put_OUTPUT(ofpacts);
    int error;

    output->port = out_port;
    output->max_len = 0;
    error = ofproto_dpif_execute_actions(
        ofproto, ofproto_dpif_get_tables_version(ofproto), flow, NULL,
        ofpacts->data, ofpacts->size, packet);
    if (error) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

        VLOG_WARN_RL(&rl, "%s: sending to port %"PRIu32" failed (%s)",
                     ofproto->up.name, ofp_to_u16(out_port),
                     ovs_strerror(error));
    }
}

static void
put_set_field(struct ofpbuf *ofpacts, enum mf_field_id id,
              const union mf_value *value)
{
    ofpact_put_set_field(ofpacts, mf_from_id(id), value, NULL);
}

/* Sends 'frag', a fragment of a packet too big for 'port', to 'port' with
 * the outer addresses of 'out' (as set_field actions: the translation does
 * not tunnel a packet whose tunnel metadata already names the remote). */
static void
send_fragment(struct ofproto_dpif *ofproto, ofp_port_t port,
              const struct flow_tnl *out, struct dp_packet *frag)
{
    uint64_t stub[256 / 8];
    struct ofpbuf ofpacts = OFPBUF_STUB_INITIALIZER(stub);
    union mf_value value;
    struct flow flow;

    flow_extract(frag, &flow);
    flow.in_port.ofp_port = OFPP_NONE;
    memset(&value, 0, sizeof value);
    if (out->ip_dst) {
        value.be32 = out->ip_dst;
        put_set_field(&ofpacts, MFF_TUN_DST, &value);
        if (out->ip_src) {
            value.be32 = out->ip_src;
            put_set_field(&ofpacts, MFF_TUN_SRC, &value);
        }
    } else {
        value.ipv6 = out->ipv6_dst;
        put_set_field(&ofpacts, MFF_TUN_IPV6_DST, &value);
        if (ipv6_addr_is_set(&out->ipv6_src)) {
            value.ipv6 = out->ipv6_src;
            put_set_field(&ofpacts, MFF_TUN_IPV6_SRC, &value);
        }
    }
    execute_output(ofproto, &flow, &ofpacts, port, frag);
    ofpbuf_uninit(&ofpacts);
}

/* Sends 'icmp' to the OpenFlow tables as if the remote end of the tunnel
 * had sent it through 'ofport': the tunnel metadata of 'out', the packet's
 * way out, with source and destination swapped (as the kernel module).
 * The port does not count it as received: Open vSwitch made it (Linux's
 * tunnels send their ICMP errors from the host, not from the tunnel). */
static void
reply(struct ofproto_dpif *ofproto, const struct ofport *ofport,
      const struct flow_tnl *out, struct dp_packet *icmp)
{
    uint64_t size = dp_packet_size(icmp);
    struct flow flow;

    flow_extract(icmp, &flow);
    memset(&flow.tunnel, 0, sizeof flow.tunnel);
    if (out->ip_dst) {
        flow.tunnel.ip_src = out->ip_dst;
        flow.tunnel.ip_dst = out->ip_src;
    } else {
        flow.tunnel.ipv6_src = out->ipv6_dst;
        flow.tunnel.ipv6_dst = out->ipv6_src;
    }
    flow.tunnel.ip_ttl = out->ip_ttl;
    flow.tunnel.tp_dst = out->tp_dst;
    flow.tunnel.flags = out->flags & FLOW_TNL_F_CSUM;
    flow.in_port.ofp_port = ofport->ofp_port;

    uint64_t stub[64 / 8];
    struct ofpbuf ofpacts = OFPBUF_STUB_INITIALIZER(stub);

    execute_output(ofproto, &flow, &ofpacts, OFPP_TABLE, icmp);
    ofpbuf_uninit(&ofpacts);
    netdev_vport_rx_generated(ofport->netdev, 1, size);
}

void
iptun_pmtu_upcall(struct ofproto_dpif *ofproto,
                  const struct user_action_cookie *cookie,
                  const struct dp_packet *packet, const struct flow *flow)
{
    ofp_port_t port = cookie->ofp_in_port;
    uint16_t mtu = cookie->iptun_pmtu.mtu;
    struct ofport *ofport = ofproto_get_port(&ofproto->up, port);
    enum iptun_pmtu_verdict verdict;
    uint16_t announce;
    /* What the datapath flow's statistics counted as sent on the port: the
     * packet as it came to the tunnel port, with the Ethernet header that
     * the check's "greater" branch popped. */
    uint64_t bytes = dp_packet_size(packet) + ETH_HEADER_LEN;

    if (!ofport) {
        return;
    }

    verdict = iptun_pmtu_classify(flow, packet, mtu, &announce);
    VLOG_DBG("port %"PRIu32": %"PRIu32"-byte packet too big for MTU %"
             PRIu16": verdict %d", ofp_to_u16(port), dp_packet_size(packet),
             mtu, verdict);
    if (verdict == IPTUN_PMTU_FRAGMENT) {
        struct dp_packet_batch frags;

        dp_packet_batch_init(&frags);
        if (iptun_pmtu_fragment(packet, mtu, &frags)) {
            struct dp_packet *frag;

            /* The fragments count themselves as they go. */
            netdev_vport_tx_unsent(ofport->netdev, 1, bytes, false);
            DP_PACKET_BATCH_FOR_EACH (i, frag, &frags) {
                send_fragment(ofproto, port, &flow->tunnel, frag);
            }
            dp_packet_delete_batch(&frags, true);
            dp_packet_batch_destroy(&frags);
            return;
        }
        verdict = IPTUN_PMTU_DROP;
    }

    netdev_vport_tx_unsent(ofport->netdev, 1, bytes, true);
    if (verdict == IPTUN_PMTU_ICMP) {
        struct dp_packet *icmp = iptun_pmtu_icmp(packet, announce);

        if (icmp) {
            reply(ofproto, ofport, &flow->tunnel, icmp);
            dp_packet_delete(icmp);
        }
    }
}
