"""Kernels cannot reach each other without the sandbox (issue 39, item 3): the hijack attack.

A submission's code, run as the instructor's user, looks for its neighbours' connection files (in
the batch's temporary folder, three levels above its working folder), reads the key and the
ports, and sends each neighbour an ``execute_request`` that replaces its answers. The grader now
hands each kernel its key through the kernel's stdin (``kernel_boot``), writes a connection file
without it, and puts the sockets in the submission's own folder: the requests are unsigned, the
kernel drops them, and the victim keeps its grade. The control, with the key in the file as
jupyter_client writes it, shows the attack works and is flagged: the victim loses its marks, and
its row says another process sent requests to its kernel.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time

import pytest
from grading_fixtures import ANSWERS, cells, exercise_notebook, notebook, write

import course_grader.batch as batch
from course_grader import BatchSettings, Limits, grade_batch
from course_grader.kernel_boot import is_dumpable
from course_grader.runner import Launch, PrivateKernelManager, boots_privately

HIJACK = r"""import glob, json, os, time
from jupyter_client import BlockingKernelClient

here = os.path.realpath(os.getcwd())
own = os.path.dirname(os.path.dirname(here))          # <batch>/<me>
batch = os.path.dirname(own)
tried, sent = set(), []
deadline = time.time() + 45
while time.time() < deadline and not sent:
    for path in glob.glob(os.path.join(batch, "*", "scratch", "kernel.json")):
        if path in tried or os.path.realpath(path).startswith(own + os.sep):
            continue
        if not glob.glob(os.path.join(os.path.dirname(path), "**", "victim-ready"), recursive=True):
            continue  # not yet: the victim has not defined double, and is not busy in that cell
        try:
            with open(path) as handle:
                info = json.load(handle)
        except (OSError, ValueError):
            continue
        tried.add(path)
        client = BlockingKernelClient()
        client.load_connection_info(info)
        client.start_channels()
        client.execute("double = lambda x: -1\ngreet = lambda name: 'hijacked'\n")
        time.sleep(2)
        client.stop_channels()
        sent.append((path, bool(info.get("key"))))
    time.sleep(0.2)
with open(REPORT, "w") as handle:  # where the test reads what the attack did (and the victim waits for)
    json.dump(sent, handle)
