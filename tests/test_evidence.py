"""Evidence from real GPUs: recording, selection and display, and the rule that no lesson prints a
GPU result from nowhere. No GPU is needed: a fake GPU run (a notebook whose "GPU" cells need 0 GPUs,
run through nbval with the recorder) and the fixture in tests/fixtures/evidence drive every path.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import torch
from torch.torch_version import TorchVersion

from course_authoring import evidence as cli
from course_authoring.gpu_cells import NeedsCall, gpu_cells_in_source, hand_typed_results
from course_authoring.quotes import fragment_problem, installed_text_contains, nccl_libraries
from course_utils import needs_cuda, recorded
from course_utils.evidence import load, parse, records, select
from course_utils.evidence.sources import CLAIMS, RELEASES, SourceQuote

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "evidence"
LESSONS = sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "solutions").glob("*.py"))


@functools.cache
def code_cells(path: Path) -> list[str]:
    """The code cells of a lesson, read from its paired ``.ipynb`` (kept in step by tests/test_pairing.py):
    reading the ``.py`` side through jupytext took 0.1 s a file, in every pytest-xdist worker's collection."""
    cells = json.loads(path.with_suffix(".ipynb").read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


# ----------------------------------------------------------------- the authoring rule, over every lesson


def test_every_gpu_cell_has_its_own_key_and_shows_evidence_when_skipped():
    seen: dict[str, str] = {}
    problems = []
    for path in LESSONS:
        for source in code_cells(path):
            for cell in gpu_cells_in_source(source):
                first = source.strip().splitlines()[0][:70]
                if cell.key is None:
                    problems.append(f"{path.name}: `{first}` has no key=")
                    continue
                if not cell.key.startswith(path.name[:2] + "-"):
                    problems.append(f"{path.name}: key {cell.key!r} should start with {path.name[:2] + '-'!r}")
                if cell.key in seen:
                    problems.append(f"{path.name}: key {cell.key!r} is also used in {seen[cell.key]}")
                seen[cell.key] = path.name
                if not cell.shows:
                    problems.append(
                        f"{path.name}: {cell.key!r} should bind its requirement (`if gpu := needs_cuda(...)`, "
                        "`gpu = needs_accelerator(...)`) and display(gpu) (in the else branch of an if)"
                    )
    assert seen, "no GPU-only cells found: the scanner is broken"
    assert not problems, "\n".join(problems)


def test_an_accelerator_cell_runs_on_its_requirements_device_never_on_cuda_by_name():
    """A cell that says any accelerator runs it must not name CUDA: on a Mac it would fail."""
    cuda_by_name = re.compile(r"""\.cuda\(|["']cuda|torch\.cuda\.""")
    problems = []
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        for source in code_cells(path):
            if any(cell.needs == "accelerator" for cell in gpu_cells_in_source(source)):
                problems += [f"{path.name}: {line.strip()}" for line in source.splitlines() if cuda_by_name.search(line)]
    assert not problems, "use gpu.device (torch.accelerator), not CUDA by name:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "cell, shows",
    [
        ('if gpu := needs_cuda(1, what="x", key="02-x"):\n    pass\nelse:\n    display(gpu)\n', True),
        ('if gpu := needs_cuda(1, what="x", key="02-x"):\n    shown = 1\nelse:\n    shown = gpu\nshown\n', True),
        ('if gpu := needs_cuda(1, what="x", key="02-x"):\n    pass\nelse:\n    print(gpu)\n', False),  # str(): no evidence
        ('if gpu := needs_cuda(1, what="x", key="02-x"):\n    pass\nelse:\n    shown = gpu\n', False),  # never shown
        ('if needs_cuda(1, what="x", key="02-x"):\n    pass\nelse:\n    display(recorded("02-x"))\n', False),
        ('gpu = needs_accelerator(device, what="x", key="02-x")\nx = torch.ones(1, device=gpu.device)\ndisplay(gpu)\n', True),
        ('gpu = needs_accelerator(device, what="x", key="02-x")\nx = torch.ones(1, device=gpu.device)\nprint(gpu)\n', False),
    ],
)
def test_the_scanner_wants_the_requirement_displayed(cell, shows):
    (found,) = gpu_cells_in_source(cell)
    assert found.key == "02-x" and found.shows is shows
    assert found.needs == ("accelerator" if "needs_accelerator" in cell else "cuda")


