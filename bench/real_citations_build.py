"""Rebuild tests/data/real_citations/links/: real municipal texts with the citation links their
own publishers put in them, the gold set of citation recall against a real site's links.

Two publishers, two cities, read from public Git snapshots (`fetch` them first; the commits are
pinned so the set does not move):

- leismunicipais.com.br pages of Feira de Santana/BA, as archived by DadosAbertosDeFeira/
  leis-municipais: the site wraps each cited norm it knows in `<a class="link_law" …>`, whose
  href names its type, number and year (leisestaduais.com.br for a state law).
- Maricá/RJ's legislation in Markdown (viniciusmoro79/marica-rj): notes and tables link the
  norm they name to its file (`LCM-00081-2000.md`).

Each text is written as one JSON file: the plain text as a reader sees it, and each link's span
in that text with the norm its href names. Nothing here is computed by the extractor.

    .venv/bin/python bench/real_citations_build.py --mirrors /work/.mirror
"""

from __future__ import annotations

import argparse
import html
import json
import random
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "real_citations" / "links"

FEIRA = ("DadosAbertosDeFeira/leis-municipais", "80117cd30f6abf088bea3e358986ef61aa4bd938")
MARICA = ("viniciusmoro79/marica-rj", "9925b76")

# leismunicipais.com.br URL types -> LexML family
_SITE_TYPES = {"lei-ordinaria": "lei", "lei-complementar": "lei.complementar",
               "lei-promulgada": "lei", "decreto": "decreto", "resolucao": "resolucao",
               "decreto-legislativo": "decreto.legislativo", "portaria": "portaria",
               "emenda-a-lei-organica": "emenda.lei.organica", "lei-delegada": "lei.delegada"}
_SITE_HREF = re.compile(r"/(?P<type>[a-z-]+?)-n-(?P<num>\d+)-(?P<year>\d{4})-")
# Maricá file names: CCC-NNNNN-AAAA.md
_MARICA_TYPES = {"LEI": "lei", "LCM": "lei.complementar", "DEC": "decreto",
                 "ELO": "emenda.lei.organica", "RES": "resolucao", "RCV": "resolucao",
                 "PTR": "portaria", "INN": "instrucao.normativa"}
