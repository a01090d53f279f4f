"""The labelled set of gazette texts segmentation is measured on (tests and bench share it).

Each gazette is written by code, deterministically, in the shapes real municipal gazettes
take once Apache Tika has turned their PDF into text (Querido Diário's .txt files): a
masthead and a summary, section titles, page headers and footers between form feeds, one act
per page or many, narrow columns with split headings and hyphenated words, a body printed in
two columns whose lines Tika interleaved, tables of figures, Sigpub's "Publicado por / Código
Identificador" endings, association gazettes of many municipalities, text without accents and
with "N°", "N.º", "No", acts split across two editions, republications, a text file cut
short. Bodies cite other laws at the start of lines, annexes repeat a law's heading, tables
list decrees beside amounts: the lines that look like headings and are not.

The labels are what the writer put where: each act's kind, number, date, year, flags, and
its span (start: the first character of its heading line; end: the end of its last line — the
signature's role or the "Código Identificador" line). They are never computed by the code
under test.
"""

from __future__ import annotations

import random
import textwrap
import unicodedata
from dataclasses import dataclass, field
from datetime import date

MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
          "setembro", "outubro", "novembro", "dezembro")


@dataclass(frozen=True)
class LabelledAct:
    kind: str
    number: str | None
    date: date | None
    year: int | None
    start: int
    end: int
    heading: str
    flags: frozenset[str] = frozenset()
    municipality: str | None = None
    page: int | None = None
    hard: str | None = None  # what makes this act hard, for tests that pick cases

    @property
    def republished(self) -> bool:
        return "republished" in self.flags


@dataclass(frozen=True)
class LabelledGazette:
    name: str
    layout: str
    territory_id: str
    text: str
    acts: list[LabelledAct]


@dataclass(frozen=True)
class _City:
    name: str
    uf_name: str  # "da Bahia"
    territory_id: str


CITIES = [
    _City("Juazeiro", "da Bahia", "2918407"), _City("Petrolina", "de Pernambuco", "2611101"),
    _City("Campo Formoso", "da Bahia", "2906006"), _City("Sobradinho", "da Bahia", "2930774"),
    _City("Casa Nova", "da Bahia", "2907202"), _City("Feira de Santana", "da Bahia", "2910800"),
    _City("Senhor do Bonfim", "da Bahia", "2930105"), _City("Crato", "do Ceará", "2304202"),
    _City("Sobral", "do Ceará", "2312908"), _City("Barbalha", "do Ceará", "2301901"),
    _City("Caruaru", "de Pernambuco", "2604106"), _City("Garanhuns", "de Pernambuco", "2606002"),
    _City("Araxá", "de Minas Gerais", "3104007"), _City("Itabira", "de Minas Gerais", "3131703"),
    _City("Uberaba", "de Minas Gerais", "3170107"),
    _City("Patos de Minas", "de Minas Gerais", "3148004"),
]
ALAGOAS = [_City("Coité do Nóia", "de Alagoas", "2702009"),
           _City("Arapiraca", "de Alagoas", "2700300"),
           _City("Palmeira dos Índios", "de Alagoas", "2706307"),
           _City("Quebrangulo", "de Alagoas", "2707602")]

_PEOPLE = ["JOSÉ ALVES DE SOUZA", "MARIA DAS GRAÇAS LIMA", "ANTÔNIO CARLOS PEREIRA",
           "FRANCISCA RODRIGUES DA SILVA", "JOÃO BATISTA NUNES", "ANA PAULA FERREIRA",
           "PEDRO HENRIQUE CAVALCANTI", "LUCIANA MARIA DE OLIVEIRA", "RAIMUNDO NONATO COSTA",
           "SEVERINO RAMOS DE ARAÚJO"]
_DISTRICTS = ["Centro", "Jardim Primavera", "Alto da Maravilha", "Vila Nova", "Santo Antônio",
              "Piranga", "João Paulo II", "Malhada da Areia"]
_PROGRAMS = ["Hortas Comunitárias", "Incentivo à Leitura", "Coleta Seletiva Solidária",
             "Saúde na Escola", "Esporte Cidadão", "Microcrédito Produtivo"]
_SUBJECTS = ["o transporte escolar", "a coleta de resíduos sólidos", "o serviço de moto-táxi",
             "o Conselho Municipal de Saúde", "o Plano Diretor Municipal",
             "o Fundo Municipal de Assistência Social", "o comércio ambulante"]
_FIRMS = ["CONSTRUTORA SERTÃO LTDA", "J. M. COMÉRCIO DE ALIMENTOS EIRELI",
          "DISTRIBUIDORA VALE DO SÃO FRANCISCO LTDA", "MEDICAL NORDESTE LTDA",
          "AUTO PEÇAS JUAZEIRO LTDA", "GRÁFICA E EDITORA CARIRI LTDA"]
_OBJECTS = ["aquisição de gêneros alimentícios destinados à merenda escolar",
            "contratação de empresa para a pavimentação em paralelepípedos de vias urbanas",
            "aquisição de medicamentos para a rede municipal de saúde",
            "locação de veículos para o transporte escolar da zona rural",
            "prestação de serviços de manutenção de iluminação pública",
            "aquisição de material de expediente para as secretarias municipais"]
_CARGOS = ["Diretor de Departamento de Compras", "Coordenador Pedagógico",
           "Assessor Especial do Gabinete", "Chefe de Divisão de Tributos",
           "Diretora da Escola Municipal Paulo Freire"]
_SECRETARIAS = ["SECRETARIA MUNICIPAL DE ADMINISTRAÇÃO", "SECRETARIA MUNICIPAL DE SAÚDE",
                "SECRETARIA MUNICIPAL DE EDUCAÇÃO", "SECRETARIA MUNICIPAL DE FINANÇAS",
                "SECRETARIA MUNICIPAL DE OBRAS E SERVIÇOS PÚBLICOS"]


def _spelled(d: date) -> str:
    day = "1º" if d.day == 1 else str(d.day)
    return f"{day} de {MONTHS[d.month - 1]} de {d.year}"


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", ".")


# --- Acts: lines and what a right reading of them is ---


@dataclass
class _Act:
    kind: str
    number: str | None  # canonical
    date: date | None
    year: int | None
    lines: list[str]  # the heading's line(s) first
    flags: set[str] = field(default_factory=set)
    hard: str | None = None
    lead: list[str] = field(default_factory=list)  # lines above the heading that belong to none
    municipality: str | None = None


