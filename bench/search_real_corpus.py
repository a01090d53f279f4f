"""Rebuild tests/data/search_real/norms.jsonl.gz from public snapshots of real municipal norms.

The colloquial relevance set (tests/data/search_real/) is judged over real norms, not generated
ones. They come from two public GitHub repositories (official acts, Lei 9.610/98 art. 8 IV),
fetched as bare git directories (the `fetch` tool of the session puts them under
/work/.mirror/<owner>+<name>/repo):

- DadosAbertosDeFeira/leis-municipais at 80117cd: the 6,439 norms of Feira de Santana (BA)
  as leismunicipais.com.br printed them (one HTML page per norm, Windows-1252 or UTF-8):
  the title in an <h2>, the ementa after it, then the text;
- viniciusmoro79/marica-rj at 9925b76: about 130 norms of Maricá (RJ) in Markdown (a "# "
  title, the ementa as the next paragraph, then the text).

Each norm becomes one JSON line: id ("fsa.lei.1234.1995"), jurisdiction (IBGE code), uf,
place, type, number, year, title, ementa, text, source (repository path). Ids are stable, so
the judgments of queries.jsonl name norms by them.

    .venv/bin/python bench/search_real_corpus.py [--mirror /work/.mirror]
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "search_real" / "norms.jsonl.gz"

FEIRA = ("DadosAbertosDeFeira/leis-municipais", "80117cd30f6abf088bea3e358986ef61aa4bd938")
MARICA = ("viniciusmoro79/marica-rj", "9925b7605feb1477633bceb24f7feb36be281a0f")

# Folder of the Feira de Santana snapshot -> (slug, type as locleg names it).
FEIRA_FOLDERS = {
    "Leis Ordinárias": ("lei", "lei"),
    "Leis Complementares": ("lc", "lei.complementar"),
    "Lei Promulgada": ("lp", "lei"),
    "Decretos": ("dec", "decreto"),
    "Decretos Legislativos": ("dl", "decreto.legislativo"),
    "Resoluções": ("res", "resolucao"),
    "Emendas à Lei Orgânica": ("elo", "emenda.lei.organica"),
    "Lei Orgânica": ("lom", "lei.organica"),
    "Regimento interno": ("ri", "regimento.interno"),
}
# The code in a Maricá file name (CCC-NNNNN-AAAA.md) -> (slug, type).
MARICA_CODES = {
    "LEI": ("lei", "lei"), "LCM": ("lc", "lei.complementar"), "DEC": ("dec", "decreto"),
    "ELO": ("elo", "emenda.lei.organica"), "LOM": ("lom", "lei.organica"),
    "INN": ("in", "instrucao.normativa"), "PTR": ("port", "portaria"),
    "RES": ("res", "resolucao"), "RCV": ("res", "resolucao"),
}


ENACTING = re.compile(r"(?i)sanciono|promulg|aprovou|decreta\b|no uso d[ea]s? (suas )?atribui")


def git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-c", "core.quotepath=off", "--git-dir", str(mirror), *args],
                          check=True, capture_output=True).stdout


def _plain(fragment: str) -> str:
    """HTML to text: line breaks kept as newlines, tags dropped, entities decoded."""
    fragment = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", fragment)
    fragment = re.sub(r"(?i)<br\s*/?>|</p>|</div>|</li>|</tr>", "\n", fragment)
    fragment = re.sub(r"<[^>]+>", " ", fragment)
    lines = (re.sub(r"[ \t\xa0]+", " ", line).strip()
             for line in html.unescape(fragment).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def feira(mirror: Path) -> Iterator[dict]:
    repo, commit = FEIRA
    root = "LeisMunicipais - Feira de Santana/"
    paths = git(mirror, "ls-tree", "-r", "--name-only", commit, root).decode().splitlines()
    for path in sorted(paths):
        folder = path[len(root):].split("/")[0]
        slug, kind = FEIRA_FOLDERS[folder]
        found = re.search(r"-(\d+)-(\d{4})\.html$", path)
        if not found:
            continue
        number, year = int(found.group(1)), int(found.group(2))
        raw = git(mirror, "show", f"{commit}:{path}")
        try:  # most pages are Windows-1252; a few newer ones UTF-8
            page = raw.decode("utf-8")
        except UnicodeDecodeError:
            page = raw.decode("cp1252", errors="replace")
        head = re.search(r"(?is)<h2>(.*?)</h2>(.*?)(?:<img[^>]*cabecal[^>]*>|$)", page)
        if head is None:
            continue
        title, ementa = _plain(head.group(1)), _plain(head.group(2))
        body = page[head.end():]
        yield {"id": f"fsa.{slug}.{number}.{year}", "jurisdiction": 2910800, "uf": "BA",
               "place": "Feira de Santana", "type": kind, "number": str(number),
               "year": year, "title": title, "ementa": ementa, "text": _plain(body),
               "source": f"{repo}@{commit[:7]}:{path}"}


def marica(mirror: Path) -> Iterator[dict]:
    repo, commit = MARICA
    paths = git(mirror, "ls-tree", "-r", "--name-only", commit, "docs/").decode().splitlines()
    for path in sorted(paths):
        found = re.search(r"/([A-Z]{3})-(\d+)-(\d{4})\.md$", path)
        if not found or found.group(1) not in MARICA_CODES:
            continue
        slug, kind = MARICA_CODES[found.group(1)]
        number, year = int(found.group(2)), int(found.group(3))
        text = git(mirror, "show", f"{commit}:{path}").decode("utf-8", errors="replace")
        text = re.sub(r"<[^>]+>", "", text).replace("**", "")
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
        if not paragraphs:
            continue
        title = paragraphs[0].lstrip("# ").strip()
        rest = [p for p in paragraphs[1:] if not p.startswith("#")]  # the title again
        ementa = re.sub(r"^[|>\s]*(EMENTA:\s*)?", "", rest[0]) if rest else ""
        if ENACTING.search(ementa[:200]):  # old laws have no ementa: the text begins
            ementa = ""
        else:
            rest = rest[1:]
        yield {"id": f"mar.{slug}.{number}.{year}", "jurisdiction": 3302700, "uf": "RJ",
               "place": "Maricá", "type": kind, "number": str(number), "year": year,
               "title": title, "ementa": ementa, "text": "\n\n".join(rest),
               "source": f"{repo}@{commit[:7]}:{path}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    norms: dict[str, dict] = {}
    for (repo, _), read in ((FEIRA, feira), (MARICA, marica)):
        folder = args.mirror / repo.replace("/", "+") / "repo"
        if not folder.is_dir():
            sys.exit(f"no snapshot of {repo} at {folder}: fetch it first")
        for item in read(folder):
            # Two files of one number and year (a republication): the first kept, said.
            if item["id"] in norms:
                print(f"twice: {item['id']} ({item['source']}); first kept", file=sys.stderr)
                continue
            norms[item["id"]] = item
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(OUT, "wt", encoding="utf-8", compresslevel=9) as out:
        for item in norms.values():
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(f"{len(norms):,} norms -> {OUT} ({OUT.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
