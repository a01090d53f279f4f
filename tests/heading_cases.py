"""The labelled set of first pages the heading reader is measured on (tests and bench share it).

Each case is the text of a norm's first page as extraction gives it — a born-digital text
layer, or OCR output with its noise — and what a right reading of its heading is. The pages
are built by code from the shapes real first pages take: letterheads before the heading,
norms cited before and after it, headings split over two lines or in mixed case, "Nº" and
digits and months as OCR prints them, bills, messages, annex tables and cover pages that have
no heading of a norm at all, and absurd dates.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

TODAY = date(2026, 12, 1)  # the cases' "today": dates after it are absurd

MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
          "setembro", "outubro", "novembro", "dezembro")


@dataclass(frozen=True)
class Expected:
    """A right reading of the heading."""

    type: str
    number: str | None
    date: date | None
    year: int | None


@dataclass(frozen=True)
class HeadingCase:
    name: str
    kind: str  # born-digital, ocr, letterhead, cited-before, split, mixed-case, no-heading, ...
    text: str
    expected: Expected | None  # None: the page has no heading of a norm


@dataclass(frozen=True)
class _Norm:
    label: str  # as printed in capitals
    type: str
    number: str  # as printed
    canonical: str
    signed: date
    city: str
    uf: str


_NORMS = [
    _Norm("LEI", "lei", "2.199", "2199", date(2011, 6, 27), "JUAZEIRO", "BAHIA"),
    _Norm("LEI MUNICIPAL", "lei", "1.167", "1167", date(2014, 4, 2), "CAMPO FORMOSO", "BAHIA"),
    _Norm("LEI COMPLEMENTAR", "lei.complementar", "45", "45", date(2013, 3, 4), "PETROLINA",
          "PERNAMBUCO"),
    _Norm("DECRETO", "decreto", "187", "187", date(2011, 5, 12), "JUAZEIRO", "BAHIA"),
    _Norm("DECRETO", "decreto", "12", "12", date(2020, 1, 15), "SOBRADINHO", "BAHIA"),
    _Norm("RESOLUÇÃO", "resolucao", "3", "3", date(2015, 2, 10), "CASA NOVA", "BAHIA"),
    _Norm("EMENDA À LEI ORGÂNICA", "emenda.lei.organica", "7", "7", date(2016, 9, 1),
          "JUAZEIRO", "BAHIA"),
    _Norm("LEI ORDINÁRIA", "lei", "2.482", "2482", date(1969, 12, 24), "VITÓRIA",
          "ESPÍRITO SANTO"),
    _Norm("LEI", "lei", "1.234", "1234", date(2020, 3, 10), "UAUÁ", "BAHIA"),
    _Norm("PORTARIA", "portaria", "033", "33", date(2015, 3, 2), "JUAZEIRO", "BAHIA"),
    _Norm("DECRETO LEGISLATIVO", "decreto.legislativo", "9", "9", date(2018, 11, 22),
          "REMANSO", "BAHIA"),
    _Norm("LEI", "lei", "2.312", "2312", date(2013, 4, 15), "JUAZEIRO", "BAHIA"),
    _Norm("DECRETO", "decreto", "052", "52", date(2012, 6, 13), "JUAZEIRO", "BAHIA"),
    _Norm("LEI", "lei", "12-A", "12-A", date(2009, 8, 21), "CURAÇÁ", "BAHIA"),
    _Norm("LEI COMPLEMENTAR", "lei.complementar", "101", "101", date(2019, 12, 30), "SENHOR DO "
          "BONFIM", "BAHIA"),
    _Norm("RESOLUÇÃO", "resolucao", "12", "12", date(2017, 8, 21), "JUAZEIRO", "BAHIA"),
    _Norm("DECRETO", "decreto", "45.678", "45678", date(2021, 7, 5), "SALVADOR", "BAHIA"),
    _Norm("LEI", "lei", "3.105", "3105", date(2022, 10, 18), "ILHÉUS", "BAHIA"),
    _Norm("LEI", "lei", "876", "876", date(1998, 1, 1), "PILÃO ARCADO", "BAHIA"),
    _Norm("DECRETO", "decreto", "301", "301", date(2019, 12, 20), "JUAZEIRO", "BAHIA"),
    _Norm("LEI", "lei", "5.014", "5014", date(2008, 9, 9), "FEIRA DE SANTANA", "BAHIA"),
    _Norm("PORTARIA", "portaria", "118", "118", date(2023, 5, 31), "BARREIRAS", "BAHIA"),
    _Norm("LEI COMPLEMENTAR", "lei.complementar", "8", "8", date(2005, 7, 7), "JACOBINA",
          "BAHIA"),
    _Norm("DECRETO", "decreto", "1.996", "1996", date(2016, 2, 29), "VITÓRIA DA CONQUISTA",
          "BAHIA"),
    _Norm("LEI", "lei", "2.405", "2405", date(2014, 11, 28), "JUAZEIRO", "BAHIA"),
    _Norm("RESOLUÇÃO", "resolucao", "1", "1", date(2001, 1, 2), "IRECÊ", "BAHIA"),
    _Norm("LEI", "lei", "987", "987", date(1991, 10, 3), "XIQUE-XIQUE", "BAHIA"),
    _Norm("DECRETO", "decreto", "2.730", "2730", date(2024, 4, 1), "PAULO AFONSO", "BAHIA"),
    _Norm("LEI", "lei", "1.560", "1560", date(2017, 12, 14), "BOM JESUS DA LAPA", "BAHIA"),
    _Norm("EMENDA À LEI ORGÂNICA", "emenda.lei.organica", "23", "23", date(2021, 6, 8),
          "PETROLINA", "PERNAMBUCO"),
    _Norm("LEI", "lei", "4.001", "4001", date(2003, 5, 20), "ITABUNA", "BAHIA"),
    _Norm("DECRETO", "decreto", "77", "77", date(2010, 3, 3), "JUAZEIRO", "BAHIA"),
    _Norm("LEI", "lei", "699", "699", date(1985, 8, 16), "CAMPO ALEGRE DE LOURDES", "BAHIA"),
    _Norm("LEI COMPLEMENTAR", "lei.complementar", "12", "12", date(2012, 2, 1), "ARACAJU",
          "SERGIPE"),
    _Norm("DECRETO", "decreto", "3.333", "3333", date(2018, 8, 30), "JUAZEIRO", "BAHIA"),
    _Norm("LEI", "lei", "1.808", "1808", date(2015, 6, 17), "CAMAÇARI", "BAHIA"),
    _Norm("PORTARIA", "portaria", "6", "6", date(2020, 9, 11), "CASA NOVA", "BAHIA"),
    _Norm("LEI", "lei", "2.950", "2950", date(2010, 11, 9), "TEIXEIRA DE FREITAS", "BAHIA"),
    _Norm("DECRETO", "decreto", "510", "510", date(2013, 10, 25), "LAURO DE FREITAS", "BAHIA"),
    _Norm("LEI", "lei", "3.664", "3664", date(2016, 7, 29), "ALAGOINHAS", "BAHIA"),
]


# --- Heading shapes: (lines, whether the date is printed) ---

def _day(d: date) -> str:
    return "1º" if d.day == 1 else f"{d.day:02d}" if d.day < 10 and d.month % 2 else str(d.day)


def _long_date(d: date, upper: bool = True) -> str:
    text = f"de {_day(d)} de {MONTHS[d.month - 1]} de {d.year}"
    return text.upper() if upper else text


def _f_slash(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} Nº {n.number}/{n.signed.year}"], False


def _f_long(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} Nº {n.number}, {_long_date(n.signed)}"], True


def _f_numeric(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} No {n.number} DE {n.signed:%d/%m/%Y}"], True


def _f_dotted(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} N.º {n.number}/{n.signed.year}"], False


def _f_split_date(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} Nº {n.number},", _long_date(n.signed)], True


def _f_split_type(n: _Norm) -> tuple[list[str], bool]:
    return [n.label, f"Nº {n.number}, {_long_date(n.signed)}"], True


def _f_mixed(n: _Norm) -> tuple[list[str], bool]:
    label = " ".join(w.capitalize() if len(w) > 1 else w.lower() for w in n.label.split())
    return [f"{label} nº {n.number}, {_long_date(n.signed, upper=False)}"], True


def _f_with_ementa(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} Nº {n.number}, {_long_date(n.signed)} – Dispõe sobre o serviço "
            "de moto-táxi e dá outras providências."], True


def _f_dash(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} Nº {n.number} – {_long_date(n.signed)[3:]}"], True


def _f_year_only(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} Nº {n.number} DE {n.signed.year}"], False


def _f_date_next_line(n: _Norm) -> tuple[list[str], bool]:
    return [f"{n.label} Nº {n.number}", _long_date(n.signed, upper=False).capitalize()], True


_FORMATS: list[Callable[[_Norm], tuple[list[str], bool]]] = [
    _f_slash, _f_long, _f_numeric, _f_dotted, _f_split_date, _f_split_type, _f_mixed,
    _f_with_ementa, _f_dash, _f_year_only, _f_date_next_line,
]


# --- What stands around the heading ---

def _letterhead(n: _Norm, which: int) -> list[str]:
    city, uf = n.city, n.uf
    heads = [
        [],
        [f"MUNICÍPIO DE {city}", f"ESTADO DA {uf}", "GABINETE DO PREFEITO"],
        [f"PREFEITURA MUNICIPAL DE {city}", "CNPJ 13.915.632/0001-05",
         "Praça Barão do Rio Branco, nº 12 – Centro – CEP 48.903-500"],
        [f"CÂMARA MUNICIPAL DE {city}", f"ESTADO DA {uf}", "Casa Legislativa Ana Nery"],
        [f"ESTADO DA {uf}", f"PREFEITURA MUNICIPAL DE {city}",
         "Município criado pela Lei Estadual nº 628, de 30 de julho de 1953"],
        ["Página 1 de 9", f"MUNICÍPIO DE {city}", f"ESTADO DA {uf}"],
        [f"Diário Oficial do Município de {city} – Ano IX – Edição nº 1.845",
         "Publicado em 12/05/2021", "PODER EXECUTIVO"],
    ]
    return heads[which % len(heads)]


def _cited_before(n: _Norm, which: int) -> list[str]:
    """Lines before the heading that name another norm or a bill."""
    before = [
        ["(Regulamentada pelo Decreto nº 187/2011)"],
        ["Texto compilado com as alterações introduzidas pela",
         "Lei nº 2.300, de 12 de maio de 2013"],
        ["PROJETO DE LEI Nº 12/2013", "Autoria: Poder Executivo"],
        ["MENSAGEM Nº 5/2013"],
        ["Processo nº 123/2013", "Página 1 de 9"],
        ["Vide Lei nº 3576/1983", "Revogada parcialmente pela Lei nº 2.500/2015"],
        ["Alterada pela Lei Complementar nº 60, de 2 de março de 2018."],
    ]
    return before[which % len(before)]


def _ementa(n: _Norm, which: int) -> list[str]:
    ementas = [
        ["Dispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do",
         "Município e dá outras providências."],
        ["Altera dispositivos da", "Lei nº 1.996, de 06 de novembro de 2008, e dá outras "
         "providências."],
        ["Institui o Programa Municipal de Arborização Urbana."],
        ["Declara ponto facultativo nas repartições públicas municipais."],
        ["ALTERA A REDAÇÃO DO ART. 5º DA", "LEI Nº 1.100, DE 3 DE MARÇO DE 2010."],
    ]
    return ementas[which % len(ementas)]


def _preamble(n: _Norm) -> list[str]:
    if n.type in ("decreto", "portaria"):
        return [f"O PREFEITO MUNICIPAL DE {n.city}, Estado da {n.uf.title()}, no uso das "
                "atribuições que lhe confere o art. 61, inciso IV, da Lei Orgânica do",
                "Município, e tendo em vista o disposto no art. 28 da",
                "Lei Municipal nº 2.199, de 27 de junho de 2011,",
                "DECRETA:" if n.type == "decreto" else "RESOLVE:"]
    if n.type in ("resolucao", "decreto.legislativo", "emenda.lei.organica"):
        return [f"A MESA DA CÂMARA MUNICIPAL DE {n.city}, no uso de suas atribuições, com "
                "fundamento na", "Lei Orgânica do Município, promulga a seguinte "
                + ("Resolução:" if n.type == "resolucao" else "norma:")]
    return [f"O PREFEITO MUNICIPAL DE {n.city}, Estado da {n.uf.title()}, no uso de suas "
            "atribuições", "legais, com fulcro no art. 61, inc. IV, da Lei Orgânica do "
            "Município, combinado com o art. 39-B da",
            "Lei Federal nº 12.009, de 29 de julho de 2009, faço saber que a Câmara Municipal "
            "aprovou, e eu", "sanciono e promulgo a seguinte Lei:"]


_ARTICLES = [
    "Art. 1º Fica instituído no Município o serviço de transporte individual de passageiros",
    "denominado “moto-táxi”, nos termos da Lei nº 12.009/2009.",
    "Art. 2º A permissão será outorgada pelo prazo de 5 (cinco) anos, observado o disposto na",
    "Lei Complementar nº 45, de 4 de março de 2013.",
    "Art. 3º Ficam revogadas as disposições em contrário, especialmente as contidas na",
    "Lei Municipal nº 1.996, de 06 de novembro de 2008.",
    "Art. 4º Para o exercício dos serviços de que trata esta Lei, é necessário:",
    "I - possuir habilitação na categoria compatível;",
    "II - ter idade mínima de 21 (vinte e um) anos;",
    "III - ter pelo menos 02 (dois) anos de habilitação na categoria A;",
    "IV - possuir prova de sanidade física e mental mediante atestado médico datado de há",
    "pelo menos trinta dias;",
    "V - estar residindo há pelo menos 03 (três) anos no Município.",
    "Art. 5º O máximo de motocicletas que operacionalizarão o serviço de moto-táxi e moto-",
    "entrega, de acordo com certidão oficial pelo Instituto Brasileiro de Geografia e",
    "Estatística (IBGE), será de 3,5 (três e meio) moto-taxistas para cada 1.000 habitantes.",
    "Art. 6º As infrações serão apuradas em processo administrativo, aplicando-se",
    "subsidiariamente a Lei Federal nº 9.503, de 23 de setembro de 1997.",
    "Art. 7º Esta Lei entra em vigor na data de sua publicação.",
    "Página 1 de 2",
]


# --- OCR noise on the heading lines, as tesseract prints a 150-200 dpi scan ---

_MARKS = ["Nº", "N°", "No", "N9", "N.", "NO", "Nr.", "Nº.", "N º", "N", "Nº:"]
_MONTH_DAMAGE = {"ABRIL": "ABRlL", "MARÇO": "MARCO", "DEZEMBRO": "DEZERNBRO",
                 "SETEMBRO": "SETEMBR0", "JUNHO": "JUNH0", "NOVEMBRO": "NOVEMBR0",
                 "JANEIRO": "JANElRO", "OUTUBRO": "0UTUBRO", "JULHO": "JULH0",
                 "AGOSTO": "AG0STO", "MAIO": "MAlO", "FEVEREIRO": "FEVERElRO",
                 "abril": "abrll", "março": "marco", "julho": "juIho"}
_TYPE_DAMAGE = {"LEI": "LEl", "DECRETO": "DECRET0", "RESOLUÇÃO": "RESOLUCAO",
                "PORTARIA": "PORTARlA", "COMPLEMENTAR": "C0MPLEMENTAR", "ORGÂNICA": "ORGANICA"}
_JUNK_BEFORE = ["| ", "' ", "— ", ". ", ""]
_JUNK_LINES = ["EEB", "v V", "& ES)", "«cs", "tm os", "pe", "Ss"]


def _ocr_heading(lines: list[str], rng: random.Random) -> list[str]:
    out = []
    for index, line in enumerate(lines):
        mark = rng.choice(_MARKS)
        line = line.replace("Nº", mark, 1).replace("No ", mark + " ", 1)
        for clean, damaged in _TYPE_DAMAGE.items():
            if rng.random() < 0.4:
                line = line.replace(clean, damaged, 1)
        for clean, damaged in _MONTH_DAMAGE.items():
            if rng.random() < 0.6:
                line = line.replace(clean, damaged)
        if rng.random() < 0.35:  # the thousands dot read as a comma
            line = _first_thousands(line, ",")
        elif rng.random() < 0.15:
            line = _first_thousands(line, "")
        if rng.random() < 0.2:  # a 1 read as l inside the number
            line = _confuse_digit(line, "1", "l")
        elif rng.random() < 0.15:
            line = _confuse_digit(line, "0", "O")
        if rng.random() < 0.25:
            line = line.replace("º", "o").replace("1o de", "1º de")
        if index == 0:
            line = rng.choice(_JUNK_BEFORE) + line
        out.append(line)
    return out


def _first_thousands(line: str, replacement: str) -> str:
    for i in range(1, len(line) - 3):
        if line[i] == "." and line[i - 1].isdigit() and line[i + 1:i + 4].isdigit():
            return line[:i] + replacement + line[i + 1:]
    return line


def _confuse_digit(line: str, digit: str, letter: str) -> str:
    """Replace one digit of the norm's number (not of the year or the day) by a letter."""
    for mark in ("º ", "° ", "o ", "9 ", ". ", "O ", "r. ", ": ", "N "):
        at = line.find(mark)
        if at >= 0:
            start = at + len(mark)
            end = start
            while end < len(line) and (line[end].isdigit() or line[end] in ".,"):
                end += 1
            number = line[start:end]
            inner = number.find(digit, 1)
            if inner > 0:
                return line[:start] + number[:inner] + letter + number[inner + 1:] + line[end:]
            return line
    return line


