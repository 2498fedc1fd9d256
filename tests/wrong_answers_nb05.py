"""The try-its of notebook 05 (the error clinic): a right answer and plausible wrong ones, on a CPU.
Lesson: notebook 05."""

from try_it_support import Case

CHECKPOINT = """
import io
from course_utils.checkpoints import retag_checkpoint
saved, tagged = io.BytesIO(), io.BytesIO()
torch.save({"weight": torch.tensor([[1.0, 2.0, 3.0]]), "bias": torch.tensor([0.5])}, saved)
retag_checkpoint(saved, tagged, {"cpu": "cuda:0"})
checkpoint = tagged.getvalue()
"""

TRY_ITS = [
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

