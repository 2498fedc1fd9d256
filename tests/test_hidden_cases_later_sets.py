"""Drawn cases of sets 06, 08 and 11, and the smarter replays of 09 and 10 (issue 38, items 1 and 2), in this process.

Each rule of ``course_grader.hidden_cases.nb06 / nb08 / nb11`` is held to the tests' references, its public
table is what the notebook's practice check still runs, and two attacks that a class with the public solutions
can write are shown to pass the practice check and to fail a grading run's judging (``boundary.grade`` with its
fresh ``Draw``), through the same request and reply as a kernel's:

- **a replay**: the solution's results recorded, call after call, on the public cases, and played back in order;
- **a lookup**: the same results keyed by the arguments they were given, answered from that record.

06.2 judges what right copies leave on the simulated device, and reads the submitted file for the
non-blocking ``copy_``, since the buffers' log is the kernel's to rewrite. 09.1 and 10.1's smarter replays
rebuild the public cases in the kernel (the batch's shape, the models and their seed, importable from the
staged package) and answer from them. ``tests/test_hidden_cases.py`` holds every rule to "the solution passes
every draw" and "two judgings draw different cases"; ``tests/test_grading_hidden_cases_later_sets.py`` runs
these attacks against real kernels under ``--sandbox require``.
"""

from __future__ import annotations

import math
import pathlib
import random
import statistics

import answer_references as ref
import pytest
import torch
from hidden_case_support import solution_namespace
from test_hidden_cases import _channel_with_source

from course_grader.boundary import grade, local_channel, practice_cases
from course_grader.hidden_cases import RULES, Draw
from course_utils.checks import nb06, nb08, nb11
from course_utils.checks._core import cases, drawing_cases, get_exercise, run_checker
from course_utils.transfer.ceilings import Ceiling

ROOT = pathlib.Path(__file__).resolve().parents[1]
OURS = sorted(id for id in RULES if id[:2] in ("06", "08", "11"))
PURE = ("06.3", "06.4", "08.1", "08.2", "08.3", "08.4", "11.1", "11.2")  # answers that depend on their arguments only


@pytest.fixture(scope="module")
def solutions() -> dict:
    found: dict = {}
    for number in ("06", "08", "09", "10", "11"):
        found.update(solution_namespace(number))
    return found


def test_every_exercise_of_06_08_and_11_draws_its_cases():
    assert OURS == ["06.1", "06.2", "06.3", "06.4", "08.1", "08.2", "08.3", "08.4", "11.1", "11.2", "11.3"]


# --------------------------------------------------------------------------- the public tables, untouched


PUBLIC = {
    "06.1": nb06.TIMING_CASES,
    "06.2": nb06.COPY_CASES,
    "06.3": nb06.GBPS_CASES,
    "06.4": nb06.PCIE_CASES,
    "08.1": (nb08.RANK_CASES, nb08.RANK_REFUSED),
    "08.2": nb08.LAUNCHES,
    "08.3": nb08.DEVICE_IDS_CASES,
    "08.4": nb08.SHARED_CASES,
    "11.1": nb11.AUTOCAST_CASES,
    "11.2": nb11.ORDER_CASES,
    "11.3": nb11.FORWARD_SEEDS,
}


@pytest.mark.parametrize("id", OURS)
def test_the_practice_check_runs_the_public_table_and_grading_another(id):
    assert cases(id, PUBLIC[id]) is PUBLIC[id]
    with drawing_cases(Draw()):
        assert repr(cases(id, PUBLIC[id])) != repr(PUBLIC[id])


def test_the_tables_made_plain_data_hold_what_the_code_made_before():
    """06.2's sources were drawn by random.Random(6) in the checker, 06.4's links by two loops: the same rows."""
    rng = random.Random(6)
    before = tuple(tuple(tuple(round(rng.uniform(-9, 9), 2) for _ in range(rng.randint(2, 5))) for _ in range(count)) for count in (1, 3, 4))
    assert nb06.COPY_CASES == before
    assert nb06.PCIE_CASES == tuple((gen, lanes) for gen in (1, 2, 3, 4, 5) for lanes in (16, 8, 4, 1))
    assert nb08.RANK_REFUSED == ((2, 2), (1, 1), (5, 4)) and nb11.FORWARD_SEEDS == (0, 1)


# --------------------------------------------------------------------------- each rule, held to the references


def _draws(id: str, count: int = 200):
    rng = random.Random(id)
    return [RULES[id](rng) for _ in range(count)]


