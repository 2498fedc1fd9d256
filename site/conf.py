"""Sphinx configuration of the course's website; `make site` copies this folder into
build/site-src/ beside the staged pages (course_authoring.site), so paths here are relative to it."""

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # course_site.py, the course's small extension
# Written by course_authoring.site from the repository: README's title, [project.urls] Repository.
SETTINGS = json.loads((HERE / "course-site-settings.json").read_text(encoding="utf-8"))

project = SETTINGS["title"]
author = "the course's authors"
html_title = SETTINGS["title"]

extensions = ["myst_nb", "course_site"]
exclude_patterns = ["_build", "_extra", "**.ipynb_checkpoints"]
html_extra_path = ["_extra"]  # each notebook as shipped, beside its page: notebooks/NAME.ipynb
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_copy_source = False
html_show_sourcelink = False
html_use_index = False  # the course has no API index: no empty genindex page
html_domain_indices = False

# The notebooks arrive executed (nbval's run from `make test`, or nbclient's in `make site`):
# MyST-NB never executes anything.
nb_execution_mode = "off"
# No ipywidgets manager from a CDN (require.js, embed-amd.js): the one widget, lesson 06's
# explorer, is replaced by a picture when the page is staged.
nb_ipywidgets_js = {}
nb_merge_streams = True
myst_heading_anchors = 3  # README's [What each lesson covers](#what-each-lesson-covers) and the like
myst_enable_extensions = ["colon_fence"]
suppress_warnings = ["mystnb.unknown_mime_type"]  # the checks' JSON result, shown by its HTML twin

html_theme = "sphinx_book_theme"
html_context = {"default_mode": "light"}  # an empty mode makes the theme's script log a console error
html_theme_options = {
    "repository_url": SETTINGS["repository"],
    "use_repository_button": True,
    "use_download_button": False,  # each notebook page has its own download link
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
