"""Plausible wrong answers fail their check on a CPU-only machine, with feedback that names the mistake.

For every exercise, at least two answers a learner might really write, each wrong in one way.
Each must fail on any machine (the checks simulate GPU servers, Macs, other devices and clocks),
and the message or hint must say what is wrong. The right answers are the solutions; they pass
in ``test_every_solution_passes_in_process`` and under nbval.
"""

import contextlib
import io
import pathlib
import statistics
import time

import pytest
import torch
from torch import nn
from try_it_support import lesson_modules

from course_utils.checks import all_exercises, check
from course_utils.scopes import default_device  # torch.get_default_device() fails on 2.7 after set_default_device(None)

ROOT = pathlib.Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- 01


def best_cpu_only():
    return torch.device("cpu")


def best_forgets_mps():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def best_mps_first():
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def best_string():
    return "cuda" if torch.cuda.is_available() else "cpu"


def visible_no_repeat_rule(mask, physical):
    listed = []
    for entry in mask.split(","):
        entry = entry.strip()
        if not entry.isdigit():
            break
        listed.append(int(entry))
    return [i for n, i in enumerate(listed) if all(j < physical for j in listed[: n + 1])]


def visible_cut_before_repeat(mask, physical):
    """Stops at the first index past the last GPU before it looks for repeats: '1,7,1' -> [1]."""
    listed = []
    for entry in mask.split(","):
        entry = entry.strip()
        if not entry.isdigit() or int(entry) >= physical:
            break
        if int(entry) in listed:
            return []
        listed.append(int(entry))
    return listed


def visible_ignores_physical(mask, physical):
    listed = []
    for entry in mask.split(","):
        entry = entry.strip()
        if not entry.isdigit():
            break
        if int(entry) in listed:
            return []
        listed.append(int(entry))
    return listed


def describe_gb(props):
    return f"{props.name}: compute capability {props.major}.{props.minor}, {props.total_memory / 1e9:.1f} GiB, {props.multi_processor_count} SMs"


def describe_unrounded(props):
    return f"{props.name}: compute capability {props.major}.{props.minor}, {props.total_memory / 1024**3} GiB, {props.multi_processor_count} SMs"


def describe_hard_coded(props):
    return "NVIDIA H200: compute capability 9.0, 140.4 GiB, 132 SMs"


def current_always_none():
    return None


def current_catches_assertion_only():
    try:
        return torch.cuda.current_device()
    except AssertionError:
        return None


def current_always_zero():
    return 0 if torch.cuda.is_available() else None


# ----------------------------------------------------------------------------- 02


def like_no_device(reference, values):
    return torch.tensor(values, dtype=reference.dtype)


def like_no_dtype(reference, values):
    return torch.tensor(values, device=reference.device)


def like_cpu(reference, values):
    return torch.tensor(values, dtype=reference.dtype, device="cpu")


def move_in_place(batch, device):
    for key, value in batch.items():
        if isinstance(value, torch.Tensor):
            batch[key] = value.to(device)
    return batch


def move_copying(batch, device):
    return {k: v.to(device, copy=True) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}


def move_cloning(batch, device):
    return {k: v.clone().to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}


def build_leaves_default_set(device, make):
    torch.set_default_device(device)
    return make()


def build_swallows_errors(device, make):
    with torch.device(device):
        try:
            return make()
        except Exception:
            return None


def build_then_move(device, make):
    result = make()
    return result.to(device) if isinstance(result, (torch.Tensor, nn.Module)) else result


def numpy_shares_memory(t):
    return t.detach().cpu().numpy()


def numpy_no_detach(t):
    return t.cpu().numpy().copy()


def numpy_no_cpu(t):
    return t.detach().numpy().copy()


# ----------------------------------------------------------------------------- 03


def register_top_level_only(model):
    for name, value in list(vars(model).items()):
        if isinstance(value, torch.Tensor):
            delattr(model, name)
            model.register_buffer(name, value)
    return model


def register_as_parameters(model):
    for module in model.modules():
        for name, value in list(vars(module).items()):
            if isinstance(value, torch.Tensor):
                delattr(module, name)
                module.register_parameter(name, nn.Parameter(value.float(), requires_grad=False))
    return model


def register_not_persistent(model):
    for module in model.modules():
        for name, value in list(vars(module).items()):
            if isinstance(value, torch.Tensor):
                delattr(module, name)
                module.register_buffer(name, value, persistent=False)
    return model


