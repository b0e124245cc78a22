# mnemo: every target the README names. `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8080
HOST ?= 127.0.0.1

.PHONY: query-towers search-model api-docs install install-run run test unit integration e2e eval lint bench demo clean fuzz synth checkov train-extractor train-judge train-encoder \
	train-query-slots \
	query-model lock footprint ts-client ts-test
# jsii (under aws-cdk-lib) warns at every start that Node 20 is past its end of life; 20 is what this machine has
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export CDK_DISABLE_CLI_TELEMETRY := true
CDK := node_modules/.bin/cdk

# Two layers in one venv: `make run` installs the core only (requirements.lock: what the embedded
# server needs, ~300 MB); every development target adds the aws extra and the dev group on top
# (requirements-aws.lock, requirements-dev.lock: CDK, moto, pytest, linters).
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed-dev

$(RUN_STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP) requirements-aws.lock requirements-dev.lock
	$(BIN)/python -m pip install --quiet -r requirements-dev.lock
	touch $(STAMP)

install-run: $(RUN_STAMP)

install: $(STAMP)

run: $(RUN_STAMP)
	$(BIN)/mnemo serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# a tool whose pins clash with ours gets its own venv, .venv-<name>, from requirements-<name>.lock
.venv-%/.installed: requirements-%.lock
	test -x .venv-$*/bin/python || $(PYTHON) -m venv .venv-$*
	.venv-$*/bin/python -m pip install --quiet -r $<
	touch $@

# checkov pins boto3 and packaging older than ours
CHECKOV_VENV := .venv-checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed

checkov: $(CHECKOV_STAMP)

# fine-tuning the extraction encoder needs PyTorch and transformers, which neither the service nor the
# tests use (about 1 GB; torch's CPU build)
TRAIN_VENV := .venv-train
TRAIN_STAMP := $(TRAIN_VENV)/.installed

# the TypeScript client (clients/typescript): its pinned npm packages, its types generated from the
# served OpenAPI document, and its tests against a real `mnemo serve` (Node 20+)
TS := clients/typescript
TS_STAMP := $(TS)/node_modules/.installed
$(TS_STAMP): $(TS)/package.json $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund --loglevel=error
	touch $(TS_STAMP)

ts-client: $(STAMP) $(TS_STAMP)
	$(BIN)/python tools/openapi_document.py $(TS)/openapi.json
	cd $(TS) && npm run --silent generate

ts-test: $(STAMP) $(TS_STAMP)
	cd $(TS) && MNEMO_PYTHON=$(abspath $(BIN)/python) npm test --silent

# tests/infra/test_template_checks.py runs cfn-lint and checkov on both stages' templates
test: $(STAMP) $(CHECKOV_STAMP) lint synth ts-test
	MNEMO_REQUIRE_CHECKOV=1 MNEMO_CHECKOV=$(CHECKOV_VENV)/bin/checkov $(BIN)/python -m pytest -q

# the CDK CLI pinned in package.json (aws-cdk 2.1148.x); both stages of cdk.json, with the arm64 bundles (one per
# set of models, infra/bundling.py; the packages are pip-installed once into build/lambda-packages)
$(CDK): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(CDK)

synth: $(STAMP) $(CDK)
	$(CDK) synth --quiet --no-notices -c stage=dev -o cdk.out/dev
	$(CDK) synth --quiet --no-notices -c stage=prod -o cdk.out/prod
	$(BIN)/python -m infra.bundling --synthesised cdk.out/dev

unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

e2e: $(STAMP)
	$(BIN)/python -m pytest -q tests/e2e

eval: $(STAMP)
	$(BIN)/python -m pytest -q tests/eval

# the long variants: hypothesis at ten times the examples, schemathesis at 200 per operation
fuzz: $(STAMP)
	MNEMO_FUZZ_SCALE=10 MNEMO_FUZZ_EXAMPLES=200 $(BIN)/python -m pytest -q tests/fuzz

bench: $(STAMP)
	$(BIN)/python tests/bench/run_all.py

# the learned extractor's tagger (writes shared/mnemo/models/extractor_tagger.npz), over the fine-tuned encoder
train-extractor: $(STAMP)
	$(BIN)/python -m mnemo.training.extractor