def test_a_requirement_without_a_key_that_no_cell_displays_is_no_gpu_cell():
    assert gpu_cells_in_source('on_gpus = needs_cuda(2, what="the NCCL run")\nmode = [] if on_gpus else ["--cpu"]\n') == []


def test_no_lesson_prints_a_gpu_result_typed_by_hand():
    typed = [f"{p.name}: {text!r}" for p in LESSONS for source in code_cells(p) for text in hand_typed_results(source)]
    assert not typed, "GPU results typed by hand; show them with recorded(key) instead:\n" + "\n".join(typed)


@pytest.mark.parametrize(
    "else_branch",
    [
        'print("On a GPU this prints: cuda:0")',
        'shown = "On two GPUs: (0, 1)."',
        "shown = \"(device(type='cuda', index=1),)\"",
        'print("RuntimeError: ... found at least two devices, cuda:0 and cpu!")',
    ],
)
def test_the_scanner_catches_a_typed_gpu_result(else_branch):
    cell = f'if gpu := needs_cuda(1, what="a demo", key="02-demo"):\n    x = torch.ones(1, device="cuda:0")\nelse:\n    {else_branch}\n'
    assert hand_typed_results(cell), else_branch
    assert not gpu_cells_in_source(cell)[0].shows


def test_the_scanner_allows_gpu_code_and_the_requirement():
    cell = 'if gpu := needs_cuda(2, what="cuda:1 demo", key="02-demo"):\n    x = torch.ones(1, device="cuda:1")\nelse:\n    display(gpu)\n'
    assert hand_typed_results(cell) == []
    assert gpu_cells_in_source(cell) == [NeedsCall(2, "02-demo", True, True, "cuda", "cuda:1 demo")]


def test_every_key_has_a_plain_claim_and_every_claim_a_cell():
    keys = cli.notebook_keys()
    assert not [k for k in keys if k not in CLAIMS], "GPU-only cells without a plain claim in sources.CLAIMS"
    assert not [k for k in CLAIMS if k not in keys], "claims for keys no notebook uses"


ACCELERATOR_KEYS = {
    cell.key
    for path in sorted((ROOT / "notebooks").glob("*.py"))
    for source in code_cells(path)
    for cell in gpu_cells_in_source(source)
    if cell.needs == "accelerator"
}


def _sentences(text: str) -> int:
    return 1 + len(re.findall(r"[.!?]['\u201d)]?\s+(?=[A-Z])", text))


@pytest.mark.parametrize("key", sorted(CLAIMS))
def test_every_claim_says_what_a_gpu_shows_in_one_or_two_plain_sentences(key):
    says = CLAIMS[key].says
    if key in ACCELERATOR_KEYS:  # any accelerator runs the cell: say what every one shows, not CUDA's alone
        assert says.startswith("On an accelerator, "), f"{key}: start with what any accelerator shows: {says[:60]!r}"
    else:
        assert re.match(r"On (a|two) GPUs?\b", says), f"{key}: start by saying what a GPU shows there: {says[:60]!r}"
    assert says.endswith("."), f"{key}: end the sentence: {says[-30:]!r}"
    assert _sentences(says) <= 2 and len(says) <= 360, f"{key}: one or two plain sentences, not {says!r}"
    assert CLAIMS[key].quotes, f"{key}: a claim needs the source that backs it"


ALL_QUOTES = sorted({q for claim in CLAIMS.values() for q in claim.quotes}, key=lambda q: (q.file, q.text))


@pytest.mark.parametrize("quote", ALL_QUOTES, ids=[f"{q.file}:{q.text[:30]}" for q in ALL_QUOTES])
def test_no_quote_is_a_fragment(quote):
    assert fragment_problem(quote) is None, f"{quote.file}: {quote.text!r}: {fragment_problem(quote)}"


