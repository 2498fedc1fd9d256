"""The try-its of notebook 05 (the error clinic): a right answer and plausible wrong ones, on a CPU.
Lesson: notebook 05."""

import pytest
from try_it_support import Case, assert_case

CHECKPOINT = """
import io
from course_utils.checkpoints import retag_checkpoint
saved, tagged = io.BytesIO(), io.BytesIO()
torch.save({"weight": torch.tensor([[1.0, 2.0, 3.0]]), "bias": torch.tensor([0.5])}, saved)
retag_checkpoint(saved, tagged, {"cpu": "cuda:0"})
checkpoint = tagged.getvalue()
"""

CASES = [
    # 05.a: call the model on x moved to the model's device
    Case("05.a", "def call_model(model, x):\n    return model(x.to(next(model.parameters()).device))", "pass"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to(next(iter(model.state_dict().values())).device))",
         "pass"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to('meta'))", "fail", "expected device"),
    Case("05.a", "def call_model(model, x):\n    return model.to(x.device)(x)", "fail", "tried to move the model"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to(model.weight.device))", "fail", "Sequential"),
    Case("05.a", "def call_model(model, x):\n    return model(x.to('cpu'))", "fail", "with the model on meta and x on meta"),
    Case("05.a", "def call_model(model, x):\n    return x.to(next(model.parameters()).device)", "fail", "shape"),
    # 05.b: load the GPU checkpoint onto the CPU
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location='cpu')", "pass", setup=CHECKPOINT),
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location={'cuda:0': 'cpu'})", "pass",
         setup=CHECKPOINT),
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location='meta')", "fail", "on the CPU",
         setup=CHECKPOINT),
    Case("05.b", "state = torch.load(io.BytesIO(checkpoint), map_location='cpu')['weight']", "fail", "dict",
         setup=CHECKPOINT),
    Case("05.b", "state = {'weight': torch.zeros(1, 3), 'bias': torch.zeros(1)}", "fail", "saved",
         setup=CHECKPOINT),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    assert_case(case)


def test_05_a_a_refused_move_is_the_checks_finding_not_an_error_of_the_learners_code():
    """The check's model refuses to move; that is what the check found, not an exception the learner raised."""
    from try_it_support import run_case

    result = run_case(Case("05.a", "def call_model(model, x):\n    return model.to(x.device)(x)", "fail"))
    assert "tried to move the model" in result.message, str(result)
    assert "raised" not in result.message and "RuntimeError" not in result.message, str(result)


def test_05_a_an_error_names_the_case_it_came_from():
    from try_it_support import run_case

    result = run_case(Case("05.a", "def call_model(model, x):\n    return model(x.to('cpu'))", "fail"))
    assert result.message.startswith("With the model on meta and x on meta, your code raised NotImplementedError"), \
        str(result)


def test_05_b_a_value_that_is_no_tensor_is_not_told_to_stop_indexing():
    # check("05.b") as the lesson's cell calls it: `state` read from the notebook's namespace
    # (check(id, None) would mean "no value given", so run_case cannot pass None)
    from course_utils.checks import check

    namespace = {"torch": __import__("torch"), "check": check}
    exec(compile(CHECKPOINT + "state = None\nresult = check('05.b')", "<learner's line>", "exec"), namespace)
    result = namespace["result"]
    assert result.status == "fail" and "NoneType" in result.message, str(result)
    assert "index" not in result.hint and "what torch.load(...) returns" in result.hint, str(result)
