#!/usr/bin/env python3
"""Render the offline demo recording from demo/bands.tsv (Python 3 stdlib only).

Writes, in the recorded-mode layout of crates/upstream (see docs/upstream.md):
  demo/upstream/browse/ajax-country/c/{CC}/json/1@0        country lists (Chrome <pre>-wrapped JSON)
  demo/upstream/archives/ajax-band-list/selection/2026-11/by/{created,modified}/json/1@0
                                                           change lists (raw JSON)
  demo/upstream/bands/_/{ma_id}                             band pages
  demo/upstream/band/discography/id/{ma_id}/tab/all         discography fragments
and demo/bands.ndjson (CONTRACT §11 import objects, European bands only).

Usage: python3 scripts/gen-demo-upstream.py [--root REPO_ROOT]
Output is deterministic: re-running it on an unchanged bands.tsv changes nothing.
"""
import argparse
import hashlib
import html
import json
import shutil
import urllib.parse
from pathlib import Path

BASE = "https://www.metal-archives.com"
MONTH = (2026, 11)
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July",
               "August", "September", "October", "November", "December"]
COUNTRIES = {
    "NO": "Norway", "SE": "Sweden", "FI": "Finland", "DE": "Germany", "GB": "United Kingdom",
    "PL": "Poland", "FR": "France", "NL": "Netherlands", "IT": "Italy", "GR": "Greece",
    "CH": "Switzerland", "PT": "Portugal", "AT": "Austria", "BE": "Belgium", "DK": "Denmark",
    "IS": "Iceland", "IE": "Ireland", "ES": "Spain", "CZ": "Czechia", "HU": "Hungary",
    "RO": "Romania", "UA": "Ukraine", "RU": "Russia", "EE": "Estonia", "LV": "Latvia",
    "LT": "Lithuania", "FO": "Faroe Islands", "BY": "Belarus", "TR": "Turkey", "GE": "Georgia",
    # Non-European: appear in the change lists only, to show the filter.
    "US": "United States", "BR": "Brazil", "JP": "Japan", "CA": "Canada",
}
NON_EUROPE = {"US", "BR", "JP", "CA"}
EUROPE = set(COUNTRIES) - NON_EUROPE
STATUS_CSS = {"Active": "active", "Split-up": "split_up", "On hold": "on_hold",
              "Unknown": "unknown", "Changed name": "changed_name", "Disputed": "disputed"}
USERS = ["nordwind", "grave_digger_77", "isbre", "thrashmaniac", "vinterskugge", "doom_owl"]


def esc(s):
    return html.escape(s, quote=True)


def url_name(name):
    return urllib.parse.quote(name.replace(" ", "_"), safe="_-.()!")


def band_url(b):
    return f"{BASE}/bands/{url_name(b['name'])}/{b['ma_id']}"


def seed(b, salt):
    return int(hashlib.sha256(f"{b['ma_id']}:{salt}".encode()).hexdigest(), 16)


def ordinal(day):
    if 10 <= day % 100 <= 20:
        return f"{day}th"
    return f"{day}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th') }"


def change_time(b, kind):
    """A deterministic (day, hour, minute) in the demo month, days 1..20."""
    s = seed(b, kind)
    return (1 + s % 20, (s >> 8) % 24, (s >> 16) % 60)


def read_bands(path):
    lines = [l for l in path.read_text(encoding="utf-8").splitlines() if l and not l.startswith("#")]
    header = lines[0].split("\t")
    bands = []
    for line in lines[1:]:
        cols = line.split("\t")
        cols += [""] * (len(header) - len(cols))
        b = dict(zip(header, cols))
        b["ma_id"] = int(b["ma_id"])
        b["formed"] = int(b["formed"]) if b["formed"] not in ("", "N/A") else None
        b["releases"] = [r.split("|") for r in b["releases"].split(";") if r.strip()]
        bands.append(b)
    return bands