def _expected(n: _Norm, with_date: bool) -> Expected:
    return Expected(n.type, n.canonical, n.signed if with_date else None, n.signed.year)


def _page(*parts: list[str]) -> str:
    return "\n".join(line for part in parts for line in part)


def _generated() -> list[HeadingCase]:
    rng = random.Random(2026)
    cases: list[HeadingCase] = []
    for i, norm in enumerate(_NORMS):
        fmt = _FORMATS[i % len(_FORMATS)]
        lines, dated = fmt(norm)
        body = [*_ementa(norm, i), *_preamble(norm), *_ARTICLES]
        slug = f"{norm.type}-{norm.canonical}-{norm.signed.year}"
        cases.append(HeadingCase(f"{slug}-born-digital-{fmt.__name__[3:]}", "born-digital",
                                 _page(lines, body), _expected(norm, dated)))
        fmt2 = _FORMATS[(i * 3 + 1) % len(_FORMATS)]
        lines2, dated2 = fmt2(norm)
        junk = [rng.choice(_JUNK_LINES)] if i % 3 == 0 else []
        cases.append(HeadingCase(
            f"{slug}-ocr-{fmt2.__name__[3:]}", "ocr",
            _page(junk, _letterhead(norm, i + 1), _ocr_heading(lines2, rng), body),
            _expected(norm, dated2)))
        fmt3 = _FORMATS[(i * 5 + 2) % len(_FORMATS)]
        lines3, dated3 = fmt3(norm)
        cases.append(HeadingCase(
            f"{slug}-cited-before-{fmt3.__name__[3:]}", "cited-before",
            _page(_letterhead(norm, i + 4), _cited_before(norm, i), lines3, body),
            _expected(norm, dated3)))
        if i % 2 == 0:
            split = _f_split_date if i % 4 == 0 else _f_split_type
            lines4, dated4 = split(norm)
            cases.append(HeadingCase(
                f"{slug}-split-ocr", "split",
                _page(_letterhead(norm, i), _ocr_heading(lines4, rng), body),
                _expected(norm, dated4)))
        else:
            lines4, dated4 = _f_mixed(norm)
            cases.append(HeadingCase(
                f"{slug}-mixed-case", "mixed-case",
                _page(_letterhead(norm, i + 2), lines4, body), _expected(norm, dated4)))
    return cases


