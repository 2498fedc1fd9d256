"""One judge process per job: a slow submission holds only its own job's judge, never the class's.

Lesson: none; this is the instructors' tool (``course-grade``). Checkers change process-wide state
while they run (a simulated machine replaces ``torch.cuda``'s functions; torch's random state is
the process's), so two cannot judge at once in one process. With one judge for the whole grader,
an answer that sleeps held every job's checks, and its neighbours' time limits ran out waiting
(issues 38 and 39). Here each job gets a judge process of its own, forked from the grader after
the judge is loaded (``batch._load_the_judge``) and before any kernel starts: it holds exactly
the checks the grader holds, judges one exercise at a time for its job, and hands each request to
its job's thread, which sends it to the kernel and passes the reply back.

Where ``fork`` is not to be had (not Linux), or a judge process is lost, that job judges in the
grader itself, one at a time across jobs (``runner.judge_in_this_process``), as before.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import traceback
import warnings
from pathlib import Path

from course_grader.boundary import EVIDENCE, ChannelLost, JudgeBroke, JudgeLost

POLL = 0.5  # seconds between looks at whether the other side is still there


def _receive(conn, alive) -> object:
    """The next message, or None when the other side has gone (``alive()`` false, or the pipe closed)."""
    while not conn.poll(POLL):
        if not alive():
            return None
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None


def _serve(conn, parent: int) -> None:
    """The judge process: judge each (exercise id, handover folder, learner source) it is sent, until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle; it ends this process
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the grader's handler (it raises KeyboardInterrupt)
    import torch

    from course_grader.runner import judge_here

    torch.set_num_threads(1)  # small tensors; and a thread pool forked from the grader's is not to be trusted
    alive = lambda: os.getppid() == parent  # noqa: E731
    while True:
        task = _receive(conn, alive)
        if task is None:
            return
        exercise_id, handover, learner_source = task

        def channel(request: bytes) -> bytes:
            conn.send(("ask", request))
            answer = _receive(conn, alive)
            if answer is None:
                raise ChannelLost("died", "the grader stopped")
            if answer[0] == "reply":
                return answer[1]
            raise ChannelLost(answer[1], answer[2])

        channel.learner_source = learner_source  # read by boundary.grade
        try:
            message = ("done", judge_here(exercise_id, channel, None if handover is None else Path(handover)))
        except ChannelLost as lost:
            message = ("lost", lost.status, lost.detail)
        except Exception as exc:  # the judge broke: the runner reports a grader bug, never a pass, with this evidence
            message = ("broke", f"{type(exc).__name__}: {str(exc)[:500]}", traceback.format_exc()[-EVIDENCE:])
        try:
            conn.send(message)
        except OSError:
            return


class JudgeProcess:
    """A judge in a process of its own, called like ``runner.judge_in_this_process``.

    One job's thread calls it at a time. When the process is lost, that call is reported as the
    grader's failure, and later calls judge in the grader (``runner.judge_in_this_process``)."""

    def __init__(self, context) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, os.getpid()), daemon=True, name="course-grade-judge")
        self.process.start()
        child.close()
        self.lost = ""

    def __call__(self, exercise_id: str, channel, handover: Path | None = None) -> dict:
        from course_grader.runner import judge_in_this_process

        if self.lost:
            return judge_in_this_process(exercise_id, channel, handover)
        try:
            # the learner's cells as the grader read them (runner): evidence for the judge, not the kernel's account
            source = getattr(channel, "learner_source", None)
            self.conn.send((exercise_id, None if handover is None else str(handover), source if isinstance(source, str) else None))
        except OSError as exc:
            self._give_up(f"{type(exc).__name__}: {exc}")
        while True:
            message = _receive(self.conn, self.process.is_alive)
            if message is None:
                self._give_up(f"exit code {self.process.exitcode}")
            kind = message[0]
            if kind == "ask":
                try:
                    answer = ("reply", channel(message[1]))
                except ChannelLost as lost:
                    answer = ("lost", lost.status, lost.detail)
                except BaseException as exc:  # the relay broke: end the judge's check first, so the two stay in step
                    self.conn.send(("lost", "died", f"the grader stopped relaying ({type(exc).__name__})"))
                    self._finish()
                    raise
                try:
                    self.conn.send(answer)
                except OSError as exc:  # the judge went while its request ran (a kernel can kill it): no verdict
                    self._give_up(f"{type(exc).__name__} passing on the reply")
            elif kind == "done":
                return message[1]
            elif kind == "lost":
                raise ChannelLost(message[1], message[2])
            else:
                raise JudgeBroke(str(message[1]), str(message[2]) if len(message) > 2 else "")

    def _finish(self) -> None:
        """Wait for the judge to end the check in progress, answering any further request as lost."""
        while (message := _receive(self.conn, self.process.is_alive)) is not None and message[0] == "ask":
            self.conn.send(("lost", "died", "the grader stopped relaying"))

    def _give_up(self, why: str):
        self.lost = why
        raise JudgeLost(f"the judge process was lost ({why}); this job's later submissions are judged in the grader")

    def close(self) -> None:
        """Stop the process; it also stops by itself when the grader goes."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self.conn.close()


def start_judges(count: int) -> list[JudgeProcess]:
    """``count`` judge processes, forked now; none where fork is not to be had (then the grader judges)."""
    if not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods():
        return []
    with warnings.catch_warnings():
        # Python 3.12+ warns about fork in a process with threads. These are forked before any kernel or
        # job thread starts; the threads there are (a test runner's) hold none of the locks the judge takes.
        warnings.simplefilter("ignore", DeprecationWarning)
        return [JudgeProcess(multiprocessing.get_context("fork")) for _ in range(count)]
