# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercises 03 · Model placement
#
# Each exercise asks for one function. Write it where it says `# YOUR CODE HERE`, run the
# cell, then run the check cell below it: it prints a **PASS**, or a **FAIL** with a hint.
# Every exercise can be solved on a machine without a GPU: the checks move models to `meta` or to
# another dtype, use checkpoints tagged as saved on `cuda:0` and `cuda:1`, and add CUDA cases when
# a GPU is present. Notebook: `notebooks/03_model_placement.ipynb`.

# %% [markdown] tags=["course-header"]
# **Run it on a free GPU:** [Open in Colab](https://colab.research.google.com/github/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/03_model_placement_exercises.ipynb) (one GPU: Runtime > Change runtime type > T4 GPU)
# · [Open in Kaggle](https://kaggle.com/kernels/welcome?src=https://github.com/pytorch-devices-course/pytorch-devices-course/blob/main/exercises/03_model_placement_exercises.ipynb) (two GPUs: Settings > Accelerator > GPU T4 x2).
# Without a GPU the notebook still runs to the end.

# %% tags=["course-header"]
# On Colab, Kaggle or any Jupyter without the course: install its helpers (`course_utils`).
# Where they are installed already (`make lab`) this does nothing. The torch you have is kept.
import importlib.metadata, importlib.util, os, subprocess, sys
if importlib.util.find_spec("course_utils") is None:
    keep_torch = [f"torch=={importlib.metadata.version('torch')}"] if importlib.util.find_spec("torch") else []
    source = os.environ.get("COURSE_UTILS_SOURCE", "course-utils @ git+https://github.com/pytorch-devices-course/pytorch-devices-course")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", source, *keep_torch], check=True)
    importlib.invalidate_caches()
    print("installed course_utils from", source)

# %%
import torch
from torch import nn

from course_utils import check
from course_utils.placement import placement_report

# %% [markdown]
# ## Exercise 03.1 · Fix the tensor attributes of a model
#
# This module has the classic bug: `mean` and `std` are plain tensor attributes, so
# `.to(device)` leaves them behind and `state_dict()` does not save them.

# %%
class Standardize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.mean = torch.tensor(mean)
        self.std = torch.tensor(std)

    def forward(self, x):
        return self.linear((x - self.mean) / self.std)

placement_report(Standardize([0.0, 1.0, 2.0], [1.0, 1.0, 1.0]).to("meta"))

# %% [markdown]
# Write `register_tensor_attributes(model)`: turn every plain tensor attribute of `model` **and
# of all its submodules** into a registered (persistent) buffer with the same name and value, in
# place, and return the model. Leave parameters, existing buffers and non-tensor attributes alone.
# (`register_buffer` refuses a name that is already an attribute: remove the attribute first.)

# %%
def register_tensor_attributes(model: nn.Module) -> nn.Module:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("03.1")

# %% [markdown]
# ## Exercise 03.2 · Where does a model live?
#
# Write `where_is(model)`: the one `torch.device` of the model's parameters **and buffers**;
# `None` for a module that has neither; and `ValueError` (naming the devices) for a model spread
# over several devices. Plain tensor attributes do not count: they are not part of the model.

# %%
def where_is(model: nn.Module) -> torch.device | None:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("03.2")

# %% [markdown]
# ## Exercise 03.3 · Load a checkpoint onto any device
#
# Write `load_onto(path, device, make_model)`: `path` is a file saved with
# `torch.save(model.state_dict(), path)` on any machine (CPU, `cuda:0`, `cuda:1`, ...),
# `make_model()` builds a fresh model of the right shape on the CPU. Return that model, holding
# the checkpoint's values, with all its tensors on `device`, on this machine whatever it has.
# Without a GPU the check also uses `device="meta"`: a meta tensor has no data, so nothing can be
# copied out of it into a CPU model. Either order passes that ends with the model's tensors on
# `device` holding the checkpoint's values: put the model on `device` first and load into it, or
# load into the CPU model and then move it.

# %%
def load_onto(path, device, make_model) -> nn.Module:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("03.3")

# %% [markdown]
# ## Exercise 03.4 · Move optimizer state to its parameters
#
# The model moved (or changed dtype) after its optimizer had already stepped, so the optimizer's
# state is still where it was made. Write `match_state_to_params(optimizer)`: in place, put every
# state tensor on its parameter's device, cast floating-point state to its parameter's dtype, and
# leave `step` exactly as it is (Adam's CPU counter; other state can be 0-dim too, such as the
# state of a 0-dim parameter, and it moves). The check's optimizers are neither `capturable` nor
# `fused`, whose `step` lives on its parameter's device (`Optimizer.load_state_dict` moves it then).

# %%
def match_state_to_params(optimizer: torch.optim.Optimizer) -> None:
    # YOUR CODE HERE
    raise NotImplementedError()

# %%
check("03.4")