class _Maker:
    """Writes the acts of one municipality, numbered and dated as a real year runs."""

    def __init__(self, rnd: random.Random, city: _City, year: int, width: int = 92):
        self.rnd, self.city, self.width = rnd, city, width
        self.day = date(year, rnd.randint(2, 10), rnd.randint(1, 27))
        self.numbers = {"lei": rnd.randint(900, 2600), "lei.complementar": rnd.randint(20, 140),
                        "decreto": rnd.randint(10, 900), "portaria": rnd.randint(10, 700),
                        "resolucao": rnd.randint(1, 40), "decreto.legislativo": rnd.randint(1, 30),
                        "emenda.lei.organica": rnd.randint(1, 25), "contrato": rnd.randint(10, 300),
                        "licitacao": rnd.randint(1, 90), "nomeacao": rnd.randint(1, 80)}
        self.mayor = rnd.choice(_PEOPLE)
        self.published: list[tuple[str, str, date]] = []  # (label, printed number, date)

    def next(self, kind: str) -> int:
        self.numbers[kind] += 1
        return self.numbers[kind]

    def wrap(self, text: str) -> list[str]:
        return textwrap.wrap(text, self.width, break_on_hyphens=False)

    # The parts of an act.

    def city_caps(self) -> str:
        return self.city.name.upper()

    def enacting(self, kind: str) -> list[str]:
        who = f"O PREFEITO MUNICIPAL DE {self.city_caps()}, Estado {self.city.uf_name}"
        if kind == "lei":
            return self.wrap(f"{who}, no uso de suas atribuições legais, faço saber que a Câmara "
                             "Municipal aprovou e eu sanciono a seguinte Lei:")
        if kind == "lei.complementar":
            return self.wrap(f"{who}, faço saber que a Câmara Municipal aprovou e eu sanciono a "
                             "seguinte Lei Complementar:")
        if kind == "decreto":
            return self.wrap(f"{who}, no uso das atribuições que lhe confere o art. 66, inciso "
                             "VI, da Lei Orgânica do Município,") + ["DECRETA:"]
        if kind == "portaria":
            return self.wrap(f"O SECRETÁRIO MUNICIPAL DE ADMINISTRAÇÃO DE {self.city_caps()}, "
                             "no uso de suas atribuições legais,") + ["RESOLVE:"]
        return self.wrap(f"A MESA DIRETORA DA CÂMARA MUNICIPAL DE {self.city_caps()}, no uso "
                         "de suas atribuições regimentais, faz saber que o Plenário aprovou e "
                         "ela promulga a seguinte") + [{"resolucao": "Resolução:",
                                                        "decreto.legislativo":
                                                            "Decreto Legislativo:",
                                                        "emenda.lei.organica":
                                                            "Emenda à Lei Orgânica:"}[kind]]

    def cited(self) -> tuple[str, str]:
        """A law cited in a body: (as a sentence writes it, its heading in capitals)."""
        n = self.rnd.randint(300, 1800)
        d = date(self.rnd.randint(1995, 2019), self.rnd.randint(1, 12), self.rnd.randint(1, 28))
        return (f"Lei nº {_thousands(n)}, de {_spelled(d)}",
                f"LEI Nº {_thousands(n)}, DE {_spelled(d).upper()}")

    def articles(self, count: int, own: str = "Lei") -> list[str]:
        rnd, lines = self.rnd, []
        # "desta Lei", "deste Decreto": the article agrees with the act's gender.
        this, these = ("este", "neste") if own == "Decreto" else ("esta", "nesta")
        pool = [
            lambda: f"Fica o Poder Executivo autorizado a celebrar convênios e parcerias com "
                    f"entidades públicas e privadas para a execução do disposto {these} {own}.",
            lambda: f"As despesas decorrentes da execução d{this} {own} correrão por conta de "
                    "dotações orçamentárias próprias, suplementadas se necessário.",
            lambda: "Aplica-se, no que couber, o disposto na Lei Federal nº 14.133, de 1º de "
                    "abril de 2021, e na Lei Complementar nº 101, de 4 de maio de 2000.",
            lambda: f"Compete à {rnd.choice(_SECRETARIAS).title().replace(' De ', ' de ')} "
                    f"a coordenação das ações previstas {these} {own}, observado o disposto na "
                    f"{self.cited()[0]}.",
            lambda: "O benefício de que trata este artigo será concedido mediante requerimento "
                    "do interessado, instruído com os documentos exigidos em regulamento.",
            lambda: f"Fica denominada Rua {rnd.choice(_PEOPLE).title()} a via pública "
                    f"localizada no Bairro {rnd.choice(_DISTRICTS)}, com início na Avenida "
                    "Principal e término na Travessa São José.",
            lambda: "O descumprimento do disposto neste artigo sujeitará o infrator às "
                    "penalidades de advertência, multa e cassação da licença, nos termos da "
                    f"{self.cited()[0]}, aplicadas pelo órgão competente.",
        ]
        for i in range(1, count + 1):
            sign = "º" if i < 10 else "."
            lines += self.wrap(f"Art. {i}{sign} {rnd.choice(pool)()}")
            if rnd.random() < 0.3:
                lines += self.wrap("Parágrafo único. O regulamento disporá sobre os critérios "
                                   "de concessão, os prazos e a fiscalização do cumprimento.")
            if rnd.random() < 0.25:
                lines += ["I - a identificação do requerente;",
                          "II - a comprovação de residência no Município;",
                          "III - a declaração de renda familiar."]
        lines += self.wrap(f"Art. {count + 1}{'º' if count + 1 < 10 else '.'} {this.capitalize()} "
                           f"{own} entra "
                           "em vigor na data de sua publicação, revogadas as disposições em "
                           "contrário.")
        return lines

    def signature(self, role: str = "Prefeito Municipal", who: str | None = None) -> list[str]:
        place = self.rnd.choice([f"Gabinete do Prefeito Municipal de {self.city.name}, em",
                                 f"{self.city.name}, {self.city.uf_name[3:]},",
                                 f"{self.city.name},"])
        return [f"{place} {_spelled(self.day)}.", "", who or self.mayor, role]

    def heading(self, label: str, number: int, when: date, style: str) -> list[str]:
        printed = _thousands(number) if number >= 1000 and style != "plain" else str(number)
        if style == "slash":
            return [f"{label} Nº {printed}/{when.year}"]
        if style == "zero":
            return [f"{label} N.º {number:03d}, DE {_spelled(when).upper()}"]
        if style == "split":
            return [f"{label} Nº {printed},", f"DE {_spelled(when).upper()}"]
        if style == "mixed":
            return [f"{label.capitalize()} nº {printed}, de {_spelled(when)}"]
        if style == "numeric":
            return [f"{label} N° {printed} DE {when:%d/%m/%Y}"]
        return [f"{label} Nº {printed}, DE {_spelled(when).upper()}"]

    def _advance(self) -> date:
        self.day = date.fromordinal(self.day.toordinal() + self.rnd.randint(0, 3))
        return self.day

    # Whole acts.

    def law(self, kind: str = "lei", style: str | None = None, citation: str | None = None,
            ementa: bool = True) -> _Act:
        rnd, when = self.rnd, self._advance()
        number = self.next(kind)
        label = {"lei": rnd.choice(["LEI", "LEI", "LEI MUNICIPAL"]),
                 "lei.complementar": "LEI COMPLEMENTAR"}[kind]
        style = style or rnd.choice(["full", "full", "full", "slash", "split", "zero"])
        lines = self.heading(label, number, when, style)
        if ementa:
            lines += self.wrap(rnd.choice([
                f"Dispõe sobre {rnd.choice(_SUBJECTS)} no âmbito do Município de "
                f"{self.city.name} e dá outras providências.",
                f"Institui o Programa Municipal de {rnd.choice(_PROGRAMS)} e dá outras "
                "providências.",
                f"Altera dispositivos da {self.cited()[0]}, que dispõe sobre "
                f"{rnd.choice(_SUBJECTS)}.",
                f"Denomina logradouro público no Bairro {rnd.choice(_DISTRICTS)}.",
                "Autoriza o Poder Executivo a abrir crédito adicional especial no valor de R$ "
                f"{rnd.randint(20, 900)}.000,00 e dá outras providências."]))
        lines += self.enacting(kind)
        body = self.articles(rnd.randint(3, 9), "Lei Complementar" if kind != "lei" else "Lei")
        hard = None
        if citation == "line-start":
            # A citation of another law at the start of a line, after a line that goes on.
            text, _ = self.cited()
            body[1:1] = ["Art. 2º-A Os valores de que trata o artigo anterior serão "
                         "reajustados anualmente nos termos da", f"{text}, e do regulamento."]
            hard = "citation at line start"
        elif citation == "caps":
            _, caps = self.cited()
            body[2:2] = ["Art. 3º-A Ficam incorporadas a esta Lei as disposições da", caps,
                         "que trata do mesmo assunto."]
            hard = "heading-like citation in capitals"
        elif citation == "quoted":
            # An amending law quotes the heading and ementa of the law it amends.
            text, caps = self.cited()
            body[1:1] = self.wrap(f"Art. 1º-A A ementa da {text} passa a vigorar com a "
                                  "seguinte redação:") + [
                f"“{caps}", f"Dispõe sobre {rnd.choice(_SUBJECTS)} e dá outras providências.”"]
            hard = "quoted heading of the amended law"
        lines += body + [""] + self.signature()
        if kind == "lei":
            self.published.append((label, _thousands(number) if number >= 1000 else str(number),
                                   when))
        return _Act(kind, str(number), None if style == "slash" else when, when.year, lines,
                    hard=hard or ({"split": "heading split over two lines",
                                   "zero": "zero-padded number"}.get(style)))

    def decree(self, style: str | None = None, ementa: bool = True, table: bool = False,
               annex_of: tuple[str, str, date] | None = None) -> _Act:
        rnd, when = self.rnd, self._advance()
        number = self.next("decreto")
        style = style or rnd.choice(["full", "full", "slash", "zero", "numeric"])
        lines = self.heading("DECRETO", number, when, style)
        hard = None
        if annex_of:
            ementa_text = (f"Regulamenta a {annex_of[0].capitalize()} nº {annex_of[1]}, de "
                           f"{_spelled(annex_of[2])}, e dá outras providências.")
        elif table:
            ementa_text = ("Abre crédito adicional suplementar ao Orçamento Fiscal do "
                           "Município e dá outras providências.")
        else:
            ementa_text = rnd.choice([
                "Declara situação de emergência nas áreas do Município afetadas pela estiagem.",
                f"Regulamenta {rnd.choice(_SUBJECTS)} no Município de {self.city.name}.",
                "Dispõe sobre o expediente nas repartições públicas municipais durante o "
                "período carnavalesco.",
                "Aprova o Regimento Interno do Conselho Municipal dos Direitos da Criança e do "
                "Adolescente."])
        if ementa:
            lines += self.wrap(ementa_text)
        else:
            hard = "decree without ementa"
        lines += self.enacting("decreto")
        if table:
            total = 0
            lines += self.wrap("Art. 1º Fica aberto crédito adicional suplementar, nos termos "
                               "da autorização contida na Lei Orçamentária Anual, destinado "
                               "às seguintes dotações:")
            lines += ["ÓRGÃO   UNIDADE   PROJETO/ATIVIDADE   ELEMENTO   FONTE   VALOR (R$)"]
            for _ in range(rnd.randint(4, 9)):
                value = rnd.randint(2, 300) * 1000 + rnd.randint(0, 99) * 10
                total += value
                lines.append(f"02.0{rnd.randint(1, 9)}   {rnd.randint(1, 9)}.{rnd.randint(1, 9)}"
                             f"   {rnd.randint(1, 2)}.0{rnd.randint(10, 99)}   3.3.90."
                             f"{rnd.randint(10, 99)}.00   1.500.0000   {_thousands(value)},00")
            lines.append(f"TOTAL   {_thousands(total)},00")
            lines += [f"Decreto nº {number - 1}/{when.year}   Anulação   "
                      f"{_thousands(total)},00"]
            lines += self.wrap("Art. 2º Os recursos necessários à execução do disposto no "
                               "artigo anterior decorrem da anulação parcial de dotações.")
            lines += ["Art. 3º Este Decreto entra em vigor na data de sua publicação."]
            hard = "table with a decree in a row"
        elif annex_of:
            lines += self.wrap("Art. 1º Ficam aprovados os valores e critérios constantes do "
                               "Anexo Único deste Decreto, parte integrante da lei "
                               "regulamentada.")
            lines += ["Art. 2º Este Decreto entra em vigor na data de sua publicação.", "",
                      "ANEXO ÚNICO", f"{annex_of[0]} Nº {annex_of[1]}, DE "
                      f"{_spelled(annex_of[2]).upper()}", "TABELA DE VALORES DE REFERÊNCIA",
                      "FAIXA   VALOR (R$)", "I   150,00", "II   300,00", "III   450,00"]
            hard = "annex repeats a law's heading"
        else:
            lines += self.articles(rnd.randint(2, 5), "Decreto")
        lines += [""] + self.signature()
        return _Act("decreto", str(number), None if style == "slash" else when, when.year,
                    lines, hard=hard or {"zero": "zero-padded number"}.get(style))

    def portaria(self, nominate: bool = False) -> _Act:
        rnd, when = self.rnd, self._advance()
        number = self.next("portaria")
        style = rnd.choice(["slash", "full"])
        lines = self.heading("PORTARIA", number, when, style)
        person = rnd.choice(_PEOPLE)
        if nominate:
            lines += self.enacting("portaria")
            lines += self.wrap(f"Art. 1º NOMEAR {person} para exercer o cargo em comissão de "
                               f"{rnd.choice(_CARGOS)}, símbolo CC-{rnd.randint(1, 6)}.")
        else:
            lines += self.wrap("Designa servidores para compor a Comissão de Avaliação "
                               "Especial de Desempenho.")
            lines += self.enacting("portaria")
            lines += self.wrap(f"Art. 1º Designar os servidores {person.title()} e "
                               f"{rnd.choice(_PEOPLE).title()} para compor a Comissão.")
        lines += ["Art. 2º Esta Portaria entra em vigor na data de sua publicação.", ""]
        lines += self.signature("Secretário Municipal de Administração",
                                rnd.choice(_PEOPLE))
        return _Act("portaria", str(number), None if style == "slash" else when, when.year,
                    lines, hard="nomination (a portaria)" if nominate else None)

    def chamber(self, kind: str) -> _Act:
        rnd, when = self.rnd, self._advance()
        number = self.next(kind)
        label = {"resolucao": "RESOLUÇÃO", "decreto.legislativo": "DECRETO LEGISLATIVO",
                 "emenda.lei.organica": "EMENDA À LEI ORGÂNICA"}[kind]
        lines = self.heading(label, number, when, "full")
        lines += self.wrap({
            "resolucao": "Dispõe sobre o Regimento Interno da Câmara Municipal.",
            "decreto.legislativo": f"Concede Título de Cidadão {self.city.name}ense ao Senhor "
                                   f"{rnd.choice(_PEOPLE).title()}.",
            "emenda.lei.organica": "Dá nova redação ao art. 45 da Lei Orgânica do Município."}[
                kind])
        lines += self.enacting(kind)
        lines += self.articles(rnd.randint(2, 4), "Resolução" if kind == "resolucao" else "Lei")
        lines += ["", f"Plenário da Câmara Municipal de {self.city.name}, {_spelled(when)}.",
                  "", rnd.choice(_PEOPLE), "Presidente da Câmara Municipal"]
        return _Act(kind, str(number), when, when.year, lines)

    def tender(self) -> _Act:
        rnd, when = self.rnd, self._advance()
        number = self.next("licitacao")
        mode = rnd.choice(["PREGÃO ELETRÔNICO", "PREGÃO PRESENCIAL", "TOMADA DE PREÇOS"])
        lines = ["AVISO DE LICITAÇÃO", f"{mode} Nº {number:03d}/{when.year}"]
        opening = date.fromordinal(when.toordinal() + 12)
        lines += self.wrap(f"O Município de {self.city.name}, através da Comissão Permanente "
                           f"de Licitação, torna público que realizará licitação na modalidade "
                           f"{mode.title()}, tipo menor preço, cujo objeto é a "
                           f"{rnd.choice(_OBJECTS)}. Abertura: {opening:%d/%m/%Y}, às 9h. O "
                           "edital está disponível no portal da transparência do Município. "
                           "Fundamento legal:")
        lines += ["Lei nº 14.133/2021.",
                  f"{self.city.name}, {_spelled(when)}.", rnd.choice(_PEOPLE),
                  rnd.choice(["Pregoeiro Oficial", "Pregoeira", "Presidente da CPL"])]
        return _Act("licitacao", str(number), None, when.year, lines)

    def homologation(self) -> _Act:
        rnd, when = self.rnd, self._advance()
        lines = ["TERMO DE HOMOLOGAÇÃO E ADJUDICAÇÃO"]
        lines += self.wrap(f"PREGÃO PRESENCIAL Nº {rnd.randint(1, 90):03d}/{when.year}. O "
                           f"Prefeito Municipal de {self.city.name} homologa o resultado do "
                           f"certame e adjudica o objeto à empresa {rnd.choice(_FIRMS)}, pelo "
                           f"valor global de R$ {_thousands(rnd.randint(10, 900) * 1000)},00.")
        lines += ["ITEM   DESCRIÇÃO   QUANT.   VALOR UNIT.   VALOR TOTAL"]
        for item in range(1, rnd.randint(3, 7)):
            q, v = rnd.randint(10, 500), rnd.randint(2, 90)
            lines.append(f"{item:02d}   Item de consumo {item}   {q}   {v},50   "
                         f"{_thousands(q * v)},00")
        lines += [f"{self.city.name}, {_spelled(when)}.", self.mayor, "Prefeito Municipal"]
        return _Act("licitacao", None, None, None, lines)

    def contract(self, amendment: bool = False) -> _Act:
        rnd, when = self.rnd, self._advance()
        number = self.next("contrato")
        title = (f"EXTRATO DO {rnd.choice(['PRIMEIRO', 'SEGUNDO'])} TERMO ADITIVO AO CONTRATO "
                 f"Nº {number:03d}/{when.year}" if amendment
                 else f"EXTRATO DO CONTRATO Nº {number:03d}/{when.year}")
        lines = [title]
        lines += self.wrap(f"CONTRATANTE: Município de {self.city.name}. CONTRATADA: "
                           f"{rnd.choice(_FIRMS)}, CNPJ nº {rnd.randint(10, 99)}."
                           f"{rnd.randint(100, 999)}.{rnd.randint(100, 999)}/0001-"
                           f"{rnd.randint(10, 99)}. OBJETO: {rnd.choice(_OBJECTS)}. VALOR: R$ "
                           f"{_thousands(rnd.randint(5, 900) * 1000)},00. VIGÊNCIA: 12 (doze) "
                           f"meses. DATA DA ASSINATURA: {when:%d/%m/%Y}.")
        lines += [rnd.choice(_PEOPLE), rnd.choice(["Secretário Municipal de Administração",
                                                   "Prefeito Municipal"])]
        return _Act("contrato", str(number), None, when.year, lines)

    def nomination(self) -> _Act:
        rnd, when = self.rnd, self._advance()
        number = self.next("nomeacao")
        word = rnd.choice(["NOMEAÇÃO", "EXONERAÇÃO"])
        lines = [f"ATO DE {word} Nº {number:03d}/{when.year}"]
        lines += self.wrap(f"O PREFEITO MUNICIPAL DE {self.city_caps()}, no uso de suas "
                           f"atribuições, RESOLVE {'NOMEAR' if word == 'NOMEAÇÃO' else 'EXONERAR'}"
                           f" {rnd.choice(_PEOPLE)} {'para o' if word == 'NOMEAÇÃO' else 'do'} "
                           f"cargo de {rnd.choice(_CARGOS)}.")
        lines += self.signature()
        return _Act("nomeacao", str(number), None, when.year, lines)

    def notice(self) -> _Act:
        rnd, when = self.rnd, self._advance()
        choice = rnd.choice(["edital", "errata", "comunicado"])
        if choice == "edital":
            lines = [f"EDITAL DE CONVOCAÇÃO Nº {rnd.randint(1, 20):02d}/{when.year}"]
            lines += self.wrap("A Secretaria Municipal de Administração convoca os candidatos "
                               "aprovados no Concurso Público nº 001/2019 relacionados abaixo "
                               "a comparecerem no prazo de 30 (trinta) dias.")
            lines += [f"{i}   {rnd.choice(_PEOPLE)}   {rnd.randint(60, 99)},{rnd.randint(0, 9)}0"
                      for i in range(1, rnd.randint(4, 8))]
            return _Act("outro", None, None, None,
                        lines + [rnd.choice(_PEOPLE), "Secretária Municipal de Administração"])
        if choice == "errata":
            lines = ["ERRATA"]
            lines += self.wrap("Na publicação do Extrato do Contrato nº 031/2021, onde se lê "
                               "“R$ 12.000,00”, leia-se “R$ 21.000,00”.")
            return _Act("outro", None, None, None,
                        lines + [f"{self.city.name}, {_spelled(when)}.", rnd.choice(_PEOPLE),
                                 "Secretário Municipal de Finanças"])
        lines = ["COMUNICADO"]
        lines += self.wrap("A Prefeitura comunica que o atendimento ao público nas repartições "
                           "municipais será suspenso no dia do servidor público.")
        return _Act("outro", None, None, None,
                    lines + [rnd.choice(_PEOPLE), "Chefe de Gabinete"])

    def report(self) -> _Act:
        """A fiscal report: a table of figures, no act of law."""
        rnd = self.rnd
        lines = ["RELATÓRIO RESUMIDO DA EXECUÇÃO ORÇAMENTÁRIA",
                 "DEMONSTRATIVO DA RECEITA CORRENTE LÍQUIDA",
                 "ESPECIFICAÇÃO   PREVISÃO   REALIZADO ATÉ O BIMESTRE   %"]
        for name in ["RECEITAS CORRENTES", "Impostos, Taxas e Contribuições de Melhoria",
                     "IPTU", "ISS", "ITBI", "Transferências Correntes", "Cota-Parte do FPM",
                     "Cota-Parte do ICMS", "FUNDEB", "Outras Receitas Correntes",
                     "DEDUÇÕES", "RECEITA CORRENTE LÍQUIDA"]:
            a, b = rnd.randint(100, 90000) * 1000, rnd.randint(100, 90000) * 1000
            lines.append(f"{name}   {_thousands(a)},{rnd.randint(10, 99)}   "
                         f"{_thousands(b)},{rnd.randint(10, 99)}   {rnd.randint(5, 99)},"
                         f"{rnd.randint(10, 99)}")
        lines += ["Fonte: Sistema de Contabilidade. Lei Complementar nº 101/2000, art. 53.",
                  rnd.choice(_PEOPLE), "Contador CRC-BA 012345/O", self.mayor,
                  "Prefeito Municipal"]
        return _Act("outro", None, None, None, lines)

    def any_act(self) -> _Act:
        rnd = self.rnd
        roll = rnd.random()
        if roll < 0.17:
            return self.law(citation=rnd.choice([None, None, "line-start", "caps", "quoted"]))
        if roll < 0.22:
            return self.law("lei.complementar")
        if roll < 0.40:
            return self.decree(ementa=rnd.random() > 0.25)
        if roll < 0.52:
            return self.portaria(nominate=rnd.random() < 0.5)
        if roll < 0.63:
            return self.tender()
        if roll < 0.68:
            return self.homologation()
        if roll < 0.82:
            return self.contract(amendment=rnd.random() < 0.3)
        if roll < 0.90:
            return self.nomination()
        return self.notice()