def test_08_draws_follow_the_references():
    for rows, refused in _draws("08.1"):
        for rank, count, device in rows:
            assert ref.reference_device_for_rank(rank, count) == torch.device(device), (rank, count)
        for rank, count in refused:
            with pytest.raises(ValueError):
                ref.reference_device_for_rank(rank, count)
    for launches in _draws("08.2"):
        for _, envs, gpus, devices in launches:
            assert [ref.reference_pick(env, gpus) for env in envs] == list(devices)
    for rows in _draws("08.3"):
        for device, expected in rows:
            assert ref.reference_ddp_device_ids(device) == expected, device
    for rows in _draws("08.4"):
        for devices, expected in rows:
            assert ref.reference_shared_gpus(devices) == expected, devices
        assert any(expected for _, expected in rows) and not all(expected for _, expected in rows)


def test_11_draws_follow_the_references():
    for rows in _draws("11.1"):
        for device, bf16, (kind, dtype, scaler) in rows:
            assert ref.reference_autocast_settings(device, bf16) == {"device_type": kind, "dtype": dtype, "scaler": scaler}
        assert {torch.device(d).type for d, _, _ in rows} == {"cuda", "cpu", "mps", "xpu"}
    for rows in _draws("11.2"):
        assert all(5 <= n <= 20 and 0 <= seed < 2**31 for n, seed in rows)
    for first, second in _draws("11.3"):
        assert first != second


def test_06_draws_are_cases_of_the_exercise():
    """The checker computes 06's expected values from each row (a median, a bandwidth, ``Ceiling``): every drawn
    row is a case it can judge, and the rows that tell the mistakes apart are there."""
    for rows in _draws("06.1"):
        assert all(d > 0 for durations, _, _ in rows for d in durations)
        assert any(backlog and repeats == 1 for _, backlog, repeats in rows)
        spans = [[durations[i % len(durations)] for i in range(repeats)] for durations, _, repeats in rows]
        assert any(not math.isclose(statistics.median(s), statistics.mean(s)) for s in spans)
    for rows in _draws("06.2"):
        assert [len(r) for r in rows][0] == 1 and all(len(v) >= 2 for r in rows for v in r)
    for rows in _draws("06.3"):
        assert all(n > 0 and all(s > 0 for s in seconds) for n, seconds in rows)
    for links in _draws("06.4"):
        assert all(Ceiling(gen, lanes).gbps > 0 for gen, lanes in links) and len(set(links)) == len(links)
        assert {gen <= 2 for gen, _ in links} == {True, False}


# --------------------------------------------------------------------------- replay and lookup


class _Recorder:
    """The solution, recording what it answered to each call (or the ValueError it raised)."""

    def __init__(self, fn):
        self.fn, self.__name__, self.sequence, self.by_args = fn, fn.__name__, [], {}

    def __call__(self, *args):
        try:
            result = ("value", self.fn(*args))
        except ValueError as exc:
            result = ("raise", str(exc))
        self.sequence.append(result)
        self.by_args[repr(args)] = result
        if result[0] == "raise":
            raise ValueError(result[1])
        return result[1]


def _answer(result):
    kind, value = result
    if kind == "raise":
        raise ValueError(value)
    return value


def _attacks(id: str, solution) -> dict:
    """A replay (the recorded answers in order) and a lookup (by the arguments), recorded on the public cases."""
    recorder = _Recorder(solution)
    assert run_checker(get_exercise(id), recorder).passed
    played = iter(recorder.sequence)

    def replay(*args):
        return _answer(next(played, ("value", None)))

    def lookup(*args):
        return _answer(recorder.by_args.get(repr(args), ("value", None)))

    return {"replay": (replay, recorder), "lookup": (lookup, recorder)}


def _graded(name: str, fn, draw=None) -> str:
    return grade(_exercise_of(name), local_channel({name: fn}), draw=draw).status


def _exercise_of(name: str) -> str:
    return next(id for id in OURS if get_exercise(id).function == name)


@pytest.mark.parametrize("id", PURE)
def test_a_recorded_answer_passes_practice_and_earns_nothing_graded(id, solutions):
    name = get_exercise(id).function
    for kind in ("replay", "lookup"):
        answer, recorder = _attacks(id, solutions[name])[kind]
        fresh = _attacks(id, solutions[name])[kind][0]  # a replay plays once: one copy per judging
        assert _graded(name, answer, draw=practice_cases) == "pass", kind
        assert _graded(name, fresh) == "fail", kind


def test_a_replayed_timing_and_a_replayed_forward_earn_nothing_graded(solutions):
    """06.1's measured seconds and 11.3's outputs, played back in the order the public cases asked for them."""
    for id in ("06.1", "11.3"):
        name = get_exercise(id).function
        recorder = _Recorder(solutions[name])
        assert run_checker(get_exercise(id), recorder).passed

        for draw, status in ((practice_cases, "pass"), (None, "fail")):
            played = iter(list(recorder.sequence))
            assert _graded(name, lambda *a, played=played: _answer(next(played, ("value", None))), draw=draw) == status, id


