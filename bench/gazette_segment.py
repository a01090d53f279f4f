"""Gazette segmentation figures: how well and how fast a gazette's text is cut into acts.

1. Over the labelled set (tests/gazette_fixtures.py, the set the tests assert on): boundary
   precision and recall, and the share of normative acts whose type, number, date and year
   are right. A boundary is right when the act found starts on the labelled act's first line
   and ends on its last line. Why lines: Tika's text puts blank lines, indentation and page
   furniture between acts at will, so characters would measure that noise, while one line
   more or less is what a reader sees as a wrong cut (a heading lost, a signature given to
   the next act). The tolerance in characters is then at most one line's width.
2. Over the real sets (tests/real_gazettes.py: editions of five gazettes nobody on the project
   wrote, pdftotext and Tika texts, labelled by reading; a held-out set labelled after the
   rules were fixed; a fresh held-out set of other cities and gazette systems, labelled before
   the segmenter was run on it): recall and precision of normative acts (kind, number and
   year), ementas read (similarity ≥ 0.9), ementas invented where the text prints none. The
   targets apply to these rows.
3. Gazettes per second on one core, for the labelled texts as they are and for editions of
   a common size (three labelled gazettes joined: 25-45 KB, the size of a 10- to 15-page
   small-town edition as Tika extracts it), against a plain `re.finditer` of a heading
   pattern over the same texts in the same run (the cheapest pass conceivable: it finds
   heading-like lines, no more).

    .venv/bin/python bench/gazette_segment.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.gazette_fixtures import FIELDS, Score, gazettes  # noqa: E402
from tests.real_gazettes import RealScore, editions  # noqa: E402

from extract_common import load_note, row, texts_per_second  # noqa: E402
from locleg.gazette.segment import read_gazette  # noqa: E402

TARGET_PRECISION = TARGET_RECALL = 0.95
TARGET_FIELDS = 0.98
TARGET_GAZETTES_S = 200
TARGET_REAL_RECALL, TARGET_REAL_PRECISION = 0.95, 0.97
# The reference: one pass for the lines that look like an act's heading.
_REFERENCE = re.compile(r"(?im)^\W*(?:lei|decreto|resolu\w+|portaria)\b[^\n]{0,40}?n\W{0,3}\d")


def quality(labelled) -> None:
    score = Score()
    for g in labelled:
        score.add(g, read_gazette(g.text, territory_id=g.territory_id).acts)
    layouts = Counter(g.layout.split(",")[0] for g in labelled)
    sizes = sorted(len(g.text) for g in labelled)
    print(f"Labelled set: {len(labelled)} gazettes, {score.labelled} acts "
          f"({score.normative} normative found, {score.matter} other matter found); "
          f"texts {sizes[0] / 1000:.1f}-{sizes[-1] / 1000:.1f} KB, median "
          f"{statistics.median(sizes) / 1000:.1f} KB")
    print(f"  layouts: {', '.join(f'{n} {k}' for k, n in sorted(layouts.items()))}")
    row("", "value", "target")
    row("boundary precision (same first and last line)", f"{score.precision:.3f}",
        f"≥ {TARGET_PRECISION}")
    row("boundary recall", f"{score.recall:.3f}", f"≥ {TARGET_RECALL}")
    for name in FIELDS:
        row(f"normative acts: {name} right", f"{score.field(name):.3f}", f"≥ {TARGET_FIELDS}")
    row("normative acts: all four right", f"{score.fields:.3f}", f"≥ {TARGET_FIELDS}")
    row("other matter: kind right", f"{score.matter_kind_right}/{score.matter}", "")
    row("flags right (republished, continued, truncated)",
        f"{score.flags_right}/{score.flags_labelled}", "")
    for miss in score.misses:
        print(f"  wrong: {miss}")


def real(held_out: bool, fresh: bool = False) -> None:
    sets = editions(held_out, fresh)
    score = RealScore()
    for e in sets:
        score.add(e, read_gazette(e.text, territory_id=e.territory_id).acts)
    cities = sorted({c for e in sets for c in e.cities})
    gazettes_ = sorted({e.system for e in sets})
    name = "Fresh held-out set" if fresh else "Held-out real set" if held_out else "Real set"
    print(f"{name}: {len(sets)} editions of {len(gazettes_)} gazettes, {len(cities)} cities; "
          f"{score.labelled} normative acts with a heading"
          + (f" (+{score.tabled} acts without a heading of their own: rows of tables, "
             f"paragraphs under one preamble; {score.tabled_found} read)" if score.tabled else ""))
    for system in gazettes_:
        print(f"  {system}: {sum(e.system == system for e in sets)} editions")
    row("", "value", "target")
    row("normative acts: recall (kind, number, year)", f"{score.recall:.3f}",
        f"≥ {TARGET_REAL_RECALL}")
    row("normative acts: precision", f"{score.precision:.3f}", f"≥ {TARGET_REAL_PRECISION}")
    row("ementas read (of acts that print one)", f"{score.ementa:.3f} ({score.ementas})", "")
    row("ementas invented (of acts that print none)",
        f"{len(score.invented)}/{score.no_ementa}", "")
    for miss in score.misses + score.false + score.wrong_ementas + score.invented:
        print(f"  wrong: {miss}")


def _rate(texts: list[str], work, seconds: float) -> float:
    """Texts per second of this process's CPU time: the machine is shared, and CPU time
    counts one core's work whatever else runs beside it."""
    return texts_per_second(texts, work, seconds, clock=time.process_time)


def speed(labelled, seconds: float) -> None:
    plain = [g.text for g in labelled]
    joined = ["\n".join(plain[i:i + 3]) for i in range(0, len(plain) - 2, 3)]
    real_texts = [e.text for e in editions() + editions(held_out=True)]
    fresh_texts = [e.text for e in editions(fresh=True)]
    print(f"Speed on one core, per CPU second ({load_note()})")
    row("", "gazettes/s", "MB/s", "reference/s", "ratio", "target")
    for label, texts in (("labelled texts", plain), ("editions of 25-45 KB", joined),
                         ("real editions", real_texts), ("fresh real editions", fresh_texts)):
        mean = sum(map(len, texts)) / len(texts)
        ours = _rate(texts, read_gazette, seconds)
        reference = _rate(texts, lambda t: list(_REFERENCE.finditer(t)), seconds)
        row(f"{label} ({len(texts)}, mean {mean / 1000:.1f} KB)", f"{ours:,.0f}",
            f"{ours * mean / 1e6:.1f}", f"{reference:,.0f}", f"{ours / reference:.2f}",
            f"≥ {TARGET_GAZETTES_S}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed figure")
    args = parser.parse_args()
    labelled = gazettes()
    quality(labelled)
    real(held_out=False)
    real(held_out=True)
    real(held_out=False, fresh=True)
    speed(labelled, args.seconds)


if __name__ == "__main__":
    main()