# --- Writing a gazette ---


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.acts: list[LabelledAct] = []

    def line(self, text: str = "") -> None:
        self.parts.append(text + "\n")
        self.size += len(text) + 1

    def act(self, act: _Act, between: callable | None = None, glue: bool = False) -> None:
        """The act's lines; between(i) may return lines to insert before line i (a page
        break falling inside the act). glue: the heading continues the line above, as Tika
        joins two columns' lines."""
        if glue:
            self.parts[-1] = self.parts[-1][:-1] + " "
        for lead in act.lead:
            self.line(lead)
        start = None
        for i, text in enumerate(act.lines):
            if between and i:
                for extra in between(i):
                    self.line(extra)
            if start is None:
                start = self.size + len(text) - len(text.lstrip())
            self.line(text)
        end = self.size - 1
        self.acts.append(LabelledAct(act.kind, act.number, act.date, act.year, start, end,
                                     act.lines[0].strip(), frozenset(act.flags),
                                     act.municipality, None, act.hard))

    def text(self) -> str:
        return "".join(self.parts)


def _finish(name: str, layout: str, territory: str, writer: _Writer) -> LabelledGazette:
    text = writer.text()
    paged = "\f" in text
    acts = [LabelledAct(a.kind, a.number, a.date, a.year, a.start, a.end, a.heading, a.flags,
                        a.municipality, text.count("\f", 0, a.start) + 1 if paged else None,
                        a.hard) for a in writer.acts]
    return LabelledGazette(name, layout, territory, text, acts)


