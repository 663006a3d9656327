# Copyright (c) 2026 The ovs-iptun authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""An os-ken (Ryu) OpenFlow 1.3 controller app for the ovs-iptun tests.

Run with "osken-manager iptun-osken-app.py".  Configured by environment:

  IPTUN_OSKEN_DIR      where to write "ready" (flows installed) and
                       "packet-ins" (one line per packet-in)
  IPTUN_OSKEN_ROUTES   "OVERLAY_DST=TUN_DST@OFPORT,..." : IPv4 packets from
                       IPTUN_OSKEN_IN_PORT to OVERLAY_DST get
                       set_field:TUN_DST->tun_ipv4_dst and go out OFPORT
  IPTUN_OSKEN_IN_PORT  the overlay's access port
  IPTUN_OSKEN_PUNTS    "OFPORT=TUN_SRC,..." : packets received on tunnel
                       port OFPORT from TUN_SRC (match tun_ipv4_src) are sent
                       to the controller

Each packet-in is logged as
  "in_port=N tun_ipv4_src=A tun_ipv4_dst=B data=HEX".
"""

import os

from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import CONFIG_DISPATCHER, MAIN_DISPATCHER
from os_ken.controller.handler import set_ev_cls
from os_ken.ofproto import ofproto_v1_3


def _pairs(name):
    value = os.environ.get(name, "")
    return [item.split("=", 1) for item in value.split(",") if item]


class IptunApp(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_3.OFP_VERSION]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.dir = os.environ["IPTUN_OSKEN_DIR"]

    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def features(self, ev):
        dp = ev.msg.datapath
        ofp = dp.ofproto
        parser = dp.ofproto_parser
        in_port = int(os.environ["IPTUN_OSKEN_IN_PORT"])

        def add(match, actions, priority=100):
            inst = [parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS,
                                                 actions)]
            dp.send_msg(parser.OFPFlowMod(datapath=dp, priority=priority,
                                          match=match, instructions=inst))

        dp.send_msg(parser.OFPFlowMod(datapath=dp, command=ofp.OFPFC_DELETE,
                                      table_id=ofp.OFPTT_ALL,
                                      out_port=ofp.OFPP_ANY,
                                      out_group=ofp.OFPG_ANY))
        for dst, target in _pairs("IPTUN_OSKEN_ROUTES"):
            tun_dst, port = target.split("@")
            add(parser.OFPMatch(in_port=in_port, eth_type=0x0800,
                                ipv4_dst=dst),
                [parser.OFPActionSetField(tun_ipv4_dst=tun_dst),
                 parser.OFPActionOutput(int(port))])
        for port, tun_src in _pairs("IPTUN_OSKEN_PUNTS"):
            add(parser.OFPMatch(in_port=int(port), tun_ipv4_src=tun_src),
                [parser.OFPActionOutput(ofp.OFPP_CONTROLLER,
                                        ofp.OFPCML_NO_BUFFER)])
        dp.send_msg(parser.OFPBarrierRequest(dp))

    @set_ev_cls(ofp_event.EventOFPBarrierReply, MAIN_DISPATCHER)
    def barrier(self, ev):
        with open(os.path.join(self.dir, "ready"), "w") as f:
            f.write("ready\n")

    @set_ev_cls(ofp_event.EventOFPPacketIn, MAIN_DISPATCHER)
    def packet_in(self, ev):
        msg = ev.msg
        fields = dict(msg.match.items())
        line = "in_port=%s tun_ipv4_src=%s tun_ipv4_dst=%s data=%s\n" % (
            fields.get("in_port"), fields.get("tun_ipv4_src"),
            fields.get("tun_ipv4_dst"), msg.data.hex())
        with open(os.path.join(self.dir, "packet-ins"), "a") as f:
            f.write(line)
