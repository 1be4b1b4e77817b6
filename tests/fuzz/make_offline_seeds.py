#!/usr/bin/env python3
"""Writes the seeds of the offline commands' fuzzers (issue 29): seeds/compare/, one
small report JSON per shape compare must read or refuse, and seeds/workbook/, one
small TraceLens-shaped workbook per shape read_gpu_timeline must read or refuse
(each a few KiB zipped, however much it inflates to). Run it again after changing
it; its output is committed.
"""
import io
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

STEP = b'{"step": 1, "start_us": 0, "step_time_ms": 12.5, "gpu_events": 3}'
RANK = b'{"rank": 0, "source": "rank0.json", "steps": [' + b", ".join([STEP] * 3) + b"]}"
PERF = b'"performance": {"avg_iteration_time_ms": 10.5, "avg_comm_ratio": 0.25, "p95_step_time_ms": null}'


def report(perf=PERF, ranks=b"[" + RANK + b"]", tail=b""):
    return b"{" + perf + b', "per_rank_summary": ' + ranks + b"}" + tail


COMPARE = {
    "good.json": report(),
    "no_steps.json": report(ranks=b"[]"),
    "deep.json": report(tail=b"")[:-1] + b', "x": ' + b"[" * 100 + b"]" * 100 + b"}",
    "many_values.json": report(ranks=b"[" + b"[]," * 2000 + b"[]]"),
    "many_steps.json": report(ranks=b"[" + b", ".join([RANK] * 10) + b"]"),
    "out_of_range.json": report(perf=b'"performance": {"avg_iteration_time_ms": 1e400}'),
    "invalid_utf8.json": report(perf=b'"performance": {"avg_iteration_time_ms": 1, "\xc3\x28": 2}'),
    "performance_array.json": report(perf=b'"performance": [1, 2]'),
    "top_array.json": b"[" + report() + b"]",
    "duplicate_performance.json": report(perf=PERF + b", " + PERF),
    "trailing_garbage.json": report(tail=b"}garbage"),
    "huge_numbers.json": report(perf=b'"performance": {"avg_iteration_time_ms": 1.7e308, "avg_comm_ratio": -1.7e308}'),
}

WORKBOOK = (b'<workbook xmlns:r="r"><sheets><sheet name="gpu_timeline" sheetId="1" r:id="rId1"/>'
            b"</sheets></workbook>")
RELS = b'<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>'
SHARED = b"<sst><si><t>type</t></si><si><r><t>time</t></r><r><t> ms</t></r></si><si><t>total_time</t></si></sst>"


def inline(ref, text):
    return b'<c r="' + ref + b'" t="inlineStr"><is><t>' + text + b"</t></is></c>"


def sheet(rows):
    header = b'<row r="1">' + inline(b"A1", b"type") + inline(b"B1", b"time ms") + b"</row>"
    return b"<worksheet><sheetData>" + header + rows + b"</sheetData></worksheet>"


GOOD_ROWS = b"".join(b'<row r="%d">' % (i + 2) + inline(b"A%d" % (i + 2), name) + b'<c r="B%d"><v>%s</v></c></row>' %
                     (i + 2, value) for i, (name, value) in
                     enumerate([(b"total_time", b"835.6"), (b"computation_time", b"96.03"),
                                (b"exposed_comm_time", b"510.8"), (b"total_comm_time", b"575.1")]))


def workbook(sheet_xml, workbook_xml=WORKBOOK, shared=None, rels=RELS):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in [("xl/workbook.xml", workbook_xml), ("xl/_rels/workbook.xml.rels", rels),
                           ("xl/sharedStrings.xml", shared), ("xl/worksheets/sheet1.xml", sheet_xml)]:
            if data is not None:
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
    return out.getvalue()


# The limits of lib/tracelens/workbook.h, each passed by one.
WORKBOOKS = {
    "good.xlsx": workbook(sheet(GOOD_ROWS)),
    "shared_strings.xlsx": workbook(sheet(b'<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>12.5</v></c></row>')
                                    .replace(inline(b"A1", b"type"), b'<c r="A1" t="s"><v>0</v></c>')
                                    .replace(inline(b"B1", b"time ms"), b'<c r="B1" t="s"><v>1</v></c>'),
                                    shared=SHARED),
    "nan.xlsx": workbook(sheet(b'<row r="2">' + inline(b"A2", b"total_time") + b'<c r="B2"><v>nan</v></c></row>')),
    "not_xml.xlsx": workbook(b"<worksheet><sheetData"),
    "bomb_bytes.xlsx": workbook(b" " * ((16 << 20) + 1)),
    "bomb_markup.xlsx": workbook(b"<worksheet>" + b"<x/>" * (1 << 20) + b"</worksheet>"),
    "bomb_attributes.xlsx": workbook(b"<worksheet" + b" a=''" * (1 << 20) + b"/>"),
    "many_sheets.xlsx": workbook(sheet(GOOD_ROWS), workbook_xml=WORKBOOK.replace(
        b"<sheets>", b"<sheets>" + b'<sheet name="s" r:id="rId9"/>' * 1000)),
    "many_rows.xlsx": workbook(sheet(b"<row/>" * 10000)),
    "many_cells.xlsx": workbook(sheet(b"<row>" + b"<c/>" * 100000 + b"</row>")),
    "many_strings.xlsx": workbook(sheet(GOOD_ROWS), shared=b"<sst>" + b"<si/>" * 250001 + b"</sst>"),
    # A part name from the file is cut in messages.
    "long_target.xlsx": workbook(sheet(GOOD_ROWS), rels=RELS.replace(b"worksheets/sheet1.xml", b"w" * 100000)),
}


def main():
    for folder, seeds in (("compare", COMPARE), ("workbook", WORKBOOKS)):
        os.makedirs(os.path.join(HERE, "seeds", folder), exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(HERE, "seeds", folder, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