def _masthead(w: _Writer, city: _City, edition: int, when: date, summary: list[_Act]) -> None:
    w.line(f"DIÁRIO OFICIAL DO MUNICÍPIO DE {city.name.upper()}")
    w.line(f"Estado {city.uf_name} - Poder Executivo")
    w.line(f"Ano {['V', 'VI', 'VII', 'IX', 'XII'][edition % 5]} - Edição nº {_thousands(edition)}"
           f" - {_spelled(when)}")
    w.line("")
    if summary:
        w.line("SUMÁRIO")
        for page, act in enumerate(summary, 1):
            w.line(f"{act.lines[0].strip()} {'.' * 20} {page + 1}")
        w.line("")


def _page_header(city: _City, edition: int, page: int) -> list[str]:
    return [f"\fDiário Oficial do Município de {city.name} - Edição nº {_thousands(edition)} - "
            f"Página {page}"]


def _acts_for(maker: _Maker, count: int) -> list[_Act]:
    acts = [maker.any_act() for _ in range(count)]
    # A decree regulating a law of this very edition repeats its heading in the annex.
    laws = [a for a in acts if a.kind == "lei"]
    if laws and maker.rnd.random() < 0.5:
        label, printed, when = maker.published[-1]
        acts.insert(acts.index(laws[-1]) + 1, maker.decree(annex_of=(label, printed, when)))
    return acts


