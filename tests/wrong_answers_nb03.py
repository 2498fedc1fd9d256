"""The try-it cells of notebook 03 (model placement): one right answer and plausible wrong ones each.

Lesson: notebooks/03_model_placement. Every wrong answer here runs on a CPU-only machine; the
check names the mistake (a plain attribute, a parameter, the model moved instead of its input, a
device typed by name).
"""

from try_it_support import Case

LAYER = "layer = nn.Linear(3, 3)"

TRY_ITS = [
    # 03.a: a buffer moves with its module
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3))\nmoved = layer.to("meta")', "pass", setup=LAYER),
    Case("03.a", 'layer.scale = torch.ones(3)\nmoved = layer.to("meta")', "fail", "plain tensor attribute", LAYER),
    Case("03.a", 'layer.scale = nn.Parameter(torch.ones(3))\nmoved = layer.to("meta")', "fail", "nn.Parameter", LAYER),
    Case("03.a", 'moved = layer.to("meta")', "fail", "no buffer named `scale`", LAYER),
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3))\nmoved = layer', "fail", "not all on meta", LAYER),
    Case("03.a", 'moved = layer.to("meta")\nlayer.register_buffer("scale", torch.ones(3))', "fail", "not all on meta",
         LAYER),
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3, dtype=torch.int64))\nmoved = layer.to("meta")', "fail",
         "float32", LAYER),
    Case("03.a", 'layer.register_buffer("scale", torch.ones(3))\nmoved = layer.to("meta").weight', "fail",
         "is a Parameter", LAYER),
    # 03.b: the input goes where the model is
    Case("03.b", "def run(model, x):\n    return model(x.to(next(model.parameters()).device))", "pass"),
    Case("03.b", "def run(model, x):\n    return model(x)", "fail", "raised RuntimeError"),
    Case("03.b", "def run(model, x):\n    return model.to(x.device)(x)", "fail", "it is the input that should travel"),
    Case("03.b", 'def run(model, x):\n    return model(x.to("meta"))', "fail", "raised"),
    Case("03.b", "def run(model, x):\n    return model(x.to(model.weight.device))", "fail", "any model"),
    Case("03.b", "def run(model, x):\n    return x.to(next(model.parameters()).device)", "fail", "shape"),
]

