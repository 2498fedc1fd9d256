"""Imported first by ``course-grade`` (``cli``), and by the test suite as a pytest plugin (pyproject's addopts,
``-p``, loaded before nbval's): what those processes can go without, to start sooner.

Lesson: none; this is the instructors' tool. jsonschema, which nbformat and nbclient import,
imports ``rfc3987_syntax`` eagerly when it is installed (JupyterLab's ``jupyter-events`` brings
it), and that module builds some 35 Lark parsers for the ``iri`` formats no notebook schema uses:
1.4 s of every ``course-grade`` start on the 2-core development machine, the largest single part
of it (python-jsonschema/jsonschema#1428). The grader's process validates notebooks only, so it
marks that module absent before anything imports jsonschema; jsonschema then goes without its
``iri`` checkers, as it does where the module is not installed. No effect once jsonschema is loaded.
In each pytest process (the controller and every xdist worker) it saved 3.3 s of start-up and collection.
"""

from __future__ import annotations

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # an import of it now raises ImportError, which jsonschema expects