def _one_per_page(seed: int, city: _City, year: int) -> LabelledGazette:
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year)
    edition = rnd.randint(200, 3000)
    acts = _acts_for(maker, rnd.randint(6, 10))
    w = _Writer()
    _masthead(w, city, edition, maker.day, acts[:5])
    for page, act in enumerate(acts, 2):
        for line in _page_header(city, edition, page):
            w.line(line)
        w.line(rnd.choice(_SECRETARIAS) if act.kind in ("portaria", "contrato")
               else "GABINETE DO PREFEITO")
        w.line("")
        w.act(act)
        w.line("")
    return _finish(f"one-per-page-{seed}", "one act per page", city.territory_id, w)


def _many_per_page(seed: int, city: _City, year: int, tight: bool = False) -> LabelledGazette:
    """Acts flow on; page breaks fall inside them; some follow each other on the next line."""
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year)
    edition = rnd.randint(200, 3000)
    acts = _acts_for(maker, rnd.randint(9, 16))
    if rnd.random() < 0.6:  # a republished act: the note above its heading or below it
        target = rnd.choice([a for a in acts if a.kind in ("lei", "decreto", "portaria")]
                            or acts)
        if rnd.random() < 0.5:
            target.lead.append("*Republicado por incorreção")
        else:
            target.lines.insert(1, "*Republicado por incorreção")
        target.flags.add("republished")
    w = _Writer()
    _masthead(w, city, edition, maker.day, acts if rnd.random() < 0.5 else [])
    state = {"lines": 0, "page": 1}

    def between(i: int) -> list[str]:
        state["lines"] += 1
        if i < 3 or state["lines"] % 55:
            return []
        state["page"] += 1
        return ["", f"www.{city.name.lower().replace(' ', '')}.gov.br", *_page_header(
            city, edition, state["page"])]

    section = None
    for act in acts:
        wanted = ("LICITAÇÕES E CONTRATOS" if act.kind in ("licitacao", "contrato")
                  else "ATOS DO PODER EXECUTIVO")
        if wanted != section:
            w.line("")
            w.line(wanted)
            section = wanted
        elif not tight or rnd.random() < 0.4:
            w.line("")
        elif (act.kind in ("lei", "decreto") and act.lines[0] == act.lines[0].upper()
              and not act.lead
              and w.parts[-1].rstrip().endswith(("Prefeito Municipal", "Administração"))
              and rnd.random() < 0.5):
            act.hard = "heading glued to the line above"
            w.act(act, between, glue=True)
            continue
        # else: two acts on one line break: the next heading right under a signature
        w.act(act, between)
    w.line("")
    w.line(f"Este Diário Oficial é publicado pela Prefeitura Municipal de {city.name}.")
    return _finish(f"many-per-page-{seed}", "many acts per page" + (", tight" if tight else ""),
                   city.territory_id, w)


