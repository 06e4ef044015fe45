# An exported workbook as openpyxl reads it, for test/support/pyreaders.ts readWorkbookOutside:
# every sheet's cell values (worksheets) and every chart openpyxl finds (worksheets and chart
# sheets): its kind, title, the anchor's top-left cell, and each series' name and value references.
import datetime
import json
import sys

import openpyxl


def cell(v):
    if isinstance(v, (datetime.datetime, datetime.date)):
        return v.isoformat()
    return v


def text_of(title):
    if title is None or title.tx is None or title.tx.rich is None:
        return None
    return ''.join(r.t for p in title.tx.rich.p for r in (p.r or []))


def chart(c):
    anchor = getattr(c.anchor, '_from', None)
    axes = {}
    for name in ('x_axis', 'y_axis'):
        ax = getattr(c, name, None)
        if ax is not None and getattr(ax, 'title', None) is not None:
            axes[name] = text_of(ax.title)
    return {
        'kind': type(c).__name__,
        'title': text_of(c.title),
        'anchor': [anchor.col, anchor.row] if anchor is not None else None,
        'axes': axes,
        'series': [
            {
                'name': s.tx.strRef.f if s.tx and s.tx.strRef else None,
                'category': (s.cat.strRef or s.cat.numRef).f if s.cat else None,
                'values': s.val.numRef.f if s.val and s.val.numRef else None,
            }
            for s in c.series
        ],
    }


def main(path):
    wb = openpyxl.load_workbook(path)
    out = []
    for name in wb.sheetnames:
        ws = wb[name]
        if name in [c.title for c in wb.chartsheets]:
            out.append({'name': name, 'kind': 'chartsheet', 'rows': [], 'charts': [chart(c) for c in ws._charts]})
        else:
            rows = [[cell(v) for v in r] for r in ws.iter_rows(values_only=True)]
            out.append({'name': name, 'kind': 'worksheet', 'rows': rows, 'charts': [chart(c) for c in ws._charts]})
    json.dump(out, sys.stdout, ensure_ascii=False)


main(sys.argv[1])
