# The outside readers of test/unit/csv-dialects.test.ts: Python's csv module reads each CSV with its
# dialect's delimiter, openpyxl reads workbooks (the autofilter's range and the cells), and Python's
# zoneinfo (the system's tz database, not the ICU data Node carries) says what wall-clock time an
# instant is in a zone. Shares no code with the product.
# Input (stdin): [{"id", "kind": "csv", "path", "delimiter"} | {"id", "kind": "xlsx", "path"}
#                 | {"id", "kind": "zone", "zone", "texts": [...]}]
# Output (stdout): {id: result}.
import datetime
import importlib.util
import json
import os
import re
import sys
from zoneinfo import ZoneInfo

# format-readers.py (beside this file; its name is no module name) holds the CSV reader both tests use.
_spec = importlib.util.spec_from_file_location("format_readers", os.path.join(os.path.dirname(os.path.abspath(__file__)), "format-readers.py"))
format_readers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(format_readers)


def read_csv(path, delimiter):
    # The differential test's CSV reader (strict csv module, BOM and record ends), on this file.
    with open(path, "rb") as f:
        return format_readers.read_csv(f.read(), delimiter)


def cell(v):
    if isinstance(v, datetime.datetime):
        return v.isoformat(sep=" ")
    return v


def read_xlsx(path):
    import openpyxl

    wb = openpyxl.load_workbook(path)
    return [
        {"name": ws.title, "filter": ws.auto_filter.ref, "rows": [[cell(v) for v in row] for row in ws.iter_rows(values_only=True)]}
        for ws in wb.worksheets
    ]


FRACTION = re.compile(r"\d{2}:\d{2}:\d{2}(\.\d+)")


def wall_clock(zone, texts):
    # Each zoned ISO 8601 text's instant, as wall-clock time in the zone; the fraction as written.
    tz = ZoneInfo(zone)
    out = []
    for t in texts:
        frac = FRACTION.search(t)
        base = FRACTION.sub(lambda m: m.group(0)[: -len(m.group(1))], t)
        instant = datetime.datetime.fromisoformat(base)
        out.append(instant.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S") + (frac.group(1) if frac else ""))
    return out


def main():
    out = {}
    for job in json.load(sys.stdin):
        kind = job["kind"]
        if kind == "csv":
            out[job["id"]] = read_csv(job["path"], job["delimiter"])
        elif kind == "xlsx":
            out[job["id"]] = read_xlsx(job["path"])
        else:
            out[job["id"]] = wall_clock(job["zone"], job["texts"])
    sys.stdout.write(json.dumps(out))


main()
