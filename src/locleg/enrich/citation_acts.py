"""What a sentence says the citing norm does to the norm it cites (revokes, alters,
regulates, or only cites), the provision it names (its LexML fragment), the sentence itself
and the article it stands in."""

from __future__ import annotations

from . import citation_patterns as P
from .citation_model import (
    ALTERED_BY,
    ALTERS,
    CITES,
    REGULATED_BY,
    REGULATES,
    REVOKED_BY,
    REVOKED_IN_PART_BY,
    REVOKES,
    REVOKES_IN_PART,
    Citation,
)
from .citation_scan import canonical

# Cheap tests before the costly patterns: most citations have no provision before them and
# most sentences no verb of an act.
_PROVISION_HINTS = ("art", "§", "inc", "parágrafo", "paragrafo", "par.", "alínea", "alinea",
                    "item", "itens", "caput")
_ACT_STEMS = ("revog", "suprim", "alter", "reda", "acresc", "inclu", "introduz", "modific",
              "renumer", "regulament", "vigor", "seguinte")


def _sentence_bounds(text: str, low: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around [start, end): after the last end of sentence before it, up to the
    next one, at most 700 characters either side, without its provision label ("Art. 4º")."""
    floor = max(0, start - 700)
    s, hi = floor, start
    while True:  # backwards over the candidates, nearest first
        i = max(low.rfind(".", floor, hi), low.rfind(";", floor, hi), low.rfind(":", floor, hi),
                low.rfind("\n", floor, hi), low.rfind("!", floor, hi), low.rfind("?", floor, hi))
        if i == -1:
            break
        m = P.SENTENCE_END.match(text, i)
        if m and m.end() <= start and not _abbreviation(low, i):
            s = m.end()
            break
        hi = i
    label = P.PROVISION_LABEL.match(text, s, start)
    if label:
        s = label.end()
    e = min(len(text), end + 700)
    for m in P.SENTENCE_END.finditer(text, end, e):
        if not _abbreviation(low, m.start()):
            e = m.end()
            break
    return s, e


def _abbreviation(low: str, dot: int) -> bool:
    if low[dot] != ".":
        return False
    i = dot
    while i > 0 and (low[i - 1].isalpha() or low[i - 1] in "º°") and dot - i < 6:
        i -= 1
    return low[i:dot] in P.ABBREVIATIONS


def _fragment(low: str, lo: int, start: int) -> tuple[str | None, int, bool]:
    """The provision named just before a citation ("art. 39-B da"): its LexML fragment
    (art39-B, art61_inc4), where it starts, and whether it names several provisions."""
    window_start = max(lo, start - 160)
    window = low[window_start:start]
    tail = P.FRAGMENT_TAIL.search(window, max(0, len(window) - 40))
    if tail is None:
        return None, start, False
    near = window[max(0, tail.start() - 80):tail.start()]
    if not any(hint in near for hint in _PROVISION_HINTS):
        return None, start, False
    tokens = [t for t in P.FRAGMENT_TOKEN.finditer(window, max(0, tail.start() - 80),
                                                    tail.start())
              if t["roman"] or t.start() == 0 or not window[t.start() - 1].isalpha()]
    chain: list = []
    edge = tail.start()
    for tok in reversed(tokens):
        glue = window[tok.end():edge]
        if glue and not P.FRAGMENT_GLUE.match(glue):
            break
        if tok["roman"] and not window.startswith(",", tok.end()):
            break
        chain.append(tok)
        edge = tok.start()
    if not chain:
        return None, start, False
    chain.reverse()
    if chain[0]["roman"]:
        chain = chain[1:]
        if not chain:
            return None, start, False
    parts: dict[str, str] = {}
    several = False
    for tok in chain:
        if tok["art"]:
            several |= bool(tok["arts"] or tok["artmore"])
            n = tok["artn"].replace(".", "")
            parts.setdefault("art", f"art{n}" + (f"-{tok['arts_suffix'].upper()}"
                                                 if tok["arts_suffix"] else ""))
        elif tok["par"]:
            several |= bool(tok["pars"] or tok["parw"])
            n = tok["parn"] or tok["parn2"]
            parts.setdefault("par", f"par{n}" if n else "par1u")
        elif tok["inc"] or tok["roman"]:
            several |= bool(tok["incs"])
            n = P.roman_to_int(tok["incn"] or tok["romann"])
            if n:
                parts.setdefault("inc", f"inc{n}")
        elif tok["ali"]:
            several |= bool(tok["alis"])
            parts.setdefault("ali", f"ali{ord(tok['alin']) - 96}")
        elif tok["ite"]:
            several |= bool(tok["ites"])
            parts.setdefault("ite", f"ite{tok['iten']}")
        elif tok["cpt"]:
            parts.setdefault("cpt", "cpt")
    begin = window_start + chain[0].start()
    if several or "art" not in parts and "par" not in parts:
        return None, begin, True
    order = ("art", "cpt", "par", "inc", "ali", "ite")
    return "_".join(parts[k] for k in order if k in parts), begin, False


def read_acts(text: str, low: str, cites: list[Citation]) -> None:
    """Fill sentence, fragment, kind and (for acts) article of each citation."""
    bounds = (-1, -1)
    prev: Citation | None = None
    sentence, acts = "", False
    for c in cites:
        if not bounds[0] <= c.start < bounds[1] or c.end > bounds[1]:
            bounds = _sentence_bounds(text, low, c.start, c.end)
            prev = None
            sentence = " ".join(text[bounds[0]:bounds[1]].split())
            part = low[bounds[0]:bounds[1]]
            acts = "(" in part or any(stem in part for stem in _ACT_STEMS)
        s, e = bounds
        c.sentence = sentence
        fragment, frag_start, several = _fragment(low, max(s, prev.end if prev else s), c.start)
        c.fragment = fragment
        if acts:
            c.kind = _kind(low, c, s, e, frag_start, several or fragment is not None, prev)
        else:  # no verb of an act in the sentence: only the head of its list may act
            c.kind = _kind_from_list_head(low, s, low[max(s, prev.end if prev else s):c.start],
                                          several or fragment is not None)
        if c.kind != CITES:
            c.article = article_before(text, c.start)
            if c.kind == REVOKED_IN_PART_BY and c.article is None \
                    and c.start < first_article(text) < len(text):
                # a note before the first article (heading, ementa) is on the whole norm; in a
                # text without articles it follows a provision (an item of a list, a table)
                c.kind = REVOKED_BY
        prev = c


def _kind(low: str, c: Citation, s: int, e: int, frag_start: int, partial: bool,
          prev: Citation | None) -> str:
    lead_from = max(s, frag_start - 200)
    lead = low[lead_from:frag_start]
    if P.NOTE_SUBJECT_BEFORE.search(lead[-6:]):
        act = P.NOTE_SUBJECT_ACT.match(low, c.end, e)
        if act:
            return ALTERED_BY if act["altered"] else REVOKED_IN_PART_BY if act["revoked"] \
                else REGULATED_BY
    note = P.NOTE.search(lead[-160:])
    if note:
        opened = frag_start - len(lead[-160:]) + note.start()
        if prev is not None and 0 <= opened - prev.end <= 3:
            return CITES
        if note["altered"]:
            return ALTERED_BY
        if note["revoked"]:
            return REVOKED_IN_PART_BY
        if note["regulated"]:
            return REGULATED_BY
        return CITES
    line = low.rfind("\n", 0, frag_start) + 1
    wording = P.WORDING_NOTE.match(low, line, frag_start)
    if wording and not low[wording.end():frag_start].strip() and not (
            prev is not None and prev.start >= line):
        return ALTERED_BY
    agent = P.AGENT.search(lead[-40:])
    if agent:
        return _by_agent(low[s:frag_start - len(lead[-40:]) + agent.start()], prev)
    if P.REFERENCE_BEFORE.search(lead[-80:]):
        return CITES
    since_prev = low[max(s, prev.end if prev else s):c.start]
    after = P.ACT_AFTER.match(low, c.end, e)
    if after:
        if after["revokes"]:
            return REVOKES_IN_PART if partial or P.PART_WORDS.search(since_prev) else REVOKES
        return ALTERS if after["alters"] else REGULATES
    verb = _last_act(low, s, frag_start)
    if verb is None:
        return _kind_from_list_head(low, s, since_prev, partial)
    if P.RELATIVE_BEFORE_VERB.search(low, max(s, verb.start() - 15), verb.start()) \
            or P.RELATIVE_VERBS.search(low, max(s, verb.start() - 80), verb.start()):
        return CITES
    gap = low[verb.end():frag_start]
    if prev is not None and prev.start >= verb.end():
        if not P.CHAIN.match(low, prev.end, frag_start):
            return CITES
        gap = low[verb.end():prev.start] + " " + low[prev.end:frag_start]
    if P.DETACH.search(gap):
        return CITES
    if verb["revokes"]:
        since_verb = low[max(verb.end(), prev.end if prev and prev.start >= verb.end()
                             else verb.end()):c.start]
        chained = prev is not None and "contrary_provisions" in prev.flags \
            and prev.start >= verb.end() and P.CHAIN.match(low, prev.end, frag_start)
        if chained or P.PROVISIONS_IN.search(since_verb[-60:]) and P.CONTRARY.search(
                low, verb.end(), frag_start):
            # "revogadas as disposições em contrário, inclusive as constantes na Lei X": what
            # of Lei X is contrary is not said, so Lei X is not known revoked, even in part
            c.flags += ("contrary_provisions",)
            return CITES
        if partial or P.PART_WORDS.search(since_verb) or P.OBJECT_IN.search(since_verb):
            return REVOKES_IN_PART
        return REVOKES
    if verb["part"]:
        return REVOKES_IN_PART
    return ALTERS if verb["alters"] else REGULATES


def _by_agent(before: str, prev: Citation | None) -> str:
    """The cited norm after "pela", "através da": the agent of a passive act. On the citing
    norm itself when the participle opens its sentence or a note ("Alterado através da
    Resolução 443/2006"); on another norm, or no act, otherwise."""
    if prev is not None:
        return CITES
    m = P.PASSIVE_ACT.search(before.lstrip())
    if m is None or m.start() > 0 and not P.PROVISION_LABEL.fullmatch(before.lstrip()[:m.start()]
                                                                      + " "):
        return CITES
    if m["altered"]:
        return ALTERED_BY
    return REVOKED_IN_PART_BY if m["revoked"] else REGULATED_BY


def _kind_from_list_head(low: str, s: int, since_prev: str, partial: bool) -> str:
    """An inciso of a list whose head acts: "Ficam revogados:\nI - o Decreto nº 8.115 …"."""
    head_end = low.rfind("\n", 0, s) + 1
    if not _inciso_at(low, head_end):
        return CITES
    while True:  # back over the earlier incisos of the same list
        colon = low.rfind(":", max(0, head_end - 2000), head_end)
        semi = low.rfind(";", max(0, head_end - 2000), head_end)
        if colon == -1 and semi == -1:
            return CITES
        if semi > colon:
            head_end = semi
            line = low.rfind("\n", 0, semi)
            if line == -1 or not _inciso_at(low, line + 1):
                return CITES
            head_end = line + 1
            continue
        break
    head = P.LIST_HEAD.search(low, max(0, colon - 200), colon + 1)
    if head is None or "reda" in head.group() or any(q in low[colon:s] for q in "\"“”"):
        return CITES
    verb = _last_act(low, head.start(), colon)
    if verb is None or P.DETACH.search(low, verb.end(), colon):
        return CITES
    if verb["revokes"]:
        return REVOKES_IN_PART if partial or P.PART_WORDS.search(since_prev) else REVOKES
    if verb["part"]:
        return REVOKES_IN_PART
    return ALTERS if verb["alters"] else REGULATES


def _last_act(low: str, lo: int, hi: int):
    """The last verb of an act (ACT_BEFORE) in low[lo:hi], found from its stems backwards."""
    best = None
    for stem in P.ACT_STEMS:
        i = low.rfind(stem, lo, hi)
        while i != -1 and (best is None or i > best.start()):
            m = P.ACT_BEFORE.match(low, i, hi) if i == 0 or not low[i - 1].isalnum() else None
            if m:
                best = m
                break
            i = low.rfind(stem, lo, i)
    return best


def _inciso_at(low: str, pos: int) -> bool:
    """Does an inciso ("I - ", "IV – ") start at pos (in the lowercased text)?"""
    return P.INCISO_START.match(low, pos) is not None


def first_article(text: str) -> int:
    """Where the first article heading ("Art. 1º") starts; the text's length if none."""
    first = len(text)
    for word in ("Art", "ART"):
        i = text.find(word)
        while i != -1 and i < first:
            if _article_at(text, i):
                first = i
                break
            i = text.find(word, i + 3)
    return first


def article_before(text: str, pos: int) -> str | None:
    """The label ("Art. 31", "Art. 11-A") of the article that holds `pos`."""
    best = None
    for word in ("Art", "ART"):
        i = text.rfind(word, 0, pos)
        while i != -1 and (best is None or i > best[0]):
            m = _article_at(text, i)
            if m:
                best = (i, m)
                break
            i = text.rfind(word, 0, i)
    if best is None:
        return None
    m = best[1]
    return f"Art. {canonical(m['n'])}" + (f"-{m['s'].upper()}" if m["s"] else "")


def _article_at(text: str, i: int):
    """The heading match when an article heading starts at i (at a line start or after the
    end of a sentence, not "nos termos do art. 5º")."""
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    if j >= 0 and text[j] not in "\n.;:":
        return None
    return P.ARTICLE_HEAD.match(text, i)
