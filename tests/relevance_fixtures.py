"""A labelled relevance set: a corpus shaped like real municipal corpora, and graded queries.

Six municipalities of three UFs (Juazeiro, Feira de Santana and Sobradinho in BA; Petrolina
and Caruaru in PE; Montes Claros in MG) and the state of Bahia, 1,571 norms generated
deterministically, most with their texto integral, enriched (headings, citations, cited-by
counts) and indexed. What makes "the law a person means" hard to find in real corpora is
here on purpose:

- codes and statutes amended many times, whose amendments repeat the code's name in their
  ementas ("Altera a Lei Complementar nº 3/2013 (Código Tributário do Município)": twenty of
  them in Juazeiro), while some codes do not even say "Código" in their own ementa ("Dispõe
  sobre o Sistema Tributário do Município"); the codes are long texts (BM25 shortens their
  scores), their amendments short;
- the Lei Orgânica, which mentions everything (servidores, plano diretor, tributos);
- many laws about "servidores" beside the Estatuto dos Servidores (and Caruaru's older
  "Estatuto dos Funcionários Públicos", which is the same statute by its old name);
- honorary decrees (títulos de cidadão), "utilidade pública" of entities and, in another
  sense, of land to expropriate; street-naming laws; budget decrees (créditos suplementares
  with figures in R$) citing their budget law; nomeações; moto-táxi regulation spelled
  moto-táxi, mototáxi and moto táxi; public lighting (COSIP) laws;
- upper-case ementas (Caruaru's SAPL), an accent-less old ementa, plural and singular and
  inflected forms (servidor/servidores, tributário/tributária, feira/feiras, denomina/
  denominação);
- citations written in the bodies, so that enrichment builds the graph: amendments cite the
  code they alter, regulating decrees the law they regulate, budget decrees the budget law.

QUERIES holds the graded judgments, built from each query's written intent over the norms'
topics (3 = the norm meant, 2 = highly relevant, 1 = relevant, unlisted = 0). Every norm has
a stable name ("jua.ctm", "jua.ctm.alt07"); `judgments(query)` gives {name: grade}.
bench/search_relevance.py measures nDCG@10 and success@1 over them; tests/
test_search_relevance.py checks the corpus and the metrics.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import date, timedelta

from locleg.corpus import Corpus
from locleg.enrich.run import enrich
from locleg.jurisdictions import fold
from locleg.search import SearchRequest, refresh_index, search
from locleg.store import utcnow
from tests.explorer_fixtures import ExplorerCorpus, add_extracted_texts, norms_of
from tests.lookup_fixtures import _text

SEED = 10
MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
          "setembro", "outubro", "novembro", "dezembro")


@dataclass(frozen=True)
class Place:
    slug: str
    code: int
    name: str
    uf: str
    gentilic: str  # the title of cidadão honorário: "Cidadão Juazeirense"
    size: float  # how many norms of each generated kind, relative to Juazeiro
    law_base: int  # the number of its first ordinary law in 1990
    caps: bool = False  # its SAPL writes ementas in capitals


JUAZEIRO = Place("jua", 2918407, "Juazeiro", "BA", "Juazeirense", 1.0, 1000)
FEIRA = Place("fsa", 2910800, "Feira de Santana", "BA", "Feirense", 0.7, 1200)
SOBRADINHO = Place("sob", 2930774, "Sobradinho", "BA", "Sobradinhense", 0.2, 100)
PETROLINA = Place("pet", 2611101, "Petrolina", "PE", "Petrolinense", 0.6, 2000)
CARUARU = Place("car", 2604106, "Caruaru", "PE", "Caruaruense", 0.45, 3000, caps=True)
MONTES_CLAROS = Place("moc", 3143302, "Montes Claros", "MG", "Montes-Clarense", 0.45, 1500)
MUNICIPALITIES = (JUAZEIRO, FEIRA, SOBRADINHO, PETROLINA, CARUARU, MONTES_CLAROS)
BAHIA = Place("ba", 29, "Bahia", "BA", "Baiano", 0.0, 5000)
PLACES = (*MUNICIPALITIES, BAHIA)
BY_SLUG = {p.slug: p for p in PLACES}

_FAMILY_LABEL = {"lei": "Lei", "lei.complementar": "Lei Complementar", "decreto": "Decreto",
                 "portaria": "Portaria", "resolucao": "Resolução",
                 "decreto.legislativo": "Decreto Legislativo",
                 "emenda.lei.organica": "Emenda à Lei Orgânica", "lei.organica": "Lei Orgânica"}
_TYPE_RAW = {"lei": "Lei Ordinária", **{k: v for k, v in _FAMILY_LABEL.items() if k != "lei"}}
# Families numbered in one running sequence per place; the others restart every year.
_RUNNING = ("lei", "lei.complementar", "emenda.lei.organica")


@dataclass
class Spec:
    """A norm before numbering: its ementa and articles may name other norms of its place as
    {alias.long} ("Lei Complementar nº 3, de 11 de janeiro de 2013") or {alias.short}
    ("Lei Complementar nº 3/2013"), filled once all are numbered."""

    name: str
    place: Place
    family: str
    signed: date
    ementa: str
    articles: tuple[str, ...]
    topics: frozenset[str]
    has_text: bool = True
    number: str | None = None


@dataclass(frozen=True)
class Norm:
    name: str
    place: Place
    type_raw: str
    family: str
    number: str | None
    signed: date
    ementa: str
    text: str | None
    topics: frozenset[str]


def _written(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _long_date(d: date) -> str:
    return f"{d.day} de {MONTHS[d.month - 1]} de {d.year}"


# -- vocabulary ---------------------------------------------------------------------------

FIRST = ("José", "Maria", "Antônio", "Francisco", "Ana", "João", "Raimundo", "Josefa",
         "Manoel", "Luiz", "Sebastião", "Antônia", "Pedro", "Francisca", "Joaquim", "Luzia",
         "Geraldo", "Terezinha", "Severino", "Edvaldo", "Cícero", "Benedita", "Otacílio")
LAST = ("da Silva", "dos Santos", "de Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves",
        "Pereira", "Lima", "Gomes", "Ribeiro", "Carvalho", "Barbosa", "Nunes", "Cavalcanti",
        "de Albuquerque", "Coelho", "Amorim", "Brandão", "Macedo", "Nascimento")
BAIRROS = ("Centro", "Alto da Maravilha", "João Paulo II", "Piranga", "Santo Antônio",
           "Jardim Vitória", "Cohab", "São Geraldo", "Vila Nova", "Areia Branca", "Castelo Branco",
           "Quidé", "Cidade Nova", "Tabuleiro", "Maringá", "Pedra do Lord", "Dom José Rodrigues")
SECRETARIAS = ("Saúde", "Educação", "Obras e Infraestrutura", "Administração",
               "Assistência Social", "Agricultura", "Cultura e Turismo", "Esportes e Lazer",
               "Meio Ambiente", "Fazenda", "Serviços Públicos", "Transportes e Trânsito")
ENTITIES = ("Associação de Moradores do Bairro {b}", "Associação de Pais e Amigos dos "
            "Excepcionais — APAE de {p}", "Sociedade Beneficente São Vicente de Paulo",
            "Associação dos Pequenos Agricultores do {b}", "Instituto Cultural {n}",
            "Associação Comunitária do {b}", "Lar dos Idosos {n}", "Clube de Mães do {b}",
            "Associação Desportiva {b}", "Centro Espírita {n}", "Creche Comunitária {n}")
CARGOS = ("Diretor do Departamento de Compras", "Coordenador de Vigilância Sanitária",
          "Chefe de Gabinete", "Diretor de Atenção Básica", "Assessor Jurídico",
          "Coordenador Pedagógico", "Diretor de Trânsito", "Ouvidor Municipal")
VALUES = ("R$ 35.000,00 (trinta e cinco mil reais)", "R$ 120.000,00 (cento e vinte mil reais)",
          "R$ 250.000,00 (duzentos e cinquenta mil reais)", "R$ 1.200.000,00 (um milhão e "
          "duzentos mil reais)", "R$ 80.500,00 (oitenta mil e quinhentos reais)",
          "R$ 450.000,00 (quatrocentos e cinquenta mil reais)")


class _Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.specs: list[Spec] = []
        self.counts: dict[str, int] = {}

    def person(self) -> str:
        return f"{self.rng.choice(FIRST)} {self.rng.choice(LAST)}"

    def day(self, first: int, last: int) -> date:
        start = date(first, 1, 1)
        return start + timedelta(days=self.rng.randrange((date(last, 12, 31) - start).days))

    def add(self, place: Place, name: str, family: str, signed: date, ementa: str,
            *articles: str, topics: tuple[str, ...] = (), has_text: bool = True) -> Spec:
        if name.endswith("#"):
            key = f"{place.slug}.{name}"
            self.counts[key] = self.counts.get(key, 0) + 1
            name = f"{name[:-1]}{self.counts[key]:02d}"
        spec = Spec(f"{place.slug}.{name}", place, family, signed, ementa, tuple(articles),
                    frozenset(topics), has_text)
        self.specs.append(spec)
        return spec

    def many(self, place: Place, per_juazeiro: int) -> int:
        return max(1, round(per_juazeiro * place.size))


# -- the codes and statutes, and what amends or cites them ----------------------------------

_CTM_EMENTAS = {
    "jua": "Institui o Código Tributário do Município de Juazeiro e dá outras providências.",
    "fsa": "Dispõe sobre o Sistema Tributário do Município de Feira de Santana e dá outras "
           "providências.",
    "sob": "Institui o Código Tributário Municipal de Sobradinho.",
    "pet": "Institui o Código Tributário e de Rendas do Município de Petrolina.",
    "car": "Dispõe sobre a legislação tributária do Município de Caruaru e institui o "
           "Código Tributário Municipal.",
    "moc": "Institui o Código Tributário do Município de Montes Claros.",
}
_CTM_ALTERATIONS = (
    ("Altera a {ctm.short} (Código Tributário do Município).",
     "O art. {a} da {ctm.long} passa a vigorar com a seguinte redação: \"Art. {a}. A "
     "alíquota do imposto é de {r}%.\""),
    ("Altera dispositivos da {ctm.long}, que institui o Código Tributário Municipal.",
     "Os arts. {a} e {b} da {ctm.short} passam a vigorar com a seguinte redação."),
    ("Dá nova redação ao art. {a} do Código Tributário Municipal.",
     "O art. {a} da {ctm.long} passa a vigorar com a seguinte redação: \"Art. {a}. O "
     "lançamento do IPTU será anual.\""),
    ("Acrescenta o art. {a}-A à {ctm.short} — Código Tributário.",
     "A {ctm.short} passa a vigorar acrescida do art. {a}-A, com a seguinte redação."),
    ("Altera a alíquota do Imposto sobre Serviços de Qualquer Natureza (ISS) prevista na "
     "legislação tributária municipal.",
     "O art. {a} da {ctm.long} passa a vigorar com a seguinte redação: \"A alíquota do ISS "
     "sobre os serviços de saúde é de {r}%.\""),
    ("Altera o Código Tributário do Município para conceder isenção de taxas às "
     "microempresas.",
     "Fica alterado o art. {a} da {ctm.short}, que passa a isentar as microempresas da taxa "
     "de licença de localização."),
    ("Modifica a Tabela de Valores das taxas municipais do Código Tributário.",
     "O Anexo III da {ctm.long} passa a vigorar na forma do Anexo desta Lei Complementar."),
)
_TAXES = (
    "O Imposto sobre a Propriedade Predial e Territorial Urbana (IPTU) tem como fato gerador "
    "a propriedade, o domínio útil ou a posse de bem imóvel situado na zona urbana.",
    "O Imposto sobre Serviços de Qualquer Natureza (ISS) tem como fato gerador a prestação "
    "de serviços constantes da lista anexa a este Código.",
    "O Imposto sobre a Transmissão Inter Vivos de Bens Imóveis (ITBI) incide sobre a "
    "transmissão onerosa de bens imóveis.",
    "A Taxa de Licença de Localização e Funcionamento é devida pelo exercício do poder de "
    "polícia do Município.",
    "A Contribuição de Melhoria é cobrada em razão da valorização imobiliária decorrente de "
    "obra pública.",
    "Constitui dívida ativa tributária o crédito tributário não pago no vencimento.",
    "A obrigação tributária principal surge com a ocorrência do fato gerador.",
    "O sujeito passivo da obrigação tributária é o contribuinte ou o responsável.",
    "A consulta sobre a interpretação da legislação tributária será dirigida à Secretaria "
    "da Fazenda.",
    "A base de cálculo do imposto é o valor venal do imóvel, apurado na Planta Genérica de "
    "Valores.",
    "São isentos do imposto os imóveis de entidades de assistência social sem fins "
    "lucrativos.",
    "A fiscalização dos tributos compete à Secretaria Municipal da Fazenda.",
)


def _long_body(intro: str, sentences: tuple[str, ...], articles: int,
               rng: random.Random) -> tuple[str, ...]:
    """A code's many articles: long, as codes are (BM25 shortens their scores)."""
    return (intro, *(rng.choice(sentences) for _ in range(articles)))