@pytest.mark.parametrize(
    "text,kind",
    [
        (") and weight type (", "literal"),  # the old 05 conv quote
        (" device type tensor to numpy. Use Tensor.cpu() to ", "literal"),
        ("expandable_segments:True", "cuda-literal"),
        ("CUDA kernel errors might be asynchronously reported at some other API call", "cuda-literal"),
        ('if "warn" or 1, warn on synchronizing operations', "python"),
        ("elif p_should_use_set_data:\n                param.data = param_applied", "python"),
    ],
)
def test_the_fragment_rule_catches_the_old_fragments(text, kind):
    assert fragment_problem(SourceQuote("x", text, kind)) is not None


@pytest.mark.parametrize("key", sorted(CLAIMS))
def test_without_a_gpu_the_output_opens_with_the_plain_sentence_and_folds_the_source(key, tmp_path):
    shown = recorded(key, evidence_dir=tmp_path)
    text = str(shown)
    assert text.splitlines()[0] == CLAIMS[key].says
    field = len(shown.field.excerpt.splitlines()) + 2 if shown.field is not None else 0  # its label, excerpt, caveat
    assert len(text.splitlines()) <= 3 + field, (
        "the plain-text form stays short: sentences, a field record where one exists, where the quotes are, how to print them"
    )
    html = shown._repr_html_()
    assert html.count("<details>") == len(shown.quotes) and "<details open" not in html, "quotes folded, closed"
    assert html.index(html_escape(CLAIMS[key].says)) < html.index("Not yet recorded")
    for quote in shown.quotes:
        assert quote.file in text and quote.text.splitlines()[0].strip()[:20] in shown.source


def html_escape(text):
    import html

    return html.escape(text)


def test_no_quote_is_shown_twice_in_one_notebook(tmp_path):
    from course_utils.lessons import course

    for lesson in course():
        shown_in_full: dict = {}
        for cell in lesson.cells:
            evidence = recorded(cell.key, evidence_dir=tmp_path)
            for quote in evidence.quotes:
                assert quote not in shown_in_full, f"{cell.key} repeats {quote.file} in full, already shown by {shown_in_full[quote]}"
                shown_in_full[quote] = cell.key
            for before in evidence.shown_before:
                assert before.quote in shown_in_full, f"{cell.key} names a passage no earlier cell showed"
        assert shown_in_full or not lesson.cells


def test_a_passage_shown_before_is_named_with_its_cell_and_part(tmp_path):
    shown = recorded("04-set-device", evidence_dir=tmp_path)
    (before,) = shown.shown_before
    assert str(before) == ("the same passage of torch/cuda/__init__.py as for \u201casking each GPU in turn\u201d above (part 1)")
    assert before.quote not in shown.quotes and "asking each GPU in turn" in str(shown)


# ----------------------------------------------------------------- each quote, in the releases its label names

QUOTED = sorted({(q.file, q.text, q.kind, q.since, q.until) for q in ALL_QUOTES if q.library is None})
LIBRARY_QUOTES = sorted({q for q in ALL_QUOTES if q.library is not None}, key=lambda q: (q.file, q.text))


# Another release's files, unpacked from its wheel (torch/ with lib/*.so), can stand in for the installed
# torch: COURSE_QUOTES_TORCH=/path/to/2.14.1/torch COURSE_QUOTES_VERSION=2.14.1 pytest -k label_says.
OTHER_TORCH = os.environ.get("COURSE_QUOTES_TORCH")
TORCH_DIR = Path(OTHER_TORCH) if OTHER_TORCH else Path(torch.__file__).resolve().parent
TORCH_VERSION = os.environ.get("COURSE_QUOTES_VERSION", torch.__version__) if OTHER_TORCH else torch.__version__