# --- Pages written by hand: real shapes the generator does not make ---

_JUAZEIRO_2199_OCR = (
    "Página 1 de9\nMUNICÍPIO DE JUAZEIRO\nESTADO DA BAHIA\nLEI Nº 2.199/2011\nDispõe sobre "
    "o serviço de moto-táxi e moto-entrega no âmbito do\nMunicípio de Juazeiro, e dá outras "
    "providências.\nO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas "
    "atribuições\nlegais, com fulcro no art. 61, inc. IV, da Lei Orgânica do Município, "
    "combinado com o art. 39-B da\nLei Federal nº 12.009, de 29 de julho de 2009, faço saber "
    "que a Câmara Municipal aprovou, e eu\nsanciono e promulgo a seguinte Lei:\nArt. 1º. Fica "
    "instituído no Município de Juazeiro o serviço de transporte individual de\npassageiros "
    "denominado “moto-táxi”"
)
_ES_2482 = (
    "Lei Ordinária nº 2.482/1969\nLEI Nº 2.482/1969\n(Regimento interno aprovado pelos "
    "Decretos nº 1310 /2004 e nº 3063 /2012) (Vide Lei nº 3576 /1983) -- O GOVERNADOR DO "
    "ESTADO DO ESPÍRÍTO SANTO, Faço saber que a Assembléia Legislativa decretou e eu sanciono "
    "a seguinte lei:\nArt. 1º O Sistema Nacional de Trânsito, na área estadual, compreende:"
)
_PREAMBLE = ("O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições "
             "legais,\nfaço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:\n"
             "Art. 1º Fica instituído o Programa Municipal de Arborização Urbana.")


