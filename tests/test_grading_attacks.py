"""The attacks of issue 25 on grading earn nothing: learner code never runs where answers are judged.

Each submission is an exercise notebook as handed out, with a lazy or wrong answer and one attack
that once earned marks against a checker running in the learner's kernel. ``course-grade`` (no
sandbox: the process boundary, not the sandbox, is what holds) must give every attacked exercise
something other than a pass, and the untouched solutions full marks in the same batch.

1. rewriting the grader's cell as it runs (``input_transformers_post``);
2. an IPython startup file patching ``torch.equal``, then a loop until the kernel is restarted;
3. a ``TorchFunctionMode`` that makes ``torch.equal`` answer True, entered at the top;
4. reading the checker's ``expected`` from the caller's frames.

And files built to break the grader itself (a probe of the grader, 2026-12-06): JSON or source nested past the
parsers' depth, symbolic links to the solutions, to another learner's notebook or to a file outside the sandbox, a
name chosen to take another learner's feedback file, and escape sequences in what the reports quote.
"""

from __future__ import annotations

import faulthandler
import hashlib
import os
import pathlib
import shutil

import nbformat
import pytest
from grading_fixtures import machine_sandbox, sandbox_mark

from course_grader import BatchSettings, Limits, grade_batch

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "exercises"
SOLUTIONS = ROOT / "solutions"

TRANSFORMER = """# attack 1: rewrite every cell the grader sends, so it displays a pass (or a forged reply)
import base64
import torch
from IPython.display import display
from course_utils.checks._core import CheckResult

def _forge(lines):
    text = "".join(lines)
    if "course" not in text or "_forge" in text:
        return lines
    from course_grader.boundary import reply_bytes  # the reply's own format: the forgery is well made
    reply = base64.b64encode(reply_bytes({"probe": {"defined": True, "callable": True, "type": "function"},
                                          "result": [0, 1], "after": {}})).decode()
    return ["from IPython.display import display\\n",
            f"display({{'application/vnd.course-utils.answer+b64': {reply!r}}}, raw=True)\\n",
            "display(CheckResult('01.2', 'x', 'pass', 'Correct.'))\\n",
            "result = CheckResult('01.2', 'x', 'pass', 'Correct.')\\n"]

get_ipython().input_transformers_post.append(_forge)
"""

STARTUP_THEN_LOOP = """# attack 2: a startup file that patches torch.equal, then a loop until the grader restarts the kernel
import os, pathlib
startup = pathlib.Path(get_ipython().profile_dir.location) / "startup"
startup.mkdir(parents=True, exist_ok=True)
(startup / "00-x.py").write_text("import torch\\ntorch.equal = lambda *a, **k: True\\n")
if not os.environ.get("COURSE_ATTACK_DONE"):
    os.environ["COURSE_ATTACK_DONE"] = "1"
    while True:
        pass
"""

AGREEABLE_MODE = """# attack 3: a TorchFunctionMode that makes torch.equal answer True, entered for good
import torch
from torch.overrides import TorchFunctionMode

class _Agree(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.equal:
            return True
        return func(*args, **(kwargs or {}))

_Agree().__enter__()
"""

LAZY_MATERIALIZE = """def materialize(model, device):
    return model.to_empty(device=device)
"""

FRAME_READER = """# attack 4: take the checker's expected value from the frames above the answer
import inspect

def _expected():
    frame = inspect.currentframe()
    while frame is not None:
        if "expected" in frame.f_locals:
            return frame.f_locals["expected"]
        frame = frame.f_back
    return None

def visible_gpus(mask, physical):
    return _expected()

def describe_gpu(props):
    return _expected()

def held_bytes(model, optimizer):
    return _expected()
"""


def _with_cells(exercise: str, *sources: str) -> nbformat.NotebookNode:
    """The exercise notebook as handed out, with ``sources`` appended as code cells."""
    nb = nbformat.read(EXERCISES / exercise, as_version=4)
    nb.cells.extend(nbformat.v4.new_code_cell(s) for s in sources)
    return nb


def _grade(tmp_path: pathlib.Path, exercise: str, submissions: dict[str, nbformat.NotebookNode]) -> dict:
    folder = tmp_path / exercise[:2]
    folder.mkdir()
    for name, nb in submissions.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    shutil.copy(SOLUTIONS / exercise, folder / "solution.ipynb")
    # attack 2's loop runs until the cell timeout ends it: 20 s is still some 20 times what a solution's slowest
    # cell or check takes on a busy 2-core machine, and half the wait of the 40 s it was
    result = grade_batch(EXERCISES / exercise, folder, BatchSettings(jobs=2, limits=Limits(cell_timeout=20, total_timeout=400), sandbox="off"))
    return {r.submission.learner: {g.exercise: g for g in r.grades} for r in result.rows} | {
        "_rows": {r.submission.learner: r for r in result.rows}
    }


