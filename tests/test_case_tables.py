"""The learner's install holds no answers (issue 25, attack 5), and the checks' data is right.

The checks compare with tables of cases and expected results, or with judging code that solves no
exercise; the course's reference implementations live in ``tests/answer_references.py``, and the
tests here hold every table to them. ``check(..., show_answer=True)`` reads the answer from the
checkout's ``solutions/`` (``course_utils.checks.answers``), the same text as before the move.
"""

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import answer_references as ref
import pytest
import torch
from torch import nn

from course_utils.checks import all_exercises, all_try_its, check, get_exercise
from course_utils.checks.answers import course_answer, solutions_folder, where_it_lives
from course_utils.checks.nb01 import VISIBLE_ALWAYS, VISIBLE_CASES, _seen_by_torch
from course_utils.checks.nb04 import LANDING_CASES, LISTING_ANSWERS
from course_utils.checks.nb05 import INDEX_CASES
from course_utils.checks.nb08 import (
    DEVICE_IDS_ALWAYS,
    DEVICE_IDS_CASES,
    LAUNCHES,
    LAUNCHES_ALWAYS,
    RANK_CASES,
    SHARED_CASES,
)
from course_utils.checks.nb10 import (
    BUDGET_ALWAYS,
    BUDGET_CASES,
    BUDGET_MISTAKES,
    MATERIALIZE_MODELS,
    PLAN_ALWAYS,
    PLAN_CASES,
    PLAN_MISTAKES,
    PLAN_TOO_BIG,
    STATE_CASES,
    _constructed,
    _on_meta,
    _plan_of,
    _targets,
    _tensors,
)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
# a reference implementation by any of the names it has had, or an answer kept as a string
_SOLVING = re.compile(r"^\s*(def \w*_reference\b|def _reference_\w+|_ANSWER_\w+\s*=)", re.MULTILINE)


# --------------------------------------------------------------------------- no answers in the package


def test_the_package_holds_no_answer_and_no_reference_implementation():
    found = [
        f"{path.relative_to(ROOT)}: {match.group(1)}"
        for path in sorted(SRC.rglob("*.py"))
        for match in _SOLVING.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_guard_finds_an_answer_planted_in_the_package(tmp_path):
    """The pattern above is the test's whole strength: it must see both kinds of leak."""
    planted = 'def visible_gpus_reference(mask, physical):\n    return []\n\n_ANSWER_01_2 = """\\\nx\n"""\n'
    assert [m.group(1).split("(")[0] for m in _SOLVING.finditer(planted)] == ["def visible_gpus_reference", "_ANSWER_01_2 ="]


def test_no_checks_module_exposes_a_solver_a_notebook_could_import():
    """Attack 5 as a notebook would try it: every name the issue lists is gone from course_utils.checks."""
    import importlib

    names = {"nb01": "visible_gpus_reference", "nb04": "simulate_reference", "nb10": "_reference_materialize"}
    names |= {"nb05": "index_device_reference", "nb08": "_reference_pick"}
    for module, name in names.items():
        assert not hasattr(importlib.import_module(f"course_utils.checks.{module}"), name), (module, name)
    for module in ("nb04", "nb10"):
        mod = importlib.import_module(f"course_utils.checks.{module}")
        assert not any(hasattr(mod, n) for n in ("landing_reference", "_reference_state_devices", "replay")), module


# --------------------------------------------------------------------------- the answers, read from solutions/


def test_every_exercise_and_try_it_has_its_answer_in_the_checkout():
    missing = [
        id for id, ex in {**all_exercises(), **all_try_its()}.items() if id[:2].isdigit() and not ex.answer
    ]  # the course's own, not an exercise a test registered
    assert missing == []
    assert solutions_folder() == ROOT / "solutions"


def test_an_exercise_answer_is_its_solution_cell_without_the_markers():
    answer = get_exercise("01.4").answer
    assert answer == (
        "def current_cuda_index() -> int | None:\n    if not torch.cuda.is_available():\n"
        "        return None\n    return torch.cuda.current_device()\n"
    )
    assert get_exercise("01.b").answer == 'mask = "3,1"\n'


def test_show_answer_shows_the_checkout_answer():
    result = check("01.2", lambda mask, physical: [], show_answer=True)
    assert result.status == "fail" and result.answer == get_exercise("01.2").answer
    assert result.answer.startswith("def visible_gpus(mask: str, physical: int) -> list[int]:\n")


def test_outside_a_checkout_the_check_says_where_the_answer_lives(tmp_path, monkeypatch):
    """A notebook run away from the course repository (a graded kernel's staged package) gets a pointer."""
    staged = tmp_path / "site" / "course_utils" / "checks"
    staged.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("course_utils.checks.answers.__file__", str(staged / "answers.py"))
    assert solutions_folder() is None and course_answer("01.2", "visible_gpus") == ""
    result = check("01.2", lambda mask, physical: [], show_answer=True)
    assert result.answer == ""
    assert "solutions/01_device_query_exercises.ipynb in the course repository" in result.ask
    assert where_it_lives("03.a") == "solutions/try_its/03_model_placement.py"
    assert check("01.2", lambda mask, physical: []).answer == ""


def test_a_learners_workspace_finds_the_answers_upward(tmp_path, monkeypatch):
    (tmp_path / "solutions" / "try_its").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "solutions" / "try_its" / "01_device_query.py").write_text("# %% try-it 01.a\nx = 1\n\n# %% try-it 01.b\nmask = '0'\n")
    (tmp_path / "workspace" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "workspace" / "deep")
    assert course_answer("01.b", "mask") == "mask = '0'\n"
    assert course_answer("01.a", "usable_device") == "x = 1\n"


