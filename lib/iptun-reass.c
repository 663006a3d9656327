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

#include "iptun-reass.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <string.h>

#include "coverage.h"
#include "csum.h"
#include "dp-packet.h"
#include "hash.h"
#include "iptun-ports.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "openvswitch/thread.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "flow.h"
#include "ovs-thread.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "packets.h"
#include "smap.h"
#include "timeval.h"
#include "tnl-ports.h"

VLOG_DEFINE_THIS_MODULE(iptun_reass);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(60, 5);

COVERAGE_DEFINE(iptun_reass_frag);     /* Fragments taken. */
COVERAGE_DEFINE(iptun_reass_done);     /* Datagrams completed. */
COVERAGE_DEFINE(iptun_reass_timeout);  /* Datagrams expired. */
COVERAGE_DEFINE(iptun_reass_overlap);  /* Datagrams discarded: overlap. */
COVERAGE_DEFINE(iptun_reass_bad);      /* Datagrams or fragments discarded:
                                        * lengths that do not add up. */
COVERAGE_DEFINE(iptun_reass_dup);      /* Duplicate fragments dropped. */
COVERAGE_DEFINE(iptun_reass_full);     /* Fragments dropped: memory limit. */
COVERAGE_DEFINE(iptun_reass_unclaimed); /* Copies of later fragments that
                                         * are of no datagram of the port
                                         * (the host got them too). */

/* As Linux's net.ipv4.ipfrag_time and net.ipv6.ip6frag_time. */
#define REASS_TIMEOUT4_MS (30 * 1000)
#define REASS_TIMEOUT6_MS (60 * 1000)

/* As Linux's net.ipv4.ipfrag_high_thresh. */
#define REASS_DEFAULT_MAX_BYTES (4 * 1024 * 1024)

/* Largest IPv4 total length and IPv6 payload length. */
#define REASS_MAX_LEN 65535

struct reass_key {
    struct in6_addr src, dst;   /* IPv4 addresses IPv4-mapped. */
    uint32_t id;                /* Identification. */
    uint8_t proto;              /* IPv4: the protocol.  IPv6: 0. */
    uint8_t ipv6;               /* 1 for an outer IPv6 datagram. */
    uint8_t pad[2];
};

struct reass_frag {
    struct ovs_list node;       /* In 'frags' of its datagram, by 'start'. */
    struct dp_packet *pkt;
    uint32_t start, end;        /* Payload bytes [start, end). */
    uint32_t data_ofs;          /* Where they start in 'pkt''s data. */
};

struct reass_dgram {
    struct hmap_node hmap_node; /* In 'dgrams'. */
    struct ovs_list age_node;   /* In 'ages[key.ipv6]', oldest first. */
    struct reass_key key;
    long long int expires;
    struct ovs_list frags;      /* Of struct reass_frag, by 'start'. */
    uint32_t total;             /* Payload length, once the last came. */
    uint32_t have;              /* Payload bytes held. */
    size_t mem;                 /* Memory held. */
    ovs_be16 udp_port;          /* fou's: its UDP destination port, from the
                                 * first fragment.  ipip's: 0. */
};

static struct ovs_mutex mutex = OVS_MUTEX_INITIALIZER;
static struct hmap dgrams OVS_GUARDED_BY(mutex)
    = HMAP_INITIALIZER(&dgrams);
static struct ovs_list ages[2] OVS_GUARDED_BY(mutex) = {
    OVS_LIST_INITIALIZER(&ages[0]), OVS_LIST_INITIALIZER(&ages[1]),
};
static size_t mem_used OVS_GUARDED_BY(mutex);
static size_t max_bytes OVS_GUARDED_BY(mutex) = REASS_DEFAULT_MAX_BYTES;

/* Adds clone(['set'] tnl_pop('port')) to 'odp_actions'. */
static void
reass_put_clone_pop(struct ofpbuf *odp_actions, const struct flow_tnl *set,
                    odp_port_t port)
{
    size_t ofs = nl_msg_start_nested(odp_actions, OVS_ACTION_ATTR_CLONE);

    if (set) {
        odp_put_tunnel_action(set, odp_actions, "fou");
    }
    nl_msg_put_odp_port(odp_actions, OVS_ACTION_ATTR_TUNNEL_POP, port);
    nl_msg_end_nested(odp_actions, ofs);
}