def _no_pass(grades: dict, *ids: str) -> None:
    for i in ids:
        assert grades[i].status != "pass", str(grades[i])


@pytest.mark.slow
def test_attacks_on_01_earn_nothing(tmp_path):
    exercise = "01_device_query_exercises.ipynb"
    graded = _grade(
        tmp_path,
        exercise,
        {
            "rewrites_the_grader": _with_cells(exercise, TRANSFORMER),
            "reads_the_frames": _with_cells(exercise, FRAME_READER),
        },
    )
    assert all(g.status == "pass" for g in graded["solution"].values()), str(graded["_rows"]["solution"])
    _no_pass(graded["rewrites_the_grader"], "01.1", "01.2", "01.3", "01.4")
    _no_pass(graded["reads_the_frames"], "01.2", "01.3")


@pytest.mark.slow
def test_attacks_on_10_earn_nothing(tmp_path):
    exercise = "10_models_bigger_than_a_device_exercises.ipynb"
    graded = _grade(
        tmp_path,
        exercise,
        {
            "startup_file_and_restart": _with_cells(exercise, STARTUP_THEN_LOOP, LAZY_MATERIALIZE),
            "agreeable_mode": _with_cells(exercise, AGREEABLE_MODE, LAZY_MATERIALIZE),
            "rewrites_the_grader": _with_cells(exercise, TRANSFORMER, LAZY_MATERIALIZE),
        },
    )
    assert all(g.status == "pass" for g in graded["solution"].values()), str(graded["_rows"]["solution"])
    restarted = graded["_rows"]["startup_file_and_restart"]
    assert "restarted the kernel" in restarted.reason, restarted.reason  # the attack did get its restart
    for learner in ("startup_file_and_restart", "agreeable_mode", "rewrites_the_grader"):
        _no_pass(graded[learner], "10.1", "10.2", "10.3")
    # the lazy answer is judged, and fails, as it does in-process
    assert graded["agreeable_mode"]["10.1"].status == "fail", str(graded["agreeable_mode"]["10.1"])


@pytest.mark.slow
def test_reading_the_frames_earns_nothing_on_09(tmp_path):
    exercise = "09_data_loading_and_memory_exercises.ipynb"
    graded = _grade(tmp_path, exercise, {"reads_the_frames": _with_cells(exercise, FRAME_READER)})
    assert all(g.status == "pass" for g in graded["solution"].values()), str(graded["_rows"]["solution"])
    _no_pass(graded["reads_the_frames"], "09.1", "09.2", "09.3")
    assert graded["reads_the_frames"]["09.2"].status == "fail"


# ------------------------------------------------------------------ files built to break the grader, not the checks

DEEP_SOURCE = "_ = " + "-" * 20_000 + "1\n"  # ast.parse in the grader's process: MemoryError (RecursionError nearer 3,000)

ESCAPES = """# escape sequences in what the reports quote: a path it tried to write, an exception's message
try:
    open("/sys/\\x1b[2J\\x1b[31mall clear\\x07", "w")
except OSError:
    pass
raise ValueError("\\x1b]0;retitled\\x07\\x1b[2J\\u202e")
"""

SECRET = "instructor-only token 5f1e0c"


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    """One batch of set 01 beside a solution: every submission below once crashed the batch, was graded from a
    file that is not the learner's, took another learner's feedback file, or wrote escape sequences into reports."""
    from course_grader.report import write_reports

    exercise = "01_device_query_exercises.ipynb"
    tmp_path = tmp_path_factory.mktemp("hostile")
    folder = tmp_path / "01"
    folder.mkdir()
    shutil.copy(SOLUTIONS / exercise, folder / "solution.ipynb")
    (folder / "deep_json.ipynb").write_text("[" * 100_000 + "]" * 100_000)  # json.loads: RecursionError
    nbformat.write(_with_cells(exercise, DEEP_SOURCE), folder / "deep_source.ipynb")
    (folder / "linked.ipynb").symlink_to(SOLUTIONS / exercise)  # the solutions, by absolute path
    (folder / "mallory").mkdir()
    (folder / "mallory" / exercise).symlink_to("../solution.ipynb")  # another learner's notebook
    (folder / "trudy").symlink_to(ROOT / "solutions")  # a folder: its notebook named like the exercise
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    (folder / "leak.py").symlink_to(tmp_path / "secret.txt")  # read as a Jupytext cell, quoted in the feedback
    clash = "a_b-" + hashlib.sha1(b"a b").hexdigest()[:8]  # the slug "a b" gets beside "a_b"
    for name in ("a b", "a_b", clash):
        shutil.copy(EXERCISES / exercise, folder / f"{name}.ipynb")
    nbformat.write(_with_cells(exercise, ESCAPES), folder / "escapes.ipynb")
    result = grade_batch(EXERCISES / exercise, folder, BatchSettings(jobs=1, limits=Limits(cell_timeout=30, total_timeout=200), sandbox="off"))
    out = tmp_path / "grades"
    write_reports(result, out)
    rows = {r.submission.learner: r for r in result.rows}
    texts = {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file()}
    return result, rows, texts, clash