def _hyphenate(lines: list[str], rnd: random.Random) -> list[str]:
    """Narrow columns break long words within a sentence: 'providên-\\ncias'."""
    out: list[str] = []
    carry = ""
    for i, line in enumerate(lines):
        line = carry + line
        carry = ""
        words = line.split(" ")
        goes_on = i + 1 < len(lines) and lines[i + 1][:1].islower()
        if (goes_on and len(words) > 3 and len(words[-1]) > 8 and words[-1].isalpha()
                and rnd.random() < 0.3):
            cut = len(words[-1]) // 2
            carry = words[-1][cut:] + " "
            line = " ".join(words[:-1] + [words[-1][:cut] + "-"])
        out.append(line)
    return out


def _two_column(seed: int, city: _City, year: int) -> LabelledGazette:
    """Narrow columns read one after the other: short lines, hyphens, headings split; and one
    act whose body is printed in two columns that Tika read line by line across."""
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year, width=46)
    edition = rnd.randint(200, 3000)
    acts = _acts_for(maker, rnd.randint(8, 12))
    for act in acts:
        body = act.lines[1:]
        act.lines[1:] = _hyphenate(body, rnd) if act.kind in ("lei", "decreto") else body
    # The interleaved act: a law whose articles run in two columns.
    wide = _Maker(rnd, city, year, width=44)
    wide.day, wide.numbers = maker.day, maker.numbers
    law = wide.law(style="split")
    first_article = next(i for i, x in enumerate(law.lines) if x.startswith("Art. 1"))
    head, middle, tail = (law.lines[:first_article], law.lines[first_article:-5],
                          law.lines[-5:])
    half = (len(middle) + 1) // 2
    left, right = middle[:half], middle[half:]
    mixed = [x for pair in zip(left, right + [""] * (len(left) - len(right)), strict=True)
             for x in pair if x]
    law.lines = head + mixed + tail
    law.hard = "two columns interleaved"
    acts.insert(rnd.randint(1, len(acts) - 1), law)
    w = _Writer()
    _masthead(w, city, edition, maker.day, [])
    counter = {"n": 0, "page": 1}

    def between(i: int) -> list[str]:
        counter["n"] += 1
        if i < 3 or counter["n"] % 70:
            return []
        counter["page"] += 1
        return _page_header(city, edition, counter["page"])

    for act in acts:
        w.line("")
        w.act(act, between)
    return _finish(f"two-column-{seed}", "two columns", city.territory_id, w)