def where_parameters_only(model):
    devices = {p.device for p in model.parameters()}
    if not devices:
        return None
    if len(devices) > 1:
        raise ValueError(f"spread over {devices}")
    return devices.pop()


def where_first_tensor(model):
    for t in list(model.parameters()) + list(model.buffers()):
        return t.device
    return None


def where_as_string(model):
    devices = {str(t.device) for t in list(model.parameters()) + list(model.buffers())}
    if len(devices) > 1:
        raise ValueError(f"spread over {devices}")
    return devices.pop() if devices else None


def load_never_moves_model(path, device, make_model):
    state = torch.load(path, map_location=device, weights_only=True)
    model = make_model()
    model.load_state_dict(state)
    return model


def load_without_map_location(path, device, make_model):
    model = make_model().to(device)
    model.load_state_dict(torch.load(path, weights_only=True))
    return model


def load_forgets_state(path, device, make_model):
    torch.load(path, map_location=device, weights_only=True)
    return make_model().to(device)


def state_moves_step_too(optimizer):
    for param, state in optimizer.state.items():
        for key, value in state.items():
            if isinstance(value, torch.Tensor):
                state[key] = value.to(device=param.device, dtype=param.dtype)


def state_device_only(optimizer):
    for param, state in optimizer.state.items():
        for key, value in state.items():
            if key != "step" and isinstance(value, torch.Tensor):
                state[key] = value.to(param.device)


def state_dtype_only(optimizer):
    for param, state in optimizer.state.items():
        for key, value in state.items():
            if key != "step" and isinstance(value, torch.Tensor) and value.is_floating_point():
                state[key] = value.to(param.dtype)


def state_untouched(optimizer):
    return None


# ----------------------------------------------------------------------------- 04


def predictions_all_ones():
    return [1] * 8


def predictions_set_device_persists():
    return [1, 1, 0, 0, 1, 1, 1, 1]


def predictions_torch_device_switches():
    return [1, 1, 0, 0, 1, 0, 1, 0]


def simulate_never_restores(start, program):
    current, after = start, []
    for step in program:
        if step[0] == "device" and step[1] is not None and step[1] >= 0:
            current = step[1]
        elif step[0] == "device_of" and step[1] != "cpu":
            current = step[1]
        elif step[0] == "set_device" and step[1] >= 0:
            current = step[1]
        after.append(current)
    return after


def simulate_negative_restores(start, program):
    """Pushes the current device for device(-1) too, so its exit undoes a set_device inside it."""
    current, saved, after = start, [], []
    for step in program:
        kind = step[0]
        if kind in ("device", "device_of"):
            index = -1 if step[1] == "cpu" else (current if step[1] is None else step[1])
            saved.append(current)
            if index >= 0:
                current = index
        elif kind == "torch.device":
            saved.append(None)
        elif kind == "set_device" and step[1] >= 0:
            current = step[1]
        elif kind == "exit":
            previous = saved.pop()
            if previous is not None:
                current = previous
        after.append(current)
    return after


def simulate_torch_device_switches(start, program):
    current, saved, after = start, [], []
    for step in program:
        kind = step[0]
        if kind in ("device", "device_of", "torch.device"):
            if kind == "torch.device":
                d = torch.device(step[1])
                index = d.index if d.type == "cuda" and d.index is not None else -1
            else:
                index = -1 if step[1] == "cpu" else (current if step[1] is None else step[1])
            if index >= 0:
                saved.append(current)
                current = index
            else:
                saved.append(-1)
        elif kind == "set_device" and step[1] >= 0:
            current = step[1]
        elif kind == "exit":
            previous = saved.pop()
            if previous >= 0:
                current = previous
        after.append(current)
    return after


def landing_cuda_is_zero(spec, current):
    if spec is None:
        return "cuda:0"
    if isinstance(spec, int):
        return f"cuda:{spec}"
    d = torch.device(spec)
    if d.type == "cuda":
        return f"cuda:{0 if d.index is None else d.index}"
    return str(d)


def landing_index_ignored(spec, current):
    if spec is None or isinstance(spec, int):
        return f"cuda:{current}"
    d = torch.device(spec)
    return f"cuda:{current}" if d.type == "cuda" else str(d)


def scope_always_cuda(device):
    return torch.cuda.device(torch.device(device).index or 0)


def scope_cuda_without_index(device):
    d = torch.device(device)
    return torch.cuda.device(d.index) if d.type == "cuda" else contextlib.nullcontext()


