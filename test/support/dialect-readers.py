# The outside readers of test/unit/csv-dialects.test.ts: Python's csv module reads each CSV with its
# dialect's delimiter, openpyxl reads workbooks (the autofilter's range and the cells), and Python's
# zoneinfo (the system's tz database, not the ICU data Node carries) says what wall-clock time an
# instant is in a zone. Shares no code with the product.
# Input (stdin): [{"id", "kind": "csv", "path", "delimiter"} | {"id", "kind": "xlsx", "path"}
#                 | {"id", "kind": "zone", "zone", "texts": [...]}]
# Output (stdout): {id: result}.
import csv
import datetime
import io
import json
import re
import sys
from zoneinfo import ZoneInfo


def read_csv(path, delimiter):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    # strict: a quote where none may be (a field opened unquoted) fails the read.
    rows = list(csv.reader(io.StringIO(body, newline=""), delimiter=delimiter, strict=True))
    return {"bom": bom, "rows": rows, "line_endings": record_ends(body)}


def record_ends(text):
    # The line breaks that end records (outside quoted fields), each once.
    seen = set()
    quoted = False
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            quoted = not quoted
        elif not quoted and c == "\r":
            end = "\r\n" if text[i + 1 : i + 2] == "\n" else "\r"
            seen.add(end)
            i += len(end)
            continue
        elif not quoted and c == "\n":
            seen.add("\n")
        i += 1
    return sorted(seen)


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
