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
#ifndef DPIF_NETDEV_IPTUN_TERM_PAYOFF_H
#define DPIF_NETDEV_IPTUN_TERM_PAYOFF_H 1

/* Whether a table of the tunnel termination cache (dpif-netdev-iptun-term.h)
 * pays for its lookups: each keeps a payoff record of its lookups and hits
 * over a window, and is bypassed for a while when it hits too few. */

#include <stdbool.h>
#include <stdint.h>
#include "util.h"

/* A table that hits fewer than one lookup in IPTUN_TERM_MIN_HIT_INV over a
 * window of IPTUN_TERM_WINDOW_ENTRIES times its size (long enough for a
 * table that fits the traffic to fill first) is bypassed, neither looked up
 * nor filled, for IPTUN_TERM_BYPASS_US microseconds: with more flows than
 * entries, a lookup that misses and the entry it replaces cost more than the
 * few hits save.  Then it is tried again. */
#define IPTUN_TERM_MIN_HIT_INV 4
/* The second pass's tables must hit one lookup in this many: the
 * IPv4-in-IPv4 one, 32 times larger than the first pass's, costs more in
 * cache misses than it saves while it holds fewer than half the flows
 * (100,000 inner flows: a third of them held, decapsulation 1.9 x plain
 * forwarding in cycles with it, 1.35 x bypassed). */
#define IPTUN_TERM_INNER_MIN_HIT_INV 2
#define IPTUN_TERM_WINDOW_ENTRIES 4
#define IPTUN_TERM_BYPASS_US 1000000
/* Decapsulation in one pass has a payoff record of its own, by batches: it
 * is bypassed (two passes instead) if fewer than one batch in
 * IPTUN_TERM_MIN_HIT_INV hits the second-pass table in full over a window
 * of IPTUN_TERM_WINDOW_ENTRIES times this many batches: with far more flows
 * than the tables hold, batches that miss in part only add their lookups
 * to the recirculation's. */
#define IPTUN_TERM_ONE_PASS_BATCHES 1024

/* Whether a pass's table pays: see IPTUN_TERM_MIN_HIT_INV. */
struct iptun_term_payoff {
    uint32_t lookups;           /* In the current window. */
    uint32_t hits;              /* In the current window. */
    long long int until;        /* Bypassed until this time (us), or 0. */
};

/* True if the table whose payoff record is 'p' is bypassed at time 'now'
 * (us): see IPTUN_TERM_MIN_HIT_INV. */
static inline bool
iptun_term_payoff_bypassed(struct iptun_term_payoff *p, long long int now)
{
    if (OVS_UNLIKELY(p->until)) {
        if (now < p->until) {
            return true;
        }
        p->until = 0;
    }
    return false;
}

/* Ends the window of payoff record 'p', of a table of 'entries' entries,
 * once it has seen IPTUN_TERM_WINDOW_ENTRIES times that many lookups:
 * returns true if the table is then bypassed from time 'now' (us), because
 * it hit fewer than one lookup in 'min_hit_inv'. */
static inline bool
iptun_term_payoff_close(struct iptun_term_payoff *p, uint32_t entries,
                        uint32_t min_hit_inv, long long int now)
{
    bool bypass;

    if (OVS_LIKELY(p->lookups < IPTUN_TERM_WINDOW_ENTRIES * entries)) {
        return false;
    }
    bypass = p->hits < p->lookups / min_hit_inv;
    if (bypass) {
        p->until = now + IPTUN_TERM_BYPASS_US;
    }
    p->lookups = p->hits = 0;
    return bypass;
}

#endif /* dpif-netdev-iptun-term-payoff.h */
