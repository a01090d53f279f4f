# The project's set-up contract: `make demo` and `make test` on a fresh Debian 12 machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO := demo-corpus
# Debian packages the pipeline and the suite use; installed with apt-get when missing.
SYSTEM_PACKAGES := tesseract-ocr tesseract-ocr-por poppler-utils postgresql postgresql-contrib \
	libmagic1 fonts-dejavu-core chromium

.PHONY: install system-packages demo test bench lint clean

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
	$(BIN)/python -m locleg.samples $(DEMO)/sample-documents
	$(BIN)/locleg import $(DEMO)/sample-documents/manifest.csv --corpus $(DEMO)
	$(BIN)/locleg extract --corpus $(DEMO)
	$(BIN)/locleg status --by jurisdiction --corpus $(DEMO)

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/ingest.py

lint: install
	$(BIN)/ruff check src tests bench

clean:
	rm -rf $(VENV) $(DEMO) build *.egg-info src/*.egg-info
