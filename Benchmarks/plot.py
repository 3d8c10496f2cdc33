#!/usr/bin/env python3
"""Reads the raw benchmark outputs in results/ and writes results/latest.md and results/latest.png.

Inputs (written by Benchmarks/run):
  raw/*.histogram.percentiles.tsv  package-benchmark percentiles per benchmark and metric
                                   (every sample is BATCH APDUs)
                                   (card-level benchmarks DESFire-*/TON-*: every sample is CARD_BATCH operations)
  cardflow-bench.json              latency-model efficiency, multi-reader scaling, DESFire provisioning
  usb.txt                          Benchmarks/usb/run.sh output (or a note that it was skipped)
  pcsc.txt                         Benchmarks/pcsc/run.sh output (or a note that it was skipped)
"""
import argparse, glob, json, os, re

BATCH = 100  # APDUs per package-benchmark sample (StackBench.swift `batch`)
CARD_BATCH = 10  # card operations per sample of the DESFire-*/TON-* benchmarks (CardBenchmarks.swift `cardBatch`)
CARD_BENCHMARKS = ["DESFire-ReadData-Enc-32B", "DESFire-ReadData-Enc-256B", "DESFire-WriteData-Enc-32B",
                   "DESFire-WriteData-Enc-256B", "DESFire-EV2-ReadData-Full-32B", "DESFire-EV2-ReadData-Full-256B",
                   "DESFire-EV2-WriteData-Full-32B", "DESFire-EV2-WriteData-Full-256B", "TON-SignDefaultPath-32B"]
# Issue 40: DESFire EV1 and EV2 enciphered ReadData/WriteData of 32 bytes in at most 40 allocations.
CARD_MALLOC_GOALS = {name: 40 for name in CARD_BENCHMARKS if name.startswith("DESFire") and name.endswith("-32B")}
SUN_BATCH = 1000  # URLs per sample of SUN-VerifyURL-x1000 (SUNBenchmarks.swift `sunBatch`)
# Issue 40's allocation goals for the driver (per APDU): a short APDU ≤ 2, TPDU T=1 ≤ 4 short and ≤ 8 for 255 bytes.
DRIVER_MALLOC_GOALS = {"Driver-Short-5-2": 2, "Driver-Short-255-256": 2, "Driver-TPDU-5-2": 4, "Driver-TPDU-255-256": 8}
UNITS = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9, "#": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def read_percentiles(results):
    """{benchmark: {metric: {percentile: value in base units (ns or count)}}}"""
    data = {}
    pattern = re.compile(r"StackBench\.(.+)\.(wallClock|throughput|mallocCountTotal)\.histogram\.percentiles\.tsv$")
    for path in glob.glob(os.path.join(results, "raw", "*.tsv")):
        m = pattern.search(os.path.basename(path))
        if not m:
            continue
        with open(path) as f:
            lines = f.read().splitlines()
        units = re.findall(r"\(([^()]*)\)", lines[0])
        factor = UNITS.get(units[-1].strip(), 1) if units else 1
        values = {}
        for line in lines[1:]:
            p, v = line.split("\t")
            values[int(p)] = float(v) * factor
        data.setdefault(m.group(1), {})[m.group(2)] = values
    return data


def per_apdu(data, name, batch=BATCH):
    """(ns per APDU at p50, APDU/s, mallocs per APDU at p50, ns per APDU at p0) or None
    (per operation with batch=CARD_BATCH)."""
    b = data.get(name)
    if not b or "wallClock" not in b:
        return None
    ns = b["wallClock"][50] / batch
    mallocs = b.get("mallocCountTotal", {}).get(50)
    return ns, 1e9 / ns, (mallocs / batch if mallocs is not None else None), b["wallClock"][0] / batch


def parse_usb(results):
    try:
        text = open(os.path.join(results, "usb.txt")).read()
    except OSError:
        return None, "not run"
    c = re.search(r"minimal-c .*? ([\d.]+) APDU/s", text)
    f = re.search(r"cardflow .*? ([\d.]+) APDU/s", text)
    if c and f:
        return (float(f.group(1)), float(c.group(1))), ""
    return None, text.strip().splitlines()[-1] if text.strip() else "no output"