@pytest.mark.parametrize("file,text,kind,since,until", QUOTED, ids=[f"{f}:{t[:30]}" for f, t, *_ in QUOTED])
def test_every_quote_is_in_the_installed_torch_exactly_when_its_label_says(file, text, kind, since, until):
    """Run on each matrix entry (2.7.1, 2.13.0 CPU, 2.14.1): a label covering this torch must hold, and a label
    that leaves a checked release out must be right to: the quote is not there."""
    quote = SourceQuote(file, text, kind, since=since, until=until)
    if kind == "cuda-literal" and not list((TORCH_DIR / "lib").glob("*cuda*.so*")):
        pytest.skip("needs a CUDA build of torch (the quote lives in its CUDA libraries)")
    if kind == "nccl-literal" and not nccl_libraries(TORCH_DIR):
        pytest.skip("needs the NCCL library a CUDA build of torch installs (site-packages/nvidia)")
    here = installed_text_contains(quote, TORCH_DIR)
    if quote.covers(TORCH_VERSION):
        assert here, (
            f"torch {TORCH_VERSION} does not contain this quote from {file} ({quote.releases}): {text!r}. "
            "Read the new source and update course_utils/evidence/sources.py and its label."
        )
    elif TorchVersion(RELEASES[0]) <= TorchVersion(TORCH_VERSION.split("+")[0]) <= RELEASES[-1]:
        assert not here, f"torch {TORCH_VERSION} has {text!r} ({file}), but the label says {quote.releases}: widen it"
    else:
        pytest.skip(f"torch {TORCH_VERSION} is outside the checked releases {RELEASES[0]}..{RELEASES[-1]}")


@pytest.mark.parametrize("quote", LIBRARY_QUOTES, ids=[f"{q.file}:{q.text[:30]}" for q in LIBRARY_QUOTES])
def test_every_library_quote_is_in_the_installed_library(quote):
    """A library's quote (lesson 10's accelerate, the `hf` extra the test set-up installs) is in its installed
    source; a newer release that rewords it fails here, to be read again and relabelled."""
    top = quote.file.split("/")[0]
    pytest.importorskip(top, reason=f"needs {top}, an optional extra of the course")
    assert installed_text_contains(quote), (
        f"the installed {top} does not contain this quote from {quote.file} (read in {quote.library}): {quote.text!r}"
    )
    assert installed_text_contains(SourceQuote(quote.file, quote.text + " and more", library=quote.library)) is False


def test_a_quote_that_is_not_in_torch_is_caught():
    assert not installed_text_contains(SourceQuote("torch/cuda/__init__.py", "a sentence PyTorch never wrote"))
    assert not installed_text_contains(SourceQuote("torch/no_such_file.py", "def"))
    assert not installed_text_contains(SourceQuote("aten/x.cpp", "Expected all tensors to be on the same planet", "literal"))
    assert not installed_text_contains(
        SourceQuote("aten/x.cpp", "Expected all tensors to be on the same device{x}, but never on this planet", "literal")
    )


def test_a_label_names_its_releases():
    assert SourceQuote("f", "t", since="2.9.1").releases == "PyTorch 2.9.1 and later"
    assert SourceQuote("f", "t", until="2.7.1").releases == "PyTorch 2.7.1"
    assert SourceQuote("f", "t", until="2.12.0").covers("2.12.0+cu128") and not SourceQuote("f", "t", until="2.12.0").covers("2.13.0")
    assert SourceQuote("f", "t").releases == f"every PyTorch from {RELEASES[0]}"


def test_committed_evidence_is_real_and_readable():
    for ev in load(ROOT / records.IN_CHECKOUT):
        assert not ev.fake, f"{ev.path} is marked fake: only real GPU runs belong in {records.IN_CHECKOUT}"
        assert ev.path.name == f"{ev.machine.slug}.json", f"{ev.path} should be named {ev.machine.slug}.json"
        assert ev.cells, f"{ev.path} records no cell"


def test_the_recordings_are_read_from_inside_the_package(monkeypatch):
    monkeypatch.delenv(records.ENV_DIR, raising=False)
    assert Path(str(records.default_dir())) == ROOT / records.IN_CHECKOUT, "where gpu-verify writes is where load reads"


def _setuptools_at_least(major: int) -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= major


