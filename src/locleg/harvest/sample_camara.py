"""The bundled sample câmara: Juazeiro (BA) as its SAPL 3.1 serves it, built from recorded responses.

The 25 norms, 5 types, 13 vínculo types, 2 anexos and 3 vínculos of the recorded instance
(sapl-recorded/ in the project's reference), renumbered so that Lei 2.199/2011 keeps the id
1461 it has at the real câmara (seed 000). Its texto integral is a scanned PDF (page images,
no text layer) made with Pillow; other files are born-digital PDF, DOCX and ODT.
"""

# ruff: noqa: E501  (the recorded rows stay one per line)
from __future__ import annotations

import io
import json
import random
import zipfile
from functools import cache

ID_OFFSET = 1460  # recorded id 1 (Lei 2.199/2011) is 1461 at the real câmara
LEI_2199 = 1461

CASA = {
    "id": 1, "__str__": "Casa Legislativa de Juazeiro", "metadata": {},
    "version": "3.1.163-RC20", "codigo": "", "nome": "Câmara Municipal de Juazeiro",
    "sigla": "CMJ", "endereco": "Praça da Imaculada Conceição, s/n - Centro",
    "cep": "48903-490", "municipio": "Juazeiro", "uf": "BA", "telefone": "(74) 3611-7150",
    "fax": "", "logotipo": None, "endereco_web": "https://sapl.juazeiro.ba.leg.br",
    "email": "contato@juazeiro.ba.leg.br",
    "informacao_geral": "Poder Legislativo do Município de Juazeiro - Bahia.",
}

TYPES = [  # ordered by descricao, as SAPL lists them
    {"id": 3, "sigla": "DL", "descricao": "Decreto Legislativo",
     "equivalente_lexml": "decreto.legislativo"},
    {"id": 5, "sigla": "ELO", "descricao": "Emenda à Lei Orgânica",
     "equivalente_lexml": "emenda.lei.organica"},
    {"id": 2, "sigla": "LC", "descricao": "Lei Complementar", "equivalente_lexml": "lei.complementar"},
    {"id": 1, "sigla": "LEI", "descricao": "Lei Ordinária", "equivalente_lexml": "lei"},
    {"id": 4, "sigla": "RES", "descricao": "Resolução", "equivalente_lexml": "resolucao"},
]

VINCULO_TYPES = [  # (id, sigla, ativa, passiva, revoga_integralmente)
    (1, "A", "Altera o(a)", "Alterado(a) pelo(a)", False),
    (2, "R", "Revoga integralmente o(a)", "Revogado(a) integralmente pelo(a)", True),
    (3, "P", "Revoga parcialmente o(a)", "Revogado(a) parcialmente pelo(a)", False),
    (4, "T", "Revoga integralmente por consolidação",
     "Revogado(a) integralmente por consolidação", True),
    (5, "C", "Norma correlata", "Norma correlata", False),
    (6, "S", "Ressalva o(a)", "Ressalvada pelo(a)", False),
    (7, "E", "Reedita o(a)", "Reeditada pelo(a)", False),
    (8, "I", "Reedita com alteração o(a)", "Reeditada com alteração pelo(a)", False),
    (9, "G", "Regulamenta o(a)", "Regulamentada pelo(a)", False),
    (10, "K", "Suspende parcialmente o(a)", "Suspenso(a) parcialmente pelo(a)", False),
    (11, "L", "Suspende integralmente o(a)", "Suspenso(a) integralmente pelo(a)", False),
    (12, "N", "Julga integralmente inconstitucional",
     "Julgada integralmente inconstitucional", False),
    (13, "O", "Julga parcialmente inconstitucional",
     "Julgada parcialmente inconstitucional", False),
]