void
iptun_reass_xlate_later_frag(struct ofpbuf *odp_actions,
                             const struct flow *flow,
                             struct flow_wildcards *wc)
{
    bool ipv6 = flow->dl_type == htons(ETH_TYPE_IPV6);
    struct iptun_udp_port *ports;
    struct flow f = *flow;
    odp_port_t port;
    size_t n;

    if (!(flow->nw_frag & FLOW_NW_FRAG_LATER)
        || (!ipv6 && (flow->dl_type != htons(ETH_TYPE_IP)
                      || flow->nw_proto != IPPROTO_UDP))) {
        return;
    }
    if (wc) {
        wc->masks.nw_proto = 0xff;
        wc->masks.nw_frag |= FLOW_NW_FRAG_MASK;
    }

    if (ipv6) {
        f.nw_proto = IPPROTO_IPIP;
        port = tnl_port_map_lookup(&f, wc);
        if (port != ODPP_NONE && iptun_ports_is_ipip(port)) {
            reass_put_clone_pop(odp_actions, NULL, port);
        }
    }

    /* A fou port's rule in tnl-ports matches its UDP port in unfragmented
     * packets and first fragments. */
    n = iptun_ports_udp_snapshot(&ports);
    for (size_t i = 0; i < n; i++) {
        f.nw_proto = IPPROTO_UDP;
        f.nw_frag = 0;
        f.tp_dst = ports[i].tp_port;
        if (tnl_port_map_lookup(&f, wc) == ports[i].odp_port) {
            struct flow_tnl set;

            /* Tells the reassembly step which UDP port the copy is for. */
            memset(&set, 0, sizeof set);
            if (ipv6) {
                set.ipv6_dst = flow->ipv6_dst;
            } else {
                set.ip_dst = flow->nw_dst;
            }
            set.tp_dst = ports[i].tp_port;
            reass_put_clone_pop(odp_actions, &set, ports[i].odp_port);
        }
    }
    free(ports);
}

void
iptun_reass_set_config(const struct smap *other_config)
{
    ovs_mutex_lock(&mutex);
    max_bytes = smap_get_ullong(other_config, "iptun-reass-max-bytes",
                                REASS_DEFAULT_MAX_BYTES);
    ovs_mutex_unlock(&mutex);
}

static void
reass_log(const struct reass_dgram *d, const char *why)
    OVS_REQUIRES(mutex)
{
    if (!VLOG_DROP_WARN(&rl)) {
        struct ds s = DS_EMPTY_INITIALIZER;

        ds_put_format(&s, "%s: dropping the fragments of the datagram ",
                      d->udp_port ? "fou/gue" : "ipip");
        ipv6_format_mapped(&d->key.src, &s);
        ds_put_cstr(&s, " > ");
        ipv6_format_mapped(&d->key.dst, &s);
        ds_put_format(&s, " id %"PRIu32": %s", d->key.id, why);
        VLOG_WARN("%s", ds_cstr(&s));
        ds_destroy(&s);
    }
}

/* Frees 'd' and the fragments it holds. */
static void
reass_destroy(struct reass_dgram *d)
    OVS_REQUIRES(mutex)
{
    struct reass_frag *f;

    LIST_FOR_EACH_POP (f, node, &d->frags) {
        dp_packet_delete(f->pkt);
        free(f);
    }
    mem_used -= d->mem;
    hmap_remove(&dgrams, &d->hmap_node);
    ovs_list_remove(&d->age_node);
    free(d);
}

/* Drops the datagrams whose time is up. */
static void
reass_expire(long long int now)
    OVS_REQUIRES(mutex)
{
    for (int i = 0; i < 2; i++) {
        while (!ovs_list_is_empty(&ages[i])) {
            struct reass_dgram *d = CONTAINER_OF(ovs_list_front(&ages[i]),
                                                 struct reass_dgram,
                                                 age_node);
            if (d->expires > now) {
                break;
            }
            COVERAGE_INC(iptun_reass_timeout);
            reass_log(d, "not complete in time");
            reass_destroy(d);
        }
    }
}

