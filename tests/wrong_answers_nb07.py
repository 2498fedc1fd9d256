"""Try-it cells of notebook 07 (claims checked): a right answer and plausible wrong ones."""

from try_it_support import Case

M = "m = torch.ones(3, device='meta')"

TRY_ITS = [
    Case("07.a", "where = m.device", "pass", setup=M),
    Case("07.a", "where = torch.cuda.device_of(m)", "fail", "context manager", setup=M),
    Case("07.a", "where = m.get_device()", "fail", "int", setup=M),
    Case("07.a", "where = m.is_cuda", "fail", "bool", setup=M),
    Case("07.a", "where = torch.device('cpu')", "fail", "meta", setup=M),
    Case("07.a", "where = 'meta'", "fail", "torch.device", setup=M),
    Case("07.b", "def to_model(net, batch):\n    return batch.to(next(net.parameters()).device)", "pass"),
    Case("07.b", "def to_model(net, batch):\n    return batch", "fail", "on cpu"),
    Case("07.b", "def to_model(net, batch):\n    return batch.to('meta')", "fail", "on meta"),
    Case("07.b", "def to_model(net, batch):\n    return batch.to(net.device)", "fail", "raised"),
    Case(
        "07.b",
        "def to_model(net, batch):\n    d = next(net.parameters()).device\n    return torch.zeros(4, 3, dtype=torch.float64, device=d)",
        "fail",
        "other values",
    ),
    Case("07.b", "def to_model(net, batch):\n    return batch.to(next(net.parameters()))", "fail", "float64"),
    # the check's models were all nn.Linear: a layer's own .weight passed
    Case("07.b", "def to_model(net, batch):\n    return batch.to(net.weight.device)", "fail", "a model made of layers has none"),
    Case("07.b", "def to_model(net, batch):\n    return batch.to(net.bias.device)", "fail", "a model made of layers has none"),
]
