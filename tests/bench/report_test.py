#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of the bench report's arithmetic (tests/bench/report.py) on
made-up guest output: CPU time per I/O from /proc/stat ticks, the spread of
the rounds, the I/O goals read from the instruction-counted guest when
there is one, and the storm, login and memory goals. Runs in a
second, no guest. Output: TAP, "N passed, N failed".
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

n = failed = 0


def check(what, cond):
    global n, failed
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - {what}")
    failed += 0 if cond else 1


def fio_json(side, iops, total_ios, p50_ns=2000000):
    job = {side: {"io_bytes": 4096 * total_ios, "iops": iops, "bw_bytes": 4096 * iops, "total_ios": total_ios,
                  "clat_ns": {"percentile": {"50.000000": p50_ns, "99.000000": 2 * p50_ns}}}}
    return "fio: some warning first\n" + json.dumps({"jobs": [job]})


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


with tempfile.TemporaryDirectory() as tmp:
    # One round: 600 IOPS, 3600 I/Os; busy ticks 1000 -> 1216 of 2000 -> 2600.
    write(os.path.join(tmp, "fio_randread-4k.r1.json"), fio_json("read", 600, 3600))
    write(os.path.join(tmp, "cpu_randread-4k.r1.txt"), "1000 2000\n1216 2600\n")
    r = report.fio_run(os.path.join(tmp, "fio_randread-4k.r1.json"), "read")
    check("CPU per I/O is busy ticks (10 ms) over the I/Os: 216 ticks / 3600 = 600 us",
          r is not None and abs(r["cpu_us_per_io"] - 600.0) < 1e-9)
    check("busy share is busy over total ticks (36%)", r is not None and abs(r["cpu_busy_pct"] - 36.0) < 1e-9)
    check("median latency from fio's 50th percentile", r is not None and r["lat_median_us"] == 2000)

    # A round without its tick file still has its rate, and no CPU figure.
    write(os.path.join(tmp, "fio_randread-4k.r2.json"), fio_json("read", 606, 3636))
    r2 = report.fio_run(os.path.join(tmp, "fio_randread-4k.r2.json"), "read")
    check("a round without ticks keeps its rate and has no CPU figure",
          r2 is not None and r2["iops"] == 606 and r2["cpu_us_per_io"] is None)
    write(os.path.join(tmp, "cpu_randread-4k.r3.txt"), "1000 2000\n")
    check("a tick file with one line is no figure", report.cpu_ticks(os.path.join(tmp, "cpu_randread-4k.r3.txt")) is None)

    st = report.fio_stats(tmp, "randread-4k", "read")
    check("median over the rounds (600, 606: 603)", st is not None and st["iops"] == 603)
    check("spread is (max - min) / median (6 / 603)", st is not None and abs(st["iops_spread"] - 6 / 603) < 1e-12)
    check("the CPU figure's median is over the rounds that have one", st is not None and st["cpu_us_per_io"] == 600)

check("no spread from one value", report.spread([5.0]) is None)
check("spread ignores missing values", report.spread([10.0, None, 12.0]) == 2.0 / 11.0)


def io_data(ours, intree):
    mk = lambda v: {"fio": {key: {field: v} for key, _, _, _, field, _ in report.FIO_JOBS}}
    return {"ours": mk(ours), "intree": mk(intree), "floor": None}


def io_goals(data, icount):
    return [g for g in report.goals(data, [], icount) if g["goal"].startswith("fio ")]


wall, ic = io_data(300.0, 900.0), io_data(594.0, 601.0)
g = io_goals(wall, ic)
check("the I/O goals are read from the instruction-counted guest when there is one",
      len(g) == len(report.FIO_JOBS) and all(x["met"] and "instruction-counted" in x["goal"] for x in g))
g = io_goals(wall, None)
check("without one, from the wall-clock rounds (0.33x: missed)",
      len(g) == len(report.FIO_JOBS) and all(x["met"] is False and "wall clock" in x["goal"] for x in g))
g = io_goals(wall, io_data(560.0, 601.0))
check("a 7% deficit in the instruction-counted guest is missed", all(x["met"] is False for x in g))


def logins(lat_ms, rejected=0):
    """The test initiator's output: one established login per latency, then
    `rejected` refusals for resources, and the storm's summary line."""
    lines = [f"login={k} result=established cm_status=0 latency_us={int(v * 1000)} reason=0x0"
             for k, v in enumerate(lat_ms)]
    lines += [f"login={len(lat_ms) + k} result=rejected cm_status=28 latency_us=1000 reason=0x10001"
              for k in range(rejected)]
    span_us = int(max(lat_ms) * 1000)
    return report.login_stats(report.parse_logins("\n".join(lines + [f"summary span_us={span_us}"])))


def goal(gl, start):
    return next(x for x in gl if x["goal"].startswith(start))