@pytest.mark.slow
def test_nesting_past_the_parsers_depth_costs_only_its_own_row(hostile_files):
    result, rows, _, _ = hostile_files
    assert len(result.rows) == 11, sorted(rows)  # before: json.loads' and ast.parse's errors ended the whole batch
    assert all(g.status == "pass" for g in rows["solution"].grades), str(rows["solution"])
    assert {g.status for g in rows["deep_json"].grades} == {"invalid"}, str(rows["deep_json"])
    assert "nested too deeply" in rows["deep_json"].grades[0].message
    assert {g.status for g in rows["deep_source"].grades} == {"not-attempted"}, str(rows["deep_source"])


@pytest.mark.slow
def test_symbolic_links_are_not_followed(hostile_files):
    _, rows, texts, _ = hostile_files
    for learner in ("linked", "mallory", "trudy", "leak.py"):  # before: 4/4, 4/4, 4/4, and the secret in feedback
        row = rows[learner]
        assert {g.status for g in row.grades} == {"invalid"}, str(row)
        assert "symbolic link" in row.grades[0].message, str(row)
    assert not [name for name, text in texts.items() if SECRET in text]


@pytest.mark.slow
def test_no_two_learners_share_a_feedback_file(hostile_files):
    result, rows, texts, clash = hostile_files
    slugs = [r.submission.slug for r in result.rows]
    assert len(set(slugs)) == len(slugs), slugs  # before: "a b" and the learner named clash shared one
    assert len([n for n in texts if n.startswith("feedback/")]) == len(result.rows)
    assert rows[clash].submission.slug == clash  # the name that was free is still its own


@pytest.mark.slow
def test_reports_show_escape_sequences_as_text(hostile_files):
    result, rows, texts, _ = hostile_files
    assert any("\\x1b[2J" in f for f in rows["escapes"].flags), rows["escapes"].flags  # flagged, and shown
    for name, text in {**texts, "the summary printed": str(result)}.items():
        assert not any(c in text for c in "\x1b\x07\u202e"), name  # before: the summary cleared the terminal


@pytest.mark.slow
def test_a_file_name_that_is_not_utf8_does_not_break_a_shard(tmp_path):
    """Before: ``--shard`` wrote its report, then died writing shard.json (UnicodeEncodeError on the path's lone
    surrogate) with exit status 1 and a half-written file that ``merge`` refused: every row of the shard lost."""
    import json

    from course_grader.cli import main

    exercise = "01_device_query_exercises.ipynb"
    folder = tmp_path / "01"
    folder.mkdir()
    shutil.copy(EXERCISES / exercise, os.fsencode(folder) + b"/\xff-learner.ipynb")
    shutil.copy(SOLUTIONS / exercise, folder / "solution.ipynb")
    out = tmp_path / "shard-1"
    code = main(["01", str(folder), "--out", str(out), "--jobs", "1", "--sandbox", "off", "--quiet", "--shard", "1/1"])
    assert code == 0
    rows = {r["submission"]["learner"]: r for r in json.loads((out / "shard.json").read_text(encoding="utf-8"))["rows"]}
    assert sorted(rows) == ["\\xff-learner", "solution"]
    assert os.fsencode(rows["\\xff-learner"]["submission"]["path"]).endswith(b"/\xff-learner.ipynb")  # exactly as found
    assert main(["merge", str(out), "--out", str(tmp_path / "merged"), "--quiet"]) == 0


# ------------------------------------------------------------------ the scratch folder's files, which the grader opens

LOG_LINK_THEN_RESTART = """# attack: the kernel's log replaced by a link to a file outside the sandbox, then a loop until the grader restarts
# the kernel: the grader, outside the sandbox, reopened the log through the link for the new kernel's output
import os, pathlib
root = pathlib.Path.cwd().parent
if not (root / "tmp" / "done").exists():
    (root / "tmp" / "done").write_text("1")
    (root / "kernel.log").unlink()
    os.symlink(TARGET, root / "kernel.log")
    while True:
        pass
"""