# (id, numero, ano, data, data_publicacao, veiculo, ementa, indexacao, observacao, timestamp,
#  data_ultima_atualizacao, tipo, texto_integral file name, assuntos, pagina_inicio, pagina_fim)
_NORMS = json.loads("""[
     [1, "2199", 2011, "2011-06-27", "2011-06-29", "Diário Oficial do Município de Juazeiro", "DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI E MOTO - ENTREGA NO ÂMBITO DO MUNICÍPIO DE JUAZEIRO , E DÁ OUTRAS PROVIDÊNCIAS.", "moto-táxi, moto-entrega, mototaxista, motofrete, transporte individual de passageiros", "Revoga a Lei nº 1.996/2008.", "2024-08-11T09:15:10-03:00", "2025-11-03T08:10:10.482913-03:00", 1, "lei_2199_de_2011.pdf", [2, 1], 3, 5],
     [2, "45", 2013, "2013-03-04", "2013-03-05", "Diário Oficial do Município", "Altera a Lei nº 2.199, de 27 de junho de 2011.", "alteração, exemplo", "", "2024-04-30T17:00:00-03:00", "2024-12-09T11:30:00-03:00", 2, null, [], null, null],
     [3, "1975", 2008, "2008-03-14", "2008-03-17", "Diário Oficial do Município de Juazeiro", "Institui o Dia Municipal do Vaqueiro, a ser comemorado anualmente no terceiro domingo de julho, e dá outras providências.", "", "", "2024-05-01T09:15:00-03:00", "2025-01-01T08:00:00-03:00", 1, null, [6], null, null],
     [4, "1996", 2008, "2008-11-06", "2008-11-10", "Diário Oficial do Município de Juazeiro", "DISPÕE SOBRE A REGULAMENTAÇÃO DO SERVIÇO DE TRANSPORTE INDIVIDUAL DE PASSAGEIROS EM MOTOCICLETAS (MOTO-TÁXI) NO MUNICÍPIO DE JUAZEIRO E DÁ OUTRAS PROVIDÊNCIAS.", "moto-táxi, mototaxista, transporte individual de passageiros, motocicleta", "", "2024-06-02T09:15:01-03:00", "2025-02-04T09:07:13.000107-03:00", 1, "lei-1996-2008.pdf", [2], null, null],
     [5, "2003", 2008, "2008-12-18", "2008-12-22", "Diário Oficial do Município de Juazeiro", "Estima a Receita e fixa a Despesa do Município de Juazeiro para o exercício financeiro de 2009.", "", "", "2024-07-03T09:15:02-03:00", "2025-03-07T10:14:26-03:00", 1, null, [3], 1, 48],
     [6, "2010", 2009, "2009-04-22", null, "", "Denomina de Rua Maria Franca Pires o logradouro público localizado no Bairro João Paulo II, neste Município.", "", "", "2024-08-04T09:15:03-03:00", "2025-04-10T11:21:39.950001-03:00", 1, null, [4], null, null],
     [7, "2045", 2009, "2009-09-30", "2009-10-02", "Diário Oficial do Município de Juazeiro", "Dispõe sobre as diretrizes para a elaboração e execução da Lei Orçamentária de 2010 e dá outras providências.", "", "", "2024-09-05T09:15:04-03:00", "2025-05-13T12:28:52-03:00", 1, null, [3], null, null],
     [8, "2068", 2009, "2009-12-21", null, "", "Institui o Programa Municipal de Coleta Seletiva de Resíduos Sólidos e incentiva a organização de cooperativas de catadores de materiais recicláveis.", "coleta seletiva, reciclagem, catadores, resíduos sólidos", "", "2024-10-06T09:15:05-03:00", "2025-06-16T13:35:05-03:00", 1, null, [5], null, null],
     [9, "2101", 2010, "2010-03-10", null, "", "Declara de utilidade pública a Associação dos Pescadores e Marisqueiras do Rio São Francisco de Juazeiro - APEMAR.", "", "", "2024-11-07T09:15:06-03:00", "2025-07-19T14:42:18.318400-03:00", 1, null, [6], null, null],
     [10, "2132", 2010, "2010-08-05", null, "", "Autoriza o Poder Executivo a firmar convênio com o Governo do Estado da Bahia para a execução de obras de pavimentação e drenagem no Bairro Alto da Maravilha.", "", "", "2024-05-08T09:15:07-03:00", "2025-08-22T15:49:31-03:00", 1, null, [7], null, null],
     [11, "2155", 2010, "2010-11-24", "2010-11-26", "Diário Oficial do Município de Juazeiro", "Altera dispositivos da Lei nº 1.996, de 6 de novembro de 2008, que dispõe sobre o serviço de moto-táxi no Município de Juazeiro.", "", "", "2024-06-09T09:15:08-03:00", "2025-09-25T16:56:44-03:00", 1, null, [2], null, null],
     [12, "2178", 2011, "2011-02-16", null, "", "Dispõe sobre a obrigatoriedade de instalação de bebedouros com água filtrada nas escolas da rede pública municipal de ensino.", "", "", "2024-07-10T09:15:09-03:00", "2025-10-28T17:03:57-03:00", 1, null, [9, 8], null, null],
     [13, "2214", 2011, "2011-09-14", null, "", "Institui a Semana Municipal de Prevenção ao Uso Indevido de Drogas no Município de Juazeiro e dá outras providências.", "", "", "2024-09-12T09:15:11-03:00", "2025-12-06T09:17:23.000005-03:00", 1, "lei_2214-2011.docx", [8], null, null],
     [14, "2240", 2012, "2012-03-28", "2012-03-30", "Diário Oficial do Município de Juazeiro", "Dispõe sobre a Política Municipal de Saneamento Básico, aprova o Plano Municipal de Saneamento Básico de Juazeiro e dá outras providências.", "", "", "2024-10-13T09:15:12-03:00", "2026-01-09T10:24:36.771234-03:00", 1, null, [5, 8], null, null],
     [15, "2263", 2012, "2012-07-04", null, "", "Denomina de Praça Dr. Edson Ribeiro a praça localizada na confluência da Rua Góes Calmon com a Avenida Adolfo Viana, no Centro.", "", "", "2024-11-14T09:15:13-03:00", "2026-02-12T11:31:49-03:00", 1, null, [4], null, null],
     [16, "2281", 2012, "2012-12-19", "2012-12-21", "Diário Oficial do Município de Juazeiro", "Estima a Receita e fixa a Despesa do Município de Juazeiro para o exercício financeiro de 2013.", "", "", "2024-05-15T09:15:14-03:00", "2026-03-15T12:38:02-03:00", 1, null, [3], null, null],
     [17, "18", 2009, "2009-06-30", null, "", "Altera dispositivos do Código Tributário e de Rendas do Município de Juazeiro e dá outras providências.", "", "", "2024-06-16T09:15:15-03:00", "2026-04-18T13:45:15-03:00", 2, null, [1], null, null],
     [18, "22", 2011, "2011-10-20", "2011-10-24", "Diário Oficial do Município de Juazeiro", "Institui o Plano de Cargos, Carreiras e Vencimentos dos Profissionais do Magistério Público Municipal de Juazeiro.", "", "", "2024-07-17T09:15:16-03:00", "2026-05-21T14:52:28-03:00", 2, null, [7, 9], null, null],
     [19, "25", 2012, null, null, "", "Dispõe sobre o parcelamento, uso e ocupação do solo urbano no Município de Juazeiro.", "", "Data da norma não informada no cadastro.", "2024-08-18T09:15:17-03:00", "2026-06-24T15:59:41.640000-03:00", 2, null, [7], null, null],
     [20, "3", 2009, "2009-05-13", null, "", "Concede o Título de Cidadão Juazeirense ao Senhor José Raimundo Fontes, pelos relevantes serviços prestados ao Município.", "", "", "2024-09-19T09:15:18-03:00", "2026-07-27T16:06:54-03:00", 3, null, [6], null, null],
     [21, "11", 2012, "2012-04-18", null, "", "Aprova as contas do Poder Executivo Municipal referentes ao exercício financeiro de 2009, nos termos do parecer prévio do Tribunal de Contas dos Municípios do Estado da Bahia.", "", "", "2024-10-20T09:15:19-03:00", "2026-08-02T17:13:07-03:00", 3, null, [3], null, null],
     [22, "12-A", 2010, "2010-02-03", null, "", "Altera o Regimento Interno da Câmara Municipal de Juazeiro para dispor sobre a ordem dos trabalhos nas sessões ordinárias.", "", "", "2024-11-21T09:15:20-03:00", "2026-09-05T08:20:20-03:00", 4, null, [7], null, null],
     [23, "45", 2012, "2012-11-07", null, "", "Dispõe sobre a estrutura administrativa da Câmara Municipal de Juazeiro e dá outras providências.", "", "", "2024-05-22T09:15:21-03:00", "2026-10-08T09:27:33.123456-03:00", 4, "resolucao_45-2012.odt", [7], null, null],
     [24, "8", 2010, "2010-05-19", null, "", "Dá nova redação ao art. 45 da Lei Orgânica do Município de Juazeiro, que trata da composição da Mesa Diretora.", "", "", "2024-06-23T09:15:22-03:00", "2026-11-11T10:34:46-03:00", 5, null, [7], null, null],
     [25, "9", 2012, "2012-09-26", null, "", "Acrescenta o inciso XXIV ao art. 12 da Lei Orgânica do Município de Juazeiro.", "", "", "2024-07-24T09:15:23-03:00", "2026-11-14T11:41:59.999999-03:00", 5, null, [7], null, null]
]""")

