"""The try-it cells of lesson 01 (device query): each check passes a right answer and fails plausible
wrong ones, naming the mistake, on any machine (01.a runs the answer on simulated machines).
Lesson: notebooks/01_device_query."""

import torch
from try_it_support import Case

RIGHT_01A = """
def usable_device():
    acc = torch.accelerator.current_accelerator(check_available=True)
    return acc if acc is not None else torch.device("cpu")
"""

TRY_ITS = [
    Case("01.a", RIGHT_01A, "pass"),
    Case(
        "01.a",
        "def usable_device():\n    return torch.accelerator.current_accelerator(check_available=True)",
        "fail",
        "no accelerator works here",
    ),
    Case(
        "01.a",
        "def usable_device():\n    acc = torch.accelerator.current_accelerator()\n    return acc if acc is not None else torch.device('cpu')",
        "fail",
        "names the accelerator the build is for",
    ),
    Case("01.a", "def usable_device():\n    return torch.device('cuda' if torch.cuda.is_available() else 'cpu')", "fail", "a Mac's GPU"),
    Case("01.a", "def usable_device():\n    return 'cuda' if torch.accelerator.is_available() else 'cpu'", "fail", "not the string"),
    Case("01.a", "def usable_device():\n    return torch.device('cpu')", "fail", "never hard-code"),
    # CUDA, then MPS, by name: right on the four machines the check had, wrong on an Intel GPU
    Case(
        "01.a",
        "def usable_device():\n"
        "    if torch.cuda.is_available():\n"
        "        return torch.device('cuda')\n"
        "    if torch.backends.mps.is_available():\n"
        "        return torch.device('mps')\n"
        "    return torch.device('cpu')",
        "fail",
        "misses every other backend",
    ),
    Case(
        "01.a",
        "def usable_device():\n"
        "    if torch.accelerator.is_available():\n"
        "        return torch.accelerator.current_accelerator()\n"
        "    return torch.device('cpu')",
        "pass",
    ),
    Case("01.b", 'mask = "3,1"', "pass"),
    Case("01.b", 'mask = "1,3"', "fail", "first index listed becomes cuda:0"),
    Case("01.b", 'mask = "cuda:3,cuda:1"', "fail", "bare physical indices"),
    Case("01.b", "mask = [3, 1]", "fail", "is a string"),
    Case("01.b", 'mask = "3,1,0"', "fail", "only the two"),
    Case("01.b", 'mask = "3"', "fail", "physical GPU 3 as cuda:0;"),
]


# ----------------------------------------------------------------------------- exercises (listed in WRONG)


def best_build_accelerator():
    """Asks which accelerator the build is for, not whether it works: cuda on a CUDA build without a driver."""
    acc = torch.accelerator.current_accelerator()
    return acc if acc is not None else torch.device("cpu")


def _listed(mask):
    listed = []
    for entry in mask.split(","):
        entry = entry.strip()
        if not entry.isdigit():
            break
        listed.append(int(entry))
    return listed


def visible_cut_past_count(mask, physical):
    """Off by one: keeps an index equal to the GPU count (GPUs are numbered 0 to physical - 1)."""
    listed = _listed(mask)
    if len(set(listed)) < len(listed):
        return []
    cut = next((i for i, index in enumerate(listed) if index > physical), len(listed))
    return listed[:cut]


def visible_repeat_among_all(mask, physical):
    """Looks for repeats among every entry, also those after the entry that ends the reading."""
    entries = [e.strip() for e in mask.split(",")]
    if len(set(entries)) < len(entries):
        return []
    listed = _listed(mask)
    cut = next((i for i, index in enumerate(listed) if index >= physical), len(listed))
    return listed[:cut]


def describe_truncated(props):
    """Cuts the GiB to one decimal instead of rounding: 39.59 GiB shows as 39.5."""
    gib = int(props.total_memory / 1024**3 * 10) / 10
    return f"{props.name}: compute capability {props.major}.{props.minor}, {gib} GiB, {props.multi_processor_count} SMs"


def visible_skips_empty_entries(mask, physical):
    """Skips an empty entry ('1,,2') instead of stopping there: it is not a number, so the reading ends."""
    listed = []
    for entry in mask.split(","):
        entry = entry.strip()
        if entry == "":
            continue
        if not entry.isdigit():
            break
        if int(entry) in listed:
            return []
        listed.append(int(entry))
    cut = next((i for i, index in enumerate(listed) if index >= physical), len(listed))
    return listed[:cut]


WRONG = [
    ("01.1", best_build_accelerator, "no NVIDIA driver"),
    ("01.2", visible_cut_past_count, "past the last"),
    ("01.2", visible_repeat_among_all, "never read"),
    ("01.2", visible_skips_empty_entries, "two commas in a row"),
    ("01.3", describe_truncated, "part 2"),
]
