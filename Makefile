# The course's commands. The two that matter:
#   make lab    set up (first time) and open your workspace in JupyterLab
#   make test   set up (first time) and run every test, notebook and exercise check
# Setup creates .venv with the python3 on your PATH and installs the course, editable: `make lab`
# the learner's package with what a learner needs (the `lab` extra) and the authors' tools (its
# workspace copier), `make test` all three wings (learner, grader, authoring: docs/authoring.md,
# "Three wings") with the test tooling too (`test`), each with a stamp of its own, so `make test`
# after `make lab` adds only the test tools and the grader.
# PyTorch: scripts/install_torch.py chooses and says which. A torch already in .venv is kept; on
# Linux without an NVIDIA driver it installs the CPU wheel from https://download.pytorch.org/whl/cpu
# (pip's default index, the CUDA build, where that cannot be reached); elsewhere the ordinary wheel.
# Set TORCH to name one yourself, installed as named from pip's index: `make test TORCH=torch==2.13.0`.
# `make lab` copies the lessons and exercises the learner does not have yet into WORKSPACE
# (git ignores it) and never overwrites a file there; see course_authoring/workspace.py.
#   make test-matrix   the lowest and highest supported PyTorch (see MATRIX), each in its own
#                      .venv-torch-X.Y.Z, created once and reused, without the browser test
#                      and the rest of what MATRIX_LEAVES_OUT names (below)
#   make test-releases the same on every supported release (MATRIX_ALL), one after another

PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch>=2.7.1
# --named when TORCH came from the command line or the environment, not from the line above
TORCH_CHOICE = --torch "$(TORCH)"$(if $(filter file,$(origin TORCH)),, --named)
PYTEST_ARGS ?=
# The tested range's ends besides CI's CPU wheel: on Linux both are CUDA builds from PyPI, which
# on a machine without a driver is the "CUDA build, no driver" mode of notebook 01.
MATRIX ?= 2.14.1 2.7.1
# Every release the course admits, README's "Supported PyTorch" range: a release inside the range
# behaves differently from both ends (get_default_device() in 2.8.0 and 2.9.1). make test-releases
# runs them here; .github/workflows/releases.yml runs the same list on a schedule, one job each
# (tests/test_releases_workflow.py holds the three lists and sources.RELEASES equal).
MATRIX_ALL := 2.7.1 2.8.0 2.9.1 2.10.0 2.11.0 2.12.0 2.13.0 2.14.1
# MATRIX_DROP=1 removes each release's venv (a CUDA build: about 6 GB) once its tests have run.
MATRIX_DROP ?=
# "n" under `make -n`, which still runs a recipe line that calls $(MAKE): the matrix's loop then runs, and its
# removal of a venv must not (a dry run of the matrix once deleted the venv under test)
DRY_RUN = $(findstring n,$(firstword -$(MAKEFLAGS)))
# The matrix runs make test, which leaves the grader's defences (GRADER_DEFENCES: what a hostile or broken
# submission can do to a batch, which the grader decides, not torch) and nbgrader (its kernel imports torch
# from .venv, so it would re-test 2.13) to test-grader. It also leaves out the layers that do not depend on
# the torch under test (MATRIX_LEAVES_OUT): the browser (Lab rendering), the Colab install cell's fresh venv
# (it always installs the local CPU wheel 2.13.0), the suite's own tools (TORCH_FREE) and the sweeps (marked `sweep`:
# every draw of a grading run's cases, every helper as an answer; each release still meets every wrong answer on two
# draws and every lookup on 50, and the quick half of the helpers' sweep).
# Under each release the matrix still grades every solution through real kernels
# (tests/test_grading_boundary.py) and judges every drawn case in-process (tests/test_hidden_cases*.py).
GRADER_DEFENCES := $(foreach f,test_grading test_grading_attacks test_grading_copies test_grading_hidden_cases \
                     test_grading_hidden_cases_02_05 test_grading_hidden_cases_12 test_grading_hidden_cases_later_sets \
                     test_grading_judge_faults test_grading_kernels test_grading_limits test_grading_manifest \
                     test_grading_recipes test_grading_shards test_grading_trust,--ignore=tests/$(f).py)