# The goals: storms of 16 against the floor's, memory 0.15x.
floor = {"login_seq": logins([1, 2, 3, 4]), "login_seq_gap": logins([2, 2, 2, 2]),
         "storm": {16: logins([10] * 16)}, "mem": {"memavailable_kb_per_channel": 10000.0, "channels": 64, "counts": 1}}
ours = {"login_seq": logins([1, 2, 3, 5]), "login_seq_gap": logins([2, 2, 3, 3]),
        "storm": {16: logins([19] * 16)}, "mem": {"memavailable_kb_per_channel": 1500.0, "channels": 64, "counts": 1}}
st = ours["storm"][16]
check("a storm's logins/s is established over its span (16 in 19 ms)",
      abs(st["logins_per_s"] - 16 / 0.019) < 1e-6)
gl = report.goals({"ours": ours, "intree": floor, "floor": floor}, [16])
check("storm 16 at 0.53x the floor's logins/s, none rejected: met",
      goal(gl, "storm 16: logins/s")["met"] is True and abs(goal(gl, "storm 16: logins/s")["measured"] - 10 / 19) < 1e-9)
check("its slowest login at 1.9x the floor's: met", goal(gl, "storm 16: slowest")["met"] is True)
check("memory at exactly 0.15x in-tree meets the goal", goal(gl, "memory per live channel <= 0.15x")["met"] is True)
check("the login goals carry the middle half of both sides' logins",
      "ours 1.0-3.0 ms, floor 1.0-3.0 ms" in goal(gl, "login latency <= 1.3x the RDMA/CM floor (median, back")["note"])
ours["storm"][16] = logins([21] * 16)
ours["mem"]["memavailable_kb_per_channel"] = 1501.0
gl = report.goals({"ours": ours, "intree": floor, "floor": floor}, [16])
check("storm 16 at 0.48x the floor's logins/s: missed", goal(gl, "storm 16: logins/s")["met"] is False)
check("slowest login at 2.1x the floor's: missed", goal(gl, "storm 16: slowest")["met"] is False)
check("memory at 0.1501x in-tree: the goal missed",
      goal(gl, "memory per live channel <= 0.15x")["met"] is False)
ours["storm"][16] = logins([10] * 15, rejected=1)
gl = report.goals({"ours": ours, "intree": floor, "floor": floor}, [16])
check("a fast storm with one login rejected misses the goal", goal(gl, "storm 16: logins/s")["met"] is False)

# Phase storm's repetitions (guest.sh phase_storm): per size, the median
# over its storms, their spread, and every login of them counted.
def storm_file(path, lat_ms, rejected=0):
    lines = [f"login={k} result=established cm_status=0 latency_us={int(v * 1000)} reason=0x0"
             for k, v in enumerate(lat_ms)]
    lines += [f"login={len(lat_ms) + k} result=rejected cm_status=28 latency_us=1000 reason=0x10001"
              for k in range(rejected)]
    write(path, "\n".join(lines + [f"summary span_us={int(max(lat_ms) * 1000)}"]) + "\n")


with tempfile.TemporaryDirectory() as tmp:
    storm_file(os.path.join(tmp, "storm_16.r1.txt"), [10] * 16)   # 1600/s
    storm_file(os.path.join(tmp, "storm_16.r2.txt"), [40] * 16)   # 400/s
    storm_file(os.path.join(tmp, "storm_16.r3.txt"), [20] * 15, rejected=1)  # 750/s
    storm_file(os.path.join(tmp, "storm_64.txt"), [50] * 64)      # an older run: one storm
    write(os.path.join(tmp, "storm_256.r1.txt"), "")               # a storm with no output
    st = report.storm_stats(tmp)
    s16 = st.get(16, {})
    check("a size's logins/s is the median over its storms (400, 750, 1600: 750)",
          abs(s16.get("logins_per_s", 0) - 750) < 1e-6)
    check("and its spread is (max - min) / median (1200 / 750)",
          abs(s16.get("logins_per_s_spread", 0) - 1200 / 750) < 1e-9)
    check("the slowest login is the median of the storms' slowest (20 ms)", s16.get("slowest_us") == 20000)
    check("every login of the storms counts: 48, 47 established, 1 rejected",
          s16.get("n") == 48 and s16.get("established") == 47 and s16.get("rejected") == 1 and s16.get("reps") == 3)
    check("an older run's single storm_N.txt is one storm", st.get(64, {}).get("reps") == 1 and
          abs(st[64]["logins_per_s"] - 64 / 0.05) < 1e-6 and st[64]["logins_per_s_spread"] is None)
    check("a size whose storms had no output is left out", 256 not in st)
    fl = {"login_seq": logins([1]), "login_seq_gap": logins([1]), "storm": {16: dict(s16)}, "mem": None}
    fl["storm"][16]["logins_per_s"] = 1000.0
    gl = report.goals({"ours": {"login_seq": logins([1]), "login_seq_gap": logins([1]),
                                "storm": {16: s16}, "mem": None}, "intree": None, "floor": fl}, [16])
    g16 = goal(gl, "storm 16: logins/s")
    check("the storm goal is the ratio of the medians (0.75x) and fails on the one rejection",
          abs(g16["measured"] - 0.75) < 1e-9 and g16["met"] is False)
    check("its note says how many storms back it and their spread",
          "ours' 3 storms (spread 160%)" in g16["note"] and "the floor's 3 storms" in g16["note"])