def scope_torch_device(device):
    d = torch.device(device)
    return torch.cuda.device(d.index) if d.type == "cuda" and d.index is not None else d


# ----------------------------------------------------------------------------- 05


def fix_new_wordings_only(message):
    text = message.lower()
    if "same device" in text or "expected device" in text:
        return "move-to-one-device"
    if "indices should be" in text:
        return "index-to-table-device"
    if "deserialize" in text:
        return "map-location"
    if "numpy" in text:
        return "cpu-before-numpy"
    if "invalid device ordinal" in text:
        return "existing-device-index"
    if "not compiled with cuda" in text or "nvidia driver" in text:
        return "cpu-or-cuda-build"
    if "same index" in text:
        return "optimizer-after-move"
    return "not-a-device-error"


def fix_device_means_move(message):
    text = message.lower()
    if "device" in text:
        return "move-to-one-device"
    if "numpy" in text:
        return "cpu-before-numpy"
    if "deserialize" in text:
        return "map-location"
    return "not-a-device-error"


def fix_forgets_driver(message):
    answer = fix_new_wordings_only(message)
    return "not-a-device-error" if "NVIDIA driver" in message else answer


def _model_device(model):
    for t in list(model.parameters()) + list(model.buffers()):
        return t.device
    return None


def _rebuilt(container, items):
    """``container``'s type made from ``items``: a namedtuple takes them one by one (the right way)."""
    return type(container)(*items) if hasattr(container, "_fields") else type(container)(items)


def to_device_namedtuple_from_iterable(model, *inputs):
    device = _model_device(model)

    def move(x):
        if isinstance(x, torch.Tensor):
            return x.to(device)
        if isinstance(x, (list, tuple)):
            return type(x)(move(v) for v in x)  # a namedtuple's class takes its fields one by one: TypeError
        if isinstance(x, dict):
            return {k: move(v) for k, v in x.items()}
        return x

    return inputs if device is None else tuple(move(x) for x in inputs)


def to_device_top_level_only(model, *inputs):
    device = _model_device(model)
    if device is None:
        return inputs
    return tuple(x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs)


def to_device_tuples_become_lists(model, *inputs):
    device = _model_device(model)

    def move(x):
        if isinstance(x, torch.Tensor):
            return x.to(device)
        if isinstance(x, (list, tuple)):
            return [move(v) for v in x]
        if isinstance(x, dict):
            return {k: move(v) for k, v in x.items()}
        return x

    return inputs if device is None else tuple(move(x) for x in inputs)


def to_device_parameters_only(model, *inputs):
    params = list(model.parameters())
    if not params:
        return inputs
    device = params[0].device

    def move(x):
        if isinstance(x, torch.Tensor):
            return x.to(device)
        if isinstance(x, (list, tuple)):
            return _rebuilt(x, [move(v) for v in x])
        if isinstance(x, dict):
            return {k: move(v) for k, v in x.items()}
        return x

    return tuple(move(x) for x in inputs)


def index_always_table(table, index):
    return str(torch.device(table))


def index_always_stays(table, index):
    return str(torch.device(index))


def index_compares_types(table, index):
    table, index = torch.device(table), torch.device(index)
    return str(index if index.type in ("cpu", table.type) else table)


def load_no_map_location(data, device):
    return torch.load(io.BytesIO(data), weights_only=True)


def load_always_cpu(data, device):
    return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)


def load_then_move_cpu_only(data, device):
    state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    return {k: v.to(device) if v.is_floating_point() else v for k, v in state.items()}


# ----------------------------------------------------------------------------- 06


def time_without_sync(op, clock, synchronize, repeats):
    times = []
    for _ in range(repeats):
        start = clock()
        op()
        times.append(clock() - start)
    return statistics.median(times)


def time_mean(op, clock, synchronize, repeats):
    times = []
    for _ in range(repeats):
        synchronize()
        start = clock()
        op()
        synchronize()
        times.append(clock() - start)
    return sum(times) / len(times)


def time_sync_after_only(op, clock, synchronize, repeats):
    times = []
    for _ in range(repeats):
        start = clock()
        op()
        synchronize()
        times.append(clock() - start)
    return statistics.median(times)


def time_perf_counter(op, clock, synchronize, repeats):
    times = []
    for _ in range(repeats):
        synchronize()
        start = time.perf_counter()
        op()
        synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def copy_blocking(sources, buffers, synchronize):
    for src, buf in zip(sources, buffers):
        buf.copy_(src)
    synchronize()
    return buffers