def _tax_code(g: _Generator, p: Place) -> None:
    rng = g.rng
    signed = g.day(2001, 2014)
    body = _long_body(f"Este Código dispõe sobre os tributos de competência do Município de "
                      f"{p.name} e as normas de direito tributário a eles aplicáveis.",
                      _TAXES, 45, rng)
    if p is JUAZEIRO:
        # The code it replaced, revoked by the new one: what the user means less.
        g.add(p, "ctm.old", "lei", date(1990, 12, 18),
              "INSTITUI O CODIGO TRIBUTARIO DO MUNICIPIO DE JUAZEIRO.",
              *_long_body("Este Código regula os tributos do Município de Juazeiro.", _TAXES,
                          30, rng), topics=("ctm.old",))
        body = (*body, "Fica revogada a {ctm_old.long}.")
    g.add(p, "ctm", "lei.complementar", signed, _CTM_EMENTAS[p.slug], *body, topics=("ctm",))
    amendments = 20 if p is JUAZEIRO else rng.randint(3, 6)
    for _ in range(amendments):
        ementa, article = rng.choice(_CTM_ALTERATIONS)
        values = {"a": str(rng.randint(5, 240)), "b": str(rng.randint(241, 300)),
                  "r": str(rng.choice((2, 3, 4, 5)))}
        g.add(p, "ctm.alt#", "lei.complementar", g.day(signed.year + 1, 2024),
              _fmt_local(ementa, values), _fmt_local(article, values),
              topics=("ctm.amendment",))
    # Decrees that regulate the code; laws that only mention it.
    for subject in ("a emissão da Nota Fiscal de Serviços Eletrônica (NFS-e)",
                    "o lançamento e a cobrança do IPTU")[:g.many(p, 2)]:
        g.add(p, "ctm.reg#", "decreto", g.day(signed.year + 1, 2024),
              f"Regulamenta {subject}, nos termos do Código Tributário Municipal.",
              f"Fica regulamentada {subject}, de que trata a {{ctm.long}}.",
              topics=("ctm.regulation",))
    for _ in range(g.many(p, 3)):
        g.add(p, "refis#", "lei", g.day(signed.year + 1, 2024),
              rng.choice(("Institui o Programa de Recuperação Fiscal — REFIS e dispõe sobre "
                          "o parcelamento de débitos tributários.",
                          "Concede anistia de multas e juros sobre débitos tributários "
                          "inscritos em dívida ativa.",
                          "Dispõe sobre a remissão e a anistia de créditos tributários do "
                          "Município.")),
              "Os débitos de natureza tributária inscritos em dívida ativa até 31 de "
              "dezembro poderão ser pagos com redução de multas e juros.",
              "Aplicam-se ao parcelamento as normas do Código Tributário Municipal "
              "({ctm.short}).", topics=("refis",))
    for _ in range(g.many(p, 4)):
        g.add(p, "iptu.isencao#", "lei", g.day(signed.year + 1, 2024),
              rng.choice(("Concede isenção do IPTU aos imóveis de aposentados e pensionistas.",
                          "Concede isenção do Imposto Predial e Territorial Urbano aos imóveis "
                          "atingidos pelas enchentes.",
                          "Dispõe sobre a isenção de IPTU para imóveis de entidades "
                          "religiosas.")),
              "Ficam isentos do IPTU os imóveis de que trata esta Lei, na forma do art. "
              f"{rng.randint(20, 90)} da {{ctm.long}}.", topics=("iptu.isencao",))


def _fmt_local(template: str, values: dict[str, str]) -> str:
    """Fill {a}, {b}, {r} now; leave {alias.long} and kin for numbering."""
    return re.sub(r"\{([abr])\}", lambda m: values[m[1]], template)


