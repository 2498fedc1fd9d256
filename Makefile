# The course's commands. The two that matter:
#   make lab    set up (first time) and open the course in JupyterLab
#   make test   set up (first time) and run every test, notebook and exercise check
# Setup creates .venv with the python3 on your PATH and installs this package with its test
# extras. Set TORCH to choose the PyTorch build, e.g. `make test TORCH=torch==2.13.0`;
# by default pip picks the ordinary PyTorch for your machine.

PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch>=2.7
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.course-installed
PORT   ?= 8888
# Jupyter refuses to start as root (common in containers) unless told it is on purpose.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: lab test setup pairs exercises check-pairs bench bench-transfer bench-grading grade-demo gpu-wheels gpu-verify clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --port=$(PORT) $(ROOT_FLAG) notebooks/01_device_query.ipynb

test: $(STAMP)
	$(BIN)/python -m pytest

# Authoring: edit the .py side, then rebuild the .ipynb side and the exercises.
pairs: $(STAMP)
	$(BIN)/python -m course_utils.pairing --write --dirs notebooks solutions
	$(BIN)/python -m course_utils.exercises --write

exercises: $(STAMP)
	$(BIN)/python -m course_utils.exercises --write

check-pairs: $(STAMP)
	$(BIN)/python -m course_utils.pairing

clean:
	rm -rf $(VENV) .pytest_cache build src/*.egg-info

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
# offline on the GPU machine, recording evidence/<gpu>.json.
GPU_PYTHON ?= 3.12
gpu-wheels:
	scripts/prepare-gpu-wheels --python $(GPU_PYTHON) --out build/gpu-wheels

gpu-verify:
	scripts/gpu-verify --wheels build/gpu-wheels