def _e(kind: str, number: str | None, signed: date | None, year: int | None) -> Expected:
    return Expected(kind, number, signed, year)


_WRITTEN: list[tuple[str, str, str, Expected | None]] = [
    # The seeds and the forms of the issue.
    ("seed-000-ocr-page-1", "ocr", _JUAZEIRO_2199_OCR, _e("lei", "2199", None, 2011)),
    ("seed-001-html", "born-digital", _ES_2482, _e("lei", "2482", None, 1969)),
    ("lei-organica", "born-digital",
     "CÂMARA MUNICIPAL DE JUAZEIRO\nLEI ORGÂNICA DO MUNICÍPIO DE JUAZEIRO\nPREÂMBULO\nNós, "
     "representantes do povo juazeirense, reunidos em Assembleia Municipal Constituinte,",
     _e("lei.organica", None, None, None)),
    ("lei-organica-mixed", "mixed-case",
     "Lei Orgânica do Município de Casa Nova\nTÍTULO I\nDOS PRINCÍPIOS FUNDAMENTAIS\nArt. 1º "
     "O Município de Casa Nova, integrante da República Federativa do Brasil,",
     _e("lei.organica", None, None, None)),
    ("emenda-numbered-first", "born-digital",
     "EMENDA Nº 7 À LEI ORGÂNICA DO MUNICÍPIO DE JUAZEIRO, DE 1º DE SETEMBRO DE 2016\n"
     "Altera o art. 12 da Lei Orgânica do Município.\nA MESA DA CÂMARA MUNICIPAL promulga:",
     _e("emenda.lei.organica", "7", date(2016, 9, 1), 2016)),
    ("lei-no-numeric-date", "born-digital",
     "LEI No 1.234 DE 10/03/2020\nDispõe sobre o horário do comércio.\n" + _PREAMBLE,
     _e("lei", "1234", date(2020, 3, 10), 2020)),
    ("decreto-n-dot-o", "born-digital",
     "DECRETO N.º 12/2020\nDeclara situação de emergência.\nDECRETA:\nArt. 1º Fica "
     "declarada situação de emergência.", _e("decreto", "12", None, 2020)),
    ("two-digit-year", "ocr", "LEI N° 876/98\nDispõe sobre a criação do distrito de Junco.",
     _e("lei", "876", None, 1998)),
    ("decreto-lei", "born-digital",
     "DECRETO-LEI Nº 35, DE 2 DE JANEIRO DE 1967\nDispõe sobre o quadro de servidores.",
     _e("decreto.lei", "35", date(1967, 1, 2), 1967)),
    ("instrucao-normativa", "born-digital",
     "INSTRUÇÃO NORMATIVA SEFAZ Nº 4, DE 18 DE AGOSTO DE 2022\nDisciplina a emissão de "
     "nota fiscal de serviços eletrônica.", _e("instrucao.normativa", "4", date(2022, 8, 18),
                                                2022)),
    ("resolucao-da-mesa", "born-digital",
     "CÂMARA MUNICIPAL DE IRECÊ\nRESOLUÇÃO DA MESA Nº 2/2019\nDispõe sobre o expediente.",
     _e("resolucao", "2", None, 2019)),
    ("sem-numero", "born-digital",
     "LEI S/N, DE 5 DE OUTUBRO DE 1988\nDispõe sobre o brasão do Município.",
     _e("lei", None, date(1988, 10, 5), 1988)),
    ("glued-marker", "ocr", "MUNICÍPIO DE JUAZEIRO\nLEINº 1,111, DE 02 DE ABRIL DE 2014\n"
     "Dispõe sobre o Conselho Municipal de Saúde.", _e("lei", "1111", date(2014, 4, 2), 2014)),
    ("n9-glued", "ocr", "LEI N91,718, DE 02 DE ABRII. DE 2014\nDispõe sobre feiras livres.",
     _e("lei", "1718", date(2014, 4, 2), 2014)),
    ("marker-colon", "ocr", "LEI Nº:2.199, DE. 02 DE ABRIL DE 2014\nDispõe sobre feiras.",
     _e("lei", "2199", date(2014, 4, 2), 2014)),
    ("day-z", "ocr", "LEI Nº 1.187, DE 0Z DE ABRIL DE 2014\nDispõe sobre feiras.",
     _e("lei", "1187", date(2014, 4, 2), 2014)),
    ("slash-read-as-l", "ocr", "DECRETO Nº 2.199l2011\nRegulamenta o serviço de moto-táxi.",
     _e("decreto", "2199", None, 2011)),
    ("letter-spaced", "born-digital",
     "L E I  N º  2.199/2011\nDispõe sobre o serviço de moto-táxi.", _e("lei", "2199", None,
                                                                        2011)),
    ("lei-complementar-municipal", "born-digital",
     "LEI COMPLEMENTAR MUNICIPAL Nº 3, DE 30 DE DEZEMBRO DE 2009\nInstitui o Código "
     "Tributário do Município.", _e("lei.complementar", "3", date(2009, 12, 30), 2009)),
    ("heading-after-long-letterhead", "letterhead",
     "ESTADO DA BAHIA\nPREFEITURA MUNICIPAL DE JUAZEIRO\nSECRETARIA DE ADMINISTRAÇÃO\n"
     "GABINETE DO PREFEITO\nCNPJ 13.915.632/0001-05\nRua Góes Calmon, nº 77 – Centro\n"
     "Tel. (74) 3611-2000\nDECRETO Nº 187, DE 12 DE MAIO DE 2011\nRegulamenta a Lei "
     "Municipal nº 2.199, de 27 de junho de 2011.\nDECRETA:",
     _e("decreto", "187", date(2011, 5, 12), 2011)),
    ("projeto-above-heading", "cited-before",
     "PROJETO DE LEI Nº 45/2013\nLEI Nº 2.312, DE 15 DE ABRIL DE 2013\nInstitui o Programa "
     "Municipal de Arborização Urbana.", _e("lei", "2312", date(2013, 4, 15), 2013)),
    ("lowercase-month-uppercase-rest", "mixed-case",
     "Decreto Nº 52, de 13 de Junho de 2012\nDispõe sobre o expediente.",
     _e("decreto", "52", date(2012, 6, 13), 2012)),
    # Headings as tesseract printed them on the damaged scans of the bench.
    ("tesseract-leins", "ocr",
     "MUNICÍPIO DE JUAZEIRO\nESTADO DA BAHIA\nGABINETE DO PREFEITO\nLEINS 7.447, DE 02 DE "
     "ABRIL DE 2014 *\nDispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do Município.",
     _e("lei", "7447", date(2014, 4, 2), 2014)),
    ("tesseract-lef", "ocr", "GABINETE DO PREFEITO\nLEF Nº 4.609, DE 02 DE ABRIL DE 2014\n"
     "Dispõe sobre o serviço de moto-táxi.", _e("lei", "4609", date(2014, 4, 2), 2014)),
    ("tesseract-lexno", "ocr", "ESTADO DA BAHIA\nLEXNº 7.369, DE 02 DE ABRIL DE 2014 .\nDispõe "
     "sobre o serviço de moto-táxi.", _e("lei", "7369", date(2014, 4, 2), 2014)),
    ("tesseract-ne", "ocr", "GABINETE DO PREFEITO\nLEI Ne 4.531, DE 02 DE ABRIL DE 2014\n"
     "isnõe sobre o serviço de moto-táxi e moto-entrega no âmbito do Município.",
     _e("lei", "4531", date(2014, 4, 2), 2014)),
    ("tesseract-ns-question", "ocr", "GABINETE DO PREFEITO\nLEI NS? 4.490, DE 02 DE ABRIL DE "
     "2014\nDispõe sabre o serviço de moto-táxi.", _e("lei", "4490", date(2014, 4, 2), 2014)),
    ("tesseract-speck-after-letterhead", "letterhead",
     "MUNICÍPIO DE JUAZEIRO\n\"ESTADO DA BAHIA\nGABINETE DO PREFEITO É\nLEI Nº 6.693, DE 02 "
     "DE ABRIL DE 2014\nDispõe sobre o serviço de moto-táxi.",
     _e("lei", "6693", date(2014, 4, 2), 2014)),
    ("tesseract-comma-after-letterhead", "letterhead",
     "ESTADO DA BAHIA\nGABINETE DO PREFEITO ,\nLEI Nº 4.590, DE 02 DE ABRIL DE 2014\nDispõe "
     "sobre o serviço de moto-táxi o moto-entrega no âmbito do Município,",
     _e("lei", "4590", date(2014, 4, 2), 2014)),
    ("tesseract-double-separator", "ocr", "LEI Nº 2.,312/2013\nAltera dispositivos da\nLei nº "
     "1.996, de 06 de novembro de 2008. e dá outras providências.",
     _e("lei", "2312", None, 2013)),
    ("tesseract-def", "split", "& ES)\nDECRETO\nNº. 2.730, DE 1º DE ABRIL DEF 2024\nInstitui "
     "o Programa Municipal de Arborização Urbana.", _e("decreto", "2730", date(2024, 4, 1),
                                                      2024)),
    ("tesseract-bracket", "mixed-case", "Casa Legislativa Ana Nery\nLei Municipal] nº 1.167, de "
     "2 de abril de 2014\nAltera dispositivos da\nLei nº 1.996, de 06 de novembro de 2008, e dá "
     "outras providências.", _e("lei", "1167", date(2014, 4, 2), 2014)),
    ("tesseract-quote", "split", "Alterada pela Lei Complementar nº 60, de 2 de março de 2018.\n"
     "EMENDA À LEI ORGÂNICA Nº '7\nDe 1º de setembro de 2016\nAltera dispositivos da",
     _e("emenda.lei.organica", "7", date(2016, 9, 1), 2016)),
    ("tesseract-glued-rule", "split", "Casa Legislativa Ana Nery\nILEINº 2.405,\nDE 29 DE "
     "NOVEMBRO DE 2014\nALTERA A REDAÇÃO DO ART. 5º DA\nLEI Nº 1.190, DE 3 DE MARÇO DE 2010.",
     _e("lei", "2405", date(2014, 11, 29), 2014)),
    ("tesseract-suffix-misread", "ocr", "| LEINº 12-4, DE 21 DE AGOSTO DE 2009 - Dispõe sobre o "
     "serviço de\nmoto-táxi e dá outras providências.", _e("lei", None, date(2009, 8, 21), 2009)),
    # Absurd dates: the date is refused, a plausible year kept.
    ("absurd-year-2099", "absurd-date",
     "LEI Nº 1.500, DE 3 DE MAIO DE 2099\nDispõe sobre o calendário de eventos.",
     _e("lei", "1500", None, None)),
    ("absurd-year-1500", "absurd-date",
     "DECRETO Nº 22, DE 22 DE ABRIL DE 1500\nDispõe sobre o descobrimento.",
     _e("decreto", "22", None, None)),
    ("absurd-31-february", "absurd-date",
     "LEI Nº 2.001, DE 31 DE FEVEREIRO DE 2013\nDispõe sobre o carnaval.",
     _e("lei", "2001", None, 2013)),
    ("absurd-30-02-numeric", "absurd-date",
     "DECRETO Nº 90 DE 30/02/2015\nDispõe sobre o carnaval.", _e("decreto", "90", None, 2015)),
    ("absurd-month-13", "absurd-date",
     "PORTARIA Nº 14 DE 10/13/2014\nDesigna servidores.", _e("portaria", "14", None, 2014)),
    ("absurd-future-day", "absurd-date",
     "LEI Nº 3.900, DE 15 DE DEZEMBRO DE 2026\nEstima a receita.", _e("lei", "3900", None,
                                                                      2026)),
    # No heading of a norm: expected None.
    ("anexo-table", "no-heading",
     "ANEXO I\nQUADRO DE METAS DO PLANO MUNICIPAL DE MOBILIDADE URBANA\nMeta 1 - Implantar 20 "
     "km de ciclovias até 2020.\nMeta 2 - Requalificar as calçadas.\nJuazeiro, 10 de maio de "
     "2016.", None),
    ("anexo-of-decree", "no-heading",
     "ANEXO ÚNICO DO DECRETO Nº 187/2011\nTabela de tarifas do serviço de moto-táxi\n1. Corrida "
     "na zona urbana, até 5 km: R$ 3,00.", None),
    ("cover-code", "no-heading",
     "PREFEITURA MUNICIPAL DE PETROLINA\nCÓDIGO TRIBUTÁRIO MUNICIPAL\nInstituído pela Lei "
     "Complementar nº 45, de 4 de março de 2013\nEdição atualizada\n2015", None),
    ("cover-compiled", "no-heading",
     "CÂMARA MUNICIPAL DE JUAZEIRO\nREGIMENTO INTERNO\nTexto consolidado até a\nResolução nº "
     "12, de 21 de agosto de 2017.\nJuazeiro – Bahia", None),
    ("projeto-de-lei", "no-heading",
     "CÂMARA MUNICIPAL DE JUAZEIRO\nPROJETO DE LEI Nº 12/2013\nDispõe sobre a denominação de "
     "logradouro.\nArt. 1º Fica denominada Rua Ana Nery a via pública.", None),
    ("projeto-split", "no-heading",
     "PROJETO DE\nLEI Nº 12/2013\nDispõe sobre a denominação de logradouro.", None),
    ("mensagem", "no-heading",
     "MENSAGEM Nº 5/2013\nSenhor Presidente,\nEncaminho a Vossa Excelência o Projeto de Lei "
     "que institui o Programa Municipal de Arborização Urbana.", None),
    ("autografo", "no-heading",
     "AUTÓGRAFO DE LEI Nº 33/2013\nA CÂMARA MUNICIPAL DE JUAZEIRO aprova:\nArt. 1º Fica "
     "instituído o Programa.", None),
    ("parecer", "no-heading",
     "PARECER Nº 18/2013 DA COMISSÃO DE CONSTITUIÇÃO E JUSTIÇA\nSobre o Projeto de Lei nº "
     "12/2013, que dispõe sobre a denominação de logradouro.", None),
    ("oficio", "no-heading",
     "Ofício nº 123/2013 – GP\nJuazeiro, 2 de abril de 2013.\nSenhor Presidente,\nEncaminho "
     "para sanção a Lei nº 2.312/2013.", None),
    ("processo-and-page", "no-heading",
     "Processo nº 123/2013\nPágina 1 de 9\nInteressado: Secretaria de Administração\nAssunto: "
     "pedido de licença.", None),
    ("preamble-only", "no-heading",
     "O PREFEITO MUNICIPAL DE JUAZEIRO, no uso das atribuições que lhe confere o art. 61 da\n"
     "Lei Orgânica do Município, e tendo em vista o disposto na\nLei Municipal nº 2.199, de "
     "27 de junho de 2011,\nDECRETA:", None),
    ("revocation-page", "no-heading",
     "Art. 31. Ficam revogadas as disposições em contrário, especialmente as contidas na\n"
     "Lei Municipal nº 1.996, de 06 de novembro de 2008.\nArt. 32. Esta Lei entra em vigor.",
     None),
    ("ocr-junk", "no-heading", "EEB\n| .\nv V\n& ES)\n«cs", None),
    ("blank", "no-heading", "", None),
    ("draft-without-number", "no-heading",
     "LEI Nº ____, DE ___ DE __________ DE 2013\nDispõe sobre a denominação de logradouro.",
     None),
    ("emenda-to-bill", "no-heading",
     "EMENDA Nº 3 AO PROJETO DE LEI Nº 12/2013\nDê-se ao art. 2º a seguinte redação:", None),
    ("citation-in-parentheses", "no-heading",
     "(Lei nº 2.199/2011)\nTabela de preços das corridas", None),
]


