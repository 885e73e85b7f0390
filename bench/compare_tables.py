#!/usr/bin/env python3
"""Puts two aclnn_bench outputs side by side: for every case of the "Alone" table, our time before
and after, the share of the limit after and the speedup over PyTorch (next to PyTorch, FLOAT)
before and after; then, per size, the 16-bit rows' bytes/s as a share of the FLOAT row's, and the
broadcast rows' time against the same-shape row's.

    bench/compare_tables.py BEFORE.md AFTER.md > comparison.md
"""
import re
import sys


def read(path):
    """{(case, threads): {...}} from both tables of one aclnn_bench output."""
    alone, beside = {}, {}
    table = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("### Alone"):
                table = alone
            elif line.startswith("### Next to PyTorch"):
                table = beside
            elif table is not None and line.startswith("| Mse"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                table[(cells[0], cells[1])] = cells[2:]
    return alone, beside


def seconds(text):
    match = re.match(r"([0-9.]+) (us|ms)", text)
    if not match:
        return None
    return float(match.group(1)) * (1e-6 if match.group(2) == "us" else 1e-3)


def main():
    before_alone, before_beside = read(sys.argv[1])
    after_alone, after_beside = read(sys.argv[2])
    print("| case | threads | ours before | ours after | after / limit | speedup before | speedup after |")
    print("|---|---|---|---|---|---|---|")
    for key, cells in after_alone.items():
        old = before_alone.get(key)
        speed_old = before_beside.get(key, [None, None, "n/a"])[2]
        speed_new = after_beside.get(key, [None, None, "n/a"])[2]
        print(f"| {key[0]} | {key[1]} | {old[0] if old else 'n/a'} | {cells[0]} | {cells[3]} | {speed_old} | {speed_new} |")

    print("\n16-bit rows' bytes/s as a share of the FLOAT row's (after):\n")
    print("| case | threads | FLOAT16 | BF16 |\n|---|---|---|---|")
    for (case, threads), cells in after_alone.items():
        if " FLOAT " not in case:
            continue
        shares = []
        for dtype in ("FLOAT16", "BF16"):
            other = after_alone.get((case.replace(" FLOAT ", f" {dtype} "), threads))
            shares.append(f"{100 * float(other[1]) / float(cells[1]):.0f}%" if other and float(cells[1]) > 0 else "n/a")
        print(f"| {case} | {threads} | {shares[0]} | {shares[1]} |")

    print("\nBroadcast rows' time over the same-shape row's (after; below 1 is faster):\n")
    print("| case | threads | time / same shape |\n|---|---|---|")
    for (case, threads), cells in after_alone.items():
        if not any(p in case for p in ("scalar dout", "target 1xC", "target Rx1")):
            continue
        same = after_alone.get((re.sub(r"(scalar dout|target 1xC|target Rx1)", "same shape", case), threads))
        if same and seconds(same[0]):
            print(f"| {case} | {threads} | {seconds(cells[0]) / seconds(same[0]):.2f} |")


if __name__ == "__main__":
    main()