static struct reass_dgram *
reass_find(const struct reass_key *key, uint32_t hash)
    OVS_REQUIRES(mutex)
{
    struct reass_dgram *d;

    HMAP_FOR_EACH_WITH_HASH (d, hmap_node, hash, &dgrams) {
        if (!memcmp(&d->key, key, sizeof *key)) {
            return d;
        }
    }
    return NULL;
}

/* Where a fragment of bytes [start, end) goes among the fragments of 'd':
 * returns the fragment it goes after (the list head for the first) in
 * '*prev' and 0, EEXIST if the bytes are all held already (a duplicate, as
 * Linux's inet_frag_queue_insert() sees it: within held bytes without a
 * gap) or EINVAL if they overlap held bytes in part. */
static int
reass_place(struct reass_dgram *d, uint32_t start, uint32_t end,
            struct ovs_list **prev)
    OVS_REQUIRES(mutex)
{
    uint32_t covered = start;
    struct reass_frag *f;

    LIST_FOR_EACH (f, node, &d->frags) {
        if (f->start <= covered && f->end > covered) {
            covered = f->end;
        }
    }
    if (covered >= end) {
        return EEXIST;
    }

    *prev = &d->frags;
    LIST_FOR_EACH (f, node, &d->frags) {
        if (start < f->end && end > f->start) {
            return EINVAL;
        }
        if (f->end <= start) {
            *prev = &f->node;
        }
    }
    return 0;
}

/* Builds the complete datagram from the fragments of 'd', with the
 * metadata of 'last', the fragment that completed it.  The first fragment
 * gives the Ethernet and outer headers (of an IPv6 datagram, those before
 * its fragment header). */
static struct dp_packet *
reass_build(struct reass_dgram *d, const struct dp_packet *last)
    OVS_REQUIRES(mutex)
{
    const struct reass_frag *first = CONTAINER_OF(ovs_list_front(&d->frags),
                                                  struct reass_frag, node);
    uint32_t prefix = first->data_ofs - (d->key.ipv6 ? 8 : 0);
    uint32_t frag_ofs = prefix - first->pkt->l3_ofs;
    const struct reass_frag *f;
    struct dp_packet *pkt;
    uint8_t *l3;

    pkt = dp_packet_new_with_headroom(prefix + d->total, 128);
    dp_packet_put(pkt, dp_packet_data(first->pkt), prefix);
    LIST_FOR_EACH (f, node, &d->frags) {
        dp_packet_put(pkt, (const char *) dp_packet_data(f->pkt)
                           + f->data_ofs, f->end - f->start);
    }
    pkt->md = last->md;
    pkt->packet_type = last->packet_type;
    pkt->l2_5_ofs = first->pkt->l2_5_ofs;
    pkt->l3_ofs = first->pkt->l3_ofs;
    l3 = dp_packet_l3(pkt);

    if (!d->key.ipv6) {
        struct ip_header *ip = dp_packet_l3(pkt);
        unsigned int ihl = IP_IHL(ip->ip_ihl_ver) * 4;

        ip->ip_tot_len = htons(ihl + d->total);
        ip->ip_frag_off &= htons(IP_DONT_FRAGMENT);
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, ihl);
        pkt->l4_ofs = pkt->l3_ofs + ihl;
    } else {
        const struct ovs_16aligned_ip6_frag *fh = (const void *)
            ((const uint8_t *) dp_packet_l3(first->pkt) + frag_ofs);
        struct ovs_16aligned_ip6_hdr *ip6 = (void *) l3;
        uint8_t *nh = &ip6->ip6_nxt;

        /* The header before the fragment header names what follows it. */
        for (uint32_t ofs = IPV6_HEADER_LEN; ofs < frag_ofs;
             ofs += (l3[ofs + 1] + 1) * 8) {
            nh = &l3[ofs];
        }
        *nh = fh->ip6f_nxt;
        ip6->ip6_plen = htons(frag_ofs - IPV6_HEADER_LEN + d->total);
        pkt->l4_ofs = pkt->l3_ofs + frag_ofs;
    }
    return pkt;
}