_STATUTE_EMENTAS = {
    "jua": "Dispõe sobre o Estatuto dos Servidores Públicos Civis do Município de Juazeiro.",
    "fsa": "Institui o Regime Jurídico Único e o Estatuto dos Servidores Públicos do Município "
           "de Feira de Santana.",
    "sob": "Dispõe sobre o Estatuto dos Servidores Públicos Municipais de Sobradinho.",
    "pet": "Institui o Estatuto dos Servidores Públicos do Município de Petrolina, das suas "
           "autarquias e fundações públicas.",
    # The statute by its old name: the norm a user typing "estatuto do servidor" means.
    "car": "DISPÕE SOBRE O ESTATUTO DOS FUNCIONÁRIOS PÚBLICOS DO MUNICÍPIO DE CARUARU.",
    "moc": "Dispõe sobre o Estatuto dos Servidores Públicos do Município de Montes Claros.",
    "ba": "Dispõe sobre o Estatuto dos Servidores Públicos Civis do Estado da Bahia, das "
          "Autarquias e das Fundações Públicas Estaduais.",
}
_STATUTE_ARTICLES = (
    "Para os efeitos deste Estatuto, servidor é a pessoa legalmente investida em cargo "
    "público.",
    "Cargo público é o conjunto de atribuições e responsabilidades cometidas ao servidor.",
    "A investidura em cargo público depende de aprovação prévia em concurso público.",
    "O servidor nomeado para cargo de provimento efetivo cumprirá estágio probatório de "
    "três anos.",
    "O servidor fará jus a trinta dias de férias anuais, que podem ser acumuladas.",
    "Conceder-se-á licença ao servidor por motivo de doença em pessoa da família.",
    "São deveres do servidor exercer com zelo e dedicação as atribuições do cargo.",
    "A remuneração do servidor é o vencimento do cargo acrescido das vantagens pecuniárias.",
    "O servidor responde civil, penal e administrativamente pelo exercício irregular de "
    "suas atribuições.",
    "A demissão será aplicada nos casos de abandono de cargo e improbidade administrativa.",
    "O processo administrativo disciplinar será conduzido por comissão de três servidores "
    "estáveis.",
)


def _servants(g: _Generator, p: Place) -> None:
    rng = g.rng
    family = "lei.complementar" if p in (PETROLINA, MONTES_CLAROS) else "lei"
    signed = date(1994, 5, 26) if p is BAHIA else g.day(1991, 2004)
    g.add(p, "estatuto", family, signed, _STATUTE_EMENTAS[p.slug],
          *_long_body("Esta Lei institui o regime jurídico dos servidores públicos civis.",
                      _STATUTE_ARTICLES, 40, rng), topics=("estatuto",))
    for _ in range(rng.randint(2, 5) if p is not SOBRADINHO else 1):
        g.add(p, "estatuto.alt#", family, g.day(signed.year + 2, 2024),
              rng.choice(("Altera a {estatuto.short}, que dispõe sobre o Estatuto dos "
                          "Servidores Públicos.",
                          "Altera dispositivos do Estatuto dos Servidores Públicos Municipais.",
                          "Dá nova redação ao art. {a} da {estatuto.short} (Estatuto do "
                          "Servidor).")).replace("{a}", str(rng.randint(10, 200))),
              f"O art. {rng.randint(10, 200)} da {{estatuto.long}} passa a vigorar com a "
              "seguinte redação: \"O servidor terá direito a licença-prêmio.\"",
              topics=("estatuto.amendment",))
    if p is BAHIA:
        return
    # Laws about servants that are not their statute.
    for year in sorted(rng.sample(range(2008, 2025), g.many(p, 6))):
        g.add(p, "reajuste#", "lei", g.day(year, year),
              rng.choice(("Concede reajuste aos servidores públicos municipais e dá outras "
                          "providências.",
                          "Dispõe sobre a revisão geral anual da remuneração dos servidores "
                          "do Município.",
                          "Concede reajuste salarial ao servidor público municipal.")),
              f"Fica concedido reajuste de {rng.randint(3, 9)}% sobre o vencimento dos "
              "servidores públicos municipais.",
              "As despesas correrão por conta das dotações próprias do orçamento vigente.",
              topics=("reajuste",))
    for ementa in ("Institui o Plano de Cargos, Carreiras e Salários dos Servidores do "
                   "Magistério Público Municipal.",
                   "Dispõe sobre o Regime Próprio de Previdência Social dos servidores "
                   "públicos do Município.",
                   "Institui gratificação de produtividade para os servidores da Secretaria "
                   "da Fazenda.",
                   "Cria cargos de provimento efetivo no quadro de pessoal da Prefeitura.",
                   "Institui o auxílio-alimentação dos servidores municipais.",
                   "Dispõe sobre o piso salarial dos profissionais do magistério.")[
                       :g.many(p, 6)]:
        g.add(p, "servidores#", "lei", g.day(signed.year + 1, 2024), ementa,
              "Aplicam-se aos servidores de que trata esta Lei as normas do Estatuto dos "
              "Servidores ({estatuto.short}).",
              "O servidor que cumprir os requisitos fará jus ao benefício.",
              topics=("servidores",))
    for _ in range(g.many(p, 15)):
        g.add(p, "ferias#", "portaria", g.day(2010, 2024),
              rng.choice(("Concede férias a servidor da Secretaria de Administração.",
                          "Concede licença-prêmio ao servidor que menciona.",
                          "Concede licença para tratamento de saúde a servidora municipal.")),
              f"Fica concedido ao servidor {g.person()}, matrícula {rng.randint(1000, 9999)}, "
              "o benefício de que trata o Estatuto dos Servidores.",
              topics=("portaria.servidor",), has_text=rng.random() < 0.6)


_PLAN_EMENTAS = {
    "jua": "Institui o Plano Diretor de Desenvolvimento Urbano do Município de Juazeiro — PDDU.",
    "fsa": "Dispõe sobre a revisão do Plano Diretor de Desenvolvimento Urbano e Ambiental de "
           "Feira de Santana.",
    "sob": "Institui o Plano Diretor Participativo do Município de Sobradinho.",
    "pet": "Institui o Plano Diretor Participativo de Petrolina.",
    "car": "INSTITUI O PLANO DIRETOR DO MUNICÍPIO DE CARUARU E DÁ OUTRAS PROVIDÊNCIAS.",
    "moc": "Institui o Plano Diretor do Município de Montes Claros.",
}
_PLAN_ARTICLES = (
    "O Plano Diretor é o instrumento básico da política de desenvolvimento e expansão urbana.",
    "A propriedade urbana cumpre sua função social quando atende às exigências deste Plano.",
    "Ficam instituídas as Zonas Especiais de Interesse Social (ZEIS).",
    "O macrozoneamento divide o território em Macrozona Urbana e Macrozona Rural.",
    "O parcelamento, a edificação ou a utilização compulsórios aplicam-se ao solo urbano não "
    "edificado.",
    "O Conselho da Cidade acompanhará a implementação do Plano Diretor.",
    "O coeficiente de aproveitamento básico é igual a um em toda a zona urbana.",
)


def _urban(g: _Generator, p: Place) -> None:
    rng = g.rng
    if p is JUAZEIRO:
        g.add(p, "pd.old", "lei", date(2003, 10, 9),
              "Institui o Plano Diretor do Município de Juazeiro.",
              *_long_body("Este Plano orienta o desenvolvimento urbano de Juazeiro.",
                          _PLAN_ARTICLES, 20, rng), topics=("pd.old",))
    signed = g.day(2006, 2018)
    body = _long_body("Este Plano Diretor abrange a totalidade do território do Município, "
                      "nos termos do Estatuto da Cidade.", _PLAN_ARTICLES, 35, rng)
    if p is JUAZEIRO:
        body = (*body, "Fica revogada a {pd_old.long}.")
    g.add(p, "pd", "lei.complementar", signed, _PLAN_EMENTAS[p.slug], *body, topics=("pd",))
    for _ in range(g.many(p, 4)):
        g.add(p, "pd.alt#", "lei.complementar", g.day(signed.year + 1, 2024),
              rng.choice(("Altera a {pd.short}, que institui o Plano Diretor.",
                          "Altera o perímetro da Zona Especial de Interesse Social prevista "
                          "no Plano Diretor.",
                          "Acrescenta dispositivos ao Plano Diretor do Município.")),
              "O Anexo II da {pd.long} passa a vigorar com as alterações desta Lei.",
              topics=("pd.amendment",))
    g.add(p, "luos", "lei.complementar", g.day(signed.year, 2024),
          "Dispõe sobre o zoneamento, o uso e a ocupação do solo urbano do Município.",
          "Esta Lei regulamenta o zoneamento previsto na {pd.long}.",
          "As zonas de uso são as definidas no mapa anexo.", topics=("luos",))
    g.add(p, "parcelamento", "lei", g.day(1998, 2020),
          "Dispõe sobre o parcelamento do solo urbano e os loteamentos no Município.",
          "O parcelamento do solo urbano poderá ser feito mediante loteamento ou desmembramento.",
          "Os loteamentos observarão as diretrizes do Plano Diretor.",
          topics=("parcelamento",))