# Phase mem's counts (guest.sh mem_count): medians, spread, the ratio's range.
def mem_file(path, before_avail, during_avail, n=64):
    write(path, f"channels={n}\nbefore_MemAvailable={before_avail}\nbefore_Slab=1000\n"
                f"before_VmallocUsed=100\nlive_rts_qps={2 * n}\nduring_MemAvailable={during_avail}\n"
                f"during_Slab=1640\nduring_VmallocUsed=164\n")


with tempfile.TemporaryDirectory() as tmp:
    for k, cost in ((1, 1100), (2, 1000), (3, 1300), (10, 1200)):
        mem_file(os.path.join(tmp, f"mem.{k}.txt"), 100000, 100000 - 64 * cost)
    write(os.path.join(tmp, "mem.9.txt"), "channels=64\nbefore_MemAvailable=1\n")  # a count that failed
    write(os.path.join(tmp, "mem.txt"), "channels=1\nbefore_MemAvailable=9\nduring_MemAvailable=0\n")
    m = report.mem_stats(tmp)
    check("the memory figure is the median of the counts, a failed one left out",
          m is not None and m["counts"] == 4 and m["memavailable_kb_per_channel"] == 1150.0)
    check("the counts are read in their order (mem.10 after mem.3)",
          [c["memavailable_kb_per_channel"] for c in m["each"]] == [1100.0, 1000.0, 1300.0, 1200.0])
    check("the spread and range of the counts", m["memavailable_kb_per_channel_spread"] == 300.0 / 1150.0 and
          m["memavailable_kb_per_channel_range"] == (1000.0, 1300.0))
    check("the other figures per channel too", m["slab_kb_per_channel"] == 10.0 and m["vmalloc_kb_per_channel"] == 1.0)
with tempfile.TemporaryDirectory() as tmp:
    mem_file(os.path.join(tmp, "mem.txt"), 100000, 100000 - 64 * 1500)
    m = report.mem_stats(tmp)
    check("an older run's single mem.txt is one count without a spread",
          m is not None and m["counts"] == 1 and m["memavailable_kb_per_channel"] == 1500.0 and
          m["memavailable_kb_per_channel_spread"] is None)
    check("no count, no figure", report.mem_stats(os.path.join(tmp, "absent")) is None)
o = {"channels": 64, "counts": 3, "memavailable_kb_per_channel": 1000.0,
     "memavailable_kb_per_channel_spread": 0.1, "memavailable_kb_per_channel_range": (950.0, 1050.0)}
i = {"channels": 64, "counts": 3, "memavailable_kb_per_channel": 10000.0,
     "memavailable_kb_per_channel_spread": 0.2, "memavailable_kb_per_channel_range": (9000.0, 11000.0)}
check("the memory goal's note gives the counts, their spread and the ratio's range",
      report.mem_note(o, i) == "1000 KiB against 10000 KiB, median of 3 and 3 counts of 64 channels; "
                              "spread 10% and 20%, ratio 0.086-0.117 over the counts")

# A sequential pass's CM counters (guest.sh seq_pass): rises, span.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "login_seq_gap.cm.txt")
    write(path, "before cm_tx_msgs/dreq=10 cm_tx_retries/dreq=3 cm_rx_duplicates/dreq=- \n"
                "after cm_tx_msgs/dreq=110 cm_tx_retries/dreq=100 cm_rx_duplicates/dreq=7 \n"
                "span_us 540000000\n")
    c = report.cm_pass(path)
    check("a pass's DREQ retries are the counter's rise (3 -> 100: 97)",
          c is not None and c["rise"].get("cm_tx_retries/dreq") == 97 and c["rise"].get("cm_tx_msgs/dreq") == 100)
    check("a counter unreadable before the pass has no rise", c is not None and "cm_rx_duplicates/dreq" not in c["rise"])
    check("the pass's span is read", c is not None and c["span_us"] == 540000000)
    check("no file, no figure", report.cm_pass(os.path.join(tmp, "absent")) is None)
    d = {"cm_seq_gap": c, "storm": {}}
    r = {name: v for name, _, _, v in report.rows({"ours": d, "intree": None, "floor": None})}
    check("the table shows the retries and the span of the pass",
          r["sequential pass (logins apart): DREQs retried"]["ours"] == 97 and
          r["sequential pass (logins apart): its span"]["ours"] == 540.0)

print(f"1..{n}")
print(f"{n - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
