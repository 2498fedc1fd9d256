"""Start a learner's IPython kernel whose connection key never touches the disk (``course-grade``'s kernels).

Lesson: none; this is the instructors' tool. A kernel obeys whoever signs messages with the key in
its connection file. jupyter_client writes that file, key included, where any process of the same
user can read it, and the kernel listens on loopback ports any local process can reach: without
the sandbox, a submission read its neighbours' connection files, sent them ``execute_request``s
and rewrote their answers (issue 39). The grader now starts each kernel as ``python -c <this module's source>`` (read from the verified
course package, ``grading.manifest``; run as a script, so that no package import comes before its
first instruction), with the connection information, key included, written into the kernel's standard input (one end
of a socket pair the grader holds; nothing else has it) and a connection file on disk that holds
no key. This module, before anything else, makes its process non-dumpable on Linux
(``PR_SET_DUMPABLE`` 0): from then on no other process of the user can ptrace it or open its
``/proc/<pid>/mem``, ``fd/`` or ``environ``. It then reads the key, closes its standard input and
starts ipykernel's ``IPKernelApp`` with those settings, never writing them to a file. The sockets
are Unix sockets (ZeroMQ's ``ipc`` transport) in the submission's own folder (mode 0700).

What remains without the sandbox is said in docs/instructors.md: the few milliseconds between the
kernel's ``exec`` and its first instructions, and signals (a process of the same user can stop or
kill any other). The grader also watches each kernel's broadcast channel for requests that are not
its own (``runner._Kernel``), and flags the submission where one ran.
"""

from __future__ import annotations

import os
import sys

PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4


def dumpable(flag: bool) -> bool:
    """Set this process's dumpable flag (Linux); True when done. The grader clears it while kernels run."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, int(flag), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def is_dumpable() -> bool | None:
    """This process's dumpable flag (Linux), None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1
    except (OSError, AttributeError):
        return None


def _read_settings() -> dict:
    import json

    data = b""
    while True:
        block = os.read(0, 65536)
        if not block:
            break
        data += block
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return json.loads(data)


def main() -> None:
    dumpable(False)
    settings = _read_settings()
    # as ipykernel_launcher does: the working folder (the learner's) is not on the path while ipykernel loads
    if sys.path and sys.path[0] in ("", os.getcwd()):  # "-c" puts "" first
        del sys.path[0]
    from ipykernel.kernelapp import IPKernelApp
    from traitlets.config import Config

    class _App(IPKernelApp):
        def write_connection_file(self, **kwargs):  # the key stays in memory
            pass

    config = Config()
    config.Session.key = settings["key"].encode("ascii")
    config.Session.signature_scheme = settings["signature_scheme"]
    ports = {name: settings[name] for name in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")}
    # a connection file that does not exist: ipykernel then reads none (the one on disk holds no key)
    app = _App.instance(
        config=config, transport=settings["transport"], ip=settings["ip"], connection_file=settings["ip"] + "-unused.json", **ports
    )
    app.initialize(sys.argv[1:])  # what the kernel spec and the client add (nbclient: the history file)
    app.start()


if __name__ == "__main__":
    main()