_POSTURAS = (
    "É proibido perturbar o sossego público com ruídos ou sons excessivos.",
    "O horário de funcionamento do comércio será fixado por decreto do Executivo.",
    "As feiras livres funcionarão nos locais e horários designados pela Prefeitura.",
    "É vedado depositar lixo ou entulho nas vias e logradouros públicos.",
    "A colocação de mesas e cadeiras nas calçadas depende de licença.",
    "Os animais soltos nas vias públicas serão apreendidos.",
)
_OBRAS = (
    "Nenhuma edificação poderá ser construída sem prévia licença da Prefeitura.",
    "O alvará de construção terá validade de dois anos.",
    "As calçadas serão construídas e conservadas pelos proprietários dos imóveis.",
    "O habite-se será concedido após vistoria da obra concluída.",
    "As edificações de uso público garantirão acessibilidade às pessoas com deficiência.",
)


def _city_codes(g: _Generator, p: Place) -> None:
    rng = g.rng
    signed = g.day(1995, 2012)
    name = "Código de Posturas do Município" if p is not CARUARU else \
        "CÓDIGO DE POSTURAS DO MUNICÍPIO DE CARUARU"
    g.add(p, "posturas", "lei", signed,
          f"{'INSTITUI O' if p.caps else 'Institui o'} {name}"
          f"{'' if p.caps else ' de ' + p.name}.",
          *_long_body("Este Código contém as medidas de polícia administrativa a cargo do "
                      "Município em matéria de higiene, ordem pública e funcionamento de "
                      "estabelecimentos.", _POSTURAS, 30, rng), topics=("posturas",))
    for _ in range(g.many(p, 3)):
        g.add(p, "posturas.alt#", "lei", g.day(signed.year + 1, 2024),
              rng.choice(("Altera a {posturas.short} (Código de Posturas).",
                          "Altera o Código de Posturas do Município para dispor sobre o uso "
                          "das calçadas.")),
              f"O art. {rng.randint(5, 150)} da {{posturas.long}} passa a vigorar com a "
              "seguinte redação.", topics=("posturas.amendment",))
    signed = g.day(1995, 2015)
    g.add(p, "obras", "lei", signed,
          f"Institui o Código de Obras e Edificações do Município de {p.name}.",
          *_long_body("Este Código disciplina as construções, reformas e demolições.",
                      _OBRAS, 25, rng), topics=("obras",))
    for _ in range(g.many(p, 2)):
        g.add(p, "obras.alt#", "lei", g.day(signed.year + 1, 2024),
              "Altera a {obras.short}, que institui o Código de Obras.",
              f"O art. {rng.randint(5, 120)} da {{obras.long}} passa a vigorar com a "
              "seguinte redação.", topics=("obras.amendment",))


_LOM_ARTICLES = (
    "O Município de {p} integra, com autonomia política, administrativa e financeira, a "
    "República Federativa do Brasil.",
    "Os servidores públicos municipais terão regime jurídico único, estabelecido no "
    "Estatuto dos Servidores.",
    "O plano diretor, aprovado pela Câmara Municipal, é o instrumento básico da política de "
    "desenvolvimento urbano.",
    "Compete ao Município instituir e arrecadar os tributos de sua competência, na forma do "
    "Código Tributário Municipal.",
    "Cabe à Câmara Municipal dispor sobre a denominação de próprios, vias e logradouros "
    "públicos.",
    "O Prefeito poderá abrir créditos suplementares até o limite autorizado na lei "
    "orçamentária.",
    "A saúde é direito de todos e dever do Município.",
    "O transporte coletivo é serviço público essencial.",
)


def _organic(g: _Generator, p: Place) -> None:
    rng = g.rng
    lom = g.add(p, "lom", "lei.organica", date(1990, 4, 5),
                f"Lei Orgânica do Município de {p.name}.",
                *[a.replace("{p}", p.name) for a in _LOM_ARTICLES * 3], topics=("lom",))
    lom.articles = (lom.articles[0], *rng.sample(lom.articles[1:], len(lom.articles) - 1))
    for _ in range(g.many(p, 8)):
        article = rng.randint(10, 180)
        g.add(p, "elom#", "emenda.lei.organica", g.day(1995, 2024),
              rng.choice((f"Altera o art. {article} da Lei Orgânica do Município de {p.name}.",
                          f"Dá nova redação ao art. {article} da Lei Orgânica Municipal.",
                          f"Acrescenta parágrafo ao art. {article} da Lei Orgânica.")),
              f"O art. {article} da Lei Orgânica do Município passa a vigorar com a seguinte "
              "redação.", topics=("elom",))
    g.add(p, "regimento", "resolucao", g.day(1991, 2015),
          f"Aprova o Regimento Interno da Câmara Municipal de {p.name}.",
          "Fica aprovado o Regimento Interno da Câmara Municipal, na forma do anexo.",
          "O Regimento Interno disciplina o funcionamento do Plenário e das Comissões.",
          topics=("regimento",))


# -- the everyday norms of a municipality ----------------------------------------------------

_MOTO = {  # each place's spelling of the service
    "jua": "moto-táxi", "fsa": "moto-táxi", "sob": "mototáxi", "pet": "mototáxi",
    "car": "moto táxi", "moc": "mototaxi",
}


def _moto_taxi(g: _Generator, p: Place) -> None:
    word = _MOTO[p.slug]
    signed = g.day(2003, 2014)
    g.add(p, "moto", "lei", signed,
          f"Dispõe sobre o serviço de transporte individual de passageiros em motocicleta — "
          f"{word} — no Município de {p.name}.",
          f"O serviço de {word} será explorado mediante permissão do Município.",
          "O mototaxista deverá ter idade mínima de vinte e um anos e habilitação na "
          "categoria A há pelo menos dois anos.",
          f"Os veículos do serviço de {word} serão vistoriados anualmente.",
          topics=("moto",))
    g.add(p, "moto.reg", "decreto", g.day(signed.year, signed.year + 2),
          f"Regulamenta a {{moto.short}}, que dispõe sobre o serviço de {word}.",
          f"Fica regulamentado o serviço de {word} de que trata a {{moto.long}}.",
          "A tarifa será fixada pela Secretaria de Transportes e Trânsito.",
          topics=("moto.regulation",))
    if g.many(p, 2) > 1:
        g.add(p, "moto.alt", "lei", g.day(signed.year + 2, 2024),
              f"Altera a {{moto.short}}, que regulamenta o {word}.",
              "O art. 2º da {moto.long} passa a vigorar com a seguinte redação.",
              topics=("moto.amendment",))
        g.add(p, "moto.comissao", "portaria", g.day(signed.year + 1, 2024),
              f"Nomeia a comissão de vistoria dos veículos do serviço de {word}.",
              f"Ficam nomeados {g.person()}, {g.person()} e {g.person()} para compor a "
              f"comissão de vistoria dos mototaxistas.", topics=("moto.portaria",))


def _lighting(g: _Generator, p: Place) -> None:
    if p is SOBRADINHO:
        return
    signed = g.day(2003, 2010)
    g.add(p, "cosip", "lei.complementar", signed,
          f"Institui a Contribuição para o Custeio do Serviço de Iluminação Pública — COSIP, "
          f"no Município de {p.name}.",
          "Fica instituída a Contribuição para o Custeio do Serviço de Iluminação Pública, "
          "prevista no art. 149-A da Constituição Federal.",
          "O serviço de iluminação pública compreende a iluminação de vias, praças e demais "
          "logradouros públicos.",
          "A contribuição será cobrada na fatura de consumo de energia elétrica.",
          topics=("cosip",))
    g.add(p, "cosip.alt", "lei.complementar", g.day(signed.year + 2, 2024),
          "Altera a {cosip.short}, que institui a COSIP.",
          "O Anexo Único da {cosip.long} passa a vigorar com os valores desta Lei.",
          topics=("cosip.amendment",))
    g.add(p, "iluminacao.convenio", "lei", g.day(2012, 2024),
          "Autoriza o Poder Executivo a firmar convênio com a concessionária de energia "
          "elétrica para a manutenção da iluminação pública.",
          "Fica o Poder Executivo autorizado a firmar convênio para a manutenção e a expansão "
          "do parque de iluminação pública.", topics=("iluminacao",))
    if g.many(p, 2) > 1:
        g.add(p, "iluminacao.led", "decreto", g.day(2016, 2024),
              "Institui o programa de modernização da iluminação pública com lâmpadas LED.",
              "Fica instituído o programa Cidade Iluminada, para a substituição das "
              "luminárias da iluminação pública por tecnologia LED.",
              topics=("iluminacao",))


