"""The grammar of norm citations in Brazilian legal texts: regular expressions and tables.

Kept apart from `citations.py` (the extractor) so the grammar reads as one piece. Every
pattern here runs at a known position (`pattern.match(text, pos)`) or on a short window,
never over a whole text: the extractor finds candidate positions with plain substring
search first, which is what makes it fast on millions of texts.
"""

from __future__ import annotations

import re
from datetime import date

_I = re.IGNORECASE | re.VERBOSE

# The lowercase words a candidate can start with, searched with str.find over the folded
# text. Acronyms (LC, CF, CTN…) are found separately, case-sensitively, by ACRONYM.
KEYWORDS = ("lei", "decret", "resolu", "constitui", "emenda", "portaria", "digo",
            "estatuto", "provis", "normativa")

# --- numbered citations: TYPE, then REST (sphere, issuer, nº, number, year, date) ---------

# One named group per LexML family; `lastgroup` of a match names the family.
TYPE = re.compile(r"""
    (?P<lei_complementar>leis?\s+complementar(?:es)?|(?-i:L\.?\s?C\.?M?)(?=[\s.]*(?:n|\d)))
  | (?P<lei_delegada>leis?\s+delegadas?)
  | (?P<lei_organica>leis?\s+org[aâá]nicas?)
  | (?P<decreto_lei>decretos?\s?[-–]?\s?leis?\b)
  | (?P<decreto_legislativo>decretos?\s+legislativos?)
  | (?P<decreto>decretos?(?:\s+(?:executivos?|regulamentar(?:es)?|governament(?:al|ais)
        |numerados?))?)
  | (?P<emenda_lei_organica>emendas?\s+(?:[aà]\s+|ao\s+)?(?:lei\s+org[aâá]nica|(?-i:LOM))
        (?:\s+(?:do\s+munic[ií]pio|municipal))?)
  | (?P<emenda_constitucional>emendas?\s+constitucion(?:al|ais))
  | (?P<resolucao>resolu[cç](?:[aã]o|[oõ]es))
  | (?P<portaria>portarias?)
  | (?P<instrucao_normativa>instru[cç](?:[aã]o|[oõ]es)\s+normativas?)
  | (?P<medida_provisoria>medidas?\s+provis[oó]rias?)
  | (?P<lei>leis?(?:\s+ordin[aá]rias?|\s+promulgadas?)?)
""", _I)

FAMILY = {g: g.replace("_", ".") for g in TYPE.groupindex}
# "Leis Municipais nº …": the plural says the same sphere.
SPHERE_WORD = {"federais": "federal", "estaduais": "estadual", "municipais": "municipal",
               "distritais": "distrital"}
FEDERAL_FAMILIES = {"decreto.lei", "medida.provisoria", "emenda.constitucional"}

