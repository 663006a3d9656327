#! /usr/bin/python3
# ovs-iptun-bench-report.py: the report of "make bench".
#
#   ovs-iptun-bench-report.py RESULTS.CSV MEGAFLOWS.TXT [PLOT.PNG]
#
# RESULTS.CSV has one line per measurement (utilities/ovs-iptun-bench.sh):
#   build,scenario,flows,size,round,cycles_per_pkt,kpps,passes,upcalls,rx,tx
#   [,insn_per_pkt]
# where build is "ours" (all scenarios) or, for the baseline rounds,
# "ours-base" and "stock-base" (the scenarios the stock build can run, no
# port of ours); scenario
# "decapnc-TYPE" is "decap-TYPE" without the tunnel termination cache,
# "decap2l-TYPE" "decap-TYPE" in one pass with a lookup for each (no one
# lookup), "decap2p-TYPE" "decap-TYPE" with the cache in two passes (no one
# pass),
# "encapnp-TYPE" "encap-TYPE" without the path MTU length check, and
# insn_per_pkt (IPTUN_BENCH_INSN=yes runs only) the instructions per packet
# that callgrind counted.
# Prints the median cycles/packet and Mpps per scenario, the ratios the
# issue sets targets for (with "met" or "MISSED"), the outer megaflow counts
# of the 10,000-flow scenarios, and draws the cycles/packet chart with
# gnuplot when PLOT.PNG is given.  With instruction counts, also the median
# instructions/packet, the spread of the rounds and the same ratios on
# instructions; the chart then shows instructions.  With SCALE.CSV beside
# RESULTS.CSV (utilities/ovs-iptun-bench.sh), the scale table of the
# measurements with 50,000 flows or more or several remotes (flows
# REMOTESxFLOWS).

import collections
import os
import statistics
import subprocess
import sys
import tempfile

TYPES = ["ipip", "fou", "fou-csum", "gue", "gre", "vxlan", "geneve",
         "ipip-6in4", "gre-6in4", "ipip-4in6", "gre-4in6", "fou-4in6",
         "vxlan-4in6", "geneve-4in6", "ipip-6in6", "gre-6in6",
         "ipip-flow", "fou-flow", "gue-flow"]
# The tunnel each of ours is compared with: same inner and outer families.
REFERENCE = {"ipip": "gre", "fou": "vxlan", "gue": "vxlan",
             "ipip-6in4": "gre-6in4",
             "ipip-4in6": "gre-4in6", "fou-4in6": "vxlan-4in6",
             "ipip-6in6": "gre-6in6"}
OURS = ("ipip", "fou", "fou-csum", "gue")


def nflows(flows):
    """The number of inner flows of a flows column (REMOTESxFLOWS or
    FLOWS)."""
    remotes, _, n = flows.rpartition("x")
    return int(remotes or 1) * int(n)


def nflows_of(combo):
    return nflows(combo[0])


def plain_of(t):
    """The plain forwarding scenario of tunnel type t's inner family."""
    return "plain6" if "-6in" in t else "plain"


# Indexes of the per-scenario statistics that load() returns.
CYC, KPPS, PASSES, N, SPREAD, CYC_MIN, INSN, INSN_SPREAD = range(8)


def spread(vals):
    """(max - min) / median of vals."""
    return (max(vals) - min(vals)) / statistics.median(vals)


def load(path):
    runs = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            fields = line.strip().split(",")
            b, scen, flows, size, _, cyc, kpps, passes, upcalls = fields[:9]
            insn = fields[11] if len(fields) > 11 and fields[11] else None
            runs[(b, scen, flows, int(size))].append(
                (float(cyc), float(kpps), float(passes or 0),
                 float(insn) if insn is not None else None))
    med = {}
    for key, vals in runs.items():
        cyc = [v[0] for v in vals]
        insn = [v[3] for v in vals if v[3] is not None]
        med[key] = (statistics.median(cyc),
                    statistics.median(v[1] for v in vals),
                    statistics.median(v[2] for v in vals), len(vals),
                    spread(cyc), min(cyc),
                    statistics.median(insn) if insn else None,
                    spread(insn) if insn else None)
    return med


def megaflows(path):
    """Outer megaflows (tnl_pop or tnl_push) per scenario."""
    counts = {}
    key = None
    with open(path) as f:
        for line in f:
            if line.startswith("== "):
                w = line.split()
                key = (w[1], w[2], w[3], int(w[5]))
                counts[key] = [0, 0]
            elif key and "actions:" in line:
                counts[key][0] += 1
                if "tnl_pop" in line or "tnl_push" in line:
                    counts[key][1] += 1
    return counts