def _budget(g: _Generator, p: Place) -> None:
    rng = g.rng
    first = 2015 if p.size >= 0.6 else 2019
    for year in range(first, 2025):
        g.add(p, f"loa{year}", "lei", g.day(year - 1, year - 1).replace(month=12),
              f"Estima a receita e fixa a despesa do Município de {p.name} para o exercício "
              f"financeiro de {year}.",
              f"Esta Lei estima a receita e fixa a despesa do Município para o exercício "
              f"financeiro de {year}, compreendendo o Orçamento Fiscal e o da Seguridade "
              "Social.",
              "Fica o Poder Executivo autorizado a abrir créditos suplementares até o limite "
              "de 20% do total da despesa fixada.", topics=("loa", f"loa{year}"))
        g.add(p, f"ldo{year}", "lei", g.day(year - 1, year - 1).replace(month=7),
              f"Dispõe sobre as diretrizes para a elaboração e a execução da lei orçamentária "
              f"de {year}.",
              f"Ficam estabelecidas as diretrizes orçamentárias do Município para {year}, "
              "para a elaboração da Lei Orçamentária Anual.", topics=("ldo", f"ldo{year}"))
    for _ in range(g.many(p, 80)):
        year = rng.randint(first, 2024)
        value = rng.choice(VALUES)
        share = rng.random()
        if share < 0.25:
            to = ["Saúde"]
        elif share < 0.35:
            to = rng.sample([s for s in SECRETARIAS if s != "Saúde"], 2) + ["Saúde"]
        else:
            to = [rng.choice([s for s in SECRETARIAS if s != "Saúde"])]
        where = ", ".join(f"Secretaria Municipal de {s}" for s in to)
        ementa = rng.choice((
            "Abre crédito suplementar ao orçamento vigente e dá outras providências.",
            f"Abre crédito suplementar no valor de {value.split(' (')[0]} em favor da "
            f"{where.split(', ')[0]}.",
            "ABRE CRÉDITO ADICIONAL SUPLEMENTAR NA FORMA QUE ESPECIFICA." if p.caps else
            "Abre crédito adicional suplementar na forma que especifica.",
        ))
        if to == ["Saúde"] and rng.random() < 0.3:
            ementa = f"Abre crédito suplementar em favor do Fundo Municipal de Saúde no valor " \
                     f"de {value.split(' (')[0]}."
        # Whom the credit goes to: "credito.only.saude" when to Saúde alone,
        # "credito.to.saude" when Saúde is one of several.
        topics = ("credito", *(f"credito.{'only' if len(to) == 1 else 'to'}.{_topic(s)}"
                               for s in to))
        g.add(p, "credito#", "decreto", g.day(year, year), ementa,
              f"Fica aberto crédito suplementar no valor de {value}, em favor da {where}, "
              f"com fundamento no art. 6º da {{loa{year}.long}}.",
              "Os recursos necessários decorrem da anulação parcial de dotações do orçamento "
              "vigente.", topics=topics)


def _topic(secretaria: str) -> str:
    """'Obras e Infraestrutura' -> 'obras': a topic name."""
    return fold(secretaria).split()[0]


def _people(g: _Generator, p: Place) -> None:
    rng = g.rng
    honor_family = "decreto.legislativo" if p in (JUAZEIRO, PETROLINA, MONTES_CLAROS) \
        else "resolucao"
    for _ in range(g.many(p, 30)):
        person = g.person()
        title = rng.choice((f"Título de Cidadão {p.gentilic}",
                            f"Título de Cidadão Honorário de {p.name}"))
        g.add(p, "titulo#", honor_family, g.day(1995, 2024),
              f"Concede o {title} ao Senhor {person}.",
              f"Fica concedido o {title} ao Senhor {person}, pelos relevantes serviços "
              "prestados ao Município.", topics=("titulo",), has_text=rng.random() < 0.7)
    for _ in range(g.many(p, 25)):
        entity = rng.choice(ENTITIES).format(b=rng.choice(BAIRROS), p=p.name, n=g.person())
        g.add(p, "up#", "lei", g.day(1992, 2024),
              f"Declara de utilidade pública a {entity}.",
              f"Fica declarada de utilidade pública a {entity}, com sede neste Município.",
              "A entidade apresentará relatório anual de suas atividades.",
              topics=("up.entidade",))
    for _ in range(g.many(p, 5)):
        g.add(p, "desapropriacao#", "decreto", g.day(2000, 2024),
              "Declara de utilidade pública, para fins de desapropriação, o imóvel que "
              "menciona.",
              f"Fica declarado de utilidade pública, para fins de desapropriação, o imóvel "
              f"situado no Bairro {rng.choice(BAIRROS)}, destinado à construção de escola.",
              topics=("up.desapropriacao",))
    # The two words apart: not the phrase.
    for _ in range(g.many(p, 3)):
        g.add(p, "santa.casa#", "lei", g.day(2000, 2024),
              "Reconhece a utilidade dos serviços prestados pela Santa Casa à saúde pública.",
              "O Município reconhece a utilidade dos serviços hospitalares para a saúde "
              "pública regional.", topics=("confusor.up",))
    for _ in range(g.many(p, 70)):
        person = g.person()
        kind = rng.choice(("Rua", "Rua", "Rua", "Avenida", "Travessa", "Praça"))
        ementa = rng.choice((
            f"Denomina {kind} {person} a via pública que menciona.",
            f"Denomina de {kind} {person} o logradouro localizado no Bairro "
            f"{rng.choice(BAIRROS)}.",
            f"Dá denominação a logradouro público do Bairro {rng.choice(BAIRROS)}.",
            f"Altera a denominação da {kind} {rng.randint(1, 30)} do Loteamento "
            f"{rng.choice(BAIRROS)}.",
        ))
        g.add(p, "rua#", "lei", g.day(1992, 2024), ementa,
              f"Fica denominada {kind} {person} a atual {kind} Projetada {rng.randint(1, 40)} "
              f"do Bairro {rng.choice(BAIRROS)}.",
              "A Prefeitura providenciará as placas indicativas.", topics=("rua",),
              has_text=rng.random() < 0.8)
    for _ in range(g.many(p, 60)):
        person = g.person()
        if rng.random() < 0.12:
            secretaria = "Saúde"
            cargo = "Secretário Municipal de Saúde"
        else:
            secretaria = rng.choice(SECRETARIAS)
            cargo = rng.choice((f"Secretário Municipal de {secretaria}",
                                *CARGOS))
        topic = "nomeacao.saude" if cargo == "Secretário Municipal de Saúde" else "nomeacao"
        verb = rng.choice(("Nomeia", "Exonera")) if topic == "nomeacao" else "Nomeia"
        if verb == "Exonera":
            topic = "exoneracao"
        g.add(p, "portaria#", rng.choice(("portaria", "decreto")), g.day(2005, 2024),
              f"{verb} {person} {'para o' if verb == 'Nomeia' else 'do'} cargo em comissão de "
              f"{cargo}.",
              f"{'Fica nomeado' if verb == 'Nomeia' else 'Fica exonerado'} {person} "
              f"{'para o' if verb == 'Nomeia' else 'do'} cargo em comissão de {cargo}.",
              topics=(topic,), has_text=rng.random() < 0.5)


