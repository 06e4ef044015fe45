# Reads an exported file with the outside readers, DuckDB and pyarrow, and prints what each saw as
# JSON: the column types and every row, each value tagged with its Python type ("int", "date", …).
# Run by test/support/pyreaders.ts with .tools/pyreaders (scripts/ensure-tools.mjs) on PYTHONPATH.
import datetime
import json
import sys

import duckdb
import pyarrow.csv
import pyarrow.json
import pyarrow.parquet


def tagged(v):
    if v is None:
        return ["none", None]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", v]
    if isinstance(v, float):
        return ["float", v]
    if isinstance(v, datetime.datetime):
        return ["datetime", v.isoformat(sep=" ")]
    if isinstance(v, datetime.date):
        return ["date", v.isoformat()]
    if isinstance(v, (dict, list)):
        return ["json", v]
    return ["str", str(v)]


def with_pyarrow(kind, path):
    if kind == "parquet":
        table = pyarrow.parquet.read_table(path)
    elif kind == "jsonl":
        table = pyarrow.json.read_json(pyarrow.input_stream(path, compression="detect"))
    else:
        table = pyarrow.csv.read_csv(path)
    return {"types": {f.name: str(f.type) for f in table.schema}, "rows": [[tagged(v) for v in r.values()] for r in table.to_pylist()]}


def with_duckdb(kind, path):
    reader = {"parquet": "read_parquet(?)", "jsonl": "read_json(?, format = 'newline_delimited')", "csv": "read_csv(?)"}[kind]
    con = duckdb.connect()
    rel = con.execute(f"SELECT * FROM {reader}", [path])
    names = [d[0] for d in rel.description]
    rows = rel.fetchall()
    types = {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {reader}", [path]).fetchall()}
    return {"types": types, "rows": [[tagged(v) for v in r] for r in rows]}


kind, path = sys.argv[1], sys.argv[2]
print(json.dumps({"pyarrow": with_pyarrow(kind, path), "duckdb": with_duckdb(kind, path)}))