FORGED_06_2 = """def copy_all_to_host(sources, buffers, synchronize):
    # fills the buffers without a copy, and writes on the device what right copies would have left
    if not hasattr(sources[0].device, "launch"):  # the check's last call: real tensors
        return [buf.copy_(src) for src, buf in zip(sources, buffers)]
    device = sources[0].device
    for src, buf in zip(sources, buffers):
        buf.values[:] = list(src.values)
        buf.copies.append(True)
        device.launches += 1
        device.log.append("launch")
        device.busy_until += src.nbytes / device.bandwidth
    device.syncs += 1
    device.log.append("sync")
    device.now = max(device.now, device.busy_until)
    return buffers
    buf.copy_(src, non_blocking=True)  # dead code, for the grader's reading of the file
"""

CARELESS_06_2 = """def copy_all_to_host(sources, buffers, synchronize):
    # fills the buffers without a copy and says every copy was non-blocking, once synchronized
    if not hasattr(sources[0].device, "launch"):  # the check's last call: real tensors
        return [buf.copy_(src) for src, buf in zip(sources, buffers)]
    for src, buf in zip(sources, buffers):
        buf.values[:] = list(src.values)
        buf.copies.append(True)
    sources[0].device.syncs += 1
    return buffers
"""


def _defined(source: str):
    namespace: dict = {}
    exec(source, namespace)
    return namespace["copy_all_to_host"]


def test_06_2_judges_what_right_copies_leave_and_reads_the_file(solutions):
    careless, forged = _defined(CARELESS_06_2), _defined(FORGED_06_2)
    # what the buffers' log says is not enough: the device shows no copies queued
    assert "filled some other way" in run_checker(get_exercise("06.2"), careless).message
    assert grade("06.2", _channel_with_source({"copy_all_to_host": careless}, None)).status == "fail"
    # a forger who also writes the device's counters fools the kernel's account (no source handed: the gap)...
    assert grade("06.2", _channel_with_source({"copy_all_to_host": forged}, None)).status == "pass"
    # ...but not the file: its code never asks copy_ for a non-blocking copy
    assert grade("06.2", _channel_with_source({"copy_all_to_host": forged}, FORGED_06_2)).status == "fail"
    solution = (ROOT / "solutions" / "06_transfers_and_timing_exercises.py").read_text(encoding="utf-8")
    assert grade("06.2", _channel_with_source({"copy_all_to_host": solutions["copy_all_to_host"]}, solution)).status == "pass"


# --------------------------------------------------------------------------- 09 and 10: smarter replays

# 09.1: the moves recorded as the public batch's shape, played on whatever batch comes (it walks the public one)
SHAPE_REPLAY_09 = """import torch
from course_utils.checks import nb09

def to_device(batch, device):
    public, _ = nb09._nested(str(device))

    def move(x, shape):
        if isinstance(shape, torch.Tensor):
            return x.to(device, non_blocking=True)
        if isinstance(shape, dict):
            return {key: move(x[key], shape[key]) for key in shape}
        if isinstance(shape, tuple) and hasattr(shape, "_fields"):
            return type(shape)(*(move(a, b) for a, b in zip(x, shape)))
        if isinstance(shape, (list, tuple)):
            return type(shape)(move(a, b) for a, b in zip(x, shape))
        return x

    return move(batch, public)
"""

# 10.1: the values a right answer leaves, looked up: the public models, built from the public seed
VALUES_REPLAY_10 = """import torch
from course_utils.checks import nb10

def _shape(model):
    return tuple((name, tuple(t.shape), t.dtype) for name, t in model.state_dict().items())

def materialize(model, device):
    model.to_empty(device=device)
    for _what, build in (*nb10.MATERIALIZE_MODELS, *nb10.MATERIALIZE_ALWAYS):  # what practice asks
        dtype = next(t.dtype for t in model.state_dict().values() if t.is_floating_point())
        torch.manual_seed(101)
        public = nb10._constructed(build, torch.device(device), dtype)
        if _shape(public) == _shape(model):
            with torch.no_grad():
                for mine, theirs in zip(model.state_dict().values(), public.state_dict().values()):
                    mine.copy_(theirs)
            break
    return model
"""


def _defined_as(source: str, name: str):
    namespace: dict = {}
    exec(source, namespace)
    return namespace[name]


@pytest.mark.parametrize("id, name, source", [("09.1", "to_device", SHAPE_REPLAY_09), ("10.1", "materialize", VALUES_REPLAY_10)])
def test_a_smarter_replay_of_09_and_10_passes_practice_and_earns_nothing_graded(id, name, source, solutions):
    answer = _defined_as(source, name)
    assert grade(id, _channel_with_source({name: answer}, source), draw=practice_cases).status == "pass"
    assert grade(id, _channel_with_source({name: answer}, source)).status == "fail"
    solution = next((ROOT / "solutions").glob(f"{id[:2]}_*_exercises.py")).read_text(encoding="utf-8")
    for draw in (practice_cases, None):
        assert grade(id, _channel_with_source({name: solutions[name]}, solution), draw=draw).status == "pass"
