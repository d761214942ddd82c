# Encore — the two commands of the README are `make run` and `make test`.
SHELL := /bin/bash
UV_VERSION := 0.13.8
export UV_PYTHON_DOWNLOADS := never
export UV_LINK_MODE := copy
UV := $(shell command -v uv 2>/dev/null || echo $(CURDIR)/.tools/bin/uv)
PY := $(CURDIR)/.venv/bin/python
MANAGE := cd src && $(PY) manage.py

.PHONY: run test install lint bench migrate demo serve clean contract screens

$(CURDIR)/.tools/bin/uv:
	python3 -m venv $(CURDIR)/.tools
	$(CURDIR)/.tools/bin/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

install: $(if $(findstring .tools,$(UV)),$(CURDIR)/.tools/bin/uv)
	$(UV) sync --frozen --quiet

## axe-core for the browser tests (the only entry of package.json), again when the lock
## changes. Only `make test` needs it, so `make run` works without npm.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --silent --no-audit --no-fund

## Serve the API with a worker and the beat scheduler on embedded defaults, demo data loaded.
run: install
	@bash scripts/run.sh

## The whole suite: PostgreSQL when DATABASE_URL is set, else SQLite. TEST_PROCESSES test
## processes share it (pytest-xdist, one test database and Redis database range each; a
## file's tests stay together, and so do the groups marked `xdist_group`).
TEST_PROCESSES ?= 3
test: install node_modules/.package-lock.json
	$(PY) -m pytest -n $(TEST_PROCESSES) --dist loadgroup $(PYTEST_ARGS)

## Every checker runs even when an earlier one fails, so one CI pass shows all problems.
lint: install
	@status=0; \
	echo "ruff check ."; $(PY) -m ruff check . || status=1; \
	echo "ruff format --check ."; $(PY) -m ruff format --check . || status=1; \
	echo "mypy src bench"; $(PY) -m mypy src bench || status=1; \
	echo "lint-imports (the layering contract)"; (cd src && $(CURDIR)/.venv/bin/lint-imports --no-cache $(CURDIR)/pyproject.toml) || status=1; \
	exit $$status

## Regenerate docs/spec/openapi.json and docs/spec/routes.txt (test_contract_snapshots
## compares the served ones with them): only when a change means to alter the contract.
contract: install
	cd src && DJANGO_SETTINGS_MODULE=encore.pytest_settings $(PY) -c "import django; django.setup(); \
	from encore.tests.test_contract_snapshots import OPENAPI, ROUTES, openapi_text, routes_text; \
	OPENAPI.write_text(openapi_text()); ROUTES.write_text(routes_text())"

## A screenshot of every page of docs/spec/ui.md at 1280 and 390 px into docs/screens/:
## the demo of `make run` in a throwaway directory, Debian's Chromium (CHROMIUM_PATH).
screens: install
	$(PY) scripts/screens.py

bench: install
	$(PY) -m bench

migrate: install
	$(MANAGE) migrate --noinput

clean:
	rm -rf var .tools .venv node_modules