_EVERYDAY = (
    ("feira", "lei", "Dispõe sobre o funcionamento das feiras livres no Município.",
     "As feiras livres funcionarão aos sábados, nos locais designados pela Prefeitura."),
    ("feira", "decreto", "Regulamenta a feira livre do bairro {b}.",
     "A feira livre do bairro {b} funcionará aos domingos, das 5h às 13h."),
    ("sonora", "lei", "Dispõe sobre o controle da poluição sonora e dos ruídos urbanos.",
     "É proibida a emissão de ruídos acima dos limites fixados pela ABNT."),
    ("comercio", "lei", "Dispõe sobre o horário de funcionamento do comércio varejista.",
     "O comércio varejista funcionará de segunda a sábado, das 8h às 18h."),
    ("escolar", "lei", "Dispõe sobre o transporte escolar no Município.",
     "O transporte escolar dos alunos da rede municipal será gratuito."),
    ("residuos", "lei", "Institui a Política Municipal de Resíduos Sólidos e a coleta "
     "seletiva do lixo.", "A coleta seletiva será implantada em todos os bairros."),
    ("cms", "lei", "Cria o Conselho Municipal de Saúde e dá outras providências.",
     "Fica criado o Conselho Municipal de Saúde, órgão colegiado do Sistema Único de Saúde."),
    ("tutelar", "lei", "Dispõe sobre o Conselho Tutelar dos Direitos da Criança e do "
     "Adolescente.", "O Conselho Tutelar é composto por cinco membros eleitos."),
    ("doacao", "lei", "Autoriza a doação de imóvel à {e}.",
     "Fica o Poder Executivo autorizado a doar o imóvel situado no Bairro {b}."),
    ("ponto", "decreto", "Decreta ponto facultativo nas repartições públicas municipais.",
     "Fica decretado ponto facultativo nas repartições públicas municipais no dia indicado."),
    ("convenio", "lei", "Autoriza o Poder Executivo a celebrar convênio com o Estado para "
     "{s}.", "Fica o Poder Executivo autorizado a celebrar convênio para {s}."),
    ("programa", "lei", "Institui o programa municipal de {s}.",
     "Fica instituído o programa municipal de {s}, coordenado pela Secretaria competente."),
    ("data", "lei", "Institui o Dia Municipal do {d} no calendário oficial do Município.",
     "Fica instituído o Dia Municipal do {d}, a ser comemorado anualmente."),
)
_EVERYDAY_COUNTS = {"feira": 3, "sonora": 1, "comercio": 1, "escolar": 2, "residuos": 1,
                    "cms": 1, "tutelar": 1, "doacao": 6, "ponto": 8, "convenio": 10,
                    "programa": 10, "data": 8}
_SUBJECTS = ("pavimentação de vias", "construção de unidades habitacionais",
             "aquisição de ambulâncias", "hortas comunitárias", "educação ambiental",
             "apoio ao pequeno produtor rural", "reforma de escolas", "inclusão digital")
_DAYS = ("Evangélico", "Motociclista", "Vaqueiro", "Forró", "Agricultor", "Artesão")


def _everyday(g: _Generator, p: Place) -> None:
    rng = g.rng
    for topic, family, ementa, article in _EVERYDAY:
        per = _EVERYDAY_COUNTS[topic]
        for _ in range(g.many(p, per) if per > 1 else 1):
            values = {"b": rng.choice(BAIRROS), "s": rng.choice(_SUBJECTS),
                      "d": rng.choice(_DAYS),
                      "e": rng.choice(ENTITIES).format(b=rng.choice(BAIRROS), p=p.name,
                                                       n=g.person())}
            g.add(p, f"{topic}#", family, g.day(1995, 2024), ementa.format(**values),
                  article.format(**values), topics=(topic,))


def _state(g: _Generator) -> None:
    """The state of Bahia: its servants' statute (and amendments), its tax code, a few laws."""
    p = BAHIA
    _servants(g, p)
    g.add(p, "cte", "lei", date(1981, 12, 28),
          "Institui o Código Tributário do Estado da Bahia.",
          *_long_body("Este Código dispõe sobre os tributos de competência do Estado.",
                      ("O Imposto sobre a Transmissão Causa Mortis e Doação incide sobre a "
                       "transmissão de bens.", "A Taxa de Polícia é devida pelo exercício do "
                       "poder de polícia do Estado.",
                       "A obrigação tributária principal surge com o fato gerador."), 30,
                      g.rng), topics=("ctm",))
    g.add(p, "transporte", "lei", g.day(2000, 2015),
          "Dispõe sobre o transporte rodoviário intermunicipal de passageiros.",
          "O transporte intermunicipal de passageiros por moto táxi é vedado.",
          topics=("transporte.estadual",))


def _specs(seed: int = SEED) -> list[Spec]:
    g = _Generator(seed)
    for p in MUNICIPALITIES:
        _organic(g, p)
        _tax_code(g, p)
        _servants(g, p)
        _urban(g, p)
        _city_codes(g, p)
        _moto_taxi(g, p)
        _lighting(g, p)
        _budget(g, p)
        _people(g, p)
        _everyday(g, p)
    _state(g)
    return g.specs


def _number(specs: list[Spec]) -> None:
    """Numbers as places number norms: laws and complementary laws in one running sequence
    each (in order of date), acts restarting every year; the Lei Orgânica has none."""
    groups: dict[tuple, list[Spec]] = {}
    for s in specs:
        if s.family == "lei.organica":
            continue
        key = (s.place.slug, s.family) if s.family in _RUNNING else \
            (s.place.slug, s.family, s.signed.year)
        groups.setdefault(key, []).append(s)
    for key, members in groups.items():
        members.sort(key=lambda s: (s.signed, s.name))
        start = members[0].place.law_base if key[1] == "lei" else 1
        for i, s in enumerate(members):
            s.number = _written(start + i)


_REF = re.compile(r"\{(\w+)\.(long|short)\}")


def _fill(text: str, spec: Spec, by_name: dict[str, Spec]) -> str:
    def one(m: re.Match) -> str:
        target = by_name[f"{spec.place.slug}.{m[1].replace('_', '.')}"]
        label = _FAMILY_LABEL[target.family]
        if m[2] == "short":
            return f"{label} nº {target.number}/{target.signed.year}"
        return f"{label} nº {target.number}, de {_long_date(target.signed)}"
    return _REF.sub(one, text)


def build_norms(seed: int = SEED) -> tuple[Norm, ...]:
    """The corpus's norms, numbered and with their texts written (no database needed)."""
    specs = _specs(seed)
    _number(specs)
    by_name = {s.name: s for s in specs}
    assert len(by_name) == len(specs), "norm names are unique"
    norms = []
    for s in specs:
        ementa = _fill(s.ementa, s, by_name)
        if s.place.caps:
            ementa = ementa.upper()
        articles = [_fill(a, s, by_name) for a in s.articles]
        kind = _FAMILY_LABEL[s.family].upper()
        text = None
        if s.has_text:
            if s.family == "lei.organica":
                body = "\n".join(f"Art. {i}º {a}" for i, a in enumerate(articles, 1))
                text = f"LEI ORGÂNICA DO MUNICÍPIO DE {s.place.name.upper()}\n\n{body}"
            else:
                text = _text(kind, s.number, s.signed, ementa, *articles)
        norms.append(Norm(s.name, s.place, _TYPE_RAW[s.family], s.family, s.number, s.signed,
                          ementa, text, s.topics))
    return tuple(norms)


# -- the corpus in a store --------------------------------------------------------------------


def build_relevance_corpus(corpus: Corpus, seed: int = SEED) -> ExplorerCorpus:
    """The norms above in `corpus`: records of each place's SAPL (the state's from a folder
    import), a texto integral extracted for those that have one, enriched (citations,
    cited-by counts) and indexed. `ExplorerCorpus.norms` maps each name to its norm id."""
    ec = ExplorerCorpus(corpus)
    store = corpus.store
    norms = build_norms(seed)
    seen = utcnow() - timedelta(hours=1)
    for place in PLACES:
        source = store.ensure_source(place.code, "folder" if place is BAHIA else "sapl",
                                     f"https://sapl.{place.slug}.example")
        mine = [n for n in norms if n.place is place]
        with store.transaction() as conn:
            ec.records.update(store.upsert_records(conn, source, [{
                "native_id": n.name, "jurisdiction_code": place.code, "type_raw": n.type_raw,
                "type_normalized": n.family, "number": n.number, "year": n.signed.year,
                "date": n.signed, "ementa": n.ementa,
                "url": f"https://sapl.{place.slug}.example/norma/{n.name}"} for n in mine],
                seen))
    for place in PLACES:
        add_extracted_texts(ec, {
            n.name: (f"https://sapl.{n.place.slug}.example/media/{n.name}.pdf", n.text)
            for n in norms if n.place is place and n.text is not None})
    enrich(corpus, reread=False)
    refresh_index(store)
    ec.norms.update(norms_of(corpus, ec.records))
    return ec


# -- the graded queries ---------------------------------------------------------------------

KNOWN_ITEM, TOPICAL, PHRASE, INFLECTION, ACCENTS, SPELLING = (
    "known-item", "topical", "phrase", "inflection", "accents", "spelling")