def _tables(seed: int, city: _City, year: int) -> LabelledGazette:
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year)
    edition = rnd.randint(200, 3000)
    acts = [maker.decree(table=True), maker.report(), maker.homologation(),
            maker.decree(table=True), maker.law(citation="line-start"), maker.contract(),
            maker.report(), maker.tender(), maker.decree(table=True), maker.nomination()]
    w = _Writer()
    _masthead(w, city, edition, maker.day, [])
    for page, act in enumerate(acts, 2):
        if page % 3 == 0:
            for line in _page_header(city, edition, page // 3 + 1):
                w.line(line)
        w.line("")
        w.act(act)
    return _finish(f"tables-{seed}", "tables", city.territory_id, w)


def _sigpub_block(maker: _Maker, act: _Act, entity: str | None,
                  header: list[str]) -> _Act:
    """A Sigpub item: the municipality's header and the entity above, "Publicado por" and
    the identifier below (the act ends on the identifier's line)."""
    rnd = maker.rnd
    act.lead = header + ([entity] if entity else []) + act.lead
    code = "".join(rnd.choice("0123456789ABCDEF") for _ in range(8))
    act.lines = act.lines + ["Publicado por:", rnd.choice(_PEOPLE).title(),
                             f"Código Identificador:{code}"]
    return act


def _sigpub(seed: int, city: _City, year: int) -> LabelledGazette:
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year)
    acts = _acts_for(maker, rnd.randint(10, 16))
    w = _Writer()
    w.line(f"DIÁRIO OFICIAL DOS MUNICÍPIOS DO ESTADO {city.uf_name.split(' ', 1)[1].upper()}")
    w.line(f"{_spelled(maker.day)} • Diário Oficial dos Municípios • ANO XIV | Nº "
           f"{rnd.randint(2000, 4000)}")
    header = [f"ESTADO {city.uf_name.upper()}", f"PREFEITURA MUNICIPAL DE {city.name.upper()}"]
    for i, act in enumerate(acts):
        if i and i % 4 == 0:
            w.line(f"\fwww.diariomunicipal.com.br/{city.name.lower()[:4]} {i // 4 + 1}")
        entity = (rnd.choice(_SECRETARIAS) if act.kind in ("licitacao", "contrato", "portaria")
                  else "GABINETE DO PREFEITO")
        w.line("")
        w.act(_sigpub_block(maker, act, entity, header))
    return _finish(f"sigpub-{seed}", "sigpub", city.territory_id, w)


def _association(seed: int, key: str) -> LabelledGazette:
    """One gazette for many municipalities: AMA (Alagoas) or a Sigpub association (Minas)."""
    rnd = random.Random(seed)
    cities = ALAGOAS if key == "ama" else [c for c in CITIES if c.uf_name.endswith("Gerais")]
    territory = "2700000" if key == "ama" else "3100000"
    w = _Writer()
    w.line("DIÁRIO OFICIAL DOS MUNICÍPIOS DO ESTADO "
           + ("DE ALAGOAS" if key == "ama" else "DE MINAS GERAIS"))
    w.line(f"ANO XI | Nº {rnd.randint(1000, 3000)}")
    for n, city in enumerate(rnd.sample(cities, len(cities))):
        maker = _Maker(rnd, city, 2021 + n % 3)
        name = city.name.upper()
        for act in _acts_for(maker, rnd.randint(3, 6)):
            if key == "ama":
                header = ["ESTADO DE ALAGOAS", f"PREFEITURA MUNICIPAL DE {name}"]
            else:
                header = [f"{'CÂMARA' if act.kind == 'resolucao' else 'PREFEITURA'} MUNICIPAL "
                          f"DE {name}"]
            entity = rnd.choice(_SECRETARIAS + ["GABINETE DO PREFEITO"])
            act.municipality = name
            w.line("")
            w.act(_sigpub_block(maker, act, entity, header))
        if key != "ama":
            maker_c = _Maker(rnd, city, 2021)
            act = maker_c.chamber("resolucao")
            act.municipality = name
            w.line("")
            w.act(_sigpub_block(maker_c, act, "MESA DIRETORA",
                                [f"CÂMARA MUNICIPAL DE {name}"]))
    return _finish(f"association-{key}-{seed}", f"association ({key})", territory, w)


def _chamber(seed: int, city: _City, year: int) -> LabelledGazette:
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year)
    acts = [maker.chamber("resolucao"), maker.chamber("decreto.legislativo"),
            maker.chamber("emenda.lei.organica"), maker.portaria(), maker.chamber("resolucao"),
            maker.chamber("decreto.legislativo"), maker.portaria(nominate=True),
            maker.contract(), maker.chamber("decreto.legislativo")]
    w = _Writer()
    w.line(f"DIÁRIO OFICIAL DO PODER LEGISLATIVO DE {city.name.upper()}")
    w.line(f"CÂMARA MUNICIPAL DE {city.name.upper()}")
    for act in acts:
        w.line("")
        w.line("MESA DIRETORA")
        w.act(act)
    return _finish(f"chamber-{seed}", "câmara", city.territory_id, w)


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(c)).replace("º", "o")


def _noisy(seed: int, city: _City, year: int) -> LabelledGazette:
    """A text layer without accents, "Nº" printed every way, headings in mixed case."""
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year)
    acts = []
    for _ in range(rnd.randint(9, 13)):
        roll = rnd.random()
        if roll < 0.3:
            acts.append(maker.law(style=rnd.choice(["mixed", "numeric", "zero", "full"])))
        elif roll < 0.65:
            acts.append(maker.decree(style=rnd.choice(["mixed", "numeric", "zero", "slash"])))
        else:
            acts.append(maker.any_act())
    markers = ["N°", "N.º", "No", "Nº"]
    for act in acts:
        mark = rnd.choice(markers)
        act.lines[0] = act.lines[0].replace("Nº", mark).replace("nº", mark.lower())
        if rnd.random() < 0.25:  # OCR's letters for digits and back
            act.lines[0] = act.lines[0].replace("DECRETO", "DECRET0").replace("LEI ", "LEl ")
            act.hard = "OCR letters in the type"
        if rnd.random() < 0.6:
            act.lines = [_strip_accents(x) for x in act.lines]
    w = _Writer()
    w.line(_strip_accents(f"DIARIO OFICIAL DO MUNICIPIO DE {city.name.upper()}"))
    for act in acts:
        w.line("")
        w.act(act)
    return _finish(f"noisy-{seed}", "no accents, OCR-ish markers", city.territory_id, w)