def copy_no_sync(sources, buffers, synchronize):
    for src, buf in zip(sources, buffers):
        buf.copy_(src, non_blocking=True)
    return buffers


def copy_sync_each(sources, buffers, synchronize):
    for src, buf in zip(sources, buffers):
        buf.copy_(src, non_blocking=True)
        synchronize()
    return buffers


def gbps_gib(nbytes, seconds):
    return nbytes / statistics.median(seconds) / 2**30


def gbps_mean(nbytes, seconds):
    return nbytes / (sum(seconds) / len(seconds)) / 1e9


def gbps_min(nbytes, seconds):
    return nbytes / min(seconds) / 1e9


_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}


def pcie_no_encoding(gen, lanes):
    return _GTS[gen] * lanes / 8


def pcie_bits(gen, lanes):
    return _GTS[gen] * lanes * (0.8 if gen <= 2 else 128 / 130)


def pcie_one_encoding(gen, lanes):
    return _GTS[gen] * lanes * 128 / 130 / 8


def pcie_halves_from_gen3(gen, lanes):  # "each generation doubles" run backwards from Gen3's 8 GT/s
    rate = 8.0 * 2.0 ** (gen - 3)
    return rate * lanes * (0.8 if gen <= 2 else 128 / 130) / 8


# ----------------------------------------------------------------------------- 08


def rank_device_no_index(local_rank, gpu_count):
    if gpu_count == 0:
        return torch.device("cpu")
    if local_rank >= gpu_count:
        raise ValueError("no GPU for this process")
    return torch.device("cuda")


def rank_device_no_check(local_rank, gpu_count):
    return torch.device("cuda", local_rank) if gpu_count else torch.device("cpu")


def rank_device_always_cuda(local_rank, gpu_count):
    if gpu_count and local_rank >= gpu_count:
        raise ValueError("no GPU for this process")
    return torch.device("cuda", local_rank)


def pick_uses_rank(env, gpu_count):
    rank = int(env.get("RANK", 0))
    return torch.device("cuda", rank) if gpu_count else torch.device("cpu")


def pick_always_cuda0(env, gpu_count):
    return torch.device("cuda", 0) if gpu_count else torch.device("cpu")


def pick_default_cuda(env, gpu_count):
    return torch.device("cuda") if gpu_count else torch.device("cpu")


def ids_device_in_list(device):
    device = torch.device(device)
    return None if device.type == "cpu" else [device]


def ids_zero_on_cpu(device):
    device = torch.device(device)
    return [device.index or 0]


def ids_bare_index(device):
    device = torch.device(device)
    return None if device.type == "cpu" else device.index


def shared_keeps_singles(devices):
    groups = {}
    for rank, d in devices.items():
        d = torch.device(d)
        if d.type == "cuda":
            groups.setdefault(f"cuda:{d.index or 0}", []).append(rank)
    return {k: sorted(v) for k, v in groups.items()}


def shared_raw_names(devices):
    groups = {}
    for rank, d in devices.items():
        if d != "cpu":
            groups.setdefault(str(d), []).append(rank)
    return {k: sorted(v) for k, v in groups.items() if len(v) > 1}


def shared_counts_cpu(devices):
    groups = {}
    for rank, d in devices.items():
        d = torch.device(d)
        key = f"cuda:{d.index or 0}" if d.type == "cuda" else "cpu"
        groups.setdefault(key, []).append(rank)
    return {k: sorted(v) for k, v in groups.items() if len(v) > 1}


# (exercise, wrong answer, words the feedback must contain, case-insensitive)

# ----------------------------------------------------------------------------- 09


