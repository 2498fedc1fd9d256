"""Right and plausible wrong answers to the try-it cells of notebook 09 (data loading and memory)."""

import torch
from try_it_support import Case

# ----------------------------------------------------------------------------- exercises: more plausible wrong answers
# (the first ones live in tests/test_checks_wrong_answers.py)


def held_optimizer_parameters_grads(model, optimizer):
    """Counts the gradients of the optimizer's parameters only: a trainable layer it does not hold has one too."""
    held = [p for group in optimizer.param_groups for p in group["params"]]
    tensors = list(model.parameters()) + [p.grad for p in held if p.grad is not None]
    tensors += [v for state in optimizer.state.values() for v in state.values() if isinstance(v, torch.Tensor)]
    return sum(t.numel() * t.element_size() for t in tensors)


def held_as_float(model, optimizer):
    """The right count, returned as a float (the exercise asks for an int)."""
    params = list(model.parameters())
    tensors = params + [p.grad for p in params if p.grad is not None]
    tensors += [v for state in optimizer.state.values() for v in state.values() if isinstance(v, torch.Tensor)]
    return float(sum(t.numel() * t.element_size() for t in tensors))


def to_device_lists_in_place(batch, device):
    """Rebuilds dicts and tuples but fills each list in place: the caller's lists end up holding moved tensors.
    It passed: on meta and the CPU the one list that holds a tensor held it where it already was."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {key: to_device_lists_in_place(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        for i, value in enumerate(batch):
            batch[i] = to_device_lists_in_place(value, device)
        return batch
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device_lists_in_place(value, device) for value in batch))
    if isinstance(batch, tuple):
        return tuple(to_device_lists_in_place(value, device) for value in batch)
    return batch


def held_state_in_parameter_size(model, optimizer):
    """Counts each state tensor in its parameter's element size: Adam's float32 step is then 2 bytes in bfloat16.
    It passed: the public rows had Adam only in float32."""
    params = list(model.parameters())
    total = sum(p.numel() * p.element_size() for p in params)
    total += sum(p.grad.numel() * p.grad.element_size() for p in params if p.grad is not None)
    total += sum(v.numel() * p.element_size() for p in params for v in optimizer.state[p].values() if isinstance(v, torch.Tensor))
    return total


# (exercise id, wrong answer, a phrase its feedback must hold): tests/test_checks_wrong_answers.py runs them
WRONG = [
    ("09.1", to_device_lists_in_place, "changes that batch too"),
    ("09.2", held_state_in_parameter_size, "its own element_size()"),
    ("09.2", held_optimizer_parameters_grads, "does not hold can still have a gradient"),
    ("09.2", held_as_float, "as an int"),
]

FOLLOW = "def follow(labels, logits):\n    return {}\n"
LOADER = "from torch.utils.data import DataLoader\nfrom course_utils.loading import WhereAmI\nspawn_loader = {}"
MODEL = "model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10))"

TRY_ITS = [
    Case("09.a", FOLLOW.format("labels.to(logits.device, non_blocking=True)"), "pass"),
    Case("09.a", FOLLOW.format("labels.to(logits.device)"), "pass"),
    Case("09.a", FOLLOW.format("labels"), "fail", "logits.device"),
    Case("09.a", FOLLOW.format("labels.to(logits)"), "fail", "dtype"),
    Case("09.a", FOLLOW.format('labels.to("meta")'), "fail", "do not name a device"),
    Case("09.a", FOLLOW.format("logits.argmax(1)"), "fail", "expected"),
    Case("09.b", LOADER.format('DataLoader(WhereAmI(4), batch_size=2, num_workers=2, multiprocessing_context="spawn")'), "pass"),
    Case("09.b", LOADER.format("DataLoader(WhereAmI(4), batch_size=2, num_workers=2)"), "fail", "multiprocessing_context"),
    Case("09.b", LOADER.format('DataLoader(WhereAmI(4), batch_size=2, num_workers=2, multiprocessing_context="fork")'), "fail", "'fork'"),
    Case("09.b", LOADER.format('DataLoader(WhereAmI(4), batch_size=2, num_workers=1, multiprocessing_context="spawn")'), "fail", "two worker"),
    Case("09.b", LOADER.format('DataLoader(WhereAmI(8), batch_size=2, num_workers=2, multiprocessing_context="spawn")'), "fail", "WhereAmI(4)"),
    Case("09.c", "param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())", "pass", setup=MODEL),
    Case("09.c", "param_bytes = sum(p.numel() for p in model.parameters())", "fail", "element_size", setup=MODEL),
    Case("09.c", "param_bytes = model[0].weight.untyped_storage().nbytes()", "fail", "first weight", setup=MODEL),
    Case("09.c", "param_bytes = sum(p.numel() * 4 for n, p in model.named_parameters() if 'weight' in n)", "fail", "biases", setup=MODEL),
    Case("09.c", "param_bytes = torch.tensor(sum(p.numel() * 4 for p in model.parameters()))", "fail", "plain number", setup=MODEL),
]