# --------------------------------------------------------------------------- the tables against the references


def test_the_generated_04_table_is_current():
    """``python tests/answer_references.py`` rewrites it; a stale one fails here."""
    assert ref.CASES_NB04.read_text(encoding="utf-8") == ref.cases_nb04_text()


def test_04_tables_follow_the_reference_model():
    assert list(LISTING_ANSWERS) == ref.listing_answers()
    for spec, current, expected in LANDING_CASES:
        assert ref.landing_reference(spec, current) == expected, (spec, current)


def test_visible_cases_follow_the_reference_and_torch():
    for mask, physical, expected in (*VISIBLE_CASES, *VISIBLE_ALWAYS):
        assert ref.visible_gpus_reference(mask, physical) == expected, mask
        assert _seen_by_torch(mask, physical) == expected, mask


def test_01b_reads_masks_as_torch_and_the_reference_do(monkeypatch):
    """The 01.b check reads any mask with torch's own parser: the course's rules, and the environment put back."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "kept")
    rng = random.Random(0)
    for _ in range(500):
        entries = [rng.choice(["0", "1", "2", "3", "7", "-1", "x", " 2 ", "1gpu", "cuda:1"]) for _ in range(rng.randint(1, 4))]
        mask, physical = ",".join(entries), rng.randint(1, 4)
        assert _seen_by_torch(mask, physical) == ref.visible_gpus_reference(mask, physical), (mask, physical)
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "kept"
    assert _seen_by_torch("GPU-5ac0b0d3,GPU-12", 4) == [] and _seen_by_torch("1\0", 4) == []


def test_05_and_08_tables_follow_the_references():
    for table, index, expected in INDEX_CASES:
        assert ref.index_device_reference(table, index) == expected, (table, index)
    for _, envs, gpus, devices in (*LAUNCHES, *LAUNCHES_ALWAYS):
        assert [ref.reference_pick(env, gpus) for env in envs] == list(devices)
    for rank, count, device in RANK_CASES:
        assert ref.reference_device_for_rank(rank, count) == torch.device(device)
    for device, expected in (*DEVICE_IDS_CASES, *DEVICE_IDS_ALWAYS):
        assert ref.reference_ddp_device_ids(device) == expected, device
    for devices, expected in SHARED_CASES:
        assert ref.reference_shared_gpus(devices) == expected, devices


def test_10_2_table_follows_the_reference_and_names_each_mistake_by_its_plan():
    """Every plan in the table is the reference's; each wrong answer's plan is the one its knob gives."""
    assert set(ref.MISTAKE_VARIANTS) == set(PLAN_MISTAKES)
    for what, build, budgets, devices, mistakes in (*PLAN_CASES, *PLAN_ALWAYS):
        model = build()
        assert ref.reference_plan_device_map(model, budgets) == _plan_of(model, devices), what
        for key, knob in ref.MISTAKE_VARIANTS.items():
            plan = ref.plan_variant(model, budgets, **knob)
            if key in mistakes:
                assert plan == (None if mistakes[key] is None else _plan_of(model, mistakes[key])), (what, key)
            else:
                assert plan == _plan_of(model, devices), (what, key)  # this mistake changes nothing here
    for _what, build, budgets in PLAN_TOO_BIG:
        with pytest.raises(ValueError):
            ref.reference_plan_device_map(build(), budgets)
    assert all(any(key in m for *_, m in (*PLAN_CASES, *PLAN_ALWAYS)) for key in PLAN_MISTAKES)  # each mistake is told apart once


def test_10_2_reference_fills_in_order_never_goes_back_and_an_exact_fit_fits():
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(500, 1000), nn.Linear(1000, 2000), nn.Linear(2000, 10))
        pair = nn.Sequential(nn.Linear(1000, 1000), nn.Linear(1000, 1000))  # 4,004,000 bytes each
    plan = ref.reference_plan_device_map(model, {"cuda:0": 4_000_000, "cuda:1": 20_000_000})
    assert plan == {"0": torch.device("cuda:0"), "1": torch.device("cuda:1"), "2": torch.device("cuda:1")}
    assert set(ref.reference_plan_device_map(pair, {"cpu": 8_008_000}).values()) == {torch.device("cpu")}
    assert set(ref.reference_plan_device_map(pair, {"cuda:0": 100, "cuda:1": 8_008_000}).values()) == {torch.device("cuda:1")}


def test_10_4_table_follows_the_reference_and_names_each_mistake_by_its_budget():
    assert set(ref.BUDGET_VARIANTS) == set(BUDGET_MISTAKES)
    for what, build, on_cpu, budget, mistakes in (*BUDGET_CASES, *BUDGET_ALWAYS):
        model = build()
        assert ref.reference_cpu_budget(model, on_cpu) == budget, what
        for key, knob in ref.BUDGET_VARIANTS.items():
            if key in mistakes:
                assert ref.reference_cpu_budget(model, on_cpu, **knob) == mistakes[key] != budget, (what, key)
    assert all(any(key in m for *_, m in (*BUDGET_CASES, *BUDGET_ALWAYS)) for key in BUDGET_MISTAKES)  # each mistake is told apart once


def test_10_4_budgets_are_what_the_installed_accelerate_plans(caplog):
    """The smallest budget: with it accelerate keeps exactly the first layers on the CPU, with a byte less one fewer."""
    accelerate = pytest.importorskip("accelerate", reason="needs accelerate, the optional hf extra (CI installs it)")
    for what, build, on_cpu, budget, _ in (*BUDGET_CASES, *BUDGET_ALWAYS):
        model = build()
        names = [name for name, _ in model.named_children()]
        plan = accelerate.infer_auto_device_map(model, max_memory={"cpu": budget}, clean_result=False)
        # the rest on disk; a single layer left over fits too, as accelerate kept room for it
        rest = ["cpu"] if len(names) - on_cpu == 1 and plan[names[-1]] == "cpu" else ["disk"] * (len(names) - on_cpu)
        assert [plan[n] for n in names] == ["cpu"] * on_cpu + rest, what
        # a byte less and a layer that should stay goes to disk (with all on the CPU, two: the reserve comes back)
        less = [accelerate.infer_auto_device_map(model, max_memory={"cpu": budget - 1}, clean_result=False)[n] for n in names]
        kept = less.count("cpu")
        assert kept < on_cpu and less == ["cpu"] * kept + ["disk"] * (len(names) - kept), (what, less)


def test_10_3_table_follows_the_reference():
    for what, make, devices in STATE_CASES:
        model, opt = make()
        got = ref.reference_state_devices(model, opt)
        assert {n: {k: str(v) for k, v in s.items()} for n, s in got.items()} == devices, what


@pytest.mark.parametrize("device", _targets(), ids=str)
def test_10_1_constructed_values_are_what_the_reference_materialize_gives(device):
    for what, build in MATERIALIZE_MODELS:
        reference = _on_meta(build)
        dtype = next(t.dtype for t in _tensors(reference).values() if t.is_floating_point())
        torch.manual_seed(101)
        ref.reference_materialize(reference, device)
        torch.manual_seed(101)
        built = _constructed(build, device, dtype)
        want, got = _tensors(reference), _tensors(built)
        assert want.keys() == got.keys(), what
        for name in want:
            assert got[name].dtype == want[name].dtype and torch.equal(got[name], want[name]), (what, name)
    assert torch.get_default_dtype() == torch.float32


def test_the_reference_answers_pass_and_a_lookup_of_the_reference_is_no_longer_possible():
    """The references still solve the exercises (so the tables are right), from tests/ only."""
    assert check("01.2", ref.visible_gpus_reference).passed
    assert check("04.2", lambda start, program: ref.simulate_reference(start, program)).passed
    assert check("04.3", ref.landing_reference).passed
    assert check("05.3", ref.index_device_reference).passed
    assert check("08.1", ref.reference_device_for_rank).passed
    assert check("08.2", ref.reference_pick).passed
    assert check("08.3", ref.reference_ddp_device_ids).passed
    assert check("08.4", ref.reference_shared_gpus).passed
    assert check("10.2", ref.reference_plan_device_map).passed
    assert check("10.1", ref.reference_materialize).passed
    assert check("10.3", ref.reference_state_devices).passed


def test_the_installed_package_has_no_answers_for_a_notebook_to_import(tmp_path):
    """A copy of the package outside the checkout, as a graded kernel gets it: imports, and shows no answer."""
    shutil.copytree(SRC / "course_utils", tmp_path / "course_utils", ignore=shutil.ignore_patterns("__pycache__"))
    probe = (
        "from course_utils.checks import check, get_exercise\n"
        "r = check('01.2', lambda m, p: [], show_answer=True)\n"
        "print(repr(get_exercise('01.2').answer), repr(r.answer), 'course repository' in r.ask)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["''", "''", "True"]


# --------------------------------------------------------------------------- no helper of the package solves an exercise

# What the sweep below finds and leaves open, each with why: none. The test fails when a helper starts to
# solve an exercise. (devices.check_device(None), lesson 06's "check the device once", is the usable
# accelerator, else the CPU: 01.1's best_device(); so its caller must pass None, and check_device() fails.)
KNOWN_OPEN: set[tuple[str, str]] = set()
_SLOW_S = 2.0  # a right answer's check takes well under a second (issue 25.3): a helper slower than this is cut off


def _answer_arity(ex) -> int:
    """How many arguments the exercise's function takes, read from the course's answer in solutions/."""
    import ast

    tree = ast.parse(ex.answer)
    return len(next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == ex.function).args.args)


def _package_callables(with_scripts: bool) -> tuple[dict[str, object], list[str]]:
    """Every public function and class of the importable package (and its torchrun scripts), by qualified name,
    with the modules that could not be imported here (an optional dependency missing)."""
    import importlib
    import importlib.util
    import pkgutil

    import course_utils

    modules, skipped = [], []
    for info in pkgutil.walk_packages(course_utils.__path__, "course_utils."):
        try:
            modules.append(importlib.import_module(info.name))
        except ImportError as exc:
            skipped.append(f"{info.name}: {exc}")
    if with_scripts:  # course_utils/scripts is data the package ships (no __init__), read as torchrun would
        for path in sorted((Path(course_utils.__file__).parent / "scripts").glob("*.py")):
            spec = importlib.util.spec_from_file_location(f"course_utils.scripts.{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules.append(module)
    found: dict[str, object] = {}
    seen: set[int] = set()
    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_") or not callable(obj) or id(obj) in seen:
                continue
            if not str(getattr(obj, "__module__", "")).startswith("course_utils"):
                continue
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue
            seen.add(id(obj))
            found[f"{obj.__module__}.{getattr(obj, '__qualname__', name)}"] = obj
    return found, skipped


def test_no_helper_named_like_an_exercise_passes_it():
    """The quick half: a helper with an exercise's own name (the road 08.1, 08.3 and 10.2 took) does not pass it."""
    helpers, _ = _package_callables(with_scripts=False)
    exercises = {id: ex for id, ex in {**all_exercises(), **all_try_its()}.items() if ex.kind == "function" and not id.startswith("test.")}
    tried = [(id, name) for id, ex in exercises.items() for name in helpers if name.rsplit(".", 1)[-1] == ex.function]
    assert [(id, name) for id, name in tried if check(id, helpers[name]).passed] == []
    assert len(helpers) > 100 and "course_utils.bigmodels.dispatch" in helpers