# the judge of the learned extractor's candidates (writes shared/mnemo/models/extractor_judge.npz; ~7 min: five
# fold taggers, each extractor run over the fold it did not see; off by default, MNEMO_EXTRACTOR_JUDGE_KEEP_AT_LEAST)
train-judge: $(STAMP)
	$(BIN)/python -m mnemo.training.judge

# the judge of whether a message ends a stored fact (writes shared/mnemo/models/ending.npz; seconds; off by
# default, MNEMO_ENDING_ENABLED; tests/eval/ending.py scores it on its blind check set)
train-ending: $(STAMP)
	$(BIN)/python -m mnemo.training.ending --folds 5

# the cross-encoder that confirms the judge's endings (writes shared/mnemo/models/ending-cross-int8.onnx, not
# shipped; about 12 minutes on 2 cores, in the training venv)
train-ending-encoder: $(TRAIN_STAMP)
	PYTHONPATH=shared $(TRAIN_VENV)/bin/python -m mnemo.training.ending_encoder

# issue 15, measured and not shipped: query towers fine-tuned on LoCoMo's tuning half, one per held-out tuning
# conversation and one on all three, into build/query-towers (about 3 minutes each on 2 cores, in the training
# venv); tests/bench/locomo_query_tower.py --towers build/query-towers [--half checking] scores them
LOCOMO ?= ../shared/data/locomo-dev.json
query-towers: $(TRAIN_STAMP)
	for held in conv-26 conv-41 conv-43; do \
	  PYTHONPATH=shared:tests/bench $(TRAIN_VENV)/bin/python -m mnemo.training.query_tower --data $(LOCOMO) \
	    --half tuning --hold-out $$held --out build/query-towers/$$held.onnx || exit 1; done
	PYTHONPATH=shared:tests/bench $(TRAIN_VENV)/bin/python -m mnemo.training.query_tower --data $(LOCOMO) \
	  --half tuning --out build/query-towers/all.onnx

# search's query encoder, shipped in shared/mnemo/models (a few minutes on 2 cores, in the training venv):
# fine-tuned on the conversations written for it (never on LoCoMo, which is for evaluation only); put the
# checksum it prints in model_checksums.py
search-model: $(TRAIN_STAMP)
	PYTHONPATH=shared:tests/bench $(TRAIN_VENV)/bin/python -m mnemo.training.query_tower \
	  --data shared/mnemo/training/data/search/*.json --out shared/mnemo/models/minilm-search-dynint8.onnx
	sha256sum shared/mnemo/models/minilm-search-dynint8.onnx

# which kinds of fact a request needs (writes shared/mnemo/models/query_slots.npz; seconds)
train-query-slots: $(STAMP)
	$(BIN)/python -m mnemo.training.query_slots

# the extraction encoder: MiniLM fine-tuned on shared/mnemo/training/data (about 20 minutes on 2 cores;
# writes shared/mnemo/models/extractor-encoder-int8.onnx: put its checksum in model_checksums.py), then
# the tagger's heads on it
train-encoder: $(TRAIN_STAMP)
	PYTHONPATH=shared $(TRAIN_VENV)/bin/python -m mnemo.training.encoder
	$(MAKE) train-extractor

# docs/api.md from the OpenAPI document (tests/integration/test_openapi.py fails when it is stale)
api-docs: $(RUN_STAMP)
	$(BIN)/python -m mnemo.api.reference docs/api.md

demo: $(RUN_STAMP)
	$(BIN)/mnemo demo

# the embedding model's query twin shipped in shared/mnemo/models, derived again (needs onnx: dev)
query-model: $(STAMP)
	$(BIN)/python -m mnemo.training.query_model

# the three lock files from pyproject.toml and the versions installed in .venv (tools/locks.py)
lock: $(STAMP)
	$(BIN)/python tools/locks.py

# a fresh clone's `make install-run`: the venv's size and the time to the first healthy /health
footprint:
	$(PYTHON) tests/bench/install_footprint.py

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) .mypy_cache .pytest_cache .ruff_cache build *.egg-info shared/*.egg-info cdk.out node_modules \
		$(TS)/node_modules $(TS)/dist