"""

# the victim's first answer, then a wait until the neighbour's request was sent (it then runs before the check).
# The neighbour sends only once the victim's marker is in its working folder: sent earlier, to a kernel still
# between cells, the request ran before the victim's own definitions, which then replaced the hijacked ones (the
# control's flakiness of stops 41 to 45: 1 run in 3 here; the attacker's wait for its reply showed it answered
# before the victim's cell)
SLOW_DOUBLE = (
    "    return 2 * x\n\n\nimport os, time\nopen('victim-ready', 'w').close()\nstarted = time.time()\n"
    "while not os.path.exists({report!r}) and time.time() < started + 150:\n    time.sleep(0.2)\n"
    "time.sleep(3)"
)


def _batch(tmp_path):
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    attack = f"REPORT = {str(tmp_path / 'attack.json')!r}\n" + HIJACK
    write(submitted / "mallory.ipynb", notebook(cells(ANSWERS["double"], ANSWERS["greet"], extra={1: attack})))
    slow = SLOW_DOUBLE.format(report=str(tmp_path / "attack.json"))
    write(submitted / "victim.ipynb", notebook(cells(slow, ANSWERS["greet"])))
    result = grade_batch(
        exercise_notebook(tmp_path / "exercises"),
        submitted,
        BatchSettings(jobs=2, limits=Limits(cell_timeout=200, total_timeout=400), sandbox="off"),
    )
    return {r.submission.learner: r for r in result.rows}


# --------------------------------------------------------------------------- fast: the pieces


def test_the_kernel_is_started_by_the_boot_module_and_its_file_holds_no_key(tmp_path):
    km = PrivateKernelManager(kernel_name="python3")
    km.connection_file = str(tmp_path / "kernel.json")
    km.transport, km.ip = "ipc", str(tmp_path / "k")
    km.key_by_stdin = boots_privately(km.kernel_spec.argv)
    assert km.key_by_stdin, km.kernel_spec.argv
    km.write_connection_file()
    on_disk = json.loads((tmp_path / "kernel.json").read_text(encoding="utf-8"))
    assert on_disk["key"] == "" and km.session.key, "the key stays in memory"
    assert on_disk["transport"] == "ipc" and on_disk["shell_port"] > 0
    cmd = km.format_kernel_cmd()
    assert cmd[-2] == "-c" and "PR_SET_DUMPABLE" in cmd[-1] and not any("kernel.json" in part for part in cmd)


def test_only_ipykernels_own_command_is_replaced():
    assert boots_privately(["/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    assert not boots_privately(["/opt/julia/bin/julia", "-i", "{connection_file}"])
    assert not boots_privately(["python", "ipykernel_launcher"])


@pytest.mark.slow  # a child Python and ipykernel
def test_a_booted_kernel_answers_only_the_key_it_was_handed_and_is_not_dumpable(tmp_path):
    from jupyter_client import BlockingKernelClient
    from jupyter_client.session import new_id_bytes

    km = PrivateKernelManager(kernel_name="python3")
    km.transport, km.ip = "ipc", str(tmp_path / "k")
    km.connection_file = str(tmp_path / "kernel.json")
    km.key_by_stdin = True
    km.write_connection_file()
    info = km.get_connection_info()
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(km.format_kernel_cmd(), stdin=theirs.fileno(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
    theirs.close()
    with ours:
        ours.sendall(json.dumps({**info, "key": info["key"].decode()}).encode())
    try:
        right = BlockingKernelClient()
        right.load_connection_info(info)
        right.start_channels()
        # wait_for_ready, not one kernel_info: it also waits for iopub, whose subscription can join after the
        # shell answers (ZeroMQ's slow joiner) and would then miss the output execute_interactive waits for
        right.wait_for_ready(timeout=120)
        reply = right.execute_interactive("import os; print(os.getpid())", timeout=60)
        assert reply["content"]["status"] == "ok"
        wrong = BlockingKernelClient()
        wrong.load_connection_info({**info, "key": new_id_bytes()})
        wrong.start_channels()
        wrong.execute("open('hijacked', 'w').write('x')")
        time.sleep(3)
        assert not (tmp_path / "hijacked").exists(), "a request signed with another key ran"
        assert right.execute_interactive("x = 1", timeout=60)["content"]["status"] == "ok", "and the kernel lives"
        # non-dumpable: its /proc files belong to root, so no other process of the user opens its memory
        assert os.stat(f"/proc/{proc.pid}/mem").st_uid == 0 or os.geteuid() == 0
        if os.geteuid() != 0:
            with pytest.raises(PermissionError):
                open(f"/proc/{proc.pid}/environ", "rb").close()
        wrong.stop_channels()
        right.stop_channels()
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_the_grader_is_dumpable_again_after_a_batch():
    assert is_dumpable() in (True, None)


# --------------------------------------------------------------------------- slow: the attack


@pytest.mark.slow
def test_a_neighbour_cannot_hijack_a_kernel_without_the_sandbox(tmp_path):
    rows = _batch(tmp_path)
    sent = json.loads((tmp_path / "attack.json").read_text(encoding="utf-8"))
    assert [(os.path.basename(os.path.dirname(os.path.dirname(p))), key) for p, key in sent] == [("victim", False)], sent
    victim = rows["victim"]
    assert victim.passed_count == 2 and not victim.flags, victim
    assert is_dumpable() in (True, None), "the grader restores its dumpable flag"


@pytest.mark.slow
def test_the_hijack_works_with_the_key_in_the_file_and_is_flagged(tmp_path, monkeypatch):
    """The control: the kernels started as jupyter_client starts them (the key in the connection file)."""
    monkeypatch.setattr(batch, "Launch", lambda prefix=(), ipc="", private=False: Launch(prefix, ipc, False))
    rows = _batch(tmp_path)
    sent = json.loads((tmp_path / "attack.json").read_text(encoding="utf-8"))
    assert [key for _p, key in sent] == [True], sent
    victim = rows["victim"]
    # the request ran right after the victim's first answer: double replaced; greet, defined later, is the victim's
    assert {g.exercise: g.status for g in victim.grades}["g.1"] != "pass", victim
    assert any("another process sent requests to this submission's kernel" in f for f in victim.flags), victim.flags