def main():
    med = load(sys.argv[1])
    mf = megaflows(sys.argv[2])
    combos = sorted({(k[2], k[3]) for k in med},
                    key=lambda c: (nflows(c[0]), c))
    scens = ["plain", "plain6"] + ["%s-%s" % (d, t)
                                   for d in ("encap", "decap")
                                   for t in TYPES]
    scens += ["decap2l-%s" % t for t in TYPES]
    scens += ["decap2p-%s" % t for t in TYPES]
    scens += ["decapnc-%s" % t for t in TYPES]
    scens += ["encapnp-%s" % t for t in TYPES]
    scens = [s for s in scens if any(("ours", s) + c in med for c in combos)]

    def get(scen, c, build="ours", stat=CYC):
        v = med.get((build, scen) + c)
        return v[stat] if v else None

    insn = any(v[INSN] is not None for v in med.values())
    under = " (under valgrind)" if insn else ""
    rows = [("ours", s) for s in scens]
    base = [s for s in scens
            if any(("stock-base", s) + c in med for c in combos)]
    for s in base:
        rows += [("ours-base", s), ("stock-base", s)]
    tables = [("cycles/packet (median) and Mpps, one PMD thread" + under,
               CYC),
              ("cycles/packet, the lowest of the rounds" + under, CYC_MIN)]
    if insn:
        tables[:0] = [("instructions/packet (median; spread of the rounds, "
                       "(max - min) / median)", INSN)]
    for title, stat in tables:
        print(title)
        print("%-20s" % "scenario" + "".join(
            "%20s" % ("%s flows %d B" % c) for c in combos))
        for b, s in rows:
            cells = []
            for c in combos:
                v = med.get((b, s) + c)
                if not v or v[stat] is None:
                    cells.append("%20s" % "-")
                elif stat == CYC:
                    cells.append("%20s" % ("%.0f  %.2f" % (v[0], v[1] / 1000)))
                elif stat == INSN:
                    cells.append("%20s" % ("%.1f  %.3f%%"
                                           % (v[INSN], 100 * v[INSN_SPREAD])))
                else:
                    cells.append("%20.0f" % v[stat])
            name = {"ours": s, "ours-base": s + " (base)",
                    "stock-base": s + " (stock)"}[b]
            print("%-20s" % name + "".join(cells))
        print()
    rounds = max(v[N] for v in med.values())
    for name, stat, fmt in ((", cycles" + under if insn else "", SPREAD,
                             "%.0f"),
                            (", instructions", INSN_SPREAD, "%.3f")):
        spreads = sorted(v[stat] for v in med.values()
                         if v[N] > 1 and v[stat] is not None)
        if spreads:
            print(("spread of a scenario's rounds, (max - min) / median%s: "
                   "median " + fmt + " %%, largest " + fmt + " %% (%d rounds)")
                  % (name, 100 * statistics.median(spreads),
                     100 * spreads[-1], rounds))

    checks = []
    for t, ref in REFERENCE.items():
        enc_max, dec_max = 1.00, 0.90
        checks.append(("encap-%s / encap-%s" % (t, ref), "encap-" + t,
                       "encap-" + ref, "ours", enc_max))
        checks.append(("decap-%s / decap-%s" % (t, ref), "decap-" + t,
                       "decap-" + ref, "ours", dec_max))
    for d in ("encap", "decap"):
        checks.append(("%s-fou-csum / %s-fou" % (d, d), d + "-fou-csum",
                       d + "-fou", "ours", 1.30))
    for t in TYPES:
        plain = plain_of(t)
        checks.append(("encap-%s / %s" % (t, plain), "encap-" + t, plain,
                       "ours", 1.10 if t in OURS else None))
        checks.append(("decap-%s / %s" % (t, plain), "decap-" + t, plain,
                       "ours", 1.20 if t in OURS else None))
    for t in TYPES:
        if t.split("-")[0] in ("ipip", "fou", "gue"):
            checks.append(("decap-%s / decap2l-%s" % (t, t), "decap-" + t,
                           "decap2l-" + t, "ours", None))
            checks.append(("decap-%s / decap2p-%s" % (t, t), "decap-" + t,
                           "decap2p-" + t, "ours", None))
            checks.append(("decap-%s / decapnc-%s" % (t, t), "decap-" + t,
                           "decapnc-" + t, "ours", None))
            checks.append(("encap-%s / encapnp-%s" % (t, t), "encap-" + t,
                           "encapnp-" + t, "ours", 1.02))
    # The feature unused: ours / stock, on instructions (cycles cannot
    # resolve it).
    for s in base:
        checks.append(("%s ours / stock" % s, s, s, "stock-base", 1.005))
    missed = missed_insn = 0
    tables = [("ratios of medians (target)" + under, CYC),
              ("ratios of the lowest values (target)" + under, CYC_MIN)]
    if insn:
        tables[:0] = [("ratios of medians, instructions/packet (target)",
                       INSN)]
    for title, stat in tables:
        print()
        print(title)
        print("%-38s" % "ratio" + "".join("%20s" % ("%s flows %d B" % c)
                                          for c in combos) + "   target")
        n = ratio_table(checks, combos, get, stat)
        if stat == CYC:
            missed = n
        elif stat == INSN:
            missed_insn = n

    print()
    print("outer megaflows with the most inner flows (target <= 2)")
    for key in sorted(mf):
        b, s, flows, size = key
        if (b == "ours" and flows == max(combos, key=nflows_of)[0]
                and s != "plain"):
            print("  %-20s %5s flows %3d B: %d outer (%d datapath flows)"
                  % (s, flows, size, mf[key][1], mf[key][0]))

    scale_table(os.path.join(os.path.dirname(sys.argv[1]), "scale.csv"),
                med)

    if len(sys.argv) > 3:
        plot(sys.argv[3], med, scens, combos,
             "plain" in base, INSN if insn else CYC)
        print()
        print("chart: %s%s" % (sys.argv[3], " (instructions/packet)"
                               if insn else ""))
    print()
    print("%d target(s) missed (ratios of medians%s)" % (missed, under))
    if insn:
        print("%d target(s) missed (ratios of medians, instructions)"
              % missed_insn)