def sweep() -> dict:
    """Every public callable of the package tried as the answer to every exercise and function try-it whose
    function takes as many arguments; the results of those that take none tried as every value try-it.

    Run in a child process (``test_no_course_helper_passes_an_exercise``): helpers are called with arguments meant
    for others, so some write files (in the child's scratch folder) or exit; each check is cut off after
    ``_SLOW_S`` seconds."""
    import inspect
    import signal

    class TooSlow(BaseException):
        pass

    def alarm(signum, frame):
        raise TooSlow()

    def no_hard_exit(code=0):  # the scripts' leave() ends its process with os._exit: here it only ends the call
        raise SystemExit(code)

    signal.signal(signal.SIGALRM, alarm)
    os._exit = no_hard_exit
    helpers, skipped = _package_callables(with_scripts=True)
    registered = {id: ex for id, ex in {**all_exercises(), **all_try_its()}.items() if not id.startswith("test.")}
    passes, slow, tried = [], [], 0

    def bounded(fn):
        signal.setitimer(signal.ITIMER_REAL, _SLOW_S)
        try:
            return fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def attempt(id, name, answer):
        nonlocal tried
        tried += 1
        try:
            if bounded(lambda: check(id, answer)).passed:
                passes.append([id, name])
        except TooSlow:
            slow.append([id, name])
        except BaseException:  # SystemExit from a command-line main(), anything a helper raises past check()
            pass

    for id, ex in registered.items():
        if ex.kind != "function":
            continue
        arity = _answer_arity(ex)
        for name, helper in helpers.items():
            try:
                inspect.signature(helper).bind(*[None] * arity)
            except (TypeError, ValueError):
                continue
            attempt(id, name, helper)
    for name, helper in helpers.items():  # a value try-it answered by a helper's result
        try:
            inspect.signature(helper).bind()
            value = bounded(helper)
        except BaseException:
            continue
        for id, ex in registered.items():
            if ex.kind == "value" and value is not None:
                attempt(id, f"{name}()", value)
    return {"passes": sorted(passes), "slow": sorted(slow), "tried": tried, "helpers": sorted(helpers), "skipped": skipped}