def chrome_pre(text):
    return ('<html><head><meta name="color-scheme" content="light dark"></head><body>'
            '<pre style="word-wrap: break-word; white-space: pre-wrap;">'
            + html.escape(text, quote=False) + "</pre></body></html>")


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def country_page(bands):
    rows = [[f"<a href='{band_url(b)}'>{esc(b['name'])}</a>", b["genre"], b["location"],
             f"<span class=\"{STATUS_CSS.get(b['status'], 'unknown')}\">{b['status']}</span>"]
            for b in sorted(bands, key=lambda b: b["name"].lower())]
    doc = {"error": "", "iTotalRecords": len(rows), "iTotalDisplayRecords": len(rows),
           "sEcho": 1, "aaData": rows}
    return chrome_pre(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))


def change_page(bands, kind):
    y, m = MONTH
    picked = [b for b in bands if b["change"] in (kind, "both")]
    picked.sort(key=lambda b: (change_time(b, kind), b["ma_id"]), reverse=True)
    rows = []
    for b in picked:
        day, hh, mm = change_time(b, kind)
        user = USERS[seed(b, "user") % len(USERS)]
        rows.append([
            f"{MONTH_NAMES[m - 1][:3]} {day}",
            f"<a href=\"{band_url(b)}\">{esc(b['name'])}</a>",
            f"<a href=\"{BASE}/lists/{b['cc']}\">{COUNTRIES[b['cc']]}</a>",
            b["genre"],
            f"{MONTH_NAMES[m - 1]} {ordinal(day)}, {hh:02d}:{mm:02d}",
            f"<a href=\"{BASE}/users/{user}\" class=\"profileMenu\">{user}</a>",
        ])
    doc = {"iTotalRecords": len(rows), "iTotalDisplayRecords": len(rows), "sEcho": 1, "aaData": rows}
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def audit(b):
    y, m = MONTH
    s = seed(b, "audit")
    added_year = max(2002, min(2024, (b["formed"] or 2002) + 2))
    added = f"{added_year}-{1 + s % 12:02d}-{1 + (s >> 4) % 28:02d} {(s >> 8) % 24:02d}:{(s >> 12) % 60:02d}:{(s >> 16) % 60:02d}"
    modified = f"2025-{1 + (s >> 20) % 12:02d}-{1 + (s >> 24) % 28:02d} {(s >> 28) % 24:02d}:{(s >> 32) % 60:02d}:{(s >> 36) % 60:02d}"
    if b["change"] in ("created", "both"):
        d, hh, mm = change_time(b, "created")
        added = modified = f"{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}:00"
    if b["change"] in ("modified", "both"):
        d, hh, mm = change_time(b, "modified")
        modified = f"{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}:00"
    return added, modified


def dd(text):
    return esc(text) if text else "N/A"


def band_page(b):
    added, modified = audit(b)
    label_word = "Last label" if b["status"] == "Split-up" else "Current label"
    # An unknown label is left out ("N/A"), never guessed.
    label = b["label"] or "N/A"
    label_html = esc(label) if label in ("Unsigned/independent", "N/A") else (
        f'<a href="{BASE}/labels/{url_name(label)}/{seed(b, "label") % 90000 + 1000}">{esc(label)}</a>')
    # Newer pages say "Themes:", older ones "Lyrical themes:": the demo has both.
    themes_word = "Themes" if b["ma_id"] % 2 else "Lyrical themes"
    formed = str(b["formed"]) if b["formed"] else "N/A"
    years = f"{b['formed']}-present" if b["status"] == "Active" and b["formed"] else (
        f"{b['formed']}-?" if b["formed"] else "N/A")
    cc = b["cc"]
    return f"""<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<title>{esc(b['name'])} - Encyclopaedia Metallum: The Metal Archives</title>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
</head>
<body>
<div id="wrapper"><div id="content_wrapper"><div id="band_content">
<div id="band_info">
	<h1 class="band_name"><a href="{band_url(b)}">{esc(b['name'])}</a></h1>
	<div class="clear block_spacer_5"></div>
	<div id="band_stats">
		<dl class="float_left">
			<dt>Country of origin:</dt>
			<dd><a href="{BASE}/lists/{cc}">{COUNTRIES[cc]}</a></dd>
			<dt>Location:</dt>
			<dd>{dd(b['location'])}</dd>
			<dt>Status:</dt>
			<dd class="{STATUS_CSS.get(b['status'], 'unknown')}">{esc(b['status'])}</dd>
			<dt>Formed in:</dt>
			<dd>{formed}</dd>
		</dl>
		<dl class="float_right">
			<dt>Genre:</dt>
			<dd>{dd(b['genre'])}</dd>
			<dt>{themes_word}:</dt>
			<dd>{dd(b['themes'])}</dd>
			<dt>{label_word}:</dt>
			<dd>{label_html}</dd>
		</dl>
		<dl style="width: 100%;" class="clear">
			<dt>Years active:</dt>
			<dd>{years}</dd>
		</dl>
	</div>
	<div class="band_comment clear">Demo recording generated from demo/bands.tsv for offline use.</div>
</div>
<div id="band_tabs">
	<ul>
		<li><a href="{BASE}/band/discography/id/{b['ma_id']}/tab/all">Complete discography</a></li>
	</ul>
</div>
<div id="auditTrail">
	<table>
		<tr>
			<td>Added by: <a href="{BASE}/users/nordwind" class="profileMenu">nordwind</a></td>
			<td align="right">Modified by: <a href="{BASE}/users/isbre" class="profileMenu">isbre</a></td>
		</tr>
		<tr>
			<td>Added on: {added}</td>
			<td align="right">Last modified on: {modified}</td>
		</tr>
	</table>
</div>
</div></div></div>
</body>
</html>
"""


