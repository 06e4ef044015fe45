# The anchor of `npm run bench:xlsx`: the same rows as bench/xlsx-variants.ts (row(i), the same
# deterministic rule, restated here) written by rust_xlsxwriter through its PyPI binding
# rustpy-xlsxwriter (installed into .tools/rust-xlsxwriter by scripts/test-tools.mjs ensureBenchTools), in its
# default constant-memory mode, with the same cell types and a format per column (number format, thin
# border, alignment) and the two condition looks as conditional formats.
#   python3 bench/xlsx-rust.py ROWS OUT.xlsx  → one JSON line: {"variant": "rust", "ms", "cpuMs", "rssMB", "bytes"}
# (cpuMs: user + system time of the whole process, every thread, over the same span as ms).
import datetime
import json
import math
import os
import resource
import sys
import time

from rustpy_xlsxwriter import Format, write_worksheet

STATUSES = ["已支付", "已退款", "pending", "failed"]


def js_round(x):
    # JavaScript's Math.round: the nearest integer, halves towards +infinity (x - floor(x) is exact).
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def row(i):
    # bench/xlsx-variants.ts row(i), typed as our template types it: day and created are dates, an
    # empty note is an empty cell.
    return {
        "id": i + 1,
        "name": f"客户 {i % 5000}",
        "amount": js_round(i * 137.3) / 100 - 500,
        "qty": i % 97,
        "rate": (i % 100) / 100,
        "day": datetime.date(2026, i % 12 + 1, i % 28 + 1),
        "created": datetime.datetime(2026, 11, 3, i % 24, i % 60, 0),
        "status": STATUSES[i % 4],
        "code": str(i * 7).zfill(10),
        "note": 'a note, with "quotes" & <tags>' if i % 10 == 0 else None,
    }


NUMBER_FORMATS = {
    "id": "0",
    "amount": "#,##0.00",
    "qty": "0",
    "rate": "0.00%",
    "day": "yyyy-mm-dd",
    "created": "yyyy-mm-dd hh:mm:ss",
    "code": "@",
}


def column_format(key):
    f = Format().set_border("thin").set_align("vcenter").set_align("left" if key in ("name", "note") else "center")
    return f.set_num_format(NUMBER_FORMATS[key]) if key in NUMBER_FORMATS else f


def cpu_ms():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return (u.ru_utime + u.ru_stime) * 1000


def main():
    rows, out = int(sys.argv[1]), sys.argv[2]
    keys = list(row(0).keys())
    t0, cpu0 = time.perf_counter(), cpu_ms()
    write_worksheet(
        (row(i) for i in range(rows)),
        out,
        sheet_name="Sheet1",
        header_row=1,
        merge_ranges=[(0, 0, 0, len(keys) - 1, "订单明细")],
        freeze_row=2,
        bold_headers=True,
        column_formats={k: column_format(k) for k in keys},
        conditional_formats={
            "amount": {"type": "cell", "criteria": "<", "value": 0, "format": Format().set_bold().set_font_color("red")},
            "status": [
                {"type": "text", "criteria": "contains", "value": v, "format": Format().set_background_color("yellow")}
                for v in ("failed", "已退款")
            ],
        },
    )
    ms, cpu = (time.perf_counter() - t0) * 1000, cpu_ms() - cpu0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"variant": "rust", "ms": ms, "cpuMs": cpu, "rssMB": rss, "bytes": os.path.getsize(out)}))


if __name__ == "__main__":
    main()
