"""JupyterLab on the course's own folders, one entry per notebook in the file browser.

Learners open their workspace (`make lab`), which holds notebooks only. Authors and instructors
who open the repository itself get, with this file, `notebooks/`, `solutions/` and `exercises/`
without the `.py` twin of each notebook: `make lab-course`, or
`.venv/bin/jupyter lab --config=jupyter_server_config.py`. Only a `.py` file whose `.ipynb`
sibling exists is hidden (a script such as `src/course_utils/scripts/ddp_basics.py` stays visible), and the list is made when the
server starts, so a new lesson is covered without editing this file. Jupytext still opens and
saves both sides of each pair.
"""

from pathlib import Path

from jupyter_server.services.contents.manager import ContentsManager

from course_authoring.pairing import twin_names

c = get_config()  # noqa: F821  (Jupyter's config loader defines it)
c.ContentsManager.hide_globs = list(ContentsManager.class_traits()["hide_globs"].default()) + twin_names(Path(__file__).parent)
