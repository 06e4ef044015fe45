# Reads two workbooks with openpyxl (read-only) and compares their data rows: the rows from the one
# whose first cell is 1 (the first id; the title, header area and table header above it differ by
# design), `limit` of them, cell by cell. Numbers compare by value (one writer spells 1 as "1", the
# other as "1.0"), dates as the datetimes openpyxl makes of the serials and number formats.
#   python3 bench/xlsx-same.py A.xlsx B.xlsx LIMIT  → prints what it compared; exit 1 on a difference
import datetime
import sys

from openpyxl import load_workbook


def data_rows(path, limit):
    wb = load_workbook(path, read_only=True)
    rows, started = [], False
    for values in wb.worksheets[0].iter_rows(values_only=True):
        started = started or values[:1] == (1,)
        if started:
            rows.append(tuple(normal(v) for v in values[:10]))
            if len(rows) == limit:
                break
    wb.close()
    return rows


def normal(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return ("number", float(v))
    if isinstance(v, datetime.datetime):
        return ("datetime", v.isoformat())
    raise TypeError(f"unexpected cell value {v!r}")


def main():
    a, b, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ra, rb = data_rows(a, limit), data_rows(b, limit)
    if len(ra) != limit or len(rb) != limit:
        print(f"data rows read: {len(ra)} and {len(rb)}, expected {limit}")
        sys.exit(1)
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            print(f"data row {i + 1} differs:\n  {x}\n  {y}")
            sys.exit(1)
    print(f"openpyxl read the first {limit} data rows of both files: equal, cell by cell")


if __name__ == "__main__":
    main()