# The suite's own tools, which import no torch behaviour: the nbval rules of the root conftest.py, ruff
# and import-linter, the pairing, the workflows, the add-a-lesson checklist, the site's building blocks.
TORCH_FREE := $(foreach f,test_suite_rules test_code_style test_pairing test_releases_workflow \
                test_macos_workflow test_lesson_checklist test_site_build,--ignore=tests/$(f).py)
NBGRADER_TESTS := tests/test_grading_nbgrader.py tests/test_grading_nbgrader_feedback.py
MATRIX_LEAVES_OUT := --ignore=tests/browser -m "not browser and not sweep" \
              --deselect tests/test_header.py::test_install_cell_in_a_fresh_environment_with_only_torch_and_jupyter \
              $(TORCH_FREE)
# The instructors' and the authors' distributions (src/course_grader, src/course_authoring), each
# built from a pyproject.toml of its own; the root pyproject.toml builds the learner's, course-utils.
WINGS  := -e ./wings/grader -e ./wings/authoring
WING_FILES := pyproject.toml wings/grader/pyproject.toml wings/authoring/pyproject.toml
BIN    := $(VENV)/bin
# The suite starts hundreds of Pythons (kernels, graders, torchrun's ranks, pytest's workers). Where the
# environment sets PYTHONDONTWRITEBYTECODE (some CI images do, this project's among them), every one of them
# compiled the course's modules again and every pytest process rewrote the asserts of every test file (3 s of
# each worker's start); the test targets let Python keep its bytecode (__pycache__, which git ignores).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
# ...and compile the checkout's modules before the run starts, for every kernel and judge to read: once a worker has
# collected, nothing writes bytecode (the root conftest.py's pytest_collection_finish), since a .pyc appearing in the
# checkout while another worker grades is named by the grader's watch (a planted .pyc is code). pip compiled the venv.
PRECOMPILE := $(BIN)/python -m compileall -q conftest.py src tests scripts benchmarks > /dev/null
STAMP  := $(VENV)/.course-installed
LAB_STAMP := $(VENV)/.course-lab-installed
WORKSPACE ?= workspace
PORT   ?= 8888
# Jupyter refuses to start as root (common in containers) unless told it is on purpose.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# nbgrader lives in a venv of its own layered over .venv (it sees the course's packages, torch and
# course_utils included, through a .pth file), so its JupyterLab extensions stay out of `make lab`.
NBGRADER_VENV  ?= .venv-nbgrader
NBGRADER       ?= nbgrader==0.9.6
NBGRADER_STAMP := $(NBGRADER_VENV)/.nbgrader-installed

.PHONY: lab workspace lab-course test test-grader test-fast test-lessons setup pairs exercises check-pairs bench bench-transfer bench-grading grade-demo clean nbgrader-env test-matrix test-releases gpu-wheels gpu-verify

setup: $(STAMP)

# Everything: the three wings, the learner's with its lab and test extras (make test, make pairs, CI).
$(STAMP): $(WING_FILES)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python scripts/install_torch.py $(TORCH_CHOICE)
	$(BIN)/python -m pip install --quiet -e ".[test]" $(WINGS)
	@touch $(STAMP) $(LAB_STAMP)

# What a learner needs: the course package with JupyterLab and Jupytext, no test tooling, with the
# optional `hf` extra (accelerate, for lesson 10's device_map part); and the authors' tools, whose
# workspace copier `make lab` runs (no grader).
$(LAB_STAMP): $(WING_FILES)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python scripts/install_torch.py $(TORCH_CHOICE)
	$(BIN)/python -m pip install --quiet -e ".[lab,hf]" -e ./wings/authoring
	@touch $(LAB_STAMP)