def scale_table(path, med):
    """Prints, for the measurements of ours with 50,000 flows or more or
    with several remotes, the medians of the rounds' scale.csv readings
    beside cycles and instructions per packet."""
    runs = collections.defaultdict(list)
    if not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            fields = line.strip().split(",")
            b, scen, flows, size = fields[:4]
            if b == "ours" and (nflows(flows) >= 50000 or "x" in flows):
                runs[(b, scen, flows, int(size))].append(
                    [float(x or "nan") for x in fields[5:11]])
    if not runs:
        return
    print()
    print("scale: datapath flows and upcalls (from the port's first packet), "
          "revalidator CPU")
    print("(% of one CPU, in the window), ovs-vswitchd resident memory "
          "and the largest growth from")
    print("before the port's first packet in a round, revalidator dump "
          "duration; medians of the rounds")
    print("%-18s %9s %4s %9s %8s %7s %8s %7s %7s %7s %8s"
          % ("scenario", "flows", "B", "megaflows", "upcalls", "reval%",
             "RSS MB", "+MB", "dump ms", "cyc/pkt", "insn/pkt"))
    for key in sorted(runs, key=lambda k: (nflows(k[2]), k[2], k[3],
                                           k[1])):
        m = [statistics.median(v[i] for v in runs[key]) for i in range(5)]
        m.append(max(v[5] for v in runs[key]))
        v = med.get(key)
        print("%-18s %9s %4d %9.0f %8.0f %7.1f %8.1f %7.1f %7.0f %7s %8s"
              % (key[1], key[2], key[3], m[0], m[1], m[2], m[3] / 1024,
                 m[5] / 1024, m[4], "%.0f" % v[CYC] if v else "-",
                 "%.1f" % v[INSN] if v and v[INSN] is not None else "-"))


def ratio_table(checks, combos, get, stat):
    """Prints one ratio table; returns the number of targets missed."""
    missed = 0
    for name, a, b, bbuild, limit in checks:
        cells, ok = [], True
        if bbuild == "stock-base" and stat != INSN:
            limit = None
        for c in combos:
            x = get(a, c, "ours-base" if bbuild == "stock-base" else "ours",
                    stat)
            y = get(b, c, bbuild, stat)
            if x is None or y is None:
                cells.append("%20s" % "-")
                continue
            r = x / y
            if limit is not None and r > limit:
                ok = False
            cells.append("%20.4f" % r if bbuild == "stock-base"
                         else "%20.3f" % r)
        if all(c.strip() == "-" for c in cells):
            continue
        if bbuild == "stock-base" and limit is None:
            target = "(instructions decide)"
        elif limit is not None:
            target = "<= %s" % ("%.2f" % limit if round(limit, 2) == limit
                                else "%.3f" % limit)
        elif b.startswith("decapnc-"):
            target = "(cache on / off)"
        elif b.startswith("decap2l-"):
            target = "(one lookup / two)"
        elif b.startswith("decap2p-"):
            target = "(one pass / two)"
        elif a.endswith("-flow"):
            target = "(flow-based port)"
        else:
            target = "(stock tunnel, for reference)"
        verdict = "" if target.startswith("(") else (
            "  met" if ok else "  MISSED")
        if verdict == "  MISSED":
            missed += 1
        print("%-38s" % name + "".join(cells) + "   " + target + verdict)
    return missed


def plot(png, med, scens, combos, stock, stat=CYC):
    names = [("ours", s) for s in scens]
    if stock:
        names[1:1] = [("ours-base", "plain"), ("stock-base", "plain")]
    with tempfile.NamedTemporaryFile("w", suffix=".dat",
                                     delete=False) as f:
        for b, s in names:
            label = {"ours": s, "ours-base": "plain-baseline",
                     "stock-base": "plain-stock"}[b]
            vals = [med.get((b, s) + c) for c in combos]
            f.write('"%s" %s\n' % (label, " ".join(
                "%.1f" % v[stat] if v and v[stat] is not None else "NaN"
                for v in vals)))
        data = f.name
    cols = ", ".join(
        "'%s' using %d:xtic(1) title '%s flows, %d B'"
        % (data if i == 0 else "", i + 2, c[0], c[1])
        for i, c in enumerate(combos))
    script = """
set terminal pngcairo size 1400,600
set rmargin 8
set output '%s'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel '%s'
set xtics rotate by -40
set key top left
set grid ytics
plot %s
""" % (png, "instructions per packet (median, callgrind)" if stat == INSN
       else "cycles per packet (median, one PMD)", cols)
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.unlink(data)


if __name__ == "__main__":
    main()