@pytest.mark.slow
@pytest.mark.sweep  # the matrix keeps the quick half (test_no_helper_named_like_an_exercise_passes_it)
def test_no_course_helper_passes_an_exercise(tmp_path):
    """Attack 5 by every road: no public function or class of the package passes an exercise as the answer.

    08.1, 08.3, 08.4 and 10.2 once did (``device_for_rank``, ``ddp_device_ids``, ``shared_devices``,
    ``plan_device_map``); the lesson's scripts now choose their device by hand and lesson 10 writes its device map
    as a dict, so those helpers are gone. A future helper that solves an exercise fails here."""
    import json

    out = tmp_path / "sweep.json"  # a file, not stdout: a helper may replace or close sys.stdout
    probe = f"import json, pathlib, test_case_tables as t; pathlib.Path({str(out)!r}).write_text(json.dumps(t.sweep()))"
    # the scripts read torchrun's variables as they load; HOME and the working folder are scratch
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT / "tests")]),
        "HOME": str(tmp_path),
        "LOCAL_RANK": "0",
        "RANK": "0",
        "WORLD_SIZE": "1",
        "LOCAL_WORLD_SIZE": "1",
        "GROUP_RANK": "0",
        "MPLBACKEND": "Agg",
    }
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and out.exists(), done.stderr[-3000:]
    found = json.loads(out.read_text())
    assert "course_utils.scripts.every_rank_on_cuda0.fixed_device" in found["helpers"]  # the scripts were seen
    assert found["tried"] > 1000, found
    assert {tuple(p) for p in found["passes"]} == KNOWN_OPEN, found["passes"]


# --------------------------------------------------------------------------- 11


def test_11_1_table_follows_the_reference():
    from course_utils.checks.nb11 import AUTOCAST_CASES

    for device, bf16, (kind, dtype, scaler) in AUTOCAST_CASES:
        assert ref.reference_autocast_settings(device, bf16) == {"device_type": kind, "dtype": dtype, "scaler": scaler}
    assert check("11.1", ref.reference_autocast_settings).passed


def test_11_a_table_expects_each_devices_own_type():
    """Each expected type of 11.a is the device's own .type."""
    from course_utils.checks.nb11 import AUTOCAST_FOR_CASES

    for device, kind in AUTOCAST_FOR_CASES:
        assert device.type == kind, (device, kind)