def heading_cases() -> list[HeadingCase]:
    """Every labelled first page: generated shapes, then the pages written by hand."""
    written = [HeadingCase(name, kind, text, expected)
               for name, kind, text, expected in _WRITTEN]
    return _generated() + written


# --- Scans of the pages, for real OCR (tests and bench) ---

@dataclass(frozen=True)
class Print:
    """How a page was printed and scanned."""

    ink: int = 25  # gray of the ink, 0 black .. 255 paper
    dropout: float = 0.0  # share of ink pixels lost (toner flaking off)
    blur: float = 0.6  # Gaussian radius in pixels (focus, ink spread)
    jpeg: int | None = None  # JPEG quality the scan was saved at
    rotate: float = 0.0  # degrees: a crooked feed


SCAN_QUALITIES = {
    "clean": Print(),
    "faded": Print(ink=135, blur=0.8, jpeg=30),  # a light photocopy, JPEG-compressed
    "worn": Print(ink=90, dropout=0.25, blur=0.7, jpeg=20),  # flaking toner, strong artefacts
}
_SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
_SERIF_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"


def random_print(rng: random.Random) -> Print:
    """A print drawn from the damage seen in municipal scans: light or dark ink, blur, JPEG
    artefacts, flaking, a crooked page."""
    return Print(ink=rng.randrange(40, 200), dropout=rng.choice([0.0, 0.0, 0.15, 0.3]),
                 blur=round(rng.uniform(0.4, 1.3), 2), jpeg=rng.choice([None, 10, 15, 25, 40]),
                 rotate=rng.choice([0.0, 0.0, 0.4, 0.9]))


