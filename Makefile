# The project's set-up contract: `make demo` and `make test` on a fresh Debian 12 machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO := demo-corpus
DEMO_PORT ?= 8000
DEMO_SAPL_PORT ?= 8765
# Debian packages the pipeline and the suite use; installed with apt-get when missing.
SYSTEM_PACKAGES := tesseract-ocr tesseract-ocr-por poppler-utils postgresql postgresql-contrib \
	libmagic1 fonts-dejavu-core antiword chromium hunspell-pt-br libenchant-2-2

.PHONY: install system-packages demo demo-harvest test bench lint clean

install: system-packages $(VENV)/.installed

system-packages:
	@missing=""; for p in $(SYSTEM_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

demo: install
	rm -rf $(DEMO)
	$(BIN)/locleg init $(DEMO)
	@echo "== a local dump: born-digital PDFs, a scan, HTML and TXT, with a manifest"
	$(BIN)/python -m locleg.fixtures.samples $(DEMO)/sample-documents --corpus $(DEMO)
	$(BIN)/locleg import $(DEMO)/sample-documents/manifest.csv --corpus $(DEMO)
	$(MAKE) --no-print-directory demo-harvest
	@echo "== text of every document, OCR included"
	$(BIN)/locleg extract --corpus $(DEMO)
	$(BIN)/locleg status --by jurisdiction --corpus $(DEMO)
	$(BIN)/locleg sources list --corpus $(DEMO)
	@echo "== the explorer: open http://127.0.0.1:$(DEMO_PORT)/ (Ctrl-C to stop)"
	$(BIN)/locleg serve --host 127.0.0.1 --port $(DEMO_PORT) --corpus $(DEMO)

# The demo's harvest of a SAPL câmara, on its own: the fixture server lives as long as the
# harvest. One shell for both, whose trap ends the server on any exit, Ctrl-C included, so
# the next `make demo` finds the port free (tests/test_first_hour.py interrupts it).
DEMO_SAPL_DELAY ?= 0.2
demo-harvest:
	@echo "== a SAPL câmara (Juazeiro) served on 127.0.0.1:$(DEMO_SAPL_PORT), harvested politely"
	$(BIN)/python -m locleg.fixtures.sapl_server --port $(DEMO_SAPL_PORT) \
		--crawl-delay $(DEMO_SAPL_DELAY) --pidfile $(DEMO)/sapl.pid && \
	trap 'kill $$(cat $(DEMO)/sapl.pid) 2>/dev/null; rm -f $(DEMO)/sapl.pid' EXIT && \
	trap 'exit 130' INT TERM HUP && \
	$(BIN)/locleg sources add sapl http://127.0.0.1:$(DEMO_SAPL_PORT) --jurisdiction 2918407 \
		--corpus $(DEMO) && $(BIN)/locleg harvest --all --corpus $(DEMO)

test: install
	$(BIN)/python -m pytest

# The explorer bench builds and caches a 1M-norm corpus under bench/out/ (~45 min, 15 GB).
bench: install
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/explorer_speed.py --norms 1000000
	$(BIN)/python bench/harvest_listing.py
	$(BIN)/python bench/harvest_fetch.py
	$(BIN)/python bench/extract_text_layer.py
	$(BIN)/python bench/extract_ocr.py
	$(BIN)/python bench/extract_ocr_quality.py
	$(BIN)/python bench/extract_needs_ocr.py
	$(BIN)/python bench/extract_mixed_corpus.py

lint: install
	$(BIN)/ruff check src tests bench

clean:
	rm -rf $(VENV) $(DEMO) build *.egg-info src/*.egg-info