_MONTHS = ("janeiro", "fevereiro", "marco", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro")
MONTH = {name: i for i, name in enumerate(_MONTHS, 1)} | {"março": 3}

_NUMBER = r"""
    (?P<num>\d{1,3}(?:\.\d{3})+(?!\d)|\d{1,6}(?![\d.]\d))
    (?P<suffix>\s?-\s?[a-z](?![a-z\d])|[a-z](?![a-z\dº°]))?
    (?:-(?P<reed>\d{1,2})(?!\d))?
    (?:\s?/\s?(?P<year>\d{4}|\d\.\d{3}|\d{2})(?![\d]))?
"""
# ", de 06 de novembro de 2008", "de 06.11.2008", ", de 2010"
_DATE = r"""
    (?:\s*(?:,|(?P<paren>\())?\s*(?:de|datad[ao]\s+de)\s+
      (?:(?P<day>\d{1,2})\s?[º°o]?\s*(?:de\s*)?(?P<month>janeiro|fevereiro|mar[cç]o|abril|maio|junho
            |julho|agosto|setembro|outubro|novembro|dezembro)\s*de\s*(?P<dyear>\d{4}|\d\.\d{3})
        |(?P<nday>\d{1,2})\s?[./-]\s?(?P<nmonth>\d{1,2})\s?[./-]\s?(?P<nyear>\d{4}|\d{2})(?!\d)
        |(?P<oyear>(?:1[5-9]|20)\d\d)(?![\d.,]\d)
      )(?(paren)\))
    )?
"""
_SPHERE = r"federa(?:l|is)|estadua(?:l|is)|municipa(?:l|is)|distrita(?:l|is)"
# nº n° n.º N. nº. nºs no n "N O" (OCR and typing drop, bend and split the ordinal sign)
_NO = (r"(?P<no>n[º°ª]\s?s?\.?|n\.\s?[º°o]?s?\.?|n\s[º°]s?\.?|no?s?(?=\s*\d)|n\so(?=\s\d)"
       r"|n[uú]meros?)")

REST = re.compile(rf"""
    (?:\s+(?P<sphere>{_SPHERE}))?
    (?:\s+(?P<compl>complementar(?:es)?))?
    (?:\s+(?P<sphere2>{_SPHERE}))?
    (?:\s+(?:d[oa]\s+)?(?P<issuer>
        (?-i:(?!(?:DE|DA|DO|DAS|DOS|NO|NA|NOS|NAS|NR|N|E)\b)[A-Z]{{2,8}}(?:/[A-Z]{{2,4}})?)
        |mesa(?:\s+diretora)?|c[aâ]mara\s+municipal|senado\s+federal))?
    (?:\s+(?:de\s+diretrizes\s+or[cç]ament[aá]rias|or[cç]ament[aá]ria(?:\s+anual)?)(?=\s*n))?
    (?:\s+de(?=\s*n)|\s*,(?=\s*n[º°ª.\s]))?(?:\s*:)?\s*{_NO}?\s*
    {_NUMBER}
    {_DATE}
""", _I)

# The next item of a list: "Leis nºs 1.200, 1.300 e 1.450, de 2010", "Decretos nº 1310/2004
# e nº 3063/2012".
LIST_ITEM = re.compile(rf"""
    (?:\s*[,;]\s*(?:e\s+)?|\s+e\s+)(?:(?:a|o|as|os)\s+)?
    (?P<start>)
    (?:(?P<no>n[º°ª]\s?s?\.?|n\.\s?[º°o]?s?\.?)\s*)?
    {_NUMBER}
    (?!\s?/\s?\d)
    (?!\s*(?:[º°ª%]|reais|dias|meses|anos|horas|metros|m²|vezes|habitantes|servidores))
    {_DATE}
""", _I)

# The same grammar for the lowercased text, without IGNORECASE (faster); a resolution's or
# portaria's issuer ("CONTRAN") needs the case, so those run on the text.
TYPE_LOW = re.compile(TYPE.pattern, re.VERBOSE)
REST_LOW = re.compile(REST.pattern, re.VERBOSE)
LIST_ITEM_LOW = re.compile(LIST_ITEM.pattern, re.VERBOSE)
ISSUER_FAMILIES = ("resolucao", "portaria", "instrucao.normativa")

# Words after a bare number that say it is a quantity, not a norm ("em lei 30 dias").
QUANTITY_AFTER = re.compile(
    r"\s*(?:[º°ª%]|reais|dias|meses|anos|horas|metros|m²|vezes|habitantes|servidores)")

# A resolution's or portaria's issuer that makes it federal (or municipal, for the councils).
FEDERAL_ISSUERS = {
    "contran": "conselho.nacional.transito", "conama": "conselho.nacional.meio.ambiente",
    "cne": "conselho.nacional.educacao", "cnas": "conselho.nacional.assistencia.social",
    "conanda": "conselho.nacional.direitos.crianca.adolescente",
    "tse": "tribunal.superior.eleitoral", "aneel": "agencia.nacional.energia.eletrica",
    "anvisa": "agencia.nacional.vigilancia.sanitaria", "cmn": "conselho.monetario.nacional",
    "cgsn": "comite.gestor.simples.nacional", "senado federal": "senado.federal",
    "ms": "ministerio.saude", "gm/ms": "ministerio.saude", "mec": "ministerio.educacao",
    "mte": "ministerio.trabalho.emprego", "stn": "secretaria.tesouro.nacional",
    "rfb": "secretaria.receita.federal", "srf": "secretaria.receita.federal",
    "inss": "instituto.nacional.seguro.social", "cnj": "conselho.nacional.justica",
    "fnde": "fundo.nacional.desenvolvimento.educacao",
    "cd/fnde": "fundo.nacional.desenvolvimento.educacao",
    "cns": "conselho.nacional.saude",
}
# Issuers that make a resolution or portaria the state's: the states' environmental councils
# ("Resolução CEPRAM nº 3.925" in Feira de Santana's environmental code is Bahia's).
STATE_ISSUERS = frozenset({"cepram", "consema", "copam", "conema", "coema", "cema", "detran"})

# --- well-known federal norms: by name, by acronym, by number and year -------------------

# (family, number, signature date): dates of the official texts.
_KNOWN = {
    "ctn": ("lei", "5172", date(1966, 10, 25)),
    "lrf": ("lei.complementar", "101", date(2000, 5, 4)),
    "clt": ("decreto.lei", "5452", date(1943, 5, 1)),
    "codigo_civil": ("lei", "10406", date(2002, 1, 10)),
    "codigo_penal": ("decreto.lei", "2848", date(1940, 12, 7)),
    "ctb": ("lei", "9503", date(1997, 9, 23)),
    "cnt": ("lei", "5108", date(1966, 9, 21)),
    "cdc": ("lei", "8078", date(1990, 9, 11)),
    "codigo_eleitoral": ("lei", "4737", date(1965, 7, 15)),
    "eca": ("lei", "8069", date(1990, 7, 13)),
    "estatuto_cidade": ("lei", "10257", date(2001, 7, 10)),
    "estatuto_idoso": ("lei", "10741", date(2003, 10, 1)),
    "estatuto_pcd": ("lei", "13146", date(2015, 7, 6)),
    "estatuto_me": ("lei.complementar", "123", date(2006, 12, 14)),
    "estatuto_juventude": ("lei", "12852", date(2013, 8, 5)),
    "estatuto_igualdade": ("lei", "12288", date(2010, 7, 20)),
    "ldb": ("lei", "9394", date(1996, 12, 20)),
    "lai": ("lei", "12527", date(2011, 11, 18)),
    "lgpd": ("lei", "13709", date(2018, 8, 14)),
    "maria_penha": ("lei", "11340", date(2006, 8, 7)),
    "improbidade": ("lei", "8429", date(1992, 6, 2)),
    "los": ("lei", "8080", date(1990, 9, 19)),
    "loas": ("lei", "8742", date(1993, 12, 7)),
    "lindb": ("decreto.lei", "4657", date(1942, 9, 4)),
    "inquilinato": ("lei", "8245", date(1991, 10, 18)),
    "cf": ("constituicao", None, date(1988, 10, 5)),
}

# Names as written in running text; matched at the anchor (lowercase folded text).
NAMED = re.compile(r"""
    (?P<lrf>lei\s+de\s+responsabilidade\s+fiscal)
  | (?P<ldb>lei\s+de\s+diretrizes\s+e\s+bases\s+da\s+educa[cç][aã]o(?:\s+nacional)?)
  | (?P<lai>lei\s+de\s+acesso\s+[àa]\s+informa[cç][aã]o)
  | (?P<lgpd>lei\s+geral\s+de\s+prote[cç][aã]o\s+de\s+dados(?:\s+pessoais)?)
  | (?P<maria_penha>lei\s+maria\s+da\s+penha)
  | (?P<improbidade>lei\s+de\s+improbidade\s+administrativa)
  | (?P<los>lei\s+org[aâá]nica\s+da\s+sa[uú]de)
  | (?P<loas>lei\s+org[aâá]nica\s+da\s+assist[eê]ncia\s+social)
  | (?P<lindb>lei\s+de\s+introdu[cç][aã]o\s+(?:[àa]s\s+normas\s+do\s+direito\s+brasileiro
        |ao\s+c[oó]digo\s+civil(?:\s+brasileiro)?))
  | (?P<inquilinato>lei\s+do\s+inquilinato)
  | (?P<ctn>c[oó]digo\s+tribut[aá]rio\s+nacional)
  | (?P<codigo_civil>c[oó]digo\s+civil(?:\s+brasileiro)?(?!\s+de\s+1916))
  | (?P<codigo_penal>c[oó]digo\s+penal(?:\s+brasileiro)?)
  | (?P<ctb>c[oó]digo\s+de\s+tr[aâ]nsito\s+brasileiro)
  | (?P<cnt>c[oó]digo\s+nacional\s+de\s+tr[aâ]nsito)
  | (?P<cdc>c[oó]digo\s+de\s+(?:prote[cç][aã]o\s+e\s+)?defesa\s+do\s+consumidor)
  | (?P<codigo_eleitoral>c[oó]digo\s+eleitoral)
  | (?P<eca>estatuto\s+da\s+crian[cç]a\s+e\s+do\s+adolescente)
  | (?P<estatuto_cidade>estatuto\s+da\s+cidade)
  | (?P<estatuto_idoso>estatuto\s+(?:do\s+idoso|da\s+pessoa\s+idosa))
  | (?P<estatuto_pcd>estatuto\s+da\s+pessoa\s+com\s+defici[eê]ncia)
  | (?P<estatuto_me>estatuto\s+nacional\s+da\s+microempresa\s+e\s+(?:da\s+)?empresa\s+de\s+pequeno
        \s+porte)
  | (?P<estatuto_juventude>estatuto\s+da\s+juventude)
  | (?P<estatuto_igualdade>estatuto\s+da\s+igualdade\s+racial)
""", _I)

CLT_NAME = re.compile(r"consolida[cç][aã]o\s+das\s+$")
CLT_REST = re.compile(r"leis\s+do\s+trabalho")

# Case-sensitive, over the original text; boundaries are checked by the caller.
ACRONYM = re.compile(r"LC\.?M?|L\.C\.|CF(?:\s?/\s?(?:19)?88)?|CTN|CLT|ECA|LRF|CTB|LDB|LGPD|LOAS"
                     r"|LOM")
ACRONYM_KNOWN = {"CTN": "ctn", "CLT": "clt", "ECA": "eca", "LRF": "lrf", "CTB": "ctb",
                 "LDB": "ldb", "LGPD": "lgpd", "LOAS": "loas"}

# Federal laws so often cited without "Federal" that the number and year name them.
KNOWN_FEDERAL: dict[tuple[str, str, int], date] = {
    (fam, num, d.year): d for fam, num, d in _KNOWN.values() if num is not None
} | {
    ("lei", "8666", 1993): date(1993, 6, 21), ("lei", "4320", 1964): date(1964, 3, 17),
    ("lei", "9394", 1996): date(1996, 12, 20), ("lei", "8080", 1990): date(1990, 9, 19),
    ("lei", "10520", 2002): date(2002, 7, 17), ("lei", "14133", 2021): date(2021, 4, 1),
    ("lei", "11079", 2004): date(2004, 12, 30), ("lei", "8987", 1995): date(1995, 2, 13),
    ("lei", "9784", 1999): date(1999, 1, 29), ("lei", "12587", 2012): date(2012, 1, 3),
    ("lei", "11445", 2007): date(2007, 1, 5), ("lei", "12305", 2010): date(2010, 8, 2),
    ("lei", "6766", 1979): date(1979, 12, 19), ("lei", "12651", 2012): date(2012, 5, 25),
    ("lei", "9605", 1998): date(1998, 2, 12), ("lei", "6938", 1981): date(1981, 8, 31),
    ("lei", "8112", 1990): date(1990, 12, 11), ("lei.complementar", "116", 2003):
    date(2003, 7, 31), ("lei.complementar", "87", 1996): date(1996, 9, 13),
    ("lei", "11494", 2007): date(2007, 6, 20), ("lei", "14113", 2020): date(2020, 12, 25),
    ("lei", "11947", 2009): date(2009, 6, 16), ("lei", "12009", 2009): date(2009, 7, 29),
    ("lei", "13019", 2014): date(2014, 7, 31), ("lei", "11107", 2005): date(2005, 4, 6),
    ("lei", "8213", 1991): date(1991, 7, 24), ("lei", "8212", 1991): date(1991, 7, 24),
    ("lei", "8142", 1990): date(1990, 12, 28),
    ("lei", "9717", 1998): date(1998, 11, 27), ("lei", "13465", 2017): date(2017, 7, 11),
    ("lei", "4717", 1965): date(1965, 6, 29), ("lei", "7347", 1985): date(1985, 7, 24),
    ("lei", "9433", 1997): date(1997, 1, 8), ("lei", "6015", 1973): date(1973, 12, 31),
    ("lei", "10098", 2000): date(2000, 12, 19), ("lei", "9099", 1995): date(1995, 9, 26),
    ("lei", "11977", 2009): date(2009, 7, 7), ("lei", "12608", 2012): date(2012, 4, 10),
    ("lei", "9790", 1999): date(1999, 3, 23), ("lei", "4771", 1965): date(1965, 9, 15),
    ("lei", "11428", 2006): date(2006, 12, 22), ("lei", "10028", 2000): date(2000, 10, 19),
    ("lei", "9985", 2000): date(2000, 7, 18), ("lei", "12846", 2013): date(2013, 8, 1),
    ("lei", "12232", 2010): date(2010, 4, 29), ("lei", "13303", 2016): date(2016, 6, 30),
    ("lei.complementar", "141", 2012): date(2012, 1, 13),
    ("lei.complementar", "131", 2009): date(2009, 5, 27),
    ("lei.complementar", "147", 2014): date(2014, 8, 7),
    ("lei.complementar", "157", 2016): date(2016, 12, 29),
    ("lei.complementar", "63", 1990): date(1990, 1, 11),
    ("decreto.lei", "201", 1967): date(1967, 2, 27),
    ("lei", "4090", 1962): date(1962, 7, 13), ("lei", "8036", 1990): date(1990, 5, 11),
    ("decreto", "6514", 2008): date(2008, 7, 22), ("decreto", "10024", 2019): date(2019, 9, 20),
    ("decreto", "8726", 2016): date(2016, 4, 27), ("decreto", "3048", 1999): date(1999, 5, 6),
    ("decreto", "6170", 2007): date(2007, 7, 25), ("decreto", "7257", 2010): date(2010, 8, 4),
    ("decreto.lei", "3365", 1941): date(1941, 6, 21),
    # the vereadores' pay, cited by every câmara's resolutions of the time
    ("lei.complementar", "25", 1975): date(1975, 7, 2),
    ("lei.complementar", "38", 1979): date(1979, 11, 13),
    ("lei.complementar", "50", 1985): date(1985, 12, 19),
    # how laws are drafted, cited by the câmaras' own laws on drafting
    ("lei.complementar", "95", 1998): date(1998, 2, 26),
    ("lei.complementar", "107", 2001): date(2001, 4, 26),
}


def known(name: str) -> tuple[str, str | None, date]:
    """(family, number, date) of a norm known by name ('ctn', 'lrf', 'cf', …)."""
    return _KNOWN[name]


# --- unnumbered: the constitutions and the municipality's organic law --------------------

CONSTITUTION = re.compile(r"""
    constitui(?:-\s*)?[cç][aã]o\s+
    (?:(?P<fed>federal|da\s+rep[uú]blica(?:\s+federativa\s+do\s+brasil)?|do\s+brasil|brasileira)
         (?:\s*/\s*(?:19)?88\b|\s+de\s+1988)?
      |(?P<est>estadual|do\s+estado))
""", _I)

LOM = re.compile(r"""
    lei\s+org[aâá]nica
    (?:\s+(?P<df>do\s+distrito\s+federal)|\s+(?P<mun>do\s+munic[ií]pio
        (?:\s+d[eo]\s+(?-i:[A-ZÀ-Ý][\w'-]+(?:\s+(?:d[aoe]s?\s+)?[A-ZÀ-Ý][\w'-]+)*))?|municipal))?
    (?=(?P<after>\s+d[aoe]s?\s+\w+)?)
""", _I)

# --- "a referida Lei", "a Lei supracitada" ------------------------------------------------

ANAPHORA_BEFORE = re.compile(
    r"(?:referid|mencionad|citad|aludid|supracitad|retrocitad|retromencionad|mesm)[ao]s?\s+$")
ANAPHORA_AFTER = re.compile(
    r"\s+(?:supra\s?citad|supra\s?mencionad|supra\s?referid|retro\s?citad|acima\s+(?:citad|"
    r"mencionad|referid))[ao]s?\b")
ANAPHORA_TYPE = re.compile(r"""
    (?P<lei_complementar>lei\s+complementar)|(?P<decreto_lei>decreto\s?[-–]\s?lei)
  | (?P<decreto>decreto)|(?P<resolucao>resolu[cç][aã]o)|(?P<portaria>portaria)|(?P<lei>lei)
""", re.VERBOSE)

# "Projeto de Lei nº 45/2011" is a bill, not a norm.
BILL_BEFORE = re.compile(r"(?:projetos?|anteprojetos?|minuta|\bpl)\s+(?:de\s+)?$")

# --- what the sentence says the citing norm does to the cited one ------------------------

# A parenthetical note of a consolidated text: "(Redação dada pela Lei nº 2.758/1973)".
NOTE = re.compile(r"""
    \(\s*(?:(?:art(?:igo)?s?\.?|§+|inc(?:iso)?s?\.?|par[aá]grafos?|al[ií]neas?|itens?|item
        |caput|anexos?|[úu]nico|reda[cç][aã]o)\s+){0,2}(?:
       (?P<altered>reda[cç][aã]o\s+(?:dada|acrescida|alterada|modificada)|inclu[ií]d[oa]s?
        |acrescid[oa]s?|acrescentad[oa]s?|alterad[oa]s?|modificad[oa]s?|renumerad[oa]s?)
      |(?P<revoked>revogad[oa]s?|suprimid[oa]s?)
      |(?P<regulated>regulamentad[oa]s?)
      |(?P<seen>vide|ver|v\.|vetad[oa]s?|reda[cç][aã]o\s+original|nr)
    )\b[^()]*$
""", re.VERBOSE)

# A note that opens with the cited norm as the subject of a past act: "(A Emenda Nº 008/2002,
# de 28.01.2002, alterou a redação do artigo…)": the cited norm acted on the citing one.
NOTE_SUBJECT_BEFORE = re.compile(r"\(\s*(?:(?:a|o)\s+)?$")
NOTE_SUBJECT_ACT = re.compile(r"""
    \s*,?\s*(?:(?P<altered>alterou|modificou|acrescentou|incluiu|deu\s+nova\s+reda[cç][aã]o)
      |(?P<revoked>revogou|suprimiu)|(?P<regulated>regulamentou))\b
""", re.VERBOSE)

# "alterada pela Lei nº …": the cited norm is the agent of an act on another norm.
AGENT = re.compile(r"\b(?:pel[oa]s?|atrav[eé]s\s+d[oa]s?|por\s+meio\s+d[oa]s?)\s+"
                   r"(?:(?:referid|mencionad|citad|aludid|mesm)[oa]s?\s+)?$")
# The participle of an act right before that agent, opening its sentence or provision:
# "Alterado através da Resolução 443/2006", "§ 2º - Revogado pela Lei nº 12": the cited norm
# acted on the citing one (after another norm, "a Lei 1, alterada pela Lei 2", it did not).
PASSIVE_ACT = re.compile(r"""
    (?:^|[(\[\-–—]\s*)
    (?:(?P<altered>alterad|modificad|acrescid|acrescentad|inclu[ií]d|renumerad)
      |(?P<revoked>revogad|suprimid)
      |(?P<regulated>regulamentad))[oa]s?\s*,?\s*$
""", re.VERBOSE)

# A reference, not an act: "nos termos da Lei nº …", "conforme o Decreto …".
REFERENCE_BEFORE = re.compile(r"""
    \b(?:conforme|nos\s+termos|de\s+acordo\s+com|com\s+base|com\s+fulcro|em\s+conformidade
       |combinad[oa]s?|c/c|segundo|consoante|nos\s+moldes|na\s+forma|por\s+for[cç]a
       |em\s+cumprimento|observad[oa]s?|observando|amparad[oa]s?|à\s+luz)
    (?:\s+\S+){0,3}\s+$
""", re.VERBOSE)

ISSUER_AFTER = re.compile(r"\s*,?\s*d[oa]\s+(?P<issuer>(?-i:[A-Z]{2,8}(?:/[A-Z]{2,4})?))\b", re.I)

# "Emenda nº 7 à Lei Orgânica": the number before the type.
EMENDA_NUMBER_FIRST = re.compile(rf"""
    emendas?\s*{_NO}?\s*(?P<num>\d{{1,4}})(?:\s?/\s?(?P<year>\d{{4}}|\d{{2}})(?!\d))?
    \s+(?:[àa]|ao)\s+(?:lei\s+org[aâá]nica|(?-i:LOM))(?:\s+(?:do\s+munic[ií]pio|municipal))?
""", _I)

# "Emenda nº 43", "da Emenda 43, de 08 de Dezembro de 2014": an amendment named without what it
# amends, read as one to the town's Lei Orgânica when that is named near it (LOM_NEAR, within
# EMENDA_REACH characters either side) and it is no bill's or a bill's amendment.
EMENDA_BARE = re.compile(r"emendas?(?=\s*(?:n[º°ª.]|n\s*[º°]|\d))")
EMENDA_BARE_NOT_BEFORE = re.compile(r"(?:propostas?|projetos?|\bpec|\bpl)\s+(?:de\s+)?$")
EMENDA_BARE_NOT_AFTER = re.compile(
    r"\s*,?\s*(?:a[os]?|à|às)\s+(?:projeto|proposta|pl\b|substitutivo|constitui|medida)")
LOM_NEAR = re.compile(r"lei\s+org[aâá]nica|\blom\b")
EMENDA_REACH = 400

# A sphere written after a list, for all of it: "Leis nº 8.666/93 e 10.520/02, federais", "as
# Leis nº 1 e 2, ambas estaduais", "o Decreto nº 45810, de 2016, ambos do Estado do Rio".
SPHERE_AFTER_ALL = re.compile(r"""
    \s*,?\s*(?:(?P<all>amb[ao]s|tod[ao]s)\s*,?\s*)?
    (?:(?P<federal>federais\b|(?(all)(?:federa(?:l|is)\b|da\s+uni[aã]o\b)|(?!)))
      |(?P<estadual>estaduais\b|(?(all)(?:estadua(?:l|is)\b|do\s+estado\s+d[aoe]s?\s+
        (?!calamidade|emerg|s[ií]tio|defesa))|(?!))))
""", re.VERBOSE)

# Verbs of the citing norm acting on a norm named after them.
ACT_BEFORE = re.compile(r"""
    \b(?:(?P<revokes>revoga(?:m|-se|m-se|do|da|dos|das)?|revogad[oa]s?|revoga[cç][aã]o)
      |(?P<part>suprime(?:m|-se)?|suprimid[oa]s?)
      |(?P<alters>altera(?:m|-se|m-se)?|alterad[oa]s?|nova\s+reda[cç][aã]o
        |altera[cç][aã]o(?=\s+(?:de\s+dispositivos?\b|d[ao]s?\s*$))
        |acrescenta(?:m|-se)?|acrescid[oa]s?|acrescentad[oa]s?|inclui(?:-se)?|inclu[ií]d[oa]s?
        |introduz(?:-se)?|modifica(?:m|-se)?|modificad[oa]s?|renumera(?:-se)?|renumerad[oa]s?)
      |(?P<regulates>regulamenta(?:m|-se)?|regulamentad[oa]s?|regulamento\s+d[ao]s?))
    \b
""", re.VERBOSE)

# Where each verb of ACT_BEFORE starts: found with str.rfind, then matched.
ACT_STEMS = ("revog", "suprim", "alter", "nova reda", "acresc", "inclu", "introduz", "modific",
             "renumer", "regulament")

# Verbs after the cited norm: "O art. 3º da Lei nº … passa a vigorar com a seguinte redação".
ACT_AFTER = re.compile(r"""
    (?:[^.;:()]|(?<=\d)\.(?=\d)){0,160}?\b(?:
       (?P<alters>passa(?:m|r[aã]o?)?\s+a\s+vigorar\s+(?:com|acrescid|acrescentad|na\s+forma)
        |passa(?:m)?\s+a\s+ter\s+a\s+seguinte|fica(?:m)?\s+(?:alterad|acrescid|acrescentad
        |inclu[ií]d|modificad|renumerad)|(?:é|são)\s+alterad)
      |(?P<revokes>fica(?:m)?\s+revogad|(?:é|são)\s+revogad|fica(?:m)?\s+suprimid)
      |(?P<regulates>fica(?:m)?\s+regulamentad|(?:é|são)\s+regulamentad))
""", re.VERBOSE)

# What breaks the tie between a verb and a norm named after it.
DETACH = re.compile(r"""
    \b(?:(?<!de\s)(?<!a\s)que|conforme|nos\s+termos|de\s+acordo|com\s+base|com\s+fulcro
       |combinad|nos\s+moldes|em\s+conformidade|disp[oõ]e|na\s+forma|segundo|consoante
       |observad|em\s+vigor|pel[oa]s?)\b
""", re.VERBOSE)

# What may stand between two norms an act names together: "a Lei nº 1 e o art. 5º da Lei nº 2",
# "a Lei nº 1 (Código Tributário), bem como a Lei nº 2".
CHAIN = re.compile(r"""
    [\s,;]*(?:\([^()]{0,160}\)[\s,;]*)?
    (?:(?:e|ou|bem\s+como|assim\s+como|al[eé]m\s+d[aoe]s?|especialmente|inclusive
        |e\s+suas\s+altera[cç][oõ]es)\s*,?\s*)?
    (?:(?:a|o|as|os|à|ao|às|aos|da|do|das|dos|na|no|nas|nos)\s+)?$
""", re.VERBOSE)

# The head of a list of incisos: "Art. 4º Ficam revogados:", "Revogam-se as seguintes leis:".
LIST_HEAD = re.compile(r"[^.;:]{0,200}:\s*$")
INCISO_START = re.compile(r"\s*[ivxl]{1,6}\s*[-–—.)]\s")

# "Portaria nº 1.510/2009 do Ministério do Trabalho": a federal body after the number.
FEDERAL_BODY_AFTER = re.compile(
    r"\s*,?\s*d[oa]\s+(?:ent[aã]o\s+)?"  # "do então Ministério do Orçamento e Gestão"
    r"(?:minist[eé]rio|secretaria\s+(?:especial|do\s+tesouro|da\s+receita)"
    r"|ag[eê]ncia\s+nacional|conselho\s+nacional|senado\s+federal|c[aâ]mara\s+dos\s+deputados"
    r"|congresso\s+nacional)")

# "Lei nº 7.014, de 04.12.1996, do Estado da Bahia", "Lei nº 8.080/90, da União".
SPHERE_AFTER = re.compile(r"""
    \s*,?\s*(?:(?P<federal>federal\b|da\s+uni[aã]o\b)
      |(?P<estadual>estadual\b|do\s+estado\s+d[aoe]s?\s+(?!calamidade|emerg|s[ií]tio|defesa)))
""", re.VERBOSE)

RELATIVE_BEFORE_VERB = re.compile(r"\bque\s+(?:\S+\s+)?$")
# The verb closes a relative clause of coordinated verbs: "(que altera, modifica, amplia e dá
# nova redação à Lei nº 1612/92": the act of the norm named before, not of the citing one.
RELATIVE_VERBS = re.compile(r"\bque\s+(?:[a-zà-ú-]+(?:\s*,\s*|\s+e\s+))+(?:d[aá]\s+)?$")
# A consolidated text's note without parentheses, opening its line: "Redação do artigo 1º da
# lei 1715/01 de 28 de dezembro de 2001": the cited norm gave the provision's wording.
WORDING_NOTE = re.compile(r"[\s\-–—*]*reda[cç][aã]o\s+(?:dada\s+pel[oa]|d[oa]|o)\s")
# "desta Lei Orgânica", "nesta Lei Orgânica": the citing text itself.
THIS_BEFORE = re.compile(r"\b[dn]?est[ae]s?\s+$")

# The object of an act located in the cited norm: "Fica revogado o benefício previsto na Lei".
OBJECT_IN = re.compile(
    r"\b(?:previst[oa]s?|de\s+que\s+tratam?|a\s+que\s+se\s+referem?|institu[ií]d[oa]s?"
    r"|criad[oa]s?|estabelecid[oa]s?|definid[oa]s?|fixad[oa]s?|constantes?|contid[oa]s?"
    r"|existentes?)\b")

# Provisions located in the cited norm, right before it: "as constantes na", "aquelas contidas
# na", "os dispositivos existentes no".
PROVISIONS_IN = re.compile(
    r"\b(?:constantes?|contid[oa]s?|existentes?|insert[oa]s?|inserid[oa]s?|previst[oa]s?)"
    r"\s+(?:n|d)[aoe]s?\s+(?:(?:referid|mencionad|citad|mesm)[oa]s?\s+)?$")
CONTRARY = re.compile(r"\bem\s+contr[aá]rio\b")

# Words that make an act concern a part of the norm: "Revoga-se o art. 5º da Lei …".
PART_WORDS = re.compile(r"""
    \b(?:art(?:igo)?s?\b|incisos?\b|inc\.|al[ií]neas?\b|itens?\b|item\b|caput\b
       |par[aá]grafos?\b|dispositivos?\b|anexos?\b|tabelas?\b|express[aã]o\b|express[oõ]es\b)|§
""", re.VERBOSE)

# --- fragments: "art. 61, inc. IV, da", "inciso II do § 1º do art. 5º da" ---------------

FRAGMENT_TAIL = re.compile(r"""
    (?:,\s*|\s+)(?:d[aoe]s?|n[ao]s?|à|ao|pel[oa]s?)\s+
    (?:(?:referid|mencionad|citad|aludid|mesm)[oa]s?\s+)?$
""", re.VERBOSE)
# Run on the lowercased text; each branch starts with a literal, which keeps the scan fast
# (the caller checks that a token does not start inside a word).
FRAGMENT_TOKEN = re.compile(r"""
    (?P<art>art(?:igo)?(?P<arts>s)?\.?\s*(?P<artn>\d+(?:\.\d{3})*)(?:\s?[º°o])?
        (?:\s?-\s?(?P<arts_suffix>[a-z])\b)?
        (?P<artmore>(?:\s*,\s*|\s+(?:a|e|at[eé])\s+)\d+(?:\s?[º°o])?(?:\s?-\s?[a-z]\b)?)*)
  | (?P<par>(?P<pars>§§\s*\d+(?:\s?[º°o])?(?:(?:\s*,\s*|\s+[ae]\s+)\d+(?:\s?[º°o])?)*)
        |§\s*(?P<parn>\d+)(?:\s?[º°o])?|§\s*[uú]nico|par[aá]grafo\s+[uú]nico
        |par\.\s*[uú]nico|(?P<parw>par[aá]grafos)|par[aá]grafo\s+(?P<parn2>\d+)(?:\s?[º°o])?)
  | (?P<inc>(?:(?P<incs>incisos)|inciso|inc\.)\s*(?P<incn>[ivxlc]+)\b
        (?:(?:\s*,\s*|\s+[ae]\s+)[ivxlc]+\b)*)
  | (?P<ali>(?:(?P<alis>al[ií]neas)|al[ií]nea|al\.)\s*["“']?(?P<alin>[a-z])\b["”']?)
  | (?P<ite>(?:(?P<ites>itens)|item)\s+(?P<iten>\d+))
  | (?P<cpt>caput\b)
  | (?P<roman>,\s(?P<romann>[ivx]{1,5})\b)
""", re.VERBOSE)
FRAGMENT_GLUE = re.compile(r"^(?:\s*,\s*|\s+(?:d[oa]s?|e)\s+|\s+|\s*,\s*(?:d[oa]s?)\s+)$")

# --- sentences and articles ---------------------------------------------------------------

SENTENCE_END = re.compile(r"""
    [.;:!?](?=[\s"”’')]*(?:\n\s*\n|\s+[A-ZÀ-ÖØ-Ý§"“(]|\s*$))
  | \n(?=\s*(?:Art(?:igo)?\.?\s*\d|§|Par[aá]grafo\s+[uú]nico|[IVXL]{1,6}\s*[-–—.)]\s|[a-z]\)\s))
""", re.VERBOSE)
# The label a provision starts with, not part of its sentence: "Art. 4º", "§ 2º", "I -".
PROVISION_LABEL = re.compile(r"""
    \s*(?:art(?:igo)?\.?\s*\d+(?:\.\d{3})*\s*[º°o]?(?:\s?-\s?[a-z]\b)?\s*[-–—.:]?
      |§\s*\d+\s*[º°o]?\s*[-–—.:]?|par[aá]grafo\s+[uú]nico\s*[-–—.:]?|[ivxl]{1,6}\s*[-–—)])\s*
""", _I)
ABBREVIATIONS = {"art", "arts", "inc", "n", "nº", "n°", "no", "al", "par", "fls", "fl", "pág",
                 "p", "dec", "cf", "sr", "sra", "dr", "dra", "exmo", "exma", "ilmo", "ltda",
                 "obs", "vol", "ex", "prof", "profa", "av", "tel", "nr", "pag", "res", "port"}
# At a position where "Art" or "ART" starts a line or follows the end of a sentence.
ARTICLE_HEAD = re.compile(
    r"Art(?:igo)?\.?\s*(?P<n>\d+(?:\.\d{3})*)\s*[º°o]?(?:\s?-\s?(?P<s>[A-Z])\b)?", re.I)

ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def roman_to_int(roman: str) -> int | None:
    """'iv' -> 4; None for what is not a roman numeral."""
    total, prev = 0, 0
    for ch in reversed(roman.lower()):
        value = ROMAN.get(ch)
        if value is None:
            return None
        total += -value if value < prev else value
        prev = max(prev, value)
    return total or None