def discography(b):
    css = {"Full-length": "album", "Demo": "demo"}
    rows = []
    for i, (title, kind, year) in enumerate(b["releases"]):
        rid = b["ma_id"] * 10 + i if b["ma_id"] < 10**9 else 3541000000 + (b["ma_id"] % 100000) * 10 + i
        href = f"{BASE}/albums/{url_name(b['name'])}/{url_name(title)}/{rid}"
        c = css.get(kind, "other")
        rows.append(f"""		<tr>
			<td><a href="{href}" class="{c}">{esc(title)}</a></td>
			<td class="{c}">{esc(kind)}</td>
			<td class="{c}">{year}</td>
			<td>&nbsp;</td>
		</tr>""")
    if not rows:
        rows.append('		<tr><td colspan="4"><em>Nothing entered yet. Please add the releases, if applicable. </em></td></tr>')
    body = "\n".join(rows)
    return f"""<table class="display discog" cellpadding="0" cellspacing="0">
	<thead>
		<tr><th class="releaseCol">Name</th><th class="typeCol">Type</th><th class="yearCol">Year</th><th class="reviewsCol">Reviews</th></tr>
	</thead>
	<tbody>
{body}
	</tbody>
</table>
"""


def import_object(b):
    return {
        "ma_id": b["ma_id"], "name": b["name"], "country": COUNTRIES[b["cc"]],
        "country_code": b["cc"], "location_text": b["location"] or None,
        "genre": b["genre"] or None,
        "themes": None if b["themes"] in ("", "N/A") else b["themes"],
        "status": b["status"] or None, "formed_year": b["formed"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    root = Path(ap.parse_args().root)
    demo = root / "demo"
    bands = read_bands(demo / "bands.tsv")
    out = demo / "upstream"
    if out.exists():
        shutil.rmtree(out)
    y, m = MONTH
    by_cc = {}
    for b in bands:
        by_cc.setdefault(b["cc"], []).append(b)
    for cc, group in sorted(by_cc.items()):
        if cc in EUROPE:
            write(out / f"browse/ajax-country/c/{cc}/json/1@0", country_page(group))
    for kind in ("created", "modified"):
        write(out / f"archives/ajax-band-list/selection/{y:04d}-{m:02d}/by/{kind}/json/1@0",
              change_page(bands, kind))
    for b in bands:
        write(out / f"bands/_/{b['ma_id']}", band_page(b))
        write(out / f"band/discography/id/{b['ma_id']}/tab/all", discography(b))
    europe = [b for b in bands if b["cc"] in EUROPE]
    write(demo / "bands.ndjson",
          "".join(json.dumps(import_object(b), ensure_ascii=False) + "\n" for b in europe))
    print(f"{len(bands)} bands ({len(europe)} European) in {len(by_cc)} countries -> {out}")


if __name__ == "__main__":
    main()
