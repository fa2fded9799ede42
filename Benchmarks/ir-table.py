#!/usr/bin/env python3
"""Instructions per operation of every benchmark row, ours and the peer's, as a markdown table.

    python3 Benchmarks/ir-table.py BIN [ID ...]

BIN is a release build of asyncbridge-bench without its debug information (valgrind cannot read
Swift 6's; see README.md, "Reproducing every figure"). Each side of each row runs under callgrind
at two iteration counts, one at a time; the figure is the difference of the two totals over the
difference of the counts. Rows that list one id more than once (more than one peer) run ours
that many times under `--profile`, so ours is divided by it, and their peers run one after the
other in one process, so the run is split where each later peer's function starts
(`--dump-before`). `buffer-memory-1m` measures memory and is skipped.

Rows whose threads take turns under valgrind vary a little between runs; `single-flight-1000`'s
waiting loops can spin, on either side, and give about ten times the usual count now and then:
count such a row more than once.
"""
import os
import re
import subprocess
import sys
import tempfile

# (first, second) iteration counts; the first pattern that matches the whole id wins.
ITERATIONS = [
    (r"callback-to-async|future-await", (1000, 11000)),
    (r"callback-to-async-later", (2000, 4000)),
    (r"map-filter|share-fanout", (100000, 1100000)),
    (r"values-throughput|channel-1to1", (20000, 220000)),
    (r"single-flight-1000", (2, 7)),
    (r"flatmap-latest-switch.*|flatmap-open-inners-.*", (2000, 12000)),
    (r"subject-attach-10000", (10000, 20000)),
    (r"notification-subscription", (1000, 11000)),
    (r".*-lifecycle|subject-subscribe-cancel-.*|sync-source-stop-.*|observation-.*", (1000, 3000)),
    (r".*", (10000, 110000)),
]
# Peers that would take hours at the usual counts (a source that runs to its end).
PEER_ITERATIONS = {"sync-source-stop-share-first-1000000": (1, 2)}
# Where each later peer of a row with more than one starts: its body's mangled name.
LATER_PEERS = {
    "callback-to-async-later": ["callbackToAsyncLaterCancellableyySiYaKF", "callbackToAsyncLaterHandlerOnlyyySiYaKF"],
    "map-filter": ["closureLoopMapFilteryySiYaKF"],
    "values-throughput": ["asyncChannelThroughputyySiYaKF"],
}
SKIPPED = {"buffer-memory-1m"}


def cases(binary):
    """The ids in the order `--help` lists them, and how often each is listed."""
    result = subprocess.run([binary, "--help"], capture_output=True, text=True)
    text = result.stdout + result.stderr
    listed = re.search(r"cases: (.*)", text).group(1).split(", ")
    order = []
    for case in listed:
        if case not in order:
            order.append(case)
    return order, {case: listed.count(case) for case in order}


def iterations(case, side):
    if side == "peer" and case in PEER_ITERATIONS:
        return PEER_ITERATIONS[case]
    return next(counts for pattern, counts in ITERATIONS if re.fullmatch(pattern, case))


def totals(binary, case, side, count, split, directory):
    """The instruction totals of one run: one, or one per part when split."""
    out = os.path.join(directory, f"cg.{case}.{side}.{count}")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    command += [f"--dump-before=*{name}" for name in split]
    command += [binary, "--filter", case, "--profile", side, "--iterations", str(count)]
    subprocess.run(command, capture_output=True, check=True)
    parts = sorted(f for f in os.listdir(directory) if f == os.path.basename(out) or f.startswith(os.path.basename(out) + "."))
    found = {}
    for name in parts:
        with open(os.path.join(directory, name)) as file:
            content = file.read()
        part = int(re.search(r"^part: (\d+)", content, re.M).group(1)) if split else 1
        found[part] = int(re.search(r"^totals: (\d+)", content, re.M).group(1))
        os.remove(os.path.join(directory, name))
    return [found[part] for part in sorted(found)]


def per_operation(binary, case, side, split, directory):
    first, second = iterations(case, side)
    low = totals(binary, case, side, first, split, directory)
    high = totals(binary, case, side, second, split, directory)
    return [(b - a) / (second - first) for a, b in zip(low, high)], (first, second)


def number(value):
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    order, listed = cases(binary)
    wanted = sys.argv[2:] or [case for case in order if case not in SKIPPED]
    print("| row | N | ours | peer | peer/ours |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as directory:
        for case in wanted:
            runs = listed.get(case, 1)
            ours, counts = per_operation(binary, case, "ours", [], directory)
            ours_figure = sum(ours) / runs
            peers, peer_counts = per_operation(binary, case, "peer", LATER_PEERS.get(case, []) if runs > 1 else [], directory)
            for index, peer in enumerate(peers):
                row = f"`{case}`" + (f" (peer {index + 1})" if len(peers) > 1 else "")
                shown = f"{counts[0]}/{counts[1]}" + (f" (peer {peer_counts[0]}/{peer_counts[1]})" if peer_counts != counts else "")
                print(f"| {row} | {shown} | {number(ours_figure)} | {number(peer)} | {peer / ours_figure:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
