"""Demo and test documents built by code: born-digital and scanned PDFs, portal pages, a demo set.

Everything here is deterministic (same arguments, same bytes) and small, so tests and the
demo corpus need no files from outside the package.
"""

from __future__ import annotations

import csv
import html
import io
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
_MARGIN = 72.0  # points
_SIZE = 11.0
_LEADING = 15.0
JUAZEIRO = 2918407  # IBGE code
ESPIRITO_SANTO = 32  # IBGE code of the state

# A text page: lines (or paragraphs to wrap), optionally a title. A scanned page: a PIL image.
Page = list[str] | Image.Image


@cache
def _fonts() -> tuple[str, str]:
    """Regular and bold font names for reportlab: DejaVu if Debian has it, else Helvetica."""
    regular, bold = _FONT_DIR / "DejaVuSans.ttf", _FONT_DIR / "DejaVuSans-Bold.ttf"
    if regular.exists() and bold.exists():
        pdfmetrics.registerFont(TTFont("DejaVuSans", str(regular)))
        pdfmetrics.registerFont(TTFont("DejaVuSans-Bold", str(bold)))
        return "DejaVuSans", "DejaVuSans-Bold"
    return "Helvetica", "Helvetica-Bold"


def _canvas(buffer: io.BytesIO, title: str) -> canvas.Canvas:
    # invariant: no timestamps or random ids, so the same input gives the same bytes.
    c = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    c.setTitle(title)
    c.setCreator("br-locleg samples")
    return c


def _draw_lines(c: canvas.Canvas, lines: Sequence[str], title: str | None = None) -> None:
    regular, bold = _fonts()
    width, height = A4
    y = height - _MARGIN
    if title:
        c.setFont(bold, _SIZE + 1)
        c.drawCentredString(width / 2, y, title)
        y -= 2 * _LEADING
    c.setFont(regular, _SIZE)
    for line in lines:
        c.drawString(_MARGIN, y, line)
        y -= _LEADING


def _draw_image(c: canvas.Canvas, image: Image.Image) -> None:
    width, height = A4
    c.drawImage(ImageReader(image), 0, 0, width, height)


