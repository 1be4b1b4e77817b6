"""Reads aorta_suite's <suite>.html back into rows, the way a person scans it."""
import os
from html.parser import HTMLParser


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.links, self.subtests = [], [], []
        self._cell, self._text, self._row, self._sub, self._in_extra = None, "", None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tbody" and "results-table-row" in a.get("class", ""):
            self._row = {"class": a["class"].split()[0], "cells": {}, "extra": "", "subtests": [], "subtest_links": []}
            self.rows.append(self._row)
        if tag == "a":
            self.links.append(a.get("href"))
            if self._sub is not None:  # a sub-test's own Full Log, in its stage's panel
                self._row["subtest_links"].append((self._sub["label"], a.get("href")))
        if tag == "tr" and a.get("class") == "extra":
            self._in_extra = True
        if tag == "tr" and self._row is not None and a.get("class") in ("sub-passed", "sub-failed", "sub-skipped"):
            self._sub = {"result": None, "label": None}
            self._row["subtests"].append(self._sub)
        if tag == "td":
            self._cell, self._text = a.get("class", ""), ""

    def handle_endtag(self, tag):
        if tag == "td" and self._row is not None and self._cell is not None:
            if self._sub is not None and self._cell in ("col-result", "col-subtest"):
                self._sub["result" if self._cell == "col-result" else "label"] = self._text.strip()
            elif self._cell.startswith("col-") and not self._in_extra:
                self._row["cells"][self._cell] = self._text.strip()
            self._cell = None
        if tag == "tr":
            self._sub = None
        if tag == "tbody":
            self._row, self._in_extra = None, False

    def handle_data(self, data):
        if self._cell is not None:
            self._text += data
        if self._in_extra and self._row is not None:
            self._row["extra"] += data


def read(path):
    parser = _Rows()
    parser.feed(open(path, encoding="utf-8").read())
    base = os.path.dirname(path)
    missing = [l for l in parser.links if l and not os.path.exists(os.path.join(base, l))]
    return parser.rows, parser.links, missing