KINDS = (KNOWN_ITEM, TOPICAL, PHRASE, INFLECTION, ACCENTS, SPELLING)


@dataclass(frozen=True)
class Query:
    """A query as a user types it, the filter they set, what they mean (`intent`) and the
    grades that follow from it: (topic, grade) rules over the norms' topics, a topic written
    "jua:ctm" only for that place's norms. Norms outside the filter's scope are never judged
    relevant (the search must not return them)."""

    q: str
    kind: str
    intent: str
    rules: tuple[tuple[str, int], ...]
    uf: str | None = None
    place: str | None = None  # a municipality's slug: the jurisdiction filter

    @property
    def params(self) -> dict[str, list[str]]:
        """The query-string parameters of this search (SearchRequest.from_params)."""
        params: dict[str, list[str]] = {"q": [self.q]}
        if self.uf:
            params["uf"] = [self.uf]
        if self.place:
            params["j"] = [str(BY_SLUG[self.place].code)]
        return params

    @property
    def filtered(self) -> bool:
        return bool(self.uf or self.place)

    def in_scope(self, place: Place) -> bool:
        return (self.uf is None or place.uf == self.uf) and \
            (self.place is None or place.slug == self.place)


# Rules shared by queries of one intent.
TAX_CODE = (("ctm", 3), ("ctm.old", 2), ("ctm.amendment", 1), ("ctm.regulation", 1))
STATUTE = (("estatuto", 3), ("estatuto.amendment", 1))
PLAN = (("pd", 3), ("pd.old", 2), ("pd.amendment", 1), ("luos", 1))
ORGANIC = (("lom", 3), ("elom", 1))
POSTURAS = (("posturas", 3), ("posturas.amendment", 1))
OBRAS = (("obras", 3), ("obras.amendment", 1))
MOTO = (("moto", 2), ("moto.regulation", 2), ("moto.amendment", 1), ("moto.portaria", 1),
        ("transporte.estadual", 1))
LIGHTING = (("cosip", 2), ("iluminacao", 2), ("cosip.amendment", 1))
HEALTH_CREDIT = (("credito.only.saude", 2), ("credito.to.saude", 1))
STREETS = (("rua", 2),)
TITLES = (("titulo", 2),)
PUBLIC_UTILITY = (("up.entidade", 2), ("up.desapropriacao", 1))
FAIRS = (("feira", 2), ("posturas", 1))

_CODE_MEANT = "the Código Tributário of each place in scope (the state's too: it is a tax code " \
    "named so); the one it replaced less; its amendments and regulating decrees are relevant"
_STATUTE_MEANT = "the statute of the public servants of each place in scope (Caruaru's is called " \
    "'Estatuto dos Funcionários Públicos': the same statute); amendments relevant; laws that " \
    "only concern servants (reajuste, PCCS) are not what is meant"
_PLAN_MEANT = "the Plano Diretor in force of each place in scope; Juazeiro's earlier plan less; " \
    "amendments and the zoning law that regulates it relevant"
_MOTO_MEANT = "norms regulating transport by moto-táxi, in any spelling: the laws and their " \
    "regulating decrees highly, amendments, the vistoria committee, the state's ban relevant"