# (id, recorded norm id, assunto, file name)
ANEXOS = [
    (1, 1, "Anexo I - Pontos de estacionamento de moto-táxi", "anexo_i_-_pontos_de_moto-taxi.pdf"),
    (2, 1, "Anexo II - Modelo de colete de identificação do mototaxista",
     "anexo_ii_-_modelo_de_colete.pdf"),
]

# (id, principal, relacionada, tipo_vinculo, resumo), recorded ids; ordered as SAPL lists them
RELATIONS = [
    (3, 11, 4, 1, "Altera os arts. 2º e 3º."),
    (2, 1, 4, 2, "Revoga integralmente a Lei nº 1.996/2008 (art. 6º)."),
    (1, 2, 1, 1, "Altera o art. 2º"),
]

LEI_2199_PAGES = [
    """MUNICÍPIO DE JUAZEIRO
ESTADO DA BAHIA
LEI Nº 2.199/2011
Dispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do
Município de Juazeiro, e dá outras providências.
O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições
legais, com fulcro no art. 61, inc. IV, da Lei Orgânica do Município, combinado com o art. 39-B da
Lei Federal nº 12.009, de 29 de julho de 2009, faço saber que a Câmara Municipal aprovou, e eu
sanciono e promulgo a seguinte Lei:
Art. 1º. Fica instituído no Município de Juazeiro o serviço de transporte individual de
passageiros denominado "moto-táxi" e o serviço de entrega de mercadorias, porta a porta, em
veículos automotores do tipo motocicleta denominado "moto-entrega".
Art. 2º. Para os fins específicos desta Lei, considera-se:
I - moto-táxi: o serviço de transporte individual de passageiros, em veículos automotores
do tipo motocicleta;
II - moto-entrega: o serviço de entrega de mercadorias, porta a porta, em veículos
automotores do tipo motocicleta.
Art. 3º. A exploração dos serviços de que trata esta Lei será executada exclusivamente por
profissionais autônomos, mediante permissão conferida pelo Município, de conformidade com os
interesses e as necessidades da população, nos termos do respectivo regulamento.
Parágrafo único. A permissão de que trata o caput será pessoal e intransferível.
Art. 4º. A permissão será outorgada para profissionais autônomos (motociclistas), em caráter
de exclusividade e pelo prazo de 5 (cinco) anos, desde que atendidos todos os requisitos legais.
Art. 5º. O máximo de motocicletas que operacionalizarão o serviço de moto-táxi e moto-
entrega, de acordo com certidão oficial pelo Instituto Brasileiro de Geografia e Estatística (IBGE),
será da seguinte forma:
I - em média 3,5 (três e meio) moto-taxistas para cada 1.000 habitantes ou fração;
II - 01 (uma) moto-entrega para cada 12.000 (doze mil) habitantes ou fração.""",
    """MUNICÍPIO DE JUAZEIRO
ESTADO DA BAHIA
§ 1º. Não estão incluídos nos serviços de que trata o caput deste artigo, a entrega promovida
por lojas, bares, restaurantes e similares que possuam sistema próprio.
§ 2º. Cada permissionário do serviço de moto-táxi e/ou moto-entrega somente poderá
registrar o número máximo de 01 (uma) moto-táxi ou 01 (uma) moto-entrega.
Art. 6º. Para o exercício dos serviços de que trata esta lei, é necessário:
I - possuir habilitação na categoria compatível;
II - ter idade mínima de 21 (vinte e um) anos;
III - ter pelo menos 02 (dois) anos de habilitação na categoria A;
IV - possuir prova de sanidade física e mental mediante atestado médico datado de há pelo
menos trinta dias;
V - estar residindo há pelo menos 03 (três) anos no Município de Juazeiro.
(...)
Art. 31. Ficam revogadas as disposições em contrário, especialmente as contidas na Lei
Municipal nº 1.996, de 06 de novembro de 2008.
Art. 33. Esta Lei entra em vigor na data de sua publicação.
GABINETE DO PREFEITO MUNICIPAL DE JUAZEIRO, ESTADO DA BAHIA, em
27 de junho de 2011.""",
]

