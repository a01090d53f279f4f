"""Citations on real texts (issue 21): recall against the publishers' own links, resolution in
each town's whole corpus (a state or federal norm never resolved to a municipal one), and the
whole-law revocation flags, on tests/data/real_citations (sources in its SOURCES.md); the
generated set's row beside them.

    .venv/bin/python bench/enrich_real_citations.py
    # every Feira de Santana text the site links, rebuilt from the mirror first:
    .venv/bin/python bench/real_citations_build.py --feira 99999 --out /tmp/all/links
    .venv/bin/python bench/enrich_real_citations.py --links /tmp/all/links
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.citation_labels import load  # noqa: E402
from tests.real_citations import (  # noqa: E402
    load_labelled,
    load_links,
    load_revocations,
    score_labelled,
    score_links,
    score_revocations,
)

TARGET_RECALL, TARGET_RESOLUTION, TARGET_REVOKED = 0.95, 0.98, 0.98


def labelled_row(name: str, s: Counter) -> float:
    revoked = s["revoked_right"] / max(1, s["revoked_said"])
    print(f"{name}: {s['labels']} labelled citations — precision "
          f"{s['tp'] / max(1, s['tp'] + s['fp']):.3f}, recall "
          f"{s['tp'] / max(1, s['tp'] + s['fn']):.3f}; kind {s['kind'] / max(1, s['tp']):.3f},"
          f" sphere {s['sphere'] / max(1, s['tp']):.3f}; whole revocations said "
          f"{s['revoked_said']}, right {s['revoked_right']} (precision {revoked:.3f}, target ≥ "
          f"{TARGET_REVOKED}), labelled {s['revoked_meant']}; state/federal keyed as the "
          f"town's: {s['not_municipal'] - s['not_municipal_ok']} of {s['not_municipal']}")
    return revoked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=Path, help="a folder of real_citations_build.py output")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    links = load_links(args.links)
    keys = args.links.parent / "corpus_keys.json" if args.links else None
    s, misses = score_links(links, keys)
    recall = s["found"] / s["links"]
    resolution = s["resolved_right"] / max(1, s["resolved"])
    towns = sorted({t.citing.lexml_label for t in links})
    print(f"real, site links ({len(links)} texts of {', '.join(towns)}): {s['links']} links, "
          f"found {s['found']}, recall {recall:.3f} (target ≥ {TARGET_RECALL}); the year the "
          f"link names {s['year_agrees']}/{s['found']}")
    print(f"  resolution in the towns' whole corpora: {s['resolved']} resolved, "
          f"{s['resolved_right']} to the norm the site links, precision {resolution:.3f} "
          f"(target ≥ {TARGET_RESOLUTION}); links to state/federal norms keyed as the town's: "
          f"{s['not_municipal'] - s['not_municipal_ok']} of {s['not_municipal']}")
    for name, link, around in misses if args.show_misses else ():
        print(f"  missed {name}: {link['family']} {link['number']}/{link['year']}: "
              f"…{' '.join(around.split())}…")
    labelled = load_labelled()
    revoked = labelled_row(f"real, labelled ({len({t.citing.lexml_label for t in labelled})} "
                           f"towns)", score_labelled(labelled))
    r = score_revocations(load_revocations())
    sampled = r["right"] / max(1, r["said"])
    print(f"real, {r['cases']} revocations sampled from every Feira text: whole-law revocations "
          f"said {r['said']}, right {r['right']} (precision {sampled:.3f}, target ≥ "
          f"{TARGET_REVOKED}); of the {r['whole']} read whole by hand, said {r['right']}")
    labelled_row("generated (tests/data/citations)", score_labelled(load()))
    ok = recall >= TARGET_RECALL and resolution >= TARGET_RESOLUTION and \
        revoked >= TARGET_REVOKED and sampled >= TARGET_REVOKED
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