@pytest.mark.slow  # builds the wheel and runs a child Python that imports torch
def test_a_wheel_ships_the_recordings_and_recorded_reads_them_from_a_plain_install(tmp_path):
    # A copy of the package with one recording in it, as a GPU run would leave it (the fixture's text,
    # marked real: the recordings folder refuses fake files, and this copy is never committed).
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    fixture = json.loads((FIXTURE / "fake-2x-gpu.json").read_text())
    fixture["fake"] = False
    (tree / records.IN_CHECKOUT / "2x-wheel-test.json").write_text(json.dumps(fixture))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", records.ENV_DIR)}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    # Without build isolation when this venv's setuptools meets pyproject's build requirement (fast,
    # offline); an older one (Python 3.11's venv brings 65.5) builds in pip's isolated environment.
    isolation = ["--no-build-isolation"] if _setuptools_at_least(68) else []
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", *isolation, ".", "-w", str(tmp_path / "dist")],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, f"pip wheel failed:\n{built.stderr[-3000:]}"
    (wheel,) = (tmp_path / "dist").glob("course_utils-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    assert "course_utils/evidence/recordings/2x-wheel-test.json" in names, "the wheel must ship the recordings"

    # Installed as pip installs it (not editable: no checkout behind it), first on the path of a fresh Python.
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], env=env, check=True, capture_output=True, timeout=300)
    code = (
        f"import sys; sys.path.insert(0, {str(site)!r})\n"
        "import course_utils\nprint(course_utils.__file__)\n"
        "print(course_utils.recorded('04-set-device'))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    where, *shown = run.stdout.splitlines()
    assert where.startswith(str(site)), f"the child imported course_utils from {where}, not from the installed wheel"
    assert "Recorded by this course on 2x FAKE GPU B (fixture)" in "\n".join(shown) and "[2x-wheel-test.json]" in "\n".join(shown)


# ----------------------------------------------------------------- selection and display, from the fixture


def test_the_newest_run_is_shown_and_a_key_only_one_machine_has_comes_from_it():
    files = load(FIXTURE)
    assert {f.machine.gpu_count for f in files} == {1, 2} and all(f.fake for f in files)
    assert select("02-round-trip", files).cell.output.startswith("FAKE one-GPU")  # 2026-01-02 beats 01-01
    assert select("04-set-device", files).machine.gpu_count == 2
    assert select("99-nowhere", files) is None


def test_a_recording_is_shown_with_its_provenance_and_a_fake_one_says_so():
    shown = recorded("04-set-device", evidence_dir=FIXTURE)
    text = str(shown)
    assert text.splitlines()[0] == CLAIMS["04-set-device"].says, "the plain sentences come first, recorded or not"
    assert text.splitlines()[1].startswith(
        "FAKE RUN (test fixture, not a real GPU): Recorded by this course on 2x FAKE GPU B (fixture), "
        "torch 0.0.0+fake (CUDA 0.0, driver 000.00), 2026-01-01 [fake-2x-gpu.json]:"
    )
    assert "FAKE two-GPU output for 04-set-device" in text
    assert "FAKE RUN" in shown._repr_html_() and "04-set-device" in text


def test_a_key_with_neither_recording_nor_quote_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="No GPU recording and no plain claim with a source quote for '99-nowhere'"):
        recorded("99-nowhere", evidence_dir=tmp_path)
    with pytest.raises(TypeError, match="evidence key as a string"):
        recorded(2)