# The learner's own copies, then JupyterLab on them. The copy step writes only missing files.
workspace: $(LAB_STAMP)
	$(BIN)/python -m course_authoring.workspace --root . --workspace $(WORKSPACE)

lab: workspace
	cd $(WORKSPACE) && $(abspath $(BIN))/jupyter lab --port=$(PORT) $(ROOT_FLAG) 01_device_query.ipynb

# The repository itself in JupyterLab, for authors: each notebook once (its .py twin hidden).
lab-course: $(LAB_STAMP)
	$(BIN)/jupyter lab --port=$(PORT) $(ROOT_FLAG) --config=jupyter_server_config.py

# README's test command: the learner's package, the authors' tools, every lesson and solution under nbval, each
# solution graded through real kernels (tests/test_grading_boundary.py), the browser test. The instructors'
# grader's own defences are test-grader's, which CI runs right after it.
test: $(STAMP)
	$(PRECOMPILE)
	$(PYTEST) $(GRADER_DEFENCES) $(addprefix --ignore=,$(NBGRADER_TESTS)) $(PYTEST_ARGS)

# The instructors' wing on its own (docs/grading.md): what broken and hostile submissions can do to a batch
# (GRADER_DEFENCES: the sandbox, limits, the manifest, the watch, shards, replays and lookups, through real
# kernels) and the real nbgrader pipeline, in its own venv (nbgrader-env). A lesson or a helper changes none of it.
test-grader: $(STAMP) $(NBGRADER_STAMP)
	$(PRECOMPILE)
	$(PYTEST) $(patsubst --ignore=%,%,$(GRADER_DEFENCES)) $(NBGRADER_TESTS) $(PYTEST_ARGS)

# The authors' two quick loops, one for each thing they edit (about 30-35 s each on 2 cores), one worker per core
# (make test takes about 7 minutes). test-fast: the unit tests of the three wings, with the checks' logic against
# right and wrong answers. test-lessons: the lessons under nbval. Left for `make test`: whatever starts other
# programs (the browser, torchrun, nbgrader, kernels per submission, child Pythons: all marked slow; so are the
# sweeps of every wrong answer over 100 draws and of every lookup past its first 50), lesson 08 (torchrun), the
# solution notebooks, and the grader's own defences (make test-grader). Until this split test-fast ran both
# halves together: 80-88 s.
FAST := -m "not slow and not browser" --ignore=tests/browser $(GRADER_DEFENCES) $(addprefix --ignore=,$(NBGRADER_TESTS))
test-fast: $(STAMP)
	$(PRECOMPILE)
	PYTEST_XDIST_AUTO_NUM_WORKERS=$$(nproc) $(PYTEST) tests $(FAST) $(PYTEST_ARGS)

test-lessons: $(STAMP)
	$(PRECOMPILE)
	PYTEST_XDIST_AUTO_NUM_WORKERS=$$(nproc) $(PYTEST) notebooks -m "not slow" \
	    --ignore=notebooks/08_one_process_per_device.ipynb $(PYTEST_ARGS)

# Each release in turn, never two at once; a failing release does not stop the later ones, and
# the last line names every release that failed.
test-matrix:
	@failed=""; for v in $(MATRIX); do \
	    echo "=== torch==$$v in .venv-torch-$$v"; \
	    $(MAKE) --no-print-directory test VENV=.venv-torch-$$v TORCH=torch==$$v PYTEST_ARGS='$(MATRIX_LEAVES_OUT) $(PYTEST_ARGS)' \
	        || failed="$$failed $$v"; \
	    if [ -n "$(MATRIX_DROP)" ] && [ -z "$(DRY_RUN)" ]; then rm -rf .venv-torch-$$v; fi; \
	done; \
	if [ -n "$$failed" ]; then echo "=== test-matrix: failed on torch$$failed"; exit 1; fi; \
	echo "=== test-matrix: passed on torch $(MATRIX)"