def _continued_pair(seed: int, city: _City, year: int,
                    headless: bool = False) -> list[LabelledGazette]:
    """A complementary law begun in one edition and ended in the next, where its heading is
    printed again with "(Continuação)" or, headless, only a note says what goes on."""
    rnd = random.Random(seed)
    maker = _Maker(rnd, city, year)
    edition = rnd.randint(200, 3000)
    big = maker.law("lei.complementar", style="full")
    sign = next(i for i in range(len(big.lines) - 1, 0, -1) if not big.lines[i])
    cut = (sign + 3) // 2
    first = _Act(big.kind, big.number, big.date, big.year,
                 big.lines[:cut] + ["(Continua na próxima edição)"], {"continues"},
                 hard="continues in the next edition")
    rest = _Act(big.kind, big.number, big.date, big.year,
                [big.lines[0] + " (Continuação)"] + big.lines[cut:], {"continuation"},
                hard="continuation of the previous edition")
    if headless:  # an act of unknown kind until the caller joins it to the first part
        rest = _Act("outro", None, None, None,
                    ["(Continuação da edição anterior)"] + big.lines[cut:], {"continuation"},
                    hard="headless continuation")
    gazettes = []
    for part, (acts, tail) in enumerate([(_acts_for(maker, 6), first),
                                         (None, rest)]):
        w = _Writer()
        _masthead(w, city, edition + part, maker.day, [])
        if part == 0:
            for act in acts:
                w.line("")
                w.act(act)
            w.line("")
            w.act(tail)
        else:
            w.act(tail)
            for act in _acts_for(maker, 5):
                w.line("")
                w.act(act)
        gazettes.append(_finish(f"continued-{seed}-{part + 1}", "act across two editions"
                                + (", headless" if headless else ""), city.territory_id, w))
    return gazettes


def _truncated(seed: int, city: _City, year: int) -> LabelledGazette:
    """The text file ends inside the last act (a download cut short)."""
    full = _many_per_page(seed, city, year)
    last = full.acts[-1]
    for act in reversed(full.acts):  # cut inside a normative act's body
        if act.kind in ("lei", "decreto", "lei.complementar") and act.end - act.start > 400:
            last = act
            break
    at = last.start + (last.end - last.start) * 2 // 3
    while not (full.text[at - 1].isalpha() and full.text[at].isalpha()):
        at += 1  # inside a word
    text = full.text[:at]
    acts = [a for a in full.acts if a.start < last.start]
    acts.append(LabelledAct(last.kind, last.number, last.date, last.year, last.start, at,
                            last.heading, last.flags | {"truncated"}, None, last.page,
                            "text cut short"))
    return LabelledGazette(f"truncated-{seed}", "truncated file", city.territory_id, text, acts)


def gazettes() -> list[LabelledGazette]:
    """The labelled set, always the same."""
    out: list[LabelledGazette] = []
    for i, city in enumerate(CITIES[:5]):
        out.append(_one_per_page(100 + i, city, 2019 + i % 4))
    for i, city in enumerate(CITIES[3:11]):
        out.append(_many_per_page(200 + i, city, 2020 + i % 4, tight=i % 2 == 1))
    for i, city in enumerate(CITIES[9:13]):
        out.append(_two_column(300 + i, city, 2021 + i % 3))
    for i, city in enumerate(CITIES[12:15]):
        out.append(_tables(400 + i, city, 2022))
    for i, city in enumerate(CITIES[::4]):
        out.append(_sigpub(500 + i, city, 2021 + i % 3))
    out.append(_association(600, "ama"))
    out.append(_association(601, "sigpub"))
    for i, city in enumerate(CITIES[5:7]):
        out.append(_chamber(700 + i, city, 2021))
    for i, city in enumerate(CITIES[1:4]):
        out.append(_noisy(800 + i, city, 2020 + i))
    out += _continued_pair(900, CITIES[0], 2021)
    out += _continued_pair(901, CITIES[11], 2022, headless=True)
    out.append(_truncated(1000, CITIES[7], 2022))
    return out


def bad_texts() -> dict[str, str]:
    """Gazette texts with nothing to segment: what an unOCRed scan or a broken layer gives."""
    rnd = random.Random(7)
    # A text layer whose font maps glyphs to the wrong letters: words, none of them Portuguese.
    garbage = " ".join("".join(rnd.choice("bcdfghjklmnpqrstvwxzÞÐÿ") for _ in
                               range(rnd.randint(2, 9))) for _ in range(2500))
    cid = " ".join(f"(cid:{rnd.randint(1, 300)})" for _ in range(3000))
    return {"empty": "", "blank": "\f\n\n   \f\n\f", "page numbers only": "\f1\n\f2\n\f3\n",
            "wrong font map": garbage, "pdf cid codes": cid}


# --- Scoring a segmentation against the labels (tests and bench share it) ---

NORMATIVE_KINDS = frozenset({"lei", "lei.complementar", "lei.organica", "emenda.lei.organica",
                             "decreto", "decreto.legislativo", "resolucao", "portaria"})
FIELDS = ("kind", "number", "date", "year")


@dataclass
class Score:
    """Counts over gazettes. A boundary is right when the act starts on the labelled line and
    ends on the labelled line: a reader shown the act's span sees the same lines (a gap of a
    blank line, a page header, an indentation does not count; one line more or less does)."""

    labelled: int = 0
    found: int = 0
    matched: int = 0
    normative: int = 0  # labelled normative acts whose boundaries were found
    fields_right: dict = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    all_fields_right: int = 0
    matter: int = 0
    matter_kind_right: int = 0
    flags_labelled: int = 0
    flags_right: int = 0
    misses: list = field(default_factory=list)

    def add(self, gazette: LabelledGazette, acts: list) -> None:
        text = gazette.text

        def lines(a) -> tuple[int, int]:
            return text.count("\n", 0, a.start), text.count("\n", 0, a.end)

        got = {lines(a): a for a in acts}
        self.labelled += len(gazette.acts)
        self.found += len(acts)
        for want in gazette.acts:
            act = got.get(lines(want))
            if want.flags:
                self.flags_labelled += 1
                self.flags_right += bool(act is not None and act.flags == want.flags)
            if act is None:
                self.misses.append(f"{gazette.name}: missed {want.heading!r}")
                continue
            self.matched += 1
            if want.kind in NORMATIVE_KINDS:
                self.normative += 1
                right = [getattr(act, f) == getattr(want, f) for f in FIELDS]
                for f, ok in zip(FIELDS, right, strict=True):
                    self.fields_right[f] += ok
                self.all_fields_right += all(right)
                if not all(right):
                    self.misses.append(f"{gazette.name}: {want.heading!r} read as "
                                       f"{[getattr(act, f) for f in FIELDS]}")
            else:
                self.matter += 1
                self.matter_kind_right += act.kind == want.kind
        wanted = {lines(a) for a in gazette.acts}
        self.misses += [f"{gazette.name}: extra {a.heading!r}" for a in acts
                        if lines(a) not in wanted]

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.labelled if self.labelled else 1.0

    def field(self, name: str) -> float:
        return self.fields_right[name] / self.normative if self.normative else 1.0

    @property
    def fields(self) -> float:
        """Share of normative acts with kind, number, date and year all right."""
        return self.all_fields_right / self.normative if self.normative else 1.0
