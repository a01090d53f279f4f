"""The command line as a user meets it: init, jurisdictions, status."""

from __future__ import annotations

import json

from tests.conftest import run_cli


def test_init_jurisdictions_and_status(tmp_path, database_url):
    corpus = tmp_path / "corpus"
    args = ["init", str(corpus)] + (["--db", database_url] if database_url else [])
    out = run_cli(*args, check=True).stdout
    assert "5,597 jurisdictions loaded" in out
    assert (corpus / "locleg.toml").is_file() and (corpus / "originals").is_dir()
    assert (corpus / "corpus.db").is_file() == (database_url is None)

    found = json.loads(run_cli("jurisdictions", "--uf", "ba", "--search", "JUAZEIRO", "--json",
                               corpus=corpus, check=True).stdout)
    assert found == [{"ibge_code": 2918407, "level": "municipal", "uf": "BA",
                      "name": "Juazeiro", "lexml_label": "br;bahia;juazeiro"}]
    table = run_cli("jurisdictions", "--uf", "DF", "--corpus", str(corpus), check=True).stdout
    assert "br;distrito.federal" in table and "distrital" in table

    status = json.loads(run_cli("status", "--json", corpus=corpus, check=True).stdout)
    for key in ("norms", "documents", "versions", "pending", "extracted", "empty", "failed"):
        assert status[key] == 0
    assert status["jurisdictions"] == 5597
    by = json.loads(run_cli("status", "--json", "--by", "jurisdiction", corpus=corpus,
                            check=True).stdout)
    assert by["by_jurisdiction"] == []


def test_init_refuses_an_existing_corpus(tmp_path):
    run_cli("init", str(tmp_path / "c"), check=True)
    again = run_cli("init", str(tmp_path / "c"))
    assert again.returncode == 2 and "already holds a corpus" in again.stderr


def test_unknown_search_gives_a_clear_line(tmp_path):
    run_cli("init", str(tmp_path / "c"), check=True)
    result = run_cli("jurisdictions", "--search", "atlantida", corpus=tmp_path / "c")
    assert result.returncode == 2 and result.stderr.startswith("error: no jurisdiction matches")