def scanned_first_page(text: str, dpi: int = 200, quality: str | Print = "clean",
                       seed: int = 0, size_pt: float = 11.0):
    """The page as a scanner returns it: an A4 grayscale image, lines in capitals (letterhead,
    heading) in bold as typed, long lines wrapped, specks, then the print's damage."""
    import io

    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    damage = SCAN_QUALITIES[quality] if isinstance(quality, str) else quality
    width, height = round(8.27 * dpi), round(11.69 * dpi)
    page = Image.new("L", (width, height), 246)
    draw = ImageDraw.Draw(page)
    size = round(size_pt * dpi / 72)
    regular, bold = ImageFont.truetype(_SERIF, size), ImageFont.truetype(_SERIF_BOLD, size)
    margin, step = round(dpi), round(size * 1.45)
    y = round(dpi * 0.8)
    for line in text.split("\n"):
        font = bold if line.upper() == line and any(c.isalpha() for c in line) else regular
        for piece in _wrap(line, font, width - 2 * margin):
            if y > height - margin:
                break
            draw.text((margin, y), piece, font=font, fill=damage.ink)
            y += step
    rng = random.Random(seed)
    if damage.dropout:
        # Flaking toner: ink pixels turn to paper at random (seeded: the same page each time).
        cut = round(255 * damage.dropout)
        lost = Image.frombytes("L", (width, height), rng.randbytes(width * height)).point(
            lambda v: 255 if v < cut else 0)
        inked = page.point(lambda v: 255 if v < 200 else 0)
        mask = Image.composite(lost, Image.new("L", page.size, 0), inked)
        page = Image.composite(Image.new("L", page.size, 236), page, mask)
        draw = ImageDraw.Draw(page)
    for _ in range(width * height // 5000):
        draw.point((rng.randrange(width), rng.randrange(height)), fill=rng.randrange(60, 200))
    if damage.rotate:
        page = page.rotate(damage.rotate, resample=Image.Resampling.BICUBIC, fillcolor=246)
    page = page.filter(ImageFilter.GaussianBlur(damage.blur))
    if damage.jpeg:
        buffer = io.BytesIO()
        page.save(buffer, "JPEG", quality=damage.jpeg)
        page = Image.open(io.BytesIO(buffer.getvalue())).convert("L")
    page.info["dpi"] = (dpi, dpi)
    return page


def _wrap(line: str, font, width: int) -> list[str]:
    out, current = [], ""
    for word in line.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and font.getlength(candidate) > width:
            out.append(current)
            current = word
        else:
            current = candidate
    return [*out, current]
