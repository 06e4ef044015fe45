# The independent readers of the differential format test (test/support/format-differential.ts):
# every part of every output read back by software that shares no code with ours, and printed as
# JSON. Python's csv module reads CSV, Python's json JSON Lines, openpyxl xlsx, pyarrow AND DuckDB
# Parquet; gzip is undone by Python's gzip module, zstd by zstd_frames.py (PyPI zstandard). Every
# value is tagged with its Python type, numbers as their exact spelling (an int of 2^53 + 1 survives the trip).
# Input (stdin): [{"id", "kind": csv|jsonl|xlsx|parquet, "compression": null|gzip|zstd, "paths": [...],
#   "delimiter": the CSV's field separator (absent: a comma)}]
# Output (stdout): {id: {"parts": [<per part>]} or {"error": text}}.
import csv
import datetime
import gzip
import io
import json
import sys

from zstd_frames import unzstd


def tag(v):
    if v is None:
        return ["none"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", repr(v)]
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc)
            return ["datetime_utc", v.replace(tzinfo=None).isoformat(sep=" ")]
        return ["datetime", v.isoformat(sep=" ")]
    if isinstance(v, datetime.date):
        return ["date", v.isoformat()]
    if isinstance(v, (dict, list)):
        return ["json", json.dumps(v)]
    return ["str", str(v)]


def plain(data, compression):
    if compression == "gzip":
        return gzip.decompress(data)
    if compression == "zstd":
        return unzstd(data)
    return data


def read_csv(data, delimiter):
    text = data.decode("utf-8")  # strict: a byte that is not UTF-8 fails the read
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    # strict: a quote where RFC 4180 has none (a field opened unquoted) fails the read.
    rows = list(csv.reader(io.StringIO(body, newline=""), delimiter=delimiter, strict=True))
    return {"bom": bom, "rows": rows, "line_endings": record_ends(body)}


def record_ends(text):
    # The line breaks that end records (outside quoted fields): CR LF, LF or a lone CR, each once.
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


def read_jsonl(data):
    text = data.decode("utf-8")
    if text and not text.endswith("\n"):
        raise ValueError("the last line is not ended by LF")
    # Lines as Python's json reads them, every value tagged as a tree (keys in the file's order).
    return {"rows": [tag_json(json.loads(line)) for line in text.split("\n")[:-1]]}


def tag_json(v):
    if isinstance(v, dict):
        return ["obj", [[k, tag_json(x)] for k, x in v.items()]]
    if isinstance(v, list):
        return ["arr", [tag_json(x) for x in v]]
    return tag(v)


def read_xlsx(path):
    import openpyxl

    wb = openpyxl.load_workbook(path)
    sheets = []
    for ws in wb.worksheets:
        sheets.append([[tag(c) for c in row] for row in ws.iter_rows(values_only=True)])
    return {"sheets": sheets}


def read_parquet(path):
    import duckdb
    import pyarrow.parquet

    table = pyarrow.parquet.read_table(path)
    arrow = {"types": [[f.name, str(f.type)] for f in table.schema], "rows": [[tag(v) for v in r.values()] for r in table.to_pylist()]}
    con = duckdb.connect()
    types = [[r[0], r[1]] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [path]).fetchall()]
    # An instant comes out as its UTC wall-clock time (DuckDB's aware datetimes would need pytz).
    zoned = [t == "TIMESTAMP WITH TIME ZONE" for _, t in types]
    quoted = ['"' + n.replace('"', '""') + '"' for n, _ in types]
    select = ", ".join(f"timezone('UTC', {q})" if z else q for q, z in zip(quoted, zoned)) or "*"
    rows = con.execute(f"SELECT {select} FROM read_parquet(?)", [path]).fetchall()
    tagged = [[["datetime_utc", t[1]] if z and t[0] == "datetime" else t for t, z in zip([tag(v) for v in r], zoned)] for r in rows]
    return {"pyarrow": arrow, "duckdb": {"names": [n for n, _ in types], "types": types, "rows": tagged}}


def read_part(kind, compression, path, delimiter):
    if kind == "xlsx":
        return read_xlsx(path)
    if kind == "parquet":
        return read_parquet(path)
    with open(path, "rb") as f:
        data = plain(f.read(), compression)
    return read_csv(data, delimiter) if kind == "csv" else read_jsonl(data)


def main():
    out = {}
    for job in json.load(sys.stdin):
        try:
            out[job["id"]] = {"parts": [read_part(job["kind"], job["compression"], p, job.get("delimiter", ",")) for p in job["paths"]]}
        except Exception as e:  # the test shows which reader refused which file
            out[job["id"]] = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