_FIELDS = ("id", "numero", "ano", "data", "data_publicacao", "veiculo_publicacao", "ementa",
           "indexacao", "observacao", "timestamp", "data_ultima_atualizacao", "tipo",
           "texto_integral", "assuntos", "pagina_inicio_publicacao", "pagina_fim_publicacao")


def norms() -> list[dict]:
    """The sample norms as plain dicts (ids renumbered), texto_integral a file name or None."""
    found = []
    for row in _NORMS:
        item = dict(zip(_FIELDS, row, strict=True))
        item["id"] += ID_OFFSET
        found.append(item)
    return found


def anexos() -> list[dict]:
    return [{"id": i, "norma": n + ID_OFFSET, "assunto_anexo": a, "file": f}
            for i, n, a, f in ANEXOS]


def relations() -> list[dict]:
    return [{"id": i, "norma_principal": p + ID_OFFSET, "norma_relacionada": r + ID_OFFSET,
             "tipo_vinculo": t, "resumo": s} for i, p, r, t, s in RELATIONS]


# -- the files --------------------------------------------------------------------------------


def scanned_pdf(pages: list[str], seed: int = 2199) -> bytes:
    """Pages of text rendered as slightly tilted, noisy grey images in a PDF: a scan."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    rng = random.Random(seed)
    font = _font(ImageFont, 26)
    images = []
    for text in pages:
        image = Image.new("L", (1654, 2339), 255)  # A4 at 200 dpi
        draw = ImageDraw.Draw(image)
        y = 140
        for line in text.splitlines():
            bold = line.isupper()
            draw.text((150, y), line, fill=25 if bold else 40, font=font)
            y += 44
        image = image.rotate(rng.uniform(-0.6, 0.6), fillcolor=255, resample=Image.BICUBIC)
        image = image.filter(ImageFilter.GaussianBlur(0.6))
        pixels = image.load()
        for _ in range(4000):  # specks of dust
            pixels[rng.randrange(image.width), rng.randrange(image.height)] = rng.randrange(90, 200)
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=200.0, save_all=True, append_images=images[1:])
    return out.getvalue()


def _font(image_font, size: int):
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
                 "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return image_font.truetype(path, size)
        except OSError:
            continue
    return image_font.load_default(size)


def text_pdf(title: str, body: str) -> bytes:
    """A born-digital one-page PDF with a text layer."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4, invariant=1)
    pdf.setTitle(title)
    y = 800
    pdf.setFont("Helvetica-Bold", 13)
    pdf.drawString(60, y, title)
    pdf.setFont("Helvetica", 11)
    for line in body.splitlines():
        y -= 18
        pdf.drawString(60, y, line)
    pdf.showPage()
    pdf.save()
    return out.getvalue()