FIFO_LOG = """# attack: a FIFO in place of the audit hook's log, which the grader opened (and waited on, for ever) at the end
import os, pathlib
log = pathlib.Path.cwd().parent / "writes.log"
log.unlink(missing_ok=True)
os.mkfifo(log)
"""

MOVED_SCRATCH = """# attack: the scratch folder renamed away and a link to a folder outside put in its place
import os, pathlib
root = pathlib.Path.cwd().parent
os.rename(root, root.parent / "moved")
os.symlink(TARGET, root)
"""


@pytest.mark.slow
@sandbox_mark()
def test_the_grader_opens_no_file_of_the_scratch_folder_through_a_link_or_a_fifo(tmp_path):
    """A sandboxed kernel wrote, through the grader, into a file outside its sandbox: it replaced its kernel.log
    with a link (or its scratch folder with a link to a folder), and its next kernel's output was appended there
    (exit status 0, no flag). A FIFO in place of writes.log hung the batch for good, past every time limit."""
    exercise = "01_device_query_exercises.ipynb"
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "instructor-file"
    folder = tmp_path / "01"
    folder.mkdir()
    say = 'import os\nos.write(2, b"written by the kernel, outside its sandbox\\n")\n'
    nbformat.write(_with_cells(exercise, LOG_LINK_THEN_RESTART.replace("TARGET", repr(str(target))), say), folder / "log_link.ipynb")
    nbformat.write(_with_cells(exercise, FIFO_LOG), folder / "fifo_log.ipynb")
    nbformat.write(_with_cells(exercise, MOVED_SCRATCH.replace("TARGET", repr(str(outside)))), folder / "moved.ipynb")
    shutil.copy(SOLUTIONS / exercise, folder / "solution.ipynb")
    faulthandler.dump_traceback_later(300, exit=True)  # before the fix the FIFO hung the batch for ever: end it
    try:
        result = grade_batch(
            EXERCISES / exercise, folder, BatchSettings(jobs=1, limits=Limits(cell_timeout=10, total_timeout=120), sandbox=machine_sandbox())
        )
    finally:
        faulthandler.cancel_dump_traceback_later()
    rows = {r.submission.learner: r for r in result.rows}
    assert all(g.status == "pass" for g in rows["solution"].grades), str(rows["solution"])
    assert "restarted the kernel" in rows["log_link"].reason, rows["log_link"].reason  # the attack had its restart
    assert sorted(os.listdir(outside)) == []  # before: instructor-file, with the kernel's line in it
    assert "Device or resource busy" in rows["moved"].reason, rows["moved"].reason  # the folder stays where it is


# ------------------------------------------------------------------ a process detached from its kernel, without the sandbox

DETACH = """# attack: a double fork into a session of its own, the call's name built at run time so no source pattern sees it
import os, time
if os.fork() == 0:
    getattr(os, "set" + "sid")()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", SECONDS])
    os._exit(0)
time.sleep(0.5)
"""


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="Linux's child subreaper: elsewhere only the flag remains")
def test_without_the_sandbox_a_detached_process_is_ended_with_the_batch(tmp_path):
    """Without the sandbox, a process that left its kernel's process group by a double fork and setsid, spelt so that
    the flag's pattern misses it, lived on after the batch, unflagged. The grader now adopts such orphans while a
    batch runs (a child subreaper), ends them when it ends, and names them in the summary with the learner."""
    from course_grader.results import summary_text

    exercise = "01_device_query_exercises.ipynb"
    seconds = "311.625"  # unique, so /proc finds it
    folder = tmp_path / "01"
    folder.mkdir()
    nbformat.write(_with_cells(exercise, DETACH.replace("SECONDS", repr(seconds))), folder / "daemon.ipynb")
    shutil.copy(SOLUTIONS / exercise, folder / "solution.ipynb")
    result = grade_batch(EXERCISES / exercise, folder, BatchSettings(jobs=1, limits=Limits(cell_timeout=20, total_timeout=120), sandbox="off"))
    left = []
    for proc in pathlib.Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and seconds in (proc / "cmdline").read_bytes().decode(errors="replace"):
                left.append(proc.name)
        except OSError:
            pass
    for pid in left:  # a failing run must not leave the sleeper to the next test
        os.kill(int(pid), 9)
    assert not left, f"the detached process outlived the batch: {left}"
    assert [e for e in result.ended if f"sleep {seconds}" in e and "(daemon's kernel)" in e], result.ended
    assert f"sleep {seconds}" in summary_text(result) and "ended by the grader" in summary_text(result)
    rows = {r.submission.learner: r for r in result.rows}
    assert all(g.status == "pass" for g in rows["solution"].grades), str(rows["solution"])