def to_device_blocking(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: to_device_blocking(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return _rebuilt(batch, [to_device_blocking(v, device) for v in batch])
    return batch


def to_device_namedtuple_from_iterable_09(batch, device):
    """09.1's first reference answer: right for lists and tuples, a TypeError for a namedtuple (issue 33)."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: to_device_namedtuple_from_iterable_09(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device_namedtuple_from_iterable_09(v, device) for v in batch)
    return batch


def to_device_top_level(batch, device):
    return {k: v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}


def to_device_lists(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: to_device_lists(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [to_device_lists(v, device) for v in batch]
    return batch


def to_device_in_place(batch, device):
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            batch[k] = v.to(device, non_blocking=True)
    return batch


def held_four_times(model, optimizer):
    return 4 * sum(p.numel() * p.element_size() for p in model.parameters())


def held_numel(model, optimizer):
    params = list(model.parameters())
    tensors = params + [p.grad for p in params if p.grad is not None]
    tensors += [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    return sum(t.numel() for t in tensors)


def held_no_grads(model, optimizer):
    params = list(model.parameters())
    state = [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    return sum(t.numel() * t.element_size() for t in params + state)


def held_no_step(model, optimizer):
    params = list(model.parameters())
    tensors = params + [p.grad for p in params if p.grad is not None]
    tensors += [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor) and v.dim()]
    return sum(t.numel() * t.element_size() for t in tensors)


def options_always_pin(touches_cuda):
    return {"pin_memory": True, **({"multiprocessing_context": "spawn"} if touches_cuda else {})}


def options_accelerator(touches_cuda):
    options = {"pin_memory": torch.accelerator.is_available()}
    if touches_cuda:
        options["multiprocessing_context"] = "spawn"
    return options


def options_always_spawn(touches_cuda):
    return {"pin_memory": torch.cuda.is_available(), "multiprocessing_context": "spawn"}


def options_no_spawn(touches_cuda):
    return {"pin_memory": torch.cuda.is_available()}


WRONG = [
    ("01.1", best_cpu_only, "GPU server"),
    ("01.1", best_forgets_mps, "Mac"),
    ("01.1", best_mps_first, "both"),
    ("01.1", best_string, "torch.device"),
    ("01.2", visible_no_repeat_rule, "hides every GPU"),
    ("01.2", visible_cut_before_repeat, "'1,7,1'"),
    ("01.2", visible_ignores_physical, "past the last"),
    ("01.3", describe_gb, "1024"),
    ("01.3", describe_unrounded, "one decimal"),
    ("01.3", describe_hard_coded, "Tesla T4"),
    ("01.4", current_always_none, "not always None"),
    ("01.4", current_catches_assertion_only, "no NVIDIA driver"),
    ("01.4", current_always_zero, "cuda:2"),
    ("02.1", like_no_device, "meta"),
    ("02.1", like_no_dtype, "dtype"),
    ("02.1", like_cpu, "from the reference tensor"),
    ("02.2", move_in_place, "changed the dict"),
    ("02.2", move_copying, "needless copy"),
    ("02.2", move_cloning, "needless copy"),
    ("02.3", build_leaves_default_set, "Leave nothing set"),
    ("02.3", build_swallows_errors, "let the error through"),
    ("02.3", build_then_move, "too late"),
    ("02.4", numpy_shares_memory, "share memory"),
    ("02.4", numpy_no_detach, "requires grad"),
    ("02.4", numpy_no_cpu, "host memory only"),
    ("03.1", register_top_level_only, "scale.factor"),
    ("03.1", register_as_parameters, "nn.Parameter"),
    ("03.1", register_not_persistent, "persistent"),
    ("03.2", where_parameters_only, "buffers"),
    ("03.2", where_first_tensor, "ValueError"),
    ("03.2", where_as_string, "torch.device"),
    ("03.3", load_never_moves_model, "never moved"),
    ("03.3", load_without_map_location, "map_location"),
    ("03.3", load_forgets_state, "load_state_dict"),
    ("03.4", state_moves_step_too, "'step'"),
    ("03.4", state_device_only, "float64"),
    ("03.4", state_untouched, "float64"),
    ("03.4", state_dtype_only, "meta"),
    ("04.1", predictions_all_ones, "device_of"),
    ("04.1", predictions_set_device_persists, "undone"),
    ("04.1", predictions_torch_device_switches, "default device"),
    ("04.2", simulate_never_restores, "torch.cuda's rules"),
    ("04.2", simulate_negative_restores, "for -1"),
    ("04.2", simulate_torch_device_switches, "torch.device"),
    ("04.3", landing_cuda_is_zero, "current"),
    ("04.3", landing_index_ignored, "index wins"),
    ("04.4", scope_always_cuda, "switches nothing"),
    ("04.4", scope_cuda_without_index, "switches nothing"),
    ("04.4", scope_torch_device, "default device"),
    ("05.1", fix_new_wordings_only, "torch.cuda.LongTensor"),
    ("05.1", fix_device_means_move, "invalid device ordinal"),
    ("05.1", fix_forgets_driver, "NVIDIA driver"),
    ("05.2", to_device_top_level_only, "inputs[1][0]"),
    ("05.2", to_device_tuples_become_lists, "tuples as tuples"),
    ("05.2", to_device_parameters_only, "buffers"),
    ("05.2", to_device_namedtuple_from_iterable, "__new__() missing"),
    ("05.3", index_always_table, "index may stay"),
    ("05.3", index_always_stays, "must move"),
    ("05.3", index_compares_types, "cuda:1"),
    ("05.4", load_no_map_location, "not on the device asked for"),
    ("05.4", load_always_cpu, "meta"),
    ("05.4", load_then_move_cpu_only, "steps"),
    ("06.1", time_without_sync, "never called synchronize"),
    ("06.1", time_mean, "median"),
    ("06.1", time_sync_after_only, "before starting the clock"),
    ("06.1", time_perf_counter, "clock"),
    ("06.2", copy_blocking, "non_blocking"),
    ("06.2", copy_no_sync, "had not finished"),
    ("06.2", copy_sync_each, "once"),
    ("06.3", gbps_gib, "2**30"),
    ("06.3", gbps_mean, "mean"),
    ("06.3", gbps_min, "fastest"),
    ("06.4", pcie_no_encoding, "encoding"),
    ("06.4", pcie_bits, "divide by 8"),
    ("06.4", pcie_one_encoding, "8b/10b"),
    ("06.4", pcie_halves_from_gen3, "Gen2 signals 5 GT/s"),
    ("08.1", rank_device_no_index, "without an index"),
    ("08.1", rank_device_no_check, "ValueError"),
    ("08.1", rank_device_always_cuda, "no GPU"),
    ("08.2", pick_uses_rank, "LOCAL_RANK"),
    ("08.2", pick_always_cuda0, "cuda:0"),
    ("08.2", pick_default_cuda, "cuda:0"),
    ("08.3", ids_device_in_list, "index"),
    ("08.3", ids_zero_on_cpu, "expected None"),
    ("08.3", ids_bare_index, "a list"),
    ("08.4", shared_keeps_singles, "share"),
    ("08.4", shared_raw_names, "cuda:0"),
    ("08.4", shared_counts_cpu, "cpu"),
    # 09 data loading and device memory
    ("09.1", to_device_blocking, "non-blocking copy"),
    ("09.1", to_device_top_level, "recurse"),
    ("09.1", to_device_lists, "tuple stays a tuple"),
    ("09.1", to_device_in_place, "changed the batch"),
    ("09.1", to_device_namedtuple_from_iterable_09, "__new__() missing"),
    ("09.2", held_four_times, "frozen"),
    ("09.2", held_numel, "element_size"),
    ("09.2", held_no_grads, "gradients"),
    ("09.2", held_no_step, "step"),
    ("09.3", options_always_pin, "pin_memory should be False"),
    ("09.3", options_accelerator, "MPS"),
    ("09.3", options_always_spawn, "leave multiprocessing_context out"),
    ("09.3", options_no_spawn, "spawn"),
]
# the lessons whose plausible wrong answers live in tests/wrong_answers_nbNN.py (every lesson added from 10 on)
WRONG += [entry for module in lesson_modules() for entry in getattr(module, "WRONG", [])]


@pytest.mark.parametrize("id, answer, needle", WRONG, ids=[f"{i}-{a.__name__}" for i, a, _ in WRONG])
def test_a_plausible_wrong_answer_fails_and_says_why(id, answer, needle):
    start = default_device()
    try:
        result = check(id, answer)
    finally:
        torch.set_default_device(None)  # a wrong 02.3 answer may leave it set; the check restores it too
    assert result.status == "fail", result
    feedback = f"{result.message} {result.hint}"
    assert needle.lower() in feedback.lower(), (needle, str(result))
    assert default_device() == start


def test_a_first_wrong_answer_gets_a_nudge_not_the_answer():
    """Hints in steps: no plausible wrong answer is handed the answer's code on its first try: not a line
    of it, not a key move the learner's code lacks (``map_location=device``), not its steps as a recipe."""
    import inspect

    from test_checks import _gives_away

    from course_utils.checks import get_exercise
    from course_utils.checks._core import ATTEMPTS

    given = []
    for id, answer, _ in WRONG:
        ATTEMPTS.reset()
        try:
            result = check(id, answer)
        finally:
            torch.set_default_device(None)
        leaked = _gives_away(get_exercise(id).answer, f"{result.message} {result.hint}", inspect.getsource(answer))
        if leaked or result.answer:
            given.append(f"{id} {answer.__name__}: the feedback spells out {leaked or 'the answer'}")
    ATTEMPTS.reset()
    assert not given, "\n".join(given)


def test_the_pcie_hint_s_rates_pass_06_4():
    """A learner who takes each generation's GT/s from 06.4's hint (Gen2 = 5, not half of Gen3's 8) passes."""
    import re

    from course_utils.checks import get_exercise

    hint = get_exercise("06.4").hint
    rates = {int(g): float(r) for g, r in re.findall(r"Gen([1-5]),? (?:signals )?(\d+(?:\.\d+)?)\b", hint)}
    assert sorted(rates) == [1, 2, 3, 4, 5], (rates, hint)

    def from_the_hint(gen, lanes):
        return rates[gen] * lanes * (8 / 10 if gen <= 2 else 128 / 130) / 8

    assert check("06.4", from_the_hint).passed, hint


def test_every_exercise_has_at_least_two_wrong_answers():
    counts = {id: 0 for id in all_exercises() if id[:2].isdigit()}  # the course's, not a test's own
    for id, _, _ in WRONG:
        counts[id] += 1
    assert all(n >= 2 for n in counts.values()), {i: n for i, n in counts.items() if n < 2}


def _solution_functions(path: pathlib.Path) -> dict:
    """The functions a solutions notebook defines, by running its .py side (check cells included)."""
    namespace = {"__name__": "__solution__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("path", sorted((ROOT / "solutions").glob("*_exercises.py")), ids=lambda p: p.name[:2])
def test_every_solution_passes_in_process(path):
    namespace = _solution_functions(path)
    number = path.name[:2]
    for id, ex in all_exercises().items():
        if id.startswith(number + "."):
            result = check(id, namespace[ex.function])
            assert result.passed, result


def _course_answer(id: str):
    """The course's answer to exercise ``id`` (what show_answer=True shows), defined and returned."""
    import numpy as np

    from course_utils.checks import get_exercise

    ex = get_exercise(id)
    namespace = {"torch": torch, "nn": nn, "np": np, "io": io, "contextlib": contextlib, "statistics": statistics}
    exec(compile(ex.answer, f"<answer {id}>", "exec"), namespace)
    return namespace[ex.function]


def test_no_wrong_answer_is_told_the_value_the_check_expected():
    """Issue 33.3: "h = 0 is not what PyTorch prints (1)" (04.1) and 10.3's whole expected dict handed the
    answer over. The values the check expects are what the course's answer returns on the check's cases;
    no feedback to a plausible wrong answer spells one out (its own values it may quote back)."""
    from expected_values import Recording, leaked

    from course_utils.checks._core import ATTEMPTS
    from course_utils.checks.nb04 import READS

    expected = {}
    for id in sorted({i for i, _, _ in WRONG}):
        reference = Recording(_course_answer(id))
        try:
            assert check(id, reference).passed, id
        finally:
            torch.set_default_device(None)
        expected[id] = reference.returned
    told = []
    for id, answer, _ in WRONG:
        mine = Recording(answer)
        try:
            result = check(id, mine)
        finally:
            torch.set_default_device(None)
        feedback = f"{result.message} {result.hint} {result.ask}"
        said = leaked(expected[id], mine.returned, feedback, items=READS if id == "04.1" else "", given=mine.given)
        if said:
            told.append(f"{id} {answer.__name__}: {said} in: {feedback}")
    ATTEMPTS.reset()
    assert not told, "\n".join(told)


def test_the_leak_detector_sees_the_forms_of_issue_33():
    """The detector above is the test's whole strength: it must see the two forms the issue quoted."""
    from expected_values import leaked

    from course_utils.checks.nb04 import LISTING_ANSWERS, READS

    right = list(LISTING_ANSWERS)
    wrong = right[:-1] + [0]
    assert leaked([right], [wrong], "h = 0 is not what PyTorch prints (1).", items=READS)
    assert not leaked([right], [wrong], "h = 0 is not what PyTorch prints.", items=READS)
    state = {"first.0.weight": {"step": torch.device("cpu")}, "second.bias": {}}
    assert leaked([state], [{}], f"For Adam, optimizer_state_devices returned {{}}; expected {state!r}.")
    assert leaked([2_101_770], [2], "the parameters hold 2,101,770 bytes.")
    assert not leaked([2_101_770], [2_101_770], "you returned 2,101,770.")  # its own value, quoted back


def test_04_1_never_names_the_value_of_a_read():
    """Every wrong value at every read of 04.1, the reads before it right: the feedback names the read and the
    rule it turns on, never the number PyTorch prints there (the rules' hints hold no digit but -1)."""
    import re

    from expected_values import leaked

    from course_utils.checks._core import ATTEMPTS
    from course_utils.checks.nb04 import _WHY, LISTING_ANSWERS, READS

    assert all(not re.search(r"(?<!-)\d", why.replace("-1", "")) for why in _WHY.values()), _WHY
    right = list(LISTING_ANSWERS)
    told = []
    for position, letter in enumerate(READS):
        for value in (-1, 0, 1, 2):
            if value == right[position]:
                continue
            guess = right[:position] + [value] + right[position + 1 :]
            result = check("04.1", lambda guess=guess: guess)
            assert result.status == "fail" and f"{letter} = {value}" in result.message, result
            said = leaked([right], [guess], f"{result.message} {result.hint}", items=READS)
            if said:
                told.append(f"{letter}={value}: {said}: {result}")
    ATTEMPTS.reset()
    assert not told, "\n".join(told)


def load_by_device_type(data, device):
    """05.4: maps every storage by the device's type only, so a GPU target lands on the current GPU, cuda:0."""
    return torch.load(io.BytesIO(data), map_location=torch.device(device).type, weights_only=True)


def test_05_4_a_type_only_answer_passes_without_two_gpus_and_the_index_is_named(monkeypatch):
    """No device a CPU-only machine has keeps an index (meta:1 and cpu:0 tensors report meta and cpu), so only
    two CUDA GPUs tell a map by type from a map by device; the message then names the index."""
    from course_utils.checks import nb05

    assert torch.ones(1).to("meta:1").device == torch.device("meta")  # why a CPU cannot tell them apart
    monkeypatch.setattr(nb05, "accelerator_targets", lambda: ["cuda:0"])
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    assert nb05._last_gpu() == ["cuda:3"]
    assert "index" in nb05._why(torch.device("cuda", 0), "cpu", "cuda:3")
    assert "where the file says" in nb05._why(torch.device("cpu"), "cpu", "cuda:3")


@pytest.mark.cuda(2)
def test_05_4_a_type_only_answer_fails_on_two_gpus():
    result = check("05.4", load_by_device_type)
    assert result.status == "fail" and "index" in result.message, result
    assert check("05.4", lambda data, device: torch.load(io.BytesIO(data), map_location=device)).status == "pass"


def held_bytes_with_buffers(model, optimizer):
    """09.2, counting the model's buffers too: the text says that makes no difference."""
    tensors = [*model.parameters(), *model.buffers()]
    tensors += [p.grad for p in model.parameters() if p.grad is not None]
    tensors += [v for state in optimizer.state.values() for v in state.values() if isinstance(v, torch.Tensor)]
    return sum(t.numel() * t.element_size() for t in tensors)


def loader_options_none_context(touches_cuda):
    """09.3 with multiprocessing_context=None where it is not needed, the DataLoader's default."""
    return {"pin_memory": torch.cuda.is_available(), "multiprocessing_context": "spawn" if touches_cuda else None}


def load_onto_then_move(path, device, make_model):
    """03.3 in the other order: load into the CPU model, then move it."""
    model = make_model()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.to(device)


@pytest.mark.parametrize("id, answer", [("09.2", held_bytes_with_buffers), ("09.3", loader_options_none_context), ("03.3", load_onto_then_move)])
def test_a_reading_the_exercise_text_allows_passes(id, answer):
    assert check(id, answer).status == "pass"


def test_11_3_str_of_the_device_is_not_told_apart_on_a_cpu():
    """What the comment above nb11._autocast_once says: autocast takes a device string with an index, and no
    tensor on a CPU-only machine has one, so device_type=str(x.device) passes here (and runs CUDA autocast on a GPU)."""
    with torch.autocast(device_type="cpu:0", dtype=torch.bfloat16):
        assert nn.Linear(2, 2)(torch.ones(1, 2)).dtype is torch.bfloat16
    assert {str(torch.ones(1).to(d).device) for d in ("cpu:0", "meta:1")} == {"cpu", "meta"}

    def by_str(model, x):
        with torch.autocast(device_type=str(x.device), dtype=torch.bfloat16):
            out = model(x)
        return out.float()

    from course_utils.checks._core import learner_accelerator

    if learner_accelerator() is None:
        assert check("11.3", by_str).status == "pass"