_MARICA_HREF = re.compile(r"(?P<type>[A-Z]{3})-(?P<num>\d{5})[-.](?P<year>\d{4})")
_BLOCK = {"br", "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "table", "span"}


class _Page(HTMLParser):
    """The text of a leismunicipais page (its #span_text) with the spans of its law links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.size = 0
        self.links: list[dict] = []
        self.open: dict | None = None
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style"):
            self.skip += 1
        if tag in _BLOCK and tag != "span" or tag == "span" and "titulo" in (a.get("class") or ""):
            self._put("\n")
        if tag == "a" and a.get("class") == "link_law" and a.get("data-id"):
            m = _SITE_HREF.search(a.get("href") or "")
            if m and m["type"] in _SITE_TYPES:
                href = a["href"]
                sphere = "estadual" if "leisestaduais" in href else \
                    "federal" if "leisfederais" in href else "municipal"
                self.open = {"start": self.size, "family": _SITE_TYPES[m["type"]],
                             "number": str(int(m["num"])), "year": int(m["year"]),
                             "sphere": sphere, "href": href.split("leismunicipais.com.br")[-1]}

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        if tag == "a" and self.open is not None:
            self.open["end"] = self.size
            self.links.append(self.open)
            self.open = None

    def handle_data(self, data):
        if not self.skip:
            self._put(" ".join(data.split("\n")))

    def _put(self, s: str) -> None:
        self.parts.append(s)
        self.size += len(s)


def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True,
                          capture_output=True).stdout


def _tidy(text: str, links: list[dict]) -> tuple[str, list[dict]]:
    """Collapse runs of spaces and blank lines, moving the link spans along."""
    out: list[str] = []
    remap = [0] * (len(text) + 1)
    prev = ""
    for i, ch in enumerate(text):
        remap[i] = len(out)
        if ch in " \t\xa0" and prev in (" ", "\n", ""):
            continue
        if ch == "\n" and out and out[-1] == " ":
            out.pop()
        if ch == "\n" and len(out) >= 2 and out[-1] == "\n" and out[-2] == "\n":
            continue
        ch = " " if ch == "\xa0" else ch
        out.append(ch)
        prev = ch
    remap[len(text)] = len(out)
    body = "".join(out)
    lead = len(body) - len(body.lstrip())
    kept = []
    for link in links:
        s, e = remap[link["start"]] - lead, remap[link["end"]] - lead
        while e > s and body[lead + e - 1] == " ":
            e -= 1
        if e > s:
            kept.append(link | {"start": s, "end": e})
    return body.strip(), kept


def corpus_keys(mirror_feira: Path, mirror_marica: Path) -> dict[str, list[str]]:
    """Every norm each publisher holds, "family|number|year" from its file names: what a
    citation could be resolved to in a corpus of that town."""
    keys: dict[str, set[str]] = {"br;bahia;feira.santana": set(), "br;rio.janeiro;marica": set()}
    _, commit = FEIRA
    for name in _git(mirror_feira, "-c", "core.quotepath=off", "ls-tree", "-r", "--name-only",
                     commit).decode().splitlines():
        m = re.search(r"-com-br-(?P<type>[^/]+?)-(?P<num>\d+)-(?P<year>\d{4})\.html$", name)
        kind = m["type"].lower().replace("à", "a") if m else ""
        if kind in _SITE_TYPES:
            keys["br;bahia;feira.santana"].add(
                f"{_SITE_TYPES[kind]}|{int(m['num'])}|{m['year']}")
    full = _git(mirror_marica, "rev-parse", MARICA[1]).decode().strip()
    for name in _git(mirror_marica, "ls-tree", "-r", "--name-only", full).decode().splitlines():
        m = _MARICA_HREF.search(name)
        if m and m["type"] in _MARICA_TYPES:
            keys["br;rio.janeiro;marica"].add(
                f"{_MARICA_TYPES[m['type']]}|{int(m['num'])}|{m['year']}")
    return {town: sorted(k) for town, k in keys.items()}


def feira(mirror: Path, count: int) -> list[dict]:
    repo, commit = FEIRA
    names = _git(mirror, "-c", "core.quotepath=off", "ls-tree", "-r", "--name-only",
                 commit).decode().splitlines()
    names = [n for n in names if n.startswith("LeisMunicipais - Feira de Santana/")]
    random.Random(21).shuffle(names)
    out = []
    for name in names:
        blob = _git(mirror, "show", f"{commit}:{name}")
        try:  # most pages are Latin-1; a few were saved as UTF-8
            raw = blob.decode("utf-8")
        except UnicodeDecodeError:
            raw = blob.decode("latin-1")
        if 'class="link_law" data-id' not in raw:
            continue
        body = raw[raw.find('<div id=span_text>'):]
        page = _Page()
        page.feed(body)
        text, links = _tidy("".join(page.parts), page.links)
        m = re.search(r"-com-br-(?P<type>[^/]+?)-(?P<num>\d+)-(?P<year>\d{4})\.html$", name)
        kind = m["type"].lower().replace("à", "a") if m else ""
        own = f"{_SITE_TYPES[kind]}:{m['num']}:{m['year']}" if kind in _SITE_TYPES else None
        out.append({"name": "feira-" + Path(name).stem.removeprefix("LeisMunicipais-com-br-")
                    .lower(), "citing": "br;bahia;feira.santana", "level": "municipal",
                    "own": own, "source": {"repo": repo, "commit": commit, "path": name},
                    "text": text, "links": links})
        if len(out) == count:
            break
    return out


_MD_LINK = re.compile(r"\[(?P<label>[^\[\]]*)\]\((?P<href>[^()\s]+\.md)\)")


def marica(mirror: Path) -> list[dict]:
    repo, commit = MARICA
    full = _git(mirror, "rev-parse", commit).decode().strip()
    names = [n for n in _git(mirror, "ls-tree", "-r", "--name-only", full).decode().splitlines()
             if n.startswith("docs/") and n.endswith(".md")]
    out = []
    for name in sorted(names):
        raw = _git(mirror, "show", f"{full}:{name}").decode("utf-8")
        if not _MD_LINK.search(raw):
            continue
        own_m = _MARICA_HREF.search(name)
        parts, links, size, last = [], [], 0, 0
        for m in _MD_LINK.finditer(raw):
            parts.append(raw[last:m.start()])
            size += m.start() - last
            label = m["label"]
            target = _MARICA_HREF.search(m["href"])
            if target and target["type"] in _MARICA_TYPES and target.group() != (
                    own_m.group() if own_m else None):
                links.append({"start": size, "end": size + len(label),
                              "family": _MARICA_TYPES[target["type"]],
                              "number": str(int(target["num"])), "year": int(target["year"]),
                              "sphere": "municipal", "href": m["href"]})
            parts.append(label)
            size += len(label)
            last = m.end()
        parts.append(raw[last:])
        if not links:
            continue
        own = None
        if own_m and own_m["type"] in _MARICA_TYPES:
            own = f"{_MARICA_TYPES[own_m['type']]}:{int(own_m['num'])}:{own_m['year']}"
        out.append({"name": "marica-" + Path(name).stem.lower(), "citing": "br;rio.janeiro;marica",
                    "level": "municipal", "own": own,
                    "source": {"repo": repo, "commit": full, "path": name},
                    "text": html.unescape("".join(parts)), "links": links})
    return out


def _shows_number(text: str, link: dict) -> bool:
    """A link counts when its label shows the cited number ("1.439", "(Redação dada pela Lei
    Complementar nº 81 …)"): a bare "Teste2" link is the site's, not a citation the text writes."""
    digits = re.findall(r"\d+(?:\.\d{3})*", text[link["start"]:link["end"]])
    return any(d.replace(".", "").lstrip("0") == link["number"] for d in digits)


def _a_norm_cited(text: str, link: dict, own: str | None) -> bool:
    """Links that are the site's, not citations of another norm: the text's own number (the
    extractor drops a norm's mentions of itself by design), and a bill ("Projeto de Decreto
    Legislativo nº 73/2018", linked by number to Decreto Legislativo 73/2018, another act)."""
    if own is not None:
        family, number, year = own.split(":")
        if (link["family"], link["number"], str(link["year"])) == (family, number, year):
            return False
    return not re.search(r"(?i)\bprojeto\s+de\s+[\w\s]{0,30}$", text[max(0, link["start"] - 60):
                                                                     link["start"]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--feira", type=int, default=300, help="texts with links to keep")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="where to write (another folder for the whole corpus: --feira 99999)")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    mirror_feira = args.mirrors / "DadosAbertosDeFeira+leis-municipais" / "repo"
    mirror_marica = args.mirrors / "viniciusmoro79+marica-rj" / "repo"
    texts = feira(mirror_feira, args.feira) + marica(mirror_marica)
    (out.parent / "corpus_keys.json").write_text(json.dumps(
        corpus_keys(mirror_feira, mirror_marica), indent=0) + "\n", "utf-8")
    for t in texts:
        t["links"] = [x for x in t["links"] if _shows_number(t["text"], x)
                      and _a_norm_cited(t["text"], x, t["own"])]
    texts = [t for t in texts if t["links"]]
    for t in texts:
        (out / f"{t['name']}.json").write_text(
            json.dumps(t, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(f"{len(texts)} texts, {sum(len(t['links']) for t in texts)} links -> {out}")


if __name__ == "__main__":
    main()