def _layout(title: str, paragraphs: Sequence[str]) -> list[list[str]]:
    """Wrap paragraphs to the text width and cut them into pages of lines."""
    regular, _ = _fonts()
    width, height = A4
    per_page = int((height - 2 * _MARGIN) // _LEADING)
    first_page = per_page - 2  # the title takes two lines
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += simpleSplit(paragraph, regular, _SIZE, width - 2 * _MARGIN) or [""]
        lines.append("")
    pages = [lines[:first_page]]
    rest = lines[first_page:]
    while rest:
        pages.append(rest[:per_page])
        rest = rest[per_page:]
    return pages


def _pdf(title: str, pages: Sequence[Page], first_title: str | None = None) -> bytes:
    buffer = io.BytesIO()
    c = _canvas(buffer, title)
    for index, page in enumerate(pages):
        if isinstance(page, Image.Image):
            _draw_image(c, page)
        else:
            _draw_lines(c, page, first_title if index == 0 else None)
        c.showPage()
    c.save()
    return buffer.getvalue()


def born_digital_pdf(title: str, paragraphs: Sequence[str]) -> bytes:
    """A PDF with a text layer, as a word processor makes it; several pages when long."""
    return _pdf(title, _layout(title, paragraphs), first_title=title)


def text_pdf(lines_per_page: Sequence[Sequence[str]], title: str = "") -> bytes:
    """A PDF with a text layer drawn exactly line by line (for line-end hyphens, garbage text)."""
    return _pdf(title, [list(lines) for lines in lines_per_page])


@cache
def _scan_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = _FONT_DIR / "DejaVuSerif.ttf"
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def scanned_page(lines: Sequence[str], dpi: int = 200, seed: int = 0) -> Image.Image:
    """One A4 page of typed text as a scanner sees it: grayscale, slightly soft, a few specks."""
    width, height = round(8.27 * dpi), round(11.69 * dpi)
    image = Image.new("L", (width, height), 248)
    draw = ImageDraw.Draw(image)
    font = _scan_font(round(_SIZE * dpi / 72))
    margin = round(dpi * _MARGIN / 72)
    step = round(_LEADING * dpi / 72)
    y = margin
    for line in _wrap(lines, font, width - 2 * margin):
        draw.text((margin, y), line, font=font, fill=25)
        y += step
    rng = random.Random(seed)
    for _ in range(width * height // 6000):
        x, y = rng.randrange(width), rng.randrange(height)
        draw.point((x, y), fill=rng.randrange(60, 200))
    return image.filter(ImageFilter.GaussianBlur(0.6))


def _wrap(lines: Sequence[str], font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
          width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        words, current = line.split(" "), ""
        for word in words:
            candidate = f"{current} {word}" if current else word
            if current and font.getlength(candidate) > width:
                out.append(current)
                current = word
            else:
                current = candidate
        out.append(current)
    return out


def scanned_pdf(lines_per_page: Sequence[Sequence[str]], dpi: int = 200) -> bytes:
    """An image-only PDF, one scanned page per list of lines: no text layer at all."""
    pages = [scanned_page(lines, dpi, seed=i) for i, lines in enumerate(lines_per_page)]
    return _pdf("scan", pages)


def mixed_pdf(title: str, paragraphs: Sequence[str], scanned_pages: Sequence[Sequence[str]],
              dpi: int = 200) -> bytes:
    """A born-digital document with scanned pages appended (an annex signed on paper)."""
    pages: list[Page] = list(_layout(title, paragraphs))
    start = len(pages)
    pages += [scanned_page(lines, dpi, seed=start + i) for i, lines in enumerate(scanned_pages)]
    return _pdf(title, pages, first_title=title)


_PORTAL_MENU = ["Início", "A Assembleia", "Deputados", "Legislação", "Transparência",
                "Notícias", "TV Assembleia", "Ouvidoria", "Contato"]
_PORTAL_LINKS = ["Constituição Estadual", "Regimento Interno", "Leis Ordinárias",
                 "Leis Complementares", "Decretos Legislativos", "Resoluções"]


def html_law_page(
    title: str, body_paragraphs: Sequence[str], with_navigation: bool = True
) -> bytes:
    """A legislation portal's page: menu, header, breadcrumbs, sidebar, footer, the law inside."""
    esc = html.escape
    law = "\n".join(f"<p>{esc(p)}</p>" for p in body_paragraphs)
    if not with_navigation:
        return (
            '<!DOCTYPE html>\n<html lang="pt-BR"><head><meta charset="utf-8">'
            f"<title>{esc(title)}</title></head>\n"
            f"<body><h1>{esc(title)}</h1>\n{law}\n</body></html>\n"
        ).encode()
    menu = "".join(f'<li><a href="/{i}">{esc(m)}</a></li>' for i, m in enumerate(_PORTAL_MENU))
    links = "".join(
        f'<li><a href="/leg/{i}">{esc(x)}</a></li>' for i, x in enumerate(_PORTAL_LINKS)
    )
    parts = [
        '<!DOCTYPE html>\n<html lang="pt-BR">\n<head>',
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">',
        f"<title>{esc(title)} - Assembleia Legislativa do Estado do Espírito Santo</title>",
        "<style>body { font-family: sans-serif; } .menu li { display: inline; }</style>",
        "<script>window.dataLayer = window.dataLayer || [];"
        " function gtag() { dataLayer.push(arguments); }</script>",
        "</head>\n<body>",
        '<div id="barra-acessibilidade"><a href="#conteudo">Ir para o conteúdo</a>'
        ' <a href="#menu">Ir para o menu</a></div>',
        '<header id="topo"><div class="logo">Assembleia Legislativa do Estado do Espírito Santo'
        f'</div>\n<nav id="menu" class="menu-principal"><ul>{menu}</ul></nav></header>',
        '<div class="breadcrumb"><a href="/">Início</a> › <a href="/legislacao">Legislação</a>'
        f" › {esc(title)}</div>",
        '<form class="busca" action="/busca"><input name="q" placeholder="Pesquisar legislação">'
        "<button>Buscar</button></form>",
        '<div id="principal">\n<div id="conteudo" class="texto-norma">',
        f"<h1>{esc(title)}</h1>\n{law}\n</div>",
        f'<aside class="sidebar"><h2>Veja também</h2><ul>{links}</ul></aside>\n</div>',
        '<footer class="rodape"><p>Av. Américo Buaiz, 205 - Enseada do Suá - Vitória/ES</p>',
        "<p>Este texto não substitui o publicado no Diário Oficial."
        " Todos os direitos reservados.</p></footer>",
        "</body>\n</html>\n",
    ]
    return "\n".join(parts).encode()


def sample_text(name: str) -> str:
    """A text shipped in locleg/sample_texts (the seed laws), as UTF-8."""
    return resources.files("locleg").joinpath("sample_texts", name).read_text("utf-8")


def _juazeiro_2199_pages() -> list[list[str]]:
    pages = sample_text("juazeiro_lei_2199_2011.txt").split("\f")
    return [page.strip("\n").split("\n") for page in pages]


def _es_2482_paragraphs() -> list[str]:
    return [p.strip() for p in sample_text("es_lei_2482_1969.txt").split("\n") if p.strip()]


_JUAZEIRO_HEADER = (
    "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições legais, "
)

_ARBORIZACAO = [
    _JUAZEIRO_HEADER + "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:",
    "Art. 1º Fica instituído o Programa Municipal de Arborização Urbana, com o objetivo de "
    "ampliar a cobertura vegetal das vias, praças e demais logradouros públicos do Município "
    "de Juazeiro, priorizando espécies nativas da caatinga.",
    "Art. 2º O plantio, a poda e a supressão de árvores em logradouros públicos dependem de "
    "autorização da Secretaria Municipal de Meio Ambiente e Ordenamento Urbano.",
    "§ 1º A poda de árvores sob a rede elétrica será feita pela concessionária de energia, "
    "mediante comunicação prévia ao órgão municipal competente.",
    "§ 2º A supressão só será autorizada quando a árvore apresentar risco à segurança das "
    "pessoas ou do patrimônio, comprovado em laudo técnico.",
    "Art. 3º Para cada árvore suprimida serão plantadas 3 (três) mudas de espécie indicada pelo "
    "órgão ambiental, no mesmo bairro, no prazo de 90 (noventa) dias.",
    "Art. 4º Os novos loteamentos aprovados a partir da publicação desta Lei deverão prever o "
    "plantio de, no mínimo, 1 (uma) árvore a cada 10 (dez) metros de calçada.",
    "Art. 5º A infração ao disposto nesta Lei sujeita o infrator à multa de 5 (cinco) a 50 "
    "(cinquenta) Unidades de Referência Fiscal (URF), aplicada em dobro na reincidência, sem "
    "prejuízo da reparação do dano, nos termos da Lei Federal nº 9.605, de 12 de fevereiro de "
    "1998.",
    "Art. 6º As despesas decorrentes da execução desta Lei correrão por conta de dotações "
    "orçamentárias próprias, suplementadas se necessário.",
    "Art. 7º O Poder Executivo regulamentará esta Lei no prazo de 120 (cento e vinte) dias.",
    "Art. 8º Esta Lei entra em vigor na data de sua publicação, revogadas as disposições em "
    "contrário.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 15 de abril de 2013.",
]

_SEMANA_TRANSITO = [
    _JUAZEIRO_HEADER + "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:",
    "Art. 1º Fica instituída a Semana Municipal de Educação para o Trânsito, a ser realizada "
    "anualmente na 3ª (terceira) semana de setembro, em consonância com a Semana Nacional de "
    "Trânsito prevista no Código de Trânsito Brasileiro.",
    "Art. 2º São objetivos da Semana Municipal de Educação para o Trânsito:",
    "I – promover campanhas educativas sobre a segurança de pedestres, ciclistas, motociclistas "
    "e condutores de moto-táxi e moto-entrega;",
    "II – incentivar o uso do capacete e do cinto de segurança;",
    "III – divulgar as regras de circulação e de estacionamento nas vias do Município.",
    "Art. 3º A Companhia Municipal de Trânsito e Transportes – CMTT coordenará as atividades, "
    "em parceria com as escolas da rede municipal de ensino e com as associações de moto-taxistas.",
    "Parágrafo único. As escolas poderão incluir a matéria no calendário escolar do 2º semestre.",
    "Art. 4º Esta Lei entra em vigor na data de sua publicação.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 28 de novembro de 2014.",
]

_DECRETO_MOTO_TAXI = [
    "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso das atribuições que lhe confere "
    "o art. 61, inciso IV, da Lei Orgânica do Município, e tendo em vista o disposto no art. 28 "
    "da Lei Municipal nº 2.199, de 27 de junho de 2011,",
    "DECRETA:",
    "Art. 1º Este Decreto regulamenta a exploração do serviço de transporte individual de "
    "passageiros em motocicleta (moto-táxi) e do serviço de entrega de mercadorias em "
    "motocicleta (moto-entrega) no Município de Juazeiro.",
    "Art. 2º Compete à Companhia Municipal de Trânsito e Transportes – CMTT o cadastramento, a "
    "vistoria e a fiscalização dos permissionários e dos veículos.",
    "§ 1º O cadastramento será feito mediante requerimento do interessado, instruído com os "
    "documentos exigidos no art. 6º da Lei Municipal nº 2.199/2011.",
    "§ 2º A CMTT publicará no Diário Oficial do Município a relação dos permissionários "
    "cadastrados até o 30º (trigésimo) dia de cada trimestre.",
    "Art. 3º A vistoria técnica será realizada a cada 6 (seis) meses, em local e horário "
    "definidos pela CMTT, e verificará:",
    "I – o estado geral da motocicleta e dos equipamentos de segurança;",
    "II – a pintura do tanque e a identificação do prefixo;",
    "III – a validade do seguro de vida e de acidentes pessoais do condutor e do passageiro.",
    "Parágrafo único. O veículo reprovado na vistoria ficará impedido de operar até a sua "
    "regularização, comprovada em nova vistoria.",
    "Art. 4º O uniforme padrão do moto-taxista compõe-se de colete nas cores azul e amarela, "
    "com o número do prefixo em preto na frente e nas costas, e de capacete nas mesmas cores.",
    "Art. 5º Os pontos de embarque de moto-táxi serão definidos pela CMTT, ouvidas as "
    "cooperativas e associações da categoria, e sinalizados com placa indicativa do preço da "
    "corrida e do telefone para reclamações.",
    "Art. 6º O valor da tarifa do serviço de moto-táxi é o constante do Anexo Único deste "
    "Decreto e será reajustado anualmente, nos termos do art. 11 da Lei Municipal nº 2.199/2011.",
    "Art. 7º O permissionário poderá indicar 1 (um) auxiliar, que atenderá aos mesmos requisitos "
    "exigidos do titular e será cadastrado na CMTT antes de iniciar a atividade.",
    "Art. 8º As infrações serão apuradas em processo administrativo, assegurados o contraditório "
    "e a ampla defesa, aplicando-se subsidiariamente, no que couber, a Lei Federal nº 9.503, de "
    "23 de setembro de 1997 (Código de Trânsito Brasileiro), e o Decreto-Lei nº 3.688, de 3 de "
    "outubro de 1941.",
    "§ 1º Da decisão que aplicar penalidade caberá recurso à Junta Administrativa de Recursos de "
    "Infrações – JARI, no prazo de 5 (cinco) dias úteis, contados da notificação.",
    "§ 2º O recurso não terá efeito suspensivo, salvo nos casos de cassação da permissão.",
    "Art. 9º A 1ª (primeira) vistoria dos veículos já em operação será realizada no prazo de 60 "
    "(sessenta) dias, contados da publicação deste Decreto.",
    "Art. 10. Os casos omissos serão resolvidos pela Diretoria da CMTT.",
    "Art. 11. Este Decreto entra em vigor na data de sua publicação, revogadas as disposições "
    "em contrário.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 20 de outubro de 2011.",
]

_DECRETO_ANEXO = [
    "Tabela de tarifas do serviço de moto-táxi (valores em reais)",
    "1. Corrida na zona urbana, até 5 km: R$ 3,00 (três reais).",
    "2. Quilômetro adicional na zona urbana: R$ 0,50 (cinquenta centavos).",
    "3. Corrida entre a sede e os distritos de Juremal, Massaroca e Carnaíba do Sertão: "
    "R$ 1,00 (um real) por quilômetro rodado.",
    "4. Corrida noturna, das 22h às 5h, e aos domingos e feriados: acréscimo de 20% (vinte por "
    "cento).",
    "5. Entrega de mercadorias (moto-entrega) na zona urbana: R$ 4,00 (quatro reais).",
]

_MOBILIDADE = [
    _JUAZEIRO_HEADER + "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:",
    "Art. 1º Fica aprovado o Plano Municipal de Mobilidade Urbana de Juazeiro, elaborado nos "
    "termos da Lei Federal nº 12.587, de 3 de janeiro de 2012, na forma do Anexo I desta Lei.",
    "Art. 2º O Plano tem por diretrizes a prioridade dos modos de transporte não motorizados "
    "sobre os motorizados e do transporte público coletivo sobre o transporte individual.",
    "Art. 3º O Plano será revisto a cada 10 (dez) anos, com participação da sociedade civil, "
    "por meio de audiências públicas.",
    "Art. 4º Esta Lei entra em vigor na data de sua publicação.",
    "GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 10 de maio de 2016.",
]

_MOBILIDADE_ANEXO = [
    "ANEXO I",
    "QUADRO DE METAS DO PLANO MUNICIPAL DE MOBILIDADE URBANA",
    "Meta 1 - Implantar 20 km de ciclovias e ciclofaixas até 2020.",
    "Meta 2 - Requalificar as calçadas das avenidas Adolfo Viana e Raul Alves.",
    "Meta 3 - Renovar a frota do transporte coletivo urbano até 2022.",
    "Meta 4 - Regulamentar os pontos de embarque de moto-táxi em todos os bairros.",
    "Meta 5 - Reduzir em 50% o número de acidentes de trânsito com vítimas.",
    "Juazeiro, 10 de maio de 2016.",
]

_DECRETO_JUNINO = """DECRETO Nº 052, DE 13 DE JUNHO DE 2012

Dispõe sobre o expediente nas repartições públicas municipais durante os festejos juninos.

O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições legais, e
considerando a tradição dos festejos de São João no Município, que atraem visitantes de toda a
região do Vale do São Francisco,

DECRETA:

Art. 1º Fica declarado ponto facultativo nas repartições públicas municipais o dia 22 de junho
de 2012 (sexta-feira), véspera do “Dia de São João”.

Art. 2º Os serviços essenciais — saúde, limpeza urbana, trânsito e defesa civil — funcionarão
em regime de plantão, conforme escala definida por cada Secretaria.

Art. 3º As horas não trabalhadas serão compensadas até o dia 31 de julho de 2012, à razão de
1 (uma) hora por dia, a critério da chefia imediata.

Art. 4º Este Decreto entra em vigor na data de sua publicação.

GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, em 13 de junho de 2012.
"""

_SAPL = "https://sapl.juazeiro.ba.leg.br/norma/{}"
MANIFEST_COLUMNS = ["file", "type", "number", "year", "date", "ementa", "native_id", "url",
                    "role", "title", "jurisdiction"]


@dataclass(frozen=True)
class DemoDocument:
    """One file of the demo set and its manifest row."""

    file: str
    type: str
    number: str
    date: str  # ISO
    ementa: str
    native_id: str
    url: str
    build: Callable[[], bytes]
    role: str = "texto integral"
    title: str = ""
    jurisdiction: int = JUAZEIRO

    def row(self) -> dict[str, str]:
        return {
            "file": self.file, "type": self.type, "number": self.number, "year": self.date[:4],
            "date": self.date, "ementa": self.ementa, "native_id": self.native_id, "url": self.url,
            "role": self.role, "title": self.title, "jurisdiction": str(self.jurisdiction),
        }


_EMENTA_2199 = ("DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI E MOTO - ENTREGA NO ÂMBITO DO MUNICÍPIO DE "
                "JUAZEIRO , E DÁ OUTRAS PROVIDÊNCIAS.")
_EMENTA_DECRETO = (
    "Regulamenta a Lei Municipal nº 2.199, de 27 de junho de 2011, que dispõe sobre o "
    "serviço de moto-táxi e moto-entrega no âmbito do Município de Juazeiro."
)
_EMENTA_2482 = ("Dispõe sobre o Sistema Nacional de Trânsito na área estadual, transforma o "
                "Departamento Estadual de Trânsito em autarquia e dá outras providências.")


def demo_documents() -> list[DemoDocument]:
    """The bundled demo set: Juazeiro (BA) laws and decrees in every shape, and one ES state law.

    Lei 2.199/2011 (native_id 1461) and Lei 2.482/1969 of Espírito Santo are the seed laws;
    the other norms are realistic inventions, with native ids from 900101 on so they point at
    no real norm.
    """
    return [
        DemoDocument(
            "juazeiro-lei-2199-2011.pdf", "Lei", "2199", "2011-06-27", _EMENTA_2199, "1461",
            _SAPL.format(1461), lambda: scanned_pdf(_juazeiro_2199_pages()),
        ),
        DemoDocument(
            "juazeiro-lei-2312-2013.pdf", "Lei", "2312", "2013-04-15",
            "Institui o Programa Municipal de Arborização Urbana e dá outras providências.",
            "900101", _SAPL.format(900101),
            lambda: born_digital_pdf("LEI Nº 2.312, DE 15 DE ABRIL DE 2013", _ARBORIZACAO),
        ),
        DemoDocument(
            "juazeiro-lei-2405-2014.pdf", "Lei", "2405", "2014-11-28",
            "Institui a Semana Municipal de Educação para o Trânsito no Município de Juazeiro.",
            "900102", _SAPL.format(900102),
            lambda: born_digital_pdf("LEI Nº 2.405, DE 28 DE NOVEMBRO DE 2014", _SEMANA_TRANSITO),
        ),
        DemoDocument(
            "juazeiro-decreto-187-2011.pdf", "Decreto", "187", "2011-10-20", _EMENTA_DECRETO,
            "900103", _SAPL.format(900103),
            lambda: born_digital_pdf(
                "DECRETO Nº 187, DE 20 DE OUTUBRO DE 2011", _DECRETO_MOTO_TAXI
            ),
        ),
        DemoDocument(
            "juazeiro-decreto-187-2011-anexo-unico.pdf", "Decreto", "187", "2011-10-20",
            _EMENTA_DECRETO, "900103", _SAPL.format(900103) + "#anexo-unico",
            lambda: born_digital_pdf("ANEXO ÚNICO DO DECRETO Nº 187/2011", _DECRETO_ANEXO),
            role="anexo", title="Anexo Único – Tabela de tarifas do serviço de moto-táxi",
        ),
        DemoDocument(
            "juazeiro-lei-2480-2016.pdf", "Lei", "2480", "2016-05-10",
            "Aprova o Plano Municipal de Mobilidade Urbana de Juazeiro e dá outras providências.",
            "900104", _SAPL.format(900104),
            lambda: mixed_pdf(
                "LEI Nº 2.480, DE 10 DE MAIO DE 2016", _MOBILIDADE, [_MOBILIDADE_ANEXO]
            ),
        ),
        DemoDocument(
            "juazeiro-decreto-052-2012.txt", "Decreto", "52", "2012-06-13",
            "Dispõe sobre o expediente nas repartições públicas municipais durante os festejos "
            "juninos.", "900105", _SAPL.format(900105),
            lambda: _DECRETO_JUNINO.replace("\n", "\r\n").encode("cp1252"),
        ),
        DemoDocument(
            "es-lei-2482-1969.html", "Lei Ordinária", "2482", "1969-12-24", _EMENTA_2482,
            "L24821969", "https://www3.al.es.gov.br/Arquivo/Documents/legislacao/html/L24821969.html",
            lambda: html_law_page("Lei Ordinária nº 2.482/1969", _es_2482_paragraphs()),
            jurisdiction=ESPIRITO_SANTO,
        ),
    ]


def write_demo_documents(folder: Path) -> Path:
    """Write the demo set and its manifest.csv into folder; returns the manifest's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    documents = demo_documents()
    for doc in documents:
        (folder / doc.file).write_bytes(doc.build())
    manifest = folder / "manifest.csv"
    with manifest.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=MANIFEST_COLUMNS)
        writer.writeheader()
        writer.writerows(doc.row() for doc in documents)
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m locleg.samples FOLDER", file=sys.stderr)
        return 2
    print(write_demo_documents(Path(args[0])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