enum iptun_reass_result
iptun_reass_add(struct dp_packet *frag, unsigned int frag_ofs,
                ovs_be16 copy_port, struct dp_packet **wholep)
{
    const uint8_t *l3 = dp_packet_l3(frag);
    /* The step trimmed 'frag' to its outer datagram: all that follows the
     * outer header's start is the datagram.  (Not dp_packet_l3_size(),
     * which would also take off the Ethernet padding that the receive
     * side's parse counted before the trim.) */
    uint32_t l3_size = dp_packet_size(frag) - frag->l3_ofs;
    uint32_t data_ofs = l3 - (const uint8_t *) dp_packet_data(frag);
    enum iptun_reass_result result = IPTUN_REASS_DROPPED;
    struct dp_packet *whole = NULL;
    struct reass_key key;
    uint32_t start, len, end, hdr_len, hash;
    struct reass_dgram *d;
    struct reass_frag *f;
    struct ovs_list *prev;
    const char *why;
    ovs_be16 udp_port = copy_port;
    uint8_t next;
    bool more;
    size_t mem;
    int error;

    memset(&key, 0, sizeof key);
    if (IP_VER(l3[0]) == 4) {
        const struct ip_header *ip = dp_packet_l3(frag);
        uint16_t off = ntohs(ip->ip_frag_off);

        hdr_len = IP_IHL(ip->ip_ihl_ver) * 4;
        if (l3_size < hdr_len) {
            goto truncated;
        }
        in6_addr_set_mapped_ipv4(&key.src, get_16aligned_be32(&ip->ip_src));
        in6_addr_set_mapped_ipv4(&key.dst, get_16aligned_be32(&ip->ip_dst));
        key.id = ntohs(ip->ip_id);
        key.proto = next = ip->ip_proto;
        start = (off & IP_FRAG_OFF_MASK) * 8;
        more = off & IP_MORE_FRAGMENTS;
        len = l3_size - hdr_len;
        /* As Linux: a fragment that is not the last one carries a multiple
         * of 8 bytes; more are cut off. */
        if (more) {
            len &= ~7u;
        }
    } else {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) l3;
        const struct ovs_16aligned_ip6_frag *fh = (const void *)
            (l3 + frag_ofs);

        if (l3_size < frag_ofs + sizeof *fh) {
            goto truncated;
        }
        /* What the payload length counts before the fragmentable part. */
        hdr_len = frag_ofs - IPV6_HEADER_LEN;
        memcpy(&key.src, &ip6->ip6_src, sizeof key.src);
        memcpy(&key.dst, &ip6->ip6_dst, sizeof key.dst);
        key.id = ntohl(get_16aligned_be32(&fh->ip6f_ident));
        key.ipv6 = 1;
        start = ntohs(fh->ip6f_offlg & IP6F_OFF_MASK);
        more = !!(fh->ip6f_offlg & IP6F_MORE_FRAG);
        len = l3_size - frag_ofs - 8;
        next = fh->ip6f_nxt;
    }
    data_ofs += key.ipv6 ? frag_ofs + 8 : hdr_len;
    if (!start) {
        /* A first fragment says whose datagram it is: a fou one names its
         * UDP port. */
        const struct udp_header *udp = (const void *)
            ((const uint8_t *) dp_packet_data(frag) + data_ofs);

        udp_port = next == IPPROTO_UDP && len >= UDP_HEADER_LEN
                   ? udp->udp_dst : 0;
    }
    end = start + len;
    hash = hash_bytes(&key, sizeof key, 0);
    mem = dp_packet_get_allocated(frag) + sizeof *f;

    ovs_mutex_lock(&mutex);
    reass_expire(time_msec());
    COVERAGE_INC(iptun_reass_frag);

    d = reass_find(&key, hash);
    if (d ? d->udp_port != udp_port
          : start && (key.ipv6 || key.proto == IPPROTO_UDP)) {
        /* A copy of a later fragment that the host gets too (see
         * iptun_reass_xlate_later_frag()): not ours unless its datagram's
         * first fragment came through this port's pop before. */
        COVERAGE_INC(iptun_reass_unclaimed);
        result = IPTUN_REASS_KEPT;
        dp_packet_delete(frag);
        goto out;
    }
    if (!d) {
        d = xzalloc(sizeof *d);
        d->key = key;
        d->udp_port = udp_port;
        d->total = UINT32_MAX;
        d->expires = time_msec() + (key.ipv6 ? REASS_TIMEOUT6_MS
                                             : REASS_TIMEOUT4_MS);
        ovs_list_init(&d->frags);
        hmap_insert(&dgrams, &d->hmap_node, hash);
        ovs_list_push_back(&ages[key.ipv6], &d->age_node);
    }

    /* As Linux's ip_frag_queue() and ip6_frag_queue(): lengths that cannot
     * belong to one datagram discard it. */
    if ((key.ipv6 && more && len % 8) || (more && !len)) {
        why = "a fragment that is not the last one has a length that is "
              "not a nonzero multiple of 8";
        goto bad;
    }
    if (hdr_len + end > REASS_MAX_LEN) {
        why = "longer than 65,535 bytes";
        goto bad;
    }
    if (!more) {
        const struct reass_frag *tail = ovs_list_is_empty(&d->frags)
            ? NULL : CONTAINER_OF(ovs_list_back(&d->frags),
                                  struct reass_frag, node);
        if ((d->total != UINT32_MAX && d->total != end)
            || (tail && tail->end > end)) {
            why = "two last fragments, or bytes after the last";
            goto bad;
        }
    } else if (d->total != UINT32_MAX && end > d->total) {
        why = "bytes after the last fragment";
        goto bad;
    }

    error = reass_place(d, start, end, &prev);
    if (error == EEXIST) {
        COVERAGE_INC(iptun_reass_dup);
        dp_packet_delete(frag);
        goto out;
    } else if (error) {
        COVERAGE_INC(iptun_reass_overlap);
        reass_log(d, "overlapping fragments");
        dp_packet_delete(frag);
        reass_destroy(d);
        goto out;
    }
    if (mem_used + mem > max_bytes) {
        COVERAGE_INC(iptun_reass_full);
        VLOG_WARN_RL(&rl, "%s: dropping a fragment: fragments waiting for "
                     "reassembly hold %"PRIuSIZE" bytes, "
                     "other_config:iptun-reass-max-bytes is %"PRIuSIZE,
                     udp_port ? "fou/gue" : "ipip", mem_used, max_bytes);
        dp_packet_delete(frag);
        if (ovs_list_is_empty(&d->frags)) {
            reass_destroy(d);
        }
        goto out;
    }

    f = xmalloc(sizeof *f);
    f->pkt = frag;
    f->start = start;
    f->end = end;
    f->data_ofs = data_ofs;
    ovs_list_insert(prev->next, &f->node);
    d->mem += mem;
    mem_used += mem;
    d->have += len;
    if (!more) {
        d->total = end;
    }

    if (d->have == d->total) {
        /* No overlaps: as many bytes as the datagram has are all of it. */
        whole = reass_build(d, frag);
        COVERAGE_INC(iptun_reass_done);
        reass_destroy(d);
        result = IPTUN_REASS_DONE;
    } else {
        result = IPTUN_REASS_KEPT;
    }
    goto out;

bad:
    COVERAGE_INC(iptun_reass_bad);
    reass_log(d, why);
    dp_packet_delete(frag);
    reass_destroy(d);
out:
    ovs_mutex_unlock(&mutex);
    *wholep = whole;
    return result;

truncated:
    /* The step checks the outer header first: not expected. */
    COVERAGE_INC(iptun_reass_bad);
    VLOG_WARN_RL(&rl, "dropping a truncated outer fragment");
    dp_packet_delete(frag);
    *wholep = NULL;
    return IPTUN_REASS_DROPPED;
}