PCSC_PARTS = [("in-memory", "in memory", "pcscd + in-memory IFD handler", "CardFlow sim:iso7816 (in process)"),
              ("in-memory-1cpu", "in memory, 1 CPU", "pcscd + in-memory IFD handler, all on CPU 0",
               "CardFlow sim:iso7816, on CPU 0"),
              ("usb", "emulated USB", "pcscd + libccid, emulated USB reader", "CardFlow --reader usb, same reader"),
              ("usb-pinned", "emulated USB, pinned", "pcscd + libccid on CPU 1, the emulated bus on CPU 0",
               "CardFlow --reader usb on CPU 1")]


def parse_pcsc(results):
    """{part: (pcsc APDU/s, CardFlow APDU/s, CardFlow / pcsc ratio, details) or (None, None, None, why not)}
    for the parts in PCSC_PARTS. The ratio is the median of the rounds' ratios, not the ratio of the medians."""
    try:
        text = open(os.path.join(results, "pcsc.txt")).read()
    except OSError:
        text = ""
    last = text.strip().splitlines()[-1] if text.strip() else "not run"
    parts = {}
    for key, *_ in PCSC_PARTS:
        ok = re.search(rf"^summary {key}: pcsc-lite ([\d.]+) APDU/s, CardFlow ([\d.]+) APDU/s,"
                       rf" CardFlow / pcsc-lite ([\d.]+) \((.*)\)$", text, re.M)
        bad = re.search(rf"^summary {key}: failed: (.*)$", text, re.M)
        if ok:
            parts[key] = (float(ok.group(1)), float(ok.group(2)), float(ok.group(3)), ok.group(4))
        else:
            parts[key] = (None, None, None, bad.group(1) if bad else last)
    return parts


def fmt(x, digits=0):
    return f"{x:,.{digits}f}"