test-releases:
	@$(MAKE) --no-print-directory test-matrix MATRIX='$(MATRIX_ALL)'

# Authoring: edit the .py side, then rebuild the .ipynb side and the exercises. First the
# Colab/Kaggle header of every lesson and solution (and README's link table) is (re)written from
# [project.urls] in pyproject.toml; `make exercises` points each exercise's header at itself.
pairs: $(STAMP)
	$(BIN)/python -m course_authoring.header --write
	$(BIN)/python -m course_authoring.pairing --write --dirs notebooks solutions
	$(BIN)/python -m course_authoring.exercises --write
	$(BIN)/python -m course_authoring.error_docs --write
	$(BIN)/python -m course_authoring.mac_page --write

exercises: $(STAMP)
	$(BIN)/python -m course_authoring.exercises --write

check-pairs: $(STAMP)
	$(BIN)/python -m course_authoring.header
	$(BIN)/python -m course_authoring.pairing

# The course as a static website in build/site/ (docs/authoring.md, "The website"): README, every
# lesson and exercise with the outputs of one execution (make test's nbval run when it has one for
# exactly these files, else executed here once), docs/. Sphinx + MyST-NB, the `site` extra.
SITE_STAMP := $(VENV)/.course-site-installed
.PHONY: site test-site

$(SITE_STAMP): $(WING_FILES) $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,site]" $(WINGS)
	@touch $(SITE_STAMP)

site: $(SITE_STAMP)
	$(BIN)/python -m course_authoring.site

# The site in Chromium (tests/browser/test_site.py): every page, link and anchor, the lessons'
# outputs, search. Builds first; the tests fail here, rather than skip, without a current build.
test-site: site
	$(PRECOMPILE)
	COURSE_SITE_REQUIRED=1 $(PYTEST) tests/browser/test_site.py -n 0 $(PYTEST_ARGS)

# Never the workspace: it holds the learner's answers.
clean:
	rm -rf $(VENV) $(NBGRADER_VENV) .venv-torch-* .pytest_cache build src/*.egg-info wings/*/build

nbgrader-env: $(NBGRADER_STAMP)

# Again when the overlay changes (it also links .venv's nbconvert templates, which generate_feedback needs).
$(NBGRADER_STAMP): $(STAMP) src/course_grader/nbgrader.py
	@test -x $(NBGRADER_VENV)/bin/python || $(BIN)/python -m venv $(NBGRADER_VENV)
	$(BIN)/python -m course_grader.nbgrader --overlay $(NBGRADER_VENV)
	$(NBGRADER_VENV)/bin/python -m pip install --quiet "$(NBGRADER)"
	@touch $(NBGRADER_STAMP)

# Measurement: the transfer helper against torch.utils.benchmark.Timer, and the class table.
bench: $(STAMP)
	$(BIN)/python benchmarks/transfer_fidelity.py

bench-transfer: $(STAMP)
	$(BIN)/python -m course_utils.transfer --out transfer-results

bench-grading: $(STAMP)
	$(BIN)/python benchmarks/grading_overhead.py

# Grading, end to end: one solved and one untouched notebook through course-grade.
grade-demo: $(STAMP)
	rm -rf build/grade-demo && mkdir -p build/grade-demo/submitted
	cp solutions/01_device_query_exercises.ipynb build/grade-demo/submitted/solved.ipynb
	cp exercises/01_device_query_exercises.ipynb build/grade-demo/submitted/untouched.ipynb
	$(BIN)/course-grade 01 build/grade-demo/submitted --out build/grade-demo/grades

# GPU verification (docs/gpu-verification.md): prepare wheels where there is network, then verify
# offline on the GPU machine, recording src/course_utils/evidence/recordings/<gpu>.json (shipped in the package).
GPU_PYTHON ?= 3.12
gpu-wheels:
	scripts/prepare-gpu-wheels --python $(GPU_PYTHON) --out build/gpu-wheels

gpu-verify:
	scripts/gpu-verify --wheels build/gpu-wheels