def test_a_fake_file_in_the_course_evidence_folder_is_refused(tmp_path, monkeypatch):
    (tmp_path / "fake-1x-gpu.json").write_text((FIXTURE / "fake-1x-gpu.json").read_text())
    monkeypatch.delenv(records.ENV_DIR, raising=False)
    monkeypatch.setattr(records, "default_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="marked fake"):
        load()


@pytest.mark.parametrize(
    "text,match",
    [
        ("not json", "is not JSON"),
        ('{"format": 2}', "expected an object"),
        ('{"format": 1, "machine": {"gpu_name": "x"}, "cells": {}}', 'expected "machine"'),
        (
            '{"format": 1, "machine": {"gpu_name": "x", "gpu_count": 0, "driver": "", "cuda": "", "torch": "", '
            '"python": "", "date": ""}, "cells": {}}',
            "gpu_count must be 1 or more",
        ),
    ],
)
def test_a_malformed_evidence_file_says_what_is_wrong(text, match):
    with pytest.raises(ValueError, match=match):
        parse(text)


def test_needs_cuda_carries_a_well_formed_key():
    assert needs_cuda(0, key="02-round-trip").key == "02-round-trip"
    for bad in ("round-trip", "2-x", "02_round_trip", "02-Round"):
        with pytest.raises(ValueError, match="like '02-round-trip'"):
            needs_cuda(1, key=bad)


# ----------------------------------------------------------------- a fake GPU run, end to end


def fake_run_notebook(path: Path) -> None:
    """A notebook whose "GPU" cell needs 0 GPUs, so it runs its GPU branch on any machine."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("from course_utils import needs_cuda, recorded"),
        nbformat.v4.new_code_cell(
            'if needs_cuda(0, what="the fake GPU cell", key="99-fake-run"):\n'
            '    print("ran the GPU branch")\n    42\nelse:\n    recorded("99-fake-run")\n'
            '"a result"'
        ),
        nbformat.v4.new_code_cell(
            'if needs_cuda(64, what="a 64-GPU cell", key="99-never"):\n    print("x")\nelse:\n    print(needs_cuda(64, what="a 64-GPU cell"))'
        ),
    ]
    nbformat.write(nb, path)


@pytest.mark.slow
def test_a_fake_gpu_run_records_the_gpu_cells_and_merges_a_fake_file(tmp_path):
    fake_run_notebook(tmp_path / "99_fake.ipynb")
    parts, out = tmp_path / "parts", tmp_path / "out"
    env = {**os.environ, "COURSE_EVIDENCE_PARTS": str(parts)}
    # This test may itself run in an xdist worker: the inner run must not inherit that role.
    env = {k: v for k, v in env.items() if not k.startswith("PYTEST_XDIST") and k != "COURSE_REQUIRE_CUDA"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "course_grader._fast_start",
            "99_fake.ipynb",
            "-q",
            "-c",
            os.devnull,
            "--rootdir",
            str(tmp_path),
            "-p",
            "course_authoring.recorder",
            "--nbval-lax",
            "--nbval-current-env",
            "-n",
            "1",
            "-p",
            "no:cacheprovider",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [json.loads(line) for line in (parts / "records.jsonl").read_text().splitlines()]
    assert [r["key"] for r in lines] == ["99-fake-run"], "exactly the cell whose GPU branch ran, recorded once"
    assert lines[0]["output"] == "ran the GPU branch\n'a result'\n"

    with pytest.raises(SystemExit, match="sees no CUDA GPU") if not torch.cuda.is_available() else _nothing():
        cli.main(["merge", str(parts), "--out", str(out)])
    cli.main(["merge", str(parts), "--out", str(out), "--fake"])
    (written,) = out.glob("*.json")
    ev = parse(written.read_text(), written)
    assert ev.fake and written.name == "fake-1x-fake-gpu-no-gpu-a-test-run.json"
    assert ev.cells["99-fake-run"].notebook.endswith("99_fake.ipynb")
    shown = str(recorded("99-fake-run", evidence_dir=out))
    assert shown.startswith("FAKE RUN") and f"torch {torch.__version__}" in shown and "ran the GPU branch" in shown


@pytest.mark.slow  # a child Python that imports torch
def test_the_recorder_refuses_to_run_without_a_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "COURSE_EVIDENCE_PARTS"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "course_grader._fast_start", "-c", os.devnull, "-p", "course_authoring.recorder", "--co", "-q"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0 and "COURSE_EVIDENCE_PARTS" in run.stdout + run.stderr


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_fake_merge_never_writes_into_the_course_recordings(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main(["merge", str(tmp_path), "--fake"])
    assert "--fake needs --out" in capsys.readouterr().err