def paired_overhead_row(rows, rt, key, name, side, goal=None):
    """A paired measurement of cardflow-bench (PairedSessionOverhead) against the driver, as a
    report row with its goal (none for a measurement that only explains another): the median of
    the round ratios and the ratio of the minimums."""
    paired = next((p for p in rt.get(key, []) if p["name"] == name), None)
    if not paired:
        return
    med, mins = paired["medianRatio"] - 1, paired["ratioOfMinimums"] - 1
    rows.append(("2 session", f"{name}: time/APDU vs driver, paired, {side} (median of"
                 f" {paired['rounds']} round ratios; ratio of minimums)",
                 f"{med * 100:+.1f} %; {mins * 100:+.1f} % ({paired['sessionNanosecondsPerAPDU']:,.0f}"
                 f" vs {paired['driverNanosecondsPerAPDU']:,.0f} ns)",
                 f"≤ {goal * 100:.0f} % vs driver" if goal is not None else "",
                 ("✅" if max(med, mins) <= goal else "❌") if goal is not None else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    ap.add_argument("--command", default="Benchmarks/run")
    ap.add_argument("--date", default="")
    ap.add_argument("--machine", default="")
    args = ap.parse_args()
    data = read_percentiles(args.results)
    with open(os.path.join(args.results, "cardflow-bench.json")) as f:
        rt = json.load(f)
    rows = []  # (section, metric, value, target, verdict)

    # 1. Stack overhead
    driver = {}
    for level in ["Short", "Extended", "TPDU", "TPDU-T0", "Character", "Character-T0"]:
        for ex in ["5-2", "255-256"]:
            name = f"Driver-{level}-{ex}"
            r = per_apdu(data, name)
            if not r:
                continue
            driver[name] = r
            target, verdict = "", ""
            if name == "Driver-Short-5-2":
                target = "≥ 200,000 APDU/s"
                verdict = f"{r[1] / 200000:.2f}× {'✅' if r[1] >= 200000 else '❌'}"
            rows.append(("1 stack", f"{name}: APDU/s (p50)", fmt(r[1]), target, verdict))
            goal = DRIVER_MALLOC_GOALS.get(name)
            rows.append(("1 stack", f"{name}: mallocs/APDU (p50)", fmt(r[2], 1), f"≤ {goal}" if goal else "",
                         ("✅" if r[2] <= goal else "❌") if goal and r[2] is not None else ""))
    # Issue 40: character level within 2× of TPDU (time per APDU, the same protocol and sizes).
    for protocol in ["", "-T0"]:
        for ex in ["5-2", "255-256"]:
            character, tpdu = driver.get(f"Driver-Character{protocol}-{ex}"), driver.get(f"Driver-TPDU{protocol}-{ex}")
            if not character or not tpdu:
                continue
            ratio, ratio_min = character[0] / tpdu[0], character[3] / tpdu[3]
            rows.append(("1 stack", f"Driver-Character{protocol}-{ex} ÷ Driver-TPDU{protocol}-{ex}: time/APDU,"
                         " sequential runs (p50; p0)", f"{ratio:.2f}×; {ratio_min:.2f}×", "≤ 2×",
                         "✅" if ratio <= 2 else "❌"))
    # The driver alone, on a CCID device that answers at once (cardflow-bench, best of three runs):
    # issue 40's ≥ 1,000,000 APDU/s for the driver, without the simulated reader behind it.
    null = rt.get("driverNullDevice")
    if null:
        best = max(null["apdusPerSecondRuns"])
        runs = ", ".join(fmt(x) for x in null["apdusPerSecondRuns"])
        rows.append(("1 stack", f"{null['name']}: APDU/s, the driver on a null CCID device (best of {runs})",
                     fmt(best), "≥ 1,000,000 APDU/s", f"{best / 1e6:.2f}× {'✅' if best >= 1e6 else '❌'}"))

    # 2. Session layer
    session = {}
    for ex in ["5-2", "255-256"]:
        base = driver.get(f"Driver-Short-{ex}")
        for kind in ["Session-TraceOff", "Session-TraceOn", "Flow-TraceOff"]:
            name = f"{kind}-Short-{ex}"
            r = per_apdu(data, name)
            if not r or not base:
                continue
            session[name] = r
            overhead = r[0] / base[0] - 1
            overhead_min = r[3] / base[3] - 1  # p0: least disturbed by other load on the machine
            rows.append(("2 session", f"{name}: APDU/s (p50)", fmt(r[1]), "", ""))
            # Sequential benchmarks seconds apart: the machine's drift is in the difference; the
            # target is checked on the paired measurement below.
            rows.append(("2 session", f"{name}: time/APDU vs Driver-Short-{ex}, sequential runs (p50; p0)",
                         f"{overhead * 100:+.1f} %; {overhead_min * 100:+.1f} %", "", ""))
            # Paired (PairedSessionOverhead): issue 40's goals, a session ≤ 2 % over the driver and
            # a flow step ≤ 5 % (its flow runs as applications run one: a session opened per batch).
            paired_sets = {"Session-TraceOff": ("sessionOverheadPaired", 0.02, "session"),
                           "Flow-TraceOff": ("flowOverheadPaired", 0.05, "one-step flow of 100 APDUs")}
            if kind in paired_sets:
                key, goal, side = paired_sets[kind]
                paired_overhead_row(rows, rt, key, name, side, goal)
            rows.append(("2 session", f"{name}: mallocs/APDU (p50)", fmt(r[2], 1), "", ""))
        # One step of a running flow (no package-benchmark twin): from the end of a first step that
        # sends nothing to the end of a second step of 100 APDUs, against 100 through the driver.
        paired_overhead_row(rows, rt, "flowStepOverheadPaired", f"FlowStep-TraceOff-Short-{ex}",
                            "a step of 100 APDUs in a running flow", 0.05)
        # The rungs under a session (no goal of their own): a checked ResponseAPDU from the concrete
        # driver, then the same through `any ReaderDriver`; the session row above adds its own checks.
        paired_overhead_row(rows, rt, "typedResponsePaired", f"TypedResponse-Short-{ex}",
                            "a checked ResponseAPDU, concrete driver")
        paired_overhead_row(rows, rt, "readerDriverPaired", f"ReaderDriver-Short-{ex}",
                            "the same through any ReaderDriver")
        on, off = session.get(f"Session-TraceOn-Short-{ex}"), session.get(f"Session-TraceOff-Short-{ex}")
        if on and off:
            rows.append(("2 session", f"tracing on vs off ({ex}) (p50; p0)",
                         f"{(on[0] / off[0] - 1) * 100:+.1f} %; {(on[3] / off[3] - 1) * 100:+.1f} %", "", ""))
        # Tracing's cost paired (traced ÷ untraced session): ≤ 1.5× for 5-byte, ≤ 2× for 255-byte APDUs.
        traced = next((p for p in rt.get("tracingCostPaired", []) if p["name"] == f"Session-TraceOn-Short-{ex}"), None)
        if traced:
            goal = 1.5 if ex == "5-2" else 2.0
            med, mins = traced["medianRatio"], traced["ratioOfMinimums"]
            rows.append(("2 session", f"tracing on ÷ off ({ex}), paired (median of {traced['rounds']} round ratios;"
                         f" ratio of minimums)",
                         f"{med:.2f}×; {mins:.2f}× ({traced['sessionNanosecondsPerAPDU']:,.0f}"
                         f" vs {traced['driverNanosecondsPerAPDU']:,.0f} ns)",
                         f"≤ {goal:.1f}×", "✅" if max(med, mins) <= goal else "❌"))

    # 3. Latency model
    for case in rt["latencyModel"]:
        bound = fmt(case['modelBoundAPDUsPerSecond'])
        if "efficiencySkippedWaits" in case:
            s = case["efficiencySkippedWaits"]
            rows.append(("3 latency", f"{case['name']}: achieved / model bound, model's waits + stack's real time",
                         f"{s:.4f} ({fmt(case['skippedWaitAPDUsPerSecond'])} of {bound} APDU/s)",
                         "≥ 0.99", "✅" if s >= 0.99 else "❌"))
            w = case["readerWaitsPerAPDU"]
            rows.append(("3 latency", f"{case['name']}: reader waits per APDU", f"{w:.3f}",
                         "1", "✅" if abs(w - 1) < 0.005 else "❌"))
        e = case["efficiency"]
        rows.append(("3 latency", f"{case['name']}: achieved / model bound, wall clock",
                     f"{e:.3f} ({fmt(case['achievedAPDUsPerSecond'])} of {bound} APDU/s)",
                     "≥ 0.99", "✅" if e >= 0.99 else "❌"))
        rows.append(("3 latency", f"{case['name']}: achieved / sleep-only loop",
                     f"{case['efficiencyVsSleepOnly']:.3f} (sleep-only {fmt(case['sleepOnlyAPDUsPerSecond'])}/s)", "", ""))
        if "plainSleepAPDUsPerSecond" in case:
            p = case["plainSleepAPDUsPerSecond"]
            rows.append(("3 latency", f"{case['name']}: plain Task.sleep loop / model bound (not used by the reader)",
                         f"{p / case['modelBoundAPDUsPerSecond']:.3f} ({fmt(p)}/s)", "", ""))
        if "ccidMessagesPerAPDU" in case:
            m = case["ccidMessagesPerAPDU"]
            rows.append(("3 latency", f"{case['name']}: CCID messages per APDU (reader's counter)", f"{m:.3f}",
                         "1", "✅" if abs(m - 1) < 0.005 else "❌"))

    # 4. Scaling
    for case in rt["scaling"]:
        rows.append(("4 scaling", f"{case['name']}: T(N) / (N × T(1))",
                     f"{case['efficiency']:.3f} ({fmt(case['totalAPDUsPerSecond'])} APDU/s total)", "≈ 1", ""))

    # 5. Card level (package-benchmark); issue 40's allocation goal for DESFire's 32-byte operations.
    cards = {}
    for name in CARD_BENCHMARKS:
        r = per_apdu(data, name, CARD_BATCH)
        if not r:
            rows.append(("5 cards", f"{name}: ops/s (p50)", "not measured", "—", ""))
            continue
        cards[name] = r
        rows.append(("5 cards", f"{name}: ops/s (p50)", f"{fmt(r[1])} ({r[0] / 1000:,.1f} µs/op)", "—", ""))
        goal = CARD_MALLOC_GOALS.get(name)
        rows.append(("5 cards", f"{name}: mallocs/op (p50)", fmt(r[2], 1), f"≤ {goal}" if goal else "—",
                     ("✅" if r[2] <= goal else "❌") if goal and r[2] is not None else ""))
    # SUN verification (no card): issue 40's ≥ 100,000 URLs/s on one core.
    sun = per_apdu(data, f"SUN-VerifyURL-x{SUN_BATCH}", SUN_BATCH)
    if sun:
        rows.append(("5 cards", "SUN-VerifyURL: URLs/s (p50)", f"{fmt(sun[1])} ({sun[0] / 1000:,.2f} µs/URL)",
                     "≥ 100,000 URLs/s", f"{sun[1] / 1e5:.2f}× {'✅' if sun[1] >= 1e5 else '❌'}"))
        rows.append(("5 cards", "SUN-VerifyURL: mallocs/URL (p50)", fmt(sun[2], 1), "—", ""))
    else:
        rows.append(("5 cards", "SUN-VerifyURL: URLs/s (p50)", "not measured", "≥ 100,000 URLs/s", ""))

    # 6. DESFire provisioning flow on a modelled reader (cardflow-bench)
    prov = rt.get("provision")
    if prov:
        rows.append(("6 provision", f"{prov['name']}: APDUs (card APDUs; CCID messages)",
                     f"{prov['apdus']} ({prov['cardAPDUs']}; {prov['ccidMessages']})", "—", ""))
        rows.append(("6 provision", f"{prov['name']}: simulated wall time (median of {len(prov['wallSecondsRuns'])} runs)",
                     f"{prov['wallSeconds'] * 1000:,.1f} ms (model sum {prov['modelSeconds'] * 1000:,.1f} ms;"
                     f" zero latency {prov['zeroLatencyWallSeconds'] * 1000:,.1f} ms)", "—", ""))
    else:
        rows.append(("6 provision", "DESFire-Provision-106k", "not measured", "—", ""))

    # USB
    usb, note = parse_usb(args.results)
    if usb:
        rows.append(("usb", "CardFlow / minimal C libusb client (APDU/s, umockdev)",
                     f"{usb[0] / usb[1]:.3f} ({fmt(usb[0])} vs {fmt(usb[1])} APDU/s)", "", ""))
    else:
        rows.append(("usb", "CardFlow / minimal C libusb client", f"not measured: {note}", "", ""))

    # 7. pcsc-lite side by side (Benchmarks/pcsc/run.sh); the target: CardFlow at least as fast.
    pcsc = parse_pcsc(args.results)
    for key, title, pcsc_path, cardflow_path in PCSC_PARTS:
        p, c, ratio, detail = pcsc[key]
        if p is None:
            rows.append(("7 pcsc-lite", f"{title}: pcsc-lite vs CardFlow", f"not measured: {detail}", "", ""))
            continue
        rows.append(("7 pcsc-lite", f"{title}: {pcsc_path}: APDU/s", fmt(p), "", ""))
        rows.append(("7 pcsc-lite", f"{title}: {cardflow_path}: APDU/s", fmt(c), "", ""))
        spread = re.search(r"rounds ([\d.]+) to ([\d.]+)", detail)
        if key.startswith("usb") and spread:
            # Issue 40's goal over the emulated USB reader: 1.5x pcscd + libccid in every round.
            lowest = float(spread.group(1))
            rows.append(("7 pcsc-lite", f"{title}: CardFlow / pcsc-lite ({detail})", f"{ratio:.3f}",
                         "≥ 1.5 in every round", f"lowest {lowest:.2f}× {'✅' if lowest >= 1.5 else '❌'}"))
        else:
            rows.append(("7 pcsc-lite", f"{title}: CardFlow / pcsc-lite ({detail})", f"{ratio:.3f}",
                         "≥ 1.0", f"{ratio:.2f}× {'✅' if ratio >= 1 else '❌'}"))

    out = ["# CardFlow benchmark results", "",
           f"- Date: {args.date}", f"- Command: `{args.command}`", f"- Machine: {args.machine}",
           f"- package-benchmark samples are batches of {BATCH} APDUs; per-APDU figures are p50 / {BATCH}"
           f" (p0 / {BATCH} where noted: the least disturbed sample; this machine is shared, so wall-clock"
           " figures vary by tens of percent between runs, mallocs do not).",
           "- Metric definitions: [Benchmarks/README.md](../README.md). Chart: [latest.png](latest.png).", "",
           "| Section | Metric | Value | Target | Ratio / verdict |", "|---|---|---|---|---|"]
    out += [f"| {s} | {m} | {v} | {t} | {r} |" for s, m, v, t, r in rows]
    out += ["", "Reading the session rows: package-benchmark runs each benchmark for seconds, one after the other, and"
            " this shared VM's speed drifts by tens of percent between them, so the sequential rows show drift as much as"
            " the session's cost. The target is checked on the paired measurement (cardflow-bench): batches of 100 APDUs"
            " through the bare driver and through a `CardSession` (or a one-step flow run on the reader, its session"
            " opened and closed per batch) alternate, and each round's ratio compares two batches"
            " a millisecond apart; the median of those ratios and the ratio of the fastest batches agree within about"
            " half a percent from run to run, more when the host is busy."]
    out += ["", "Reading the latency rows: each case runs twice. First on `SkippedWaitClock`: the simulated reader's"
            " waits return at once and the clock jumps by them, so the loop's time is the model's waits plus the stack's"
            " real time (its CPU work, its hops), without this VM's timer lateness; extra round trips or polling would"
            " add waits, and the reader's wait counter must stay at one per APDU. Then on the wall clock: the"
            " simulated reader keeps the timing model's time with `PreciseClock`"
            " (a zero-tolerance sleep to 250 µs before the answer is due, then a busy-wait until it is due; timer"
            " slack 1 ns, nice −10), so it answers when the model says rather than a timer overshoot later; the sleep-only loop"
            " (the same clock's sleeps of exactly the modelled time) is the floor, the plain `Task.sleep` loop shows"
            " what the overshoot alone would cost, and the reader's message counter shows"
            " whether the stack adds round trips. The USB ratio comes from one 500-APDU run of each client under umockdev"
            " and varies strongly with machine load.", "",
            "Reading the pcsc-lite rows: pcsc-lite's figures include its client library and the socket IPC to pcscd"
            " (a daemon process); CardFlow has no daemon, `cardctl` drives the reader in process. In memory, pcsc-lite's"
            " driver answers at once while CardFlow's request still goes through its CCID driver and simulated reader"
            " and card model. CardFlow's rate is from `cardctl` processes with 1 and 1+N APDUs (the difference"
            " removes process start and session setup), in the release build. The unpinned in-memory pcsc-lite figure"
            " depends on whether the scheduler puts client and pcscd on the same CPU (cross-CPU wake-ups cost up to 4×"
            " on this VM); the 1-CPU rows pin everything to CPU 0. See Benchmarks/README.md, section 7.",
            "", "![CardFlow benchmarks](latest.png)", ""]
    with open(os.path.join(args.results, "latest.md"), "w") as f:
        f.write("\n".join(out))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(4, 2, figsize=(13, 17))
    ax = axes[0][0]
    names = list(driver) + list(session)
    rates = [(driver.get(n) or session.get(n))[1] for n in names]
    ax.barh(names, rates, color=["tab:blue"] * len(driver) + ["tab:orange"] * len(session))
    ax.axvline(200000, color="red", linestyle="--", label="target 200k (Short 5-2)")
    ax.set_xscale("log"); ax.set_xlabel("APDU/s (p50)"); ax.set_title("1-2. Stack and session throughput")
    ax.legend(fontsize=8); ax.tick_params(axis="y", labelsize=7)
    ax = axes[0][1]
    mallocs = [(driver.get(n) or session.get(n))[2] or 0 for n in names]
    ax.barh(names, mallocs, color=["tab:blue"] * len(driver) + ["tab:orange"] * len(session))
    ax.set_xlabel("mallocs per APDU (p50)"); ax.set_title("1-2. Allocations per APDU"); ax.tick_params(axis="y", labelsize=7)
    ax = axes[1][0]
    lat = rt["latencyModel"]
    labels = [c["name"].replace("Latency-", "") for c in lat]
    xs = range(len(lat))
    if all("efficiencySkippedWaits" in c for c in lat):
        ax.bar([x - 0.2 for x in xs], [c["efficiencySkippedWaits"] for c in lat], width=0.4,
               label="vs bound: model waits + stack time")
        ax.bar([x + 0.2 for x in xs], [c["efficiency"] for c in lat], width=0.4, label="vs bound: wall clock")
    else:
        ax.bar(xs, [c["efficiency"] for c in lat], label="vs model bound")
    ax.set_xticks(list(xs), labels)
    ax.plot([x + 0.2 for x in xs], [c["efficiencyVsSleepOnly"] for c in lat], "ko", label="wall clock vs sleep-only loop")
    ax.axhline(0.99, color="red", linestyle="--", label="target 0.99")
    ax.set_ylim(0.9, 1.02); ax.set_ylabel("achieved / bound"); ax.set_title("3. Latency-model efficiency (FS USB + RF)")
    ax.legend(fontsize=7, loc="lower left")
    ax = axes[1][1]
    sc = rt["scaling"]
    ax.bar([str(c["readers"]) for c in sc], [c["totalAPDUsPerSecond"] for c in sc], color="tab:green", label="total APDU/s")
    ax.set_xlabel("readers in parallel (1 ms USB)"); ax.set_ylabel("total APDU/s"); ax.set_title("4. Multi-reader scaling")
    ax2 = ax.twinx()
    ax2.plot([str(c["readers"]) for c in sc], [c["efficiency"] for c in sc], "ro-", label="efficiency")
    ax2.set_ylim(0, 1.2); ax2.set_ylabel("T(N) / (N × T(1))")
    ax = axes[2][0]
    card_names = list(cards)
    ax.barh(card_names, [cards[n][1] for n in card_names], color="tab:purple")
    ax.set_xlabel("operations/s (p50)"); ax.set_title("5. DESFire enciphered I/O, TON signing (zero latency)")
    ax.tick_params(axis="y", labelsize=7)
    ax = axes[2][1]
    ax.barh(card_names, [cards[n][2] or 0 for n in card_names], color="tab:purple")
    ax.set_xlabel("mallocs per operation (p50)"); ax.set_title("5. Allocations per operation")
    ax.tick_params(axis="y", labelsize=7)
    ax = axes[3][0]
    measured = [(title, pcsc[key]) for key, title, *_ in PCSC_PARTS if pcsc[key][0] is not None]
    if measured:
        ys = range(len(measured))
        ax.barh([y + 0.2 for y in ys], [m[1][0] for m in measured], height=0.4, color="tab:gray", label="pcsc-lite (pcscd)")
        ax.barh([y - 0.2 for y in ys], [m[1][1] for m in measured], height=0.4, color="tab:blue", label="CardFlow")
        ax.set_yticks(list(ys)); ax.set_yticklabels([m[0] for m in measured])
        for y, (_, (pv, cv, ratio, _d)) in zip(ys, measured):
            ax.text(pv, y + 0.2, f" {pv:,.0f}", va="center", fontsize=8)
            ax.text(cv, y - 0.2, f" {cv:,.0f} ({ratio:.2f}×)", va="center", fontsize=8)
        ax.set_xscale("log"); ax.set_xlim(10, 4 * max(max(m[1][0], m[1][1]) for m in measured)); ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([]); ax.set_yticks([])
    ax.set_xlabel("APDU/s (median of rounds)"); ax.set_title("7. pcsc-lite vs CardFlow, SELECT round trips")
    ax = axes[3][1]
    if usb:
        ax.barh(["minimal C libusb", "CardFlow"], [usb[1], usb[0]], color=["tab:gray", "tab:blue"])
        ax.set_xlabel("APDU/s (umockdev)")
    else:
        ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([]); ax.set_yticks([])
    ax.set_title("USB: CardFlow vs minimal C libusb client")
    if prov:
        fig.text(0.5, 0.005, f"6. DESFire provision flow, full-speed USB reader at 106 kbit/s: {prov['apdus']} APDUs,"
                 f" {prov['wallSeconds'] * 1000:,.1f} ms (timing model {prov['modelSeconds'] * 1000:,.1f} ms;"
                 f" zero latency {prov['zeroLatencyWallSeconds'] * 1000:,.1f} ms)", ha="center", va="bottom", fontsize=10)
    fig.suptitle(f"CardFlow benchmarks, {args.date}")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(os.path.join(args.results, "latest.png"), dpi=90)


if __name__ == "__main__":
    main()
