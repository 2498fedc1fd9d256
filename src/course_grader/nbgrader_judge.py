"""nbgrader's autograde, judged across the boundary: a course test cell's verdict is reached outside the kernel.

Lesson: none; this is for instructors who run nbgrader (docs/grading.md). nbgrader runs every cell
of a submission, its locked test cells included, in the learner's kernel, where the learner's code
can rewrite a test cell as it runs (``input_transformers_post``), patch ``torch.equal`` or read a
checker's expected values. ``JudgeCourseChecks`` replaces nbgrader's ``Execute`` in
``c.Autograde.autograde_preprocessors`` (``--config`` writes it): every cell runs as before,
except the course's test cells (``result = check("NN.K")`` / ``assert result.passed, ...``, whose
source nbgrader's ``OverwriteCells`` has already put back from the source notebook). For those,
the course's checker runs here, in nbgrader's own process, and calls the learner's function in the
kernel through ``course_grader.boundary``; the verdict becomes the cell's only output: a stream
for a pass, an error (0 points, with the check's message and hint) for anything else.

This module imports nbgrader; nothing else of the course does.
"""

from __future__ import annotations

import nbformat
from nbgrader.preprocessors import Execute

from course_grader.boundary import ChannelLost, grade, request_cell
from course_utils.check_cells import check_cell_id


def _reply(outputs) -> bytes:
    from course_grader.runner import reply_of

    return reply_of(list(outputs))


class JudgeCourseChecks(Execute):
    """nbgrader's ``Execute``, with the course's test cells judged in this process (see the module)."""

    def preprocess_cell(self, cell, resources, index):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        exercise = check_cell_id(cell.source) if cell.cell_type == "code" and meta.get("grade") else None
        if exercise is None:
            return super().preprocess_cell(cell, resources, index)
        self._check_assign_resources(resources)

        def channel(request: bytes) -> bytes:
            asked = nbformat.v4.new_code_cell(request_cell(request))
            try:
                self.execute_cell(asked, index, store_history=False)
            except Exception as exc:  # a timeout or a dead kernel: this test cell earns nothing
                raise ChannelLost("died", f"{type(exc).__name__}: {exc}") from None
            finally:
                self.nb.cells[index] = cell  # the request ran in the test cell's place; put the test cell back
            return _reply(asked.get("outputs", []))

        try:
            result = grade(exercise, channel)
            verdict, passed = str(result), result.passed
        except ChannelLost as lost:
            verdict, passed = f"FAIL [{exercise}] Not graded: the kernel was lost while the check ran ({lost.detail}).", False
        except Exception as exc:  # the judge broke: a grader bug, never a pass
            verdict, passed = f"ERROR [{exercise}] The grader could not judge this check ({type(exc).__name__}: {exc}).", False
        if passed:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=verdict + "\n")]
        else:
            cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue=verdict,
                                                   traceback=verdict.splitlines())]
        cell.execution_count = None
        return cell, self.resources


__all__ = ["JudgeCourseChecks"]