QUERIES: tuple[Query, ...] = (
    # Known items: the code, statute or plan a person means, named as people name it.
    Query("código tributário", KNOWN_ITEM, _CODE_MEANT, TAX_CODE),
    Query("código tributário", KNOWN_ITEM, _CODE_MEANT, TAX_CODE, place="jua"),
    Query("código tributário municipal", KNOWN_ITEM, _CODE_MEANT, TAX_CODE, uf="PE"),
    Query("código tributário juazeiro", KNOWN_ITEM, "Juazeiro's Código Tributário (the "
          "place named in the words)", (("jua:ctm", 3), ("jua:ctm.old", 2),
                                        ("jua:ctm.amendment", 1), ("jua:ctm.regulation", 1))),
    Query("código tributário", KNOWN_ITEM, _CODE_MEANT, TAX_CODE, place="fsa"),
    Query("estatuto dos servidores", KNOWN_ITEM, _STATUTE_MEANT, STATUTE),
    Query("estatuto dos servidores públicos", KNOWN_ITEM, _STATUTE_MEANT, STATUTE, uf="BA"),
    Query("estatuto dos servidores", KNOWN_ITEM, _STATUTE_MEANT, STATUTE, place="car"),
    Query("plano diretor", KNOWN_ITEM, _PLAN_MEANT, PLAN),
    Query("plano diretor", KNOWN_ITEM, _PLAN_MEANT, PLAN, place="pet"),
    Query("plano diretor", KNOWN_ITEM, _PLAN_MEANT, PLAN, place="jua"),
    Query("lei orgânica", KNOWN_ITEM, "the Lei Orgânica of each municipality in scope; its "
          "emendas relevant", ORGANIC),
    Query("lei orgânica do município", KNOWN_ITEM, "Feira de Santana's Lei Orgânica",
          ORGANIC, place="fsa"),
    Query("código de posturas", KNOWN_ITEM, "the Código de Posturas of each place; "
          "amendments relevant", POSTURAS),
    Query("código de posturas", KNOWN_ITEM, "Caruaru's Código de Posturas (its ementa in "
          "capitals)", POSTURAS, place="car"),
    Query("código de obras", KNOWN_ITEM, "Montes Claros's Código de Obras e Edificações",
          OBRAS, uf="MG"),
    Query("código de obras e edificações", KNOWN_ITEM, "the building code of each place",
          OBRAS),
    Query("regimento interno da câmara", KNOWN_ITEM, "the Câmara's Regimento Interno",
          (("regimento", 3),)),
    Query("lei orçamentária anual 2020", KNOWN_ITEM, "the budget law for 2020 (its ementa "
          "says 'estima a receita e fixa a despesa … 2020'); the LDO for 2020 relevant",
          (("loa2020", 3), ("ldo2020", 1)), place="jua"),
    Query("orçamento 2022", KNOWN_ITEM, "the budget law for 2022; its LDO relevant",
          (("loa2022", 3), ("ldo2022", 1)), place="fsa"),
    Query("conselho municipal de saúde", KNOWN_ITEM, "the law creating each place's "
          "Conselho Municipal de Saúde", (("cms", 3),)),
    Query("contribuição de iluminação pública", KNOWN_ITEM, "Petrolina's COSIP law; its "
          "amendment relevant", (("cosip", 3), ("cosip.amendment", 1)), place="pet"),
    Query("lei do mototáxi", KNOWN_ITEM, "Petrolina's moto-táxi law; its regulating decree "
          "highly relevant", (("moto", 3), ("moto.regulation", 2), ("moto.amendment", 1),
                              ("moto.portaria", 1)), place="pet"),
    # Topical: every norm on a subject.
    Query("iluminação pública", TOPICAL, "norms on public lighting: the COSIP laws, the "
          "lighting agreements and programmes; COSIP amendments relevant", LIGHTING),
    Query("iluminação pública", TOPICAL, "public lighting in Bahia", LIGHTING, uf="BA"),
    Query("transporte por moto-táxi", TOPICAL, _MOTO_MEANT, MOTO),
    Query("moto-táxi", TOPICAL, _MOTO_MEANT, MOTO, uf="PE"),
    Query("crédito suplementar saúde", TOPICAL, "budget decrees opening supplementary "
          "credit for health alone (highly) or among other secretarias (relevant)",
          HEALTH_CREDIT),
    Query("crédito suplementar saúde", TOPICAL, "the same in Juazeiro", HEALTH_CREDIT,
          place="jua"),
    Query("crédito suplementar educação", TOPICAL, "supplementary credit for education",
          (("credito.only.educacao", 2), ("credito.to.educacao", 1)), uf="BA"),
    Query("denominação de rua", TOPICAL, "street-naming laws (they write 'Denomina Rua …', "
          "'Dá denominação a logradouro')", STREETS),
    Query("denomina rua", TOPICAL, "Sobradinho's street-naming laws", STREETS, place="sob"),
    Query("título de cidadão", TOPICAL, "grants of honorary citizenship", TITLES),
    Query("cidadão honorário", TOPICAL, "Montes Claros's grants of honorary citizenship "
          "(some say 'Cidadão Montes-Clarense')", TITLES, place="moc"),
    Query("utilidade pública", TOPICAL, "entities declared of public utility; land declared "
          "of public utility to expropriate is the same words in another institute: relevant",
          PUBLIC_UTILITY),
    Query("desapropriação", TOPICAL, "decrees declaring land of public utility to "
          "expropriate", (("up.desapropriacao", 2),), uf="BA"),
    Query("reajuste dos servidores", TOPICAL, "laws granting servants a raise",
          (("reajuste", 2),)),
    Query("feira livre", TOPICAL, "norms on street markets; the Código de Posturas, which "
          "has a chapter on them, relevant", FAIRS),
    Query("feira livre", TOPICAL, "street markets in Feira de Santana, whose every norm "
          "names the city ('feira' alone is not the subject)", FAIRS, place="fsa"),
    Query("poluição sonora", TOPICAL, "the noise law; the Código de Posturas relevant",
          (("sonora", 2), ("posturas", 1)), place="jua"),
    Query("horário de funcionamento do comércio", TOPICAL, "the shop-hours law; the "
          "Código de Posturas relevant", (("comercio", 2), ("posturas", 1))),
    Query("transporte escolar", TOPICAL, "school transport", (("escolar", 2),), uf="PE"),
    Query("coleta seletiva", TOPICAL, "the solid-waste policy", (("residuos", 2),)),
    Query("conselho tutelar", TOPICAL, "the Conselho Tutelar laws", (("tutelar", 2),)),
    Query("isenção de IPTU", TOPICAL, "laws exempting from IPTU; the tax code, which sets "
          "exemptions, relevant", (("iptu.isencao", 2), ("ctm", 1))),
    Query("parcelamento do solo loteamento", TOPICAL, "the land-subdivision law; the zoning "
          "law and the plan relevant", (("parcelamento", 2), ("luos", 1), ("pd", 1))),
    Query("zoneamento uso e ocupação do solo", TOPICAL, "the zoning law; the plan and the "
          "subdivision law relevant", (("luos", 2), ("pd", 1), ("parcelamento", 1))),
    Query("doação de imóvel", TOPICAL, "laws authorizing a donation of land",
          (("doacao", 2),)),
    Query("ponto facultativo", TOPICAL, "decrees of ponto facultativo", (("ponto", 2),),
          place="jua"),
    Query("anistia de débitos tributários", TOPICAL, "tax amnesty and REFIS laws",
          (("refis", 2),)),
    # Phrases: quoted, exact.
    Query('"utilidade pública"', PHRASE, "as 'utilidade pública'; the Santa Casa laws, with "
          "the two words apart, are not meant", PUBLIC_UTILITY),
    Query('"código tributário"', PHRASE, _CODE_MEANT, TAX_CODE),
    Query('"plano diretor"', PHRASE, _PLAN_MEANT, PLAN, uf="BA"),
    Query('"crédito suplementar" saúde', PHRASE, "as 'crédito suplementar saúde'",
          HEALTH_CREDIT),
    Query('"iluminação pública"', PHRASE, "public lighting in Feira de Santana", LIGHTING,
          place="fsa"),
    Query('"estatuto dos servidores"', PHRASE, _STATUTE_MEANT, STATUTE),
    Query('"título de cidadão"', PHRASE, "grants of honorary citizenship in PE", TITLES,
          uf="PE"),
    Query('"código de posturas"', PHRASE, "Caruaru's Código de Posturas", POSTURAS,
          place="car"),
    Query('"lei orgânica"', PHRASE, "Montes Claros's Lei Orgânica", ORGANIC, uf="MG"),
    # Inflection: singular for plural, one gender or derivation for another.
    Query("estatuto do servidor", INFLECTION, _STATUTE_MEANT, STATUTE),
    Query("estatuto do servidor", INFLECTION, _STATUTE_MEANT, STATUTE, place="jua"),
    Query("estatuto do servidor público", INFLECTION, _STATUTE_MEANT, STATUTE, uf="PE"),
    Query("planos diretores", INFLECTION, _PLAN_MEANT, PLAN),
    Query("feiras livres", INFLECTION, "as 'feira livre', in Juazeiro", FAIRS, place="jua"),
    Query("mototaxistas", INFLECTION, _MOTO_MEANT, MOTO),
    Query("denominação de logradouros", INFLECTION, "street-naming laws", STREETS),
    Query("legislação tributária", INFLECTION, "the tax codes, which are each place's "
          "consolidated tax legislation", TAX_CODE, uf="BA"),
    Query("débito tributário parcelamento", INFLECTION, "REFIS laws (they write 'débitos "
          "tributários')", (("refis", 2),)),
    Query("isenções de IPTU", INFLECTION, "as 'isenção de IPTU'",
          (("iptu.isencao", 2), ("ctm", 1))),
    Query("reajuste salarial do servidor", INFLECTION, "laws granting servants a raise",
          (("reajuste", 2),)),
    Query("nomeação do secretário de saúde", INFLECTION, "acts appointing a Secretário "
          "Municipal de Saúde (they write 'Nomeia …')", (("nomeacao.saude", 2),)),
    # Typed without accents.
    Query("codigo tributario", ACCENTS, _CODE_MEANT, TAX_CODE),
    Query("codigo tributario", ACCENTS, _CODE_MEANT, TAX_CODE, place="car"),
    Query("lei organica", ACCENTS, "the Leis Orgânicas of PE", ORGANIC, uf="PE"),
    Query("iluminacao publica", ACCENTS, "public lighting", LIGHTING),
    Query("credito suplementar saude", ACCENTS, "health credit in Juazeiro", HEALTH_CREDIT,
          place="jua"),
    Query("mototaxi", ACCENTS, _MOTO_MEANT, MOTO),
    Query("titulo de cidadao", ACCENTS, "honorary citizenship in Juazeiro", TITLES,
          place="jua"),
    Query("codigo de posturas", ACCENTS, "the Códigos de Posturas", POSTURAS),
    Query("orcamento 2020", ACCENTS, "Juazeiro's budget law for 2020",
          (("loa2020", 3), ("ldo2020", 1)), place="jua"),
    Query("estatuto dos servidores publicos", ACCENTS, _STATUTE_MEANT, STATUTE),
    # One word spelled as another place spells it (each place writes moto-táxi its own way).
    Query("moto táxi", SPELLING, _MOTO_MEANT, MOTO),
    Query("mototáxi", SPELLING, "Juazeiro's moto-táxi norms (it writes 'moto-táxi')", MOTO,
          place="jua"),
    Query("moto-taxi", SPELLING, "the moto-táxi norms of PE (Petrolina writes 'mototáxi', "
          "Caruaru 'moto táxi')", MOTO, uf="PE"),
    Query("moto-táxi", SPELLING, "Montes Claros's moto-táxi norms (it writes 'mototaxi')",
          MOTO, place="moc"),
    Query("moto taxi", SPELLING, "the moto-táxi norms of BA and the state's ban, in every "
          "spelling", MOTO, uf="BA"),
)


def judgments(query: Query, norms: tuple[Norm, ...]) -> dict[str, int]:
    """{norm name: grade} for one query: the highest grade any of its rules gives the norm,
    for the norms within the query's filter; unlisted norms are graded 0."""
    grades: dict[str, int] = {}
    for n in norms:
        if not query.in_scope(n.place):
            continue
        for topic, grade in query.rules:
            slug, _, bare = topic.rpartition(":")
            if (not slug or slug == n.place.slug) and bare in n.topics:
                grades[n.name] = max(grades.get(n.name, 0), grade)
    return grades


def engine_ranking(store, query: Query, k: int = 10) -> list[int]:
    """The norm ids of the engine's first page of k results, asked as the explorer asks."""
    request = SearchRequest.from_params({**query.params, "limit": [str(k)]})
    return [hit.norm_id for hit in search(store, request).hits]


# -- the measures -------------------------------------------------------------------------


def dcg(grades: list[int]) -> float:
    """Discounted cumulative gain of grades in ranked order: (2^g - 1) / log2(rank + 1)."""
    import math

    return sum((2 ** g - 1) / math.log2(rank + 1) for rank, g in enumerate(grades, 1))


def ndcg_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    """nDCG@k of a ranking (names, best first) against graded judgments: the DCG of its first
    k over the DCG of the ideal ordering of every judged norm (retrieved or not)."""
    ideal = dcg(sorted(judged.values(), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([judged.get(name, 0) for name in ranked[:k]]) / ideal


def success_at_1(ranked: list[str], judged: dict[str, int]) -> float:
    """1 when the first result has the query's highest grade (the norm meant, or for a
    topical query one of the most relevant), else 0."""
    if not ranked or not judged:
        return 0.0
    return 1.0 if judged.get(ranked[0], 0) == max(judged.values()) else 0.0