def docx(paragraphs: list[str]) -> bytes:
    """A minimal valid DOCX (WordprocessingML in a zip)."""
    from xml.sax.saxutils import escape

    body = "".join(f"<w:p><w:r><w:t>{escape(p)}</w:t></w:r></w:p>" for p in paragraphs)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxml'
                   'formats.org/package/2006/content-types"><Default Extension="rels" ContentType'
                   '="application/vnd.openxmlformats-package.relationships+xml"/><Default Exten'
                   'sion="xml" ContentType="application/xml"/><Override PartName="/word/document'
                   '.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocess'
                   'ingml.document.main+xml"/></Types>')
        z.writestr("_rels/.rels",
                   '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
                   'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type='
                   '"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeD'
                   'ocument" Target="word/document.xml"/></Relationships>')
        z.writestr("word/document.xml",
                   '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.o'
                   'penxmlformats.org/wordprocessingml/2006/main"><w:body>' + body
                   + "</w:body></w:document>")
    return out.getvalue()


def odt(paragraphs: list[str]) -> bytes:
    """A minimal valid ODT (mimetype first and stored, then content.xml)."""
    from xml.sax.saxutils import escape

    body = "".join(f"<text:p>{escape(p)}</text:p>" for p in paragraphs)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.text")
        z.writestr("META-INF/manifest.xml",
                   '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn'
                   ':oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><ma'
                   'nifest:file-entry manifest:full-path="/" manifest:media-type="application/v'
                   'nd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="conte'
                   'nt.xml" manifest:media-type="text/xml"/></manifest:manifest>',
                   compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("content.xml",
                   '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office'
                   '="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:n'
                   'ames:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><off'
                   'ice:text>' + body + "</office:text></office:body></office:document-content>",
                   compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


@cache
def files() -> dict[str, bytes]:
    """Every file of the sample câmara by its /media path."""
    by_id = {n["id"]: n for n in norms()}
    found: dict[str, bytes] = {}
    for n in by_id.values():
        if not n["texto_integral"]:
            continue
        path = f"/media/sapl/public/normajuridica/{n['ano']}/{n['id']}/{n['texto_integral']}"
        name = n["texto_integral"]
        heading = f"Norma nº {n['numero']}/{n['ano']} - Município de Juazeiro"
        if n["id"] == LEI_2199:
            found[path] = scanned_pdf(LEI_2199_PAGES)
        elif name.endswith(".pdf"):
            found[path] = text_pdf(heading, _wrap(n["ementa"]))
        elif name.endswith(".docx"):
            found[path] = docx([heading, n["ementa"]])
        else:
            found[path] = odt([heading, n["ementa"]])
    for a in anexos():
        norm = by_id[a["norma"]]
        path = f"/media/sapl/public/anexonormajuridica/{norm['ano']}/{a['id']}/{a['file']}"
        found[path] = text_pdf(a["assunto_anexo"], "Lei nº 2.199, de 27 de junho de 2011.")
    return found


def _wrap(text: str, width: int = 80) -> str:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + len(word) + 1 > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n".join(lines + [line])
