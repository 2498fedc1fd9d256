"""What real GPUs printed in the course's GPU-only cells, as others published it: field records.

Lesson: every notebook's GPU-only cells, until ``scripts/gpu-verify`` records the course's own run.
``RECORDS`` holds one row per public report: a verbatim excerpt of what a real GPU printed for
cell ``key``'s point, cut only to the relevant lines (a cut is marked ``[…]``), with where it was
published (``url``), the date of the post that holds it, and the torch version and the GPU or
platform as the report states them. Nothing here was run by this course, and ``recorded(key)``
says so in the label; a course recording of the same key replaces the field record.

What an excerpt must contain to count as a record of cell ``key`` (``POINTS``), and why a GPU-only cell
has none (``NO_RECORD``), are the authors' side: ``course_authoring.field_record_rules``, which
``tests/test_field_records.py`` holds every record to, with the release range of the cell's source
quotes (a record from another release says how that release differed, in ``differs``) and its
provenance fields. (The recorder matches no pattern: it stores a cell's own output only when nbval
passed the cell.)

``TIMINGS`` holds published measurements of what a lesson's stand-in imitates (``STANDINS``: lesson 06 times
host-to-host copies where a GPU would copy over PCIe), records of the same kind, shown by ``show.published(key)``
beside the stand-in's own figures and never merged into them.
"""

from __future__ import annotations

from dataclasses import dataclass

CUT = "[…]"  # marks lines (or the rest of a line) left out of an excerpt
FLOOR = "2.7.1"  # the oldest torch the course supports (sources.RELEASES[0])


@dataclass(frozen=True)
class FieldRecord:
    """One public report of what a real GPU printed in the situation of cell ``key``."""

    key: str
    excerpt: str  # verbatim from the report; only cut, each cut marked [...] as CUT
    url: str  # where it was published
    date: str  # YYYY-MM-DD: the date of the post that holds the excerpt
    torch: str  # the torch version, as the report states it
    gpu: str  # the GPU or platform, as the report states it
    shows: str  # one sentence: what of the cell's point the excerpt shows, and what it does not
    differs: str = ""  # how that torch release differed from the cell's quoted releases (needed outside them)
    link: str = ""  # for a timing: the PCIe (or other) link, as the report states it

    @property
    def release(self) -> str:
        """``2.1.0`` for ``2.1.0+cu121``: the release, without its local build tag."""
        return self.torch.split("+")[0].strip()

    @property
    def before_floor(self) -> bool:
        """Whether the report's torch is older than the oldest release the course supports."""
        from torch.torch_version import TorchVersion

        return TorchVersion(self.release) < FLOOR

    @property
    def label(self) -> str:
        """``printed on a Tesla T4 with torch 2.3.0, as reported in <url> (date); not run by this course``."""
        link = f" over {self.link}" if self.link else ""
        return f"printed on {self.gpu}{link} with torch {self.torch}, as reported in {self.url} ({self.date}); not run by this course"

    @property
    def caveat(self) -> str:
        """What a reader must know before comparing: an older torch than the course's, and how it differed."""
        older = f"torch {self.torch} is older than the course's floor, {FLOOR}. " if self.before_floor else ""
        return (older + self.differs).strip()


# One report backs three cells: an elementwise sum of a CPU tensor and a GPU tensor, with its message.
_PATCHMATCH_URL = "https://github.com/FangjinhuaWang/PatchmatchNet/issues/35"
_PATCHMATCH_EXCERPT = (
    "CUDA 11.1 and pytorch 1.8.1 are installed on my computer, when I run train.sh, the training process did not "
    'start , and the error message is "RuntimeError: Expected all tensors to be on the same device, but found at '
    'least two devices, cuda:0 and cpu!" \n'
    "**The solution is as follows：**\n"
    'add .cpu() after "loss = loss + F.smooth_l1_loss(depth1, depth2, reduction="mean")" in '
    '"PatchmatchNet/models/net.py" as "loss = loss + F.smooth_l1_loss(depth1, depth2, reduction="mean").cpu()"'
)
_PATCHMATCH_GPU = "a CUDA GPU (the report names no model or platform; CUDA 11.1)"
_PATCHMATCH_DIFFERS = (
    "torch 1.8.1 words the message as the cell's quote from aten/src/ATen/TensorIterator.cpp (read in "
    "2.7.1 and later) does, which the test checks."
)

# One report backs both .numpy() cells: NumPy converting a tensor on the GPU, through Tensor.__array__.
_NUMPY_URL = "https://github.com/JCBrouwer/OptimalTextures/issues/2"
_NUMPY_EXCERPT = (
    "Out of the box (using conda python 3.8.5 and pytorch 1.8.1) was getting this error:\n"
    "```\n"
    "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
    "first.\n"
    "```\n"
    "With this trace:\n"
    f"{CUT}\n"
    '  File ".../torch/tensor.py", line 621, in __array__\n'
    "    return self.numpy()"
)
_NUMPY_GPU = "a CUDA GPU (the report names no model or platform; conda Python 3.8.5)"
_NUMPY_DIFFERS = (
    "torch 1.8.1 words the message as the cell's quote from torch/csrc/utils/tensor_numpy.cpp (read in "
    "2.7.1 and later) does, which the test checks; there NumPy's asarray reached .numpy() through "
    "Tensor.__array__ (torch/tensor.py in that release's trace; torch/_tensor.py in 2.13.0, where "
    "__array__ still returns self.numpy())."
)

# FluxTrainer's training node: a linear layer given operands on two devices, torch 2.5.1 (cell 05-linear).
_ADDMM_DIFFERS = (
    "torch 2.5.1 words the message as the cell's quote read in 2.7.1 does ('found at least two devices, "
    "... (when checking argument for argument mat1 in method wrapper_CUDA_addmm)'), which the test "
    "checks; from 2.8.0 the same check reads 'but got mat1 is on ..., different from other tensors on "
    "...' (the cell's other quote, aten/src/ATen/core/op_registration/adaption.cpp)."
)
_FLUX_GPU = "an NVIDIA GeForce RTX 4060 Ti (Windows)"
_FLUX_ORDER = (
    "the order 'cpu and cuda:0' says the first operand checked was on the CPU and mat1 on the GPU, the swap "
    "of the cell's case (a ComfyUI training node, not the cell's own model)"
)

# Daniel Bourke's course notebooks (mrdbourke/pytorch-deep-learning), run on a GPU and committed with their outputs.
_MRD = "https://github.com/mrdbourke/pytorch-deep-learning/blob/"
_ERRORS_URL = _MRD + "b136b3b94a6d46bd865ffbf4db5ca3865d8e5cee/extras/pytorch_most_common_errors.ipynb"
_WORKFLOW_URL = _MRD + "2bfee95e9e442427ca812fef1ea3927f3abb9e4f/01_pytorch_workflow.ipynb"
_FUNDAMENTALS_URL = _MRD + "08eff0877051a2d0f19110193187d6d7344b509a/00_pytorch_fundamentals.ipynb"
_PT2_URL = _MRD + "d6fed59f83ce8a442cfaa0376bd317a73fe90c16/extras/pytorch_2_intro.ipynb"
_CU113_GPU = "a CUDA GPU (the notebook does not name it; a CUDA 11.3 build)"
_TITAN = "an NVIDIA TITAN RTX (as the notebook's nvidia-smi output names it)"
_ERRORS_VERSION = 'import torch\nprint(f"PyTorch version: {torch.__version__}")\nPyTorch version: 1.12.1+cu113\n'
_WRAPPER_ADDMM_DIFFERS = (
    "torch 1.12.1 words the message in the form of the cell's 2.7.1 quote ('found at least two "
    "devices, cuda:0 and cpu! (when checking argument for argument mat1 in method ...)'), which the "
    "test checks, and names the kernel wrapper_addmm where the cell's releases name "
    "wrapper_CUDA_addmm; from 2.8.0 the check reads 'but got mat1 is on cpu, different from other "
    "tensors on cuda:0' (the cell's other quote)."
)
_MOVED_IN_PLACE_DIFFERS = (
    "The cell's quote, 'This method modifies the module in-place.' (torch/nn/modules/module.py), "
    "is read in 2.7.1 and later; the report shows the same in-place move in torch 1.12.1."
)

# Dive into Deep Learning (d2l-ai/d2l-pytorch-colab, release 1.0.3): the book's notebooks, run on its build machine
# with two GPUs and committed with their outputs. The notebooks do not print torch's version; the same release's
# installation chapter names the one it was tested with ("pip install torch==2.0.0 torchvision==0.15.1").
_D2L = "https://github.com/d2l-ai/d2l-pytorch-colab/blob/f8543710a7046a947464f0fa3ad0f8619d7613d3/"
_D2L_GPU = (
    "a machine with two CUDA GPUs (the book's build; models not named, num_gpus() prints 2; torch as the "
    "release's installation chapter names it, 'pip install torch==2.0.0')"
)
_D2L_TORCH = "2.0.0"

# Sebastian Raschka's LLMs-from-scratch (rasbt/LLMs-from-scratch): notebooks committed with their GPU outputs.
_RASBT = "https://github.com/rasbt/LLMs-from-scratch/blob/"
_APPENDIX_A_URL = _RASBT + "08040f024c35ceb4f7a0ad7c5df4747ef632d349/appendix-A/01_main-chapter-code/code-part2.ipynb"
_APPENDIX_A_EXCERPT = (
    "import torch\n"
    "\n"
    "print(torch.__version__)\n"
    "2.4.0+cu121\n"
    f"{CUT}\n"
    'tensor_1 = tensor_1.to("cuda")\n'
    'tensor_2 = tensor_2.to("cuda")\n'
    "\n"
    "print(tensor_1 + tensor_2)\n"
    "tensor([5., 7., 9.], device='cuda:0')\n"
    f"{CUT}\n"
    'tensor_1 = tensor_1.to("cpu")\n'
    "print(tensor_1 + tensor_2)\n"
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
)
_APPENDIX_A_GPU = "a Tesla T4 (Google Colab; the notebook's metadata names the GPU type, T4)"
_APPENDIX_A_DIFFERS = (
    "torch 2.4.0 words the message as the cell's quote from aten/src/ATen/TensorIterator.cpp (read in "
    "2.7.1 and later) does, which the test checks."
)

# PyTorch's tutorial "A guide on good usage of non_blocking and pin_memory() in PyTorch", as its documentation build
# rendered it on a GPU machine: the stored page at a commit of pytorch/tutorials' published site, whose title names
# the build, "PyTorch Tutorials 2.12.0+cu130 documentation". The page says its figures are "conditioned on the system
# used to build the tutorial" and does not name that system's GPU.
_PINMEM_URL = "https://github.com/pytorch/tutorials/blob/006e9b4454268e3fb9bd58f21e41eb096f8764f1/intermediate/pinmem_nonblock.html"
_PINMEM_DATE = "2026-04-01"  # the page's own "Last Updated" date; the build that printed the figures is that day or later
_PINMEM_TORCH = "2.12.0+cu130"
_PINMEM_GPU = "the PyTorch tutorials' build machine (a CUDA GPU; the page does not name it)"

R = FieldRecord
RECORDS: tuple[FieldRecord, ...] = (
    R(
        "01-visible-devices-after-init",
        'os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n'
        "print(torch._C._cuda_getDeviceCount())\n"
        "# result: 2\n"
        'os.environ["CUDA_VISIBLE_DEVICES"] = "0"\n'
        "print(torch._C._cuda_getDeviceCount())\n"
        "# result: 2",
        "https://github.com/pytorch/pytorch/issues/159641",
        "2025-08-01",
        "2.6.0+cu126",
        "a machine with two visible GPUs (models not named; Ubuntu 22.04.5 LTS, a CUDA 12.6 build)",
        "After the first count, setting CUDA_VISIBLE_DEVICES=0 in the process leaves the count at 2 (the report "
        "calls the C function behind torch.cuda.device_count, and writes the results as comments).",
        "The cell's quote, the comment on caching the count only after CUDA initialised, is read in 2.7.1 and "
        "later; the report shows the count CUDA itself fixes at its first call.",
    ),
    R(
        "04-device-of-cuda",
        ">>> with torch.cuda.device(torch.device('cuda', 0)):\n"
        "...     a = torch.zeros(10, 1)\n"
        "...     b = torch.zeros(10, 1, device=torch.cuda.current_device())\n"
        "...     torch.cuda.current_device()\n"
        "...     a.device\n"
        "...     b.device\n"
        "... \n"
        "0\n"
        "device(type='cpu')\n"
        "device(type='cuda', index=0)",
        "https://github.com/pytorch/pytorch/issues/18399",
        "2019-03-24",
        "1.0.1.post2",
        "2x Tesla V100-SXM2-16GB, Ubuntu 16.04.5 LTS",
        "Inside a CUDA device block the current device is 0, a tensor made without device= stays on the CPU and "
        "one made on the current device lands on cuda:0: the block moves and makes nothing on the GPU by itself.",
        "The report's block is torch.cuda.device, not torch.cuda.device_of; device_of is a subclass of it "
        "(torch/cuda/__init__.py, `class device_of(device)`), which only picks the index from a tensor.",
    ),
    R(
        "05-indexing",
        "mask = torch.full((3,), True, dtype=bool, device='cuda')\n"
        "array = torch.tensor([1, 2, 3], dtype=torch.float32, device='cpu')\n"
        "array = array[mask]\n"
        "print(array)\n"
        f"{CUT}\n"
        "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)",
        "https://github.com/pytorch/pytorch/issues/90194",
        "2022-12-05",
        "1.13.0",
        "a CUDA GPU (the report names no model or platform)",
        "A CPU tensor indexed by a mask on the GPU raises, and the message names the indexed tensor's device, cpu.",
        "The report says the same code ran in 1.12.1 and fails from 1.13.0, where this check came in; the message "
        "is the cell's quote word for word, which the test checks.",
    ),
    R(
        "06-hidden-syncs",
        "torch.cuda.set_sync_debug_mode(1)\n"
        f"{CUT}\n"
        "x_tensor = torch.tensor(3.14, device=dev)  # sync\n"
        f"{CUT}\n"
        "UserWarning: called a synchronizing CUDA operation (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:147.)",
        "https://github.com/pytorch/pytorch/issues/120996",
        "2024-03-01",
        "2.1.0+cu121",
        "a CUDA GPU (not named in the excerpt; Ubuntu 22.04.3 LTS, a CUDA 12.1 build)",
        'The warning set_sync_debug_mode(1), that is "warn", prints for a synchronizing call, in its words; the '
        "call here is torch.tensor(3.14, device=dev), not .item().",
        "The line number in the warning (CUDAFunctions.cpp:147) is that release's source line.",
    ),
    R(
        "07-square",
        "my_tensor_gpu = torch.arange(3*3*3).view(3,3,3).to('cuda')\n"
        "\n"
        "# normal indexing\n"
        "print(my_tensor_gpu[:,[2],2])\n"
        "\n"
        "# yields \n"
        "# tensor([[ 8],\n"
        "#         [17],\n"
        "#         [26]], device='cuda:0')",
        "https://github.com/pytorch/pytorch/issues/44311",
        "2020-09-08",
        "1.5.0",
        "a CUDA GPU on Windows (the model is not named)",
        "A tensor on the GPU prints its device at the end, device='cuda:0' (here the result of indexing, not of "
        "x ** 2; the report writes the printed lines as comments).",
        "torch 1.5.0 prints a tensor on the GPU with the same device='cuda:0' suffix that the cell's quote "
        "(torch/_tensor_str.py, read in 2.7.1 and later) appends; the test checks the suffix.",
    ),
    R(
        "08-nccl-error",
        "Environment: Pytorch 2.1.0 +Cuda 12.1\n"
        "Issue: Nccl error occures when training on mutiple GPUs in a single node\n"
        '"Duplicate GPU detected : rank 1 and rank 0 both on CUDA device a4000" from NCCL INFO.',
        "https://github.com/facebookresearch/fairchem/issues/597",
        "2023-11-14",
        "2.1.0",
        "several GPUs in one node (the model is not named; CUDA 12.1)",
        "NCCL's refusal of two ranks on one GPU, with the GPU's PCI bus id (a4000) at the end.",
        "Its NCCL words the refusal in the form of the quote from torch 2.7.1's NCCL, which the test checks; "
        "torch 2.14.1's NCCL words it differently.",
    ),
    R(
        "09-out-of-memory",
        "RuntimeError: CUDA out of memory. Tried to allocate 26.00 MiB (GPU 0; 1024.00 MiB total capacity; 435.61 MiB "
        "already allocated; 24.17 MiB free; 26.39 MiB cached)\n"
        f"{CUT}\n"
        "the Pytorch version is 1.2.0+cu92",
        "https://github.com/pytorch/examples/issues/621",
        "2019-08-27",
        "1.2.0+cu92",
        "a GPU of 1024 MiB total capacity (the model is not named)",
        "The out-of-memory error says how much was asked for, the GPU's total capacity and what was free (the "
        "version line is the reporter's reply of 2019-08-28 in the same thread).",
        "torch 1.2.0 words the message in its older form, '(GPU 0; ... total capacity; ... already allocated; ... "
        "free; ... cached)', and raises a plain RuntimeError; the cell's quotes, read in 2.7.1 and later, hold the "
        "form 'GPU 0 has a total capacity of ... of which ... is free' and the expandable_segments hint.",
    ),
    R(
        "09-forked-cuda",
        "Getting RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
        "must use the 'spawn' start method. working with colab. Here pytorch version is 1.7.0",
        "https://github.com/princevandev/TextSnake.pytorch/issues/54",
        "2020-12-24",
        "1.7.0",
        "Google Colab (a GPU runtime; the GPU is not named)",
        "The error a forked worker raises when CUDA was initialised before the fork, in its words; the report does "
        "not say what in the worker touched CUDA.",
        "The message is the same sentence as the cell's quote from torch/cuda/__init__.py, which the test checks.",
    ),
    R(
        "02-cross-device-error",
        _PATCHMATCH_EXCERPT,
        _PATCHMATCH_URL,
        "2021-05-25",
        "1.8.1",
        _PATCHMATCH_GPU,
        "Adding a tensor on the GPU to one on the CPU raises, and the message names both devices, cuda:0 and cpu "
        "(the report's sum is a loss; the same report backs cells 05-elementwise and 07-add-cpu).",
        _PATCHMATCH_DIFFERS,
    ),
    R(
        "05-elementwise",
        _PATCHMATCH_EXCERPT,
        _PATCHMATCH_URL,
        "2021-05-25",
        "1.8.1",
        _PATCHMATCH_GPU,
        "An elementwise sum of a CPU tensor and a GPU tensor raises, in the format of the cell's quote, naming cuda:0 "
        "and cpu (the same report backs cells 02-cross-device-error and 07-add-cpu).",
        _PATCHMATCH_DIFFERS,
    ),
    R(
        "07-add-cpu",
        _PATCHMATCH_EXCERPT,
        _PATCHMATCH_URL,
        "2021-05-25",
        "1.8.1",
        _PATCHMATCH_GPU,
        "A sum with one operand on the CPU and one on the GPU raises, naming cuda:0 and cpu, and moving the GPU operand "
        "with .cpu() was the reporter's fix (the sum is loss + F.smooth_l1_loss(...), not y + x.cpu()).",
        _PATCHMATCH_DIFFERS,
    ),
    R(
        "05-invalid-ordinal",
        "And keep running into this error:\n"
        "RuntimeError: CUDA error: invalid device ordinal\n"
        "\n"
        "Cuda is available, and the device ID is correct.\n"
        "Pytorch 1.13\n"
        "cuda 11.6\n"
        f"{CUT}\n"
        "my mistake, didn't pass the correct device in the model parameters",
        "https://github.com/divelab/DIG/issues/224",
        "2023-09-27",
        "1.13",
        "a CUDA GPU (the report names no model; CUDA 11.6)",
        "A device index the machine does not have raises 'CUDA error: invalid device ordinal' (the last line is the "
        "reporter's comment of the same day: the wrong device had been passed); the report shows no traceback.",
        "The report quotes only the error's first line; the cell's quote adds 'GPU device may be out of range, do you "
        "have enough GPUs?' from 2.9.1 on, and from 2.8.0 the error is a torch.AcceleratorError, a RuntimeError "
        "subclass (the cell's sentence).",
    ),
    R(
        "05-conv-cross-device",
        "I ran your notebook and ran into an error \n"
        "\n"
        "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same\n"
        "\n"
        "I thought the error was becuse I was on pytorcg 0.3.1, I have now upgraded to pytorch version 0.4.0.\n"
        "The error still occured.",
        "https://github.com/KeremTurgutlu/deeplearning/issues/2",
        "2018-05-04",
        "0.4.0",
        "a CUDA GPU (the report names no model or platform)",
        "A convolution with its input on the GPU and its weights on the CPU raises, and the message names tensor "
        "types (torch.cuda.FloatTensor, torch.FloatTensor), not devices; this is the swap of the cell's first case.",
        "The reporter saw it in 0.3.1 and again in 0.4.0; the sentence is that of the cell's quote from "
        "aten/src/ATen/native/Convolution.cpp (read in 2.7.1 and later), which the test checks, and the report "
        "carries no more of the message than that sentence.",
    ),
    R(
        "02-numpy",
        _NUMPY_EXCERPT,
        _NUMPY_URL,
        "2021-04-16",
        "1.8.1",
        _NUMPY_GPU,
        "Converting a tensor on the GPU to NumPy raises TypeError naming its device, cuda:0, and says to call .cpu() "
        "first (the conversion is NumPy's, through Tensor.__array__, which calls .numpy(); the same report backs cell "
        "05-numpy).",
        _NUMPY_DIFFERS,
    ),
    R(
        "05-numpy",
        _NUMPY_EXCERPT,
        _NUMPY_URL,
        "2021-04-16",
        "1.8.1",
        _NUMPY_GPU,
        "A tensor on the GPU refuses the conversion to NumPy with TypeError, cuda:0 where the cell shows meta in the "
        "same message (the call is NumPy's asarray, which reaches .numpy(); the same report backs cell 02-numpy).",
        _NUMPY_DIFFERS,
    ),
    R(
        "03-load-cuda1-checkpoint",
        "```python\n"
        "import torch\n"
        "torch.cuda.set_device(1)\n"
        "model = torch.nn.Linear(10, 10)\n"
        "model.cuda()\n"
        'torch.save(model.state_dict(), "a.pth")\n'
        "\n"
        "torch.cuda.set_device(2)\n"
        'print(torch.load("a.pth")["weight"].device)\n'
        f"{CUT}\n"
        "```\n"
        "\n"
        "```\n"
        "cuda:1\n"
        f"{CUT}\n"
        "```\n"
        "(pytorch=1.4.0)",
        "https://github.com/pytorch/pytorch/issues/35289",
        "2020-03-24",
        "1.4.0",
        "a machine with at least three GPUs (the models are not named)",
        "A state dict saved from cuda:1 and loaded without map_location comes back on cuda:1, even with cuda:2 the "
        "current device; the report does not show the one-GPU machine's RuntimeError.",
        "The cell's quotes, torch.load's docstring and message in torch/serialization.py, are read in 2.7.1 and "
        "later; the report shows the same rule at work in 1.4.0 (its other two lines, cut here, are about "
        "map_location, whose 1.4.0 behaviour the thread reports fixed after that release).",
    ),
    R(
        "01-gpu-properties",
        "print('Setup complete. Using torch %s %s' % (torch.__version__, torch.cuda.get_device_properties(0) if "
        "torch.cuda.is_available() else 'CPU'))\n"
        "Setup complete. Using torch 1.8.1+cu101 _CudaDeviceProperties(name='Tesla V100-SXM2-16GB', major=7, minor=0, "
        "total_memory=16160MB, multi_processor_count=80)",
        "https://github.com/ultralytics/yolov5/blob/2eab46e2cfbd4e99b0f5d3d17a5f8c2acfb3285b/tutorial.ipynb",
        "2021-04-12",
        "1.8.1+cu101",
        "a Tesla V100-SXM2-16GB (the notebook's own run, committed with its output)",
        "get_device_properties(0) prints the GPU's name, its compute capability (major=7, minor=0: sm_70), its "
        "multiprocessor count and its total memory; the cell's free memory (mem_get_info) is not in the report.",
        "torch 1.8.1 prints the properties with these five fields (a later run, mryab/efficient-dl-systems' Colab T4 "
        "notebook, adds uuid, pci_bus_id and L2_cache_size among others); the cell's quotes (torch/cuda/__init__.py and "
        "torch/cuda/memory.py docstrings) are read in 2.7.1 and later.",
    ),
    R(
        "05-linear",
        "# ComfyUI Error Report\n"
        "## Error Details\n"
        "- **Node ID:** 4\n"
        "- **Node Type:** FluxTrainLoop\n"
        "- **Exception Type:** RuntimeError\n"
        "- **Exception Message:** Expected all tensors to be on the same device, but found at least two devices, cpu and "
        "cuda:0! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)\n"
        f"{CUT}\n"
        "## System Information\n"
        f"{CUT}\n"
        "- **PyTorch Version:** 2.5.1+cu121\n"
        "## Devices\n"
        "\n"
        "- **Name:** cuda:0 NVIDIA GeForce RTX 4060 Ti : cudaMallocAsync",
        "https://github.com/kijai/ComfyUI-FluxTrainer/issues/116",
        "2025-01-12",
        "2.5.1+cu121",
        _FLUX_GPU,
        "A linear layer's matrix product (addmm) with operands on the CPU and the GPU raises, naming both devices, the "
        f"argument mat1 and the CUDA kernel wrapper_CUDA_addmm; {_FLUX_ORDER}.",
        _ADDMM_DIFFERS,
    ),
    R(
        "03-model-input",
        _ERRORS_VERSION + f"{CUT}\n"
        "# Pass the test image through model_6 to make a prediction\n"
        "model_6(test_image)\n"
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
        "(when checking argument for argument mat1 in method wrapper_addmm)",
        _ERRORS_URL,
        "2022-11-18",
        "1.12.1+cu113",
        _CU113_GPU,
        "A model moved to the GPU and given a CPU input (one test image) raises a RuntimeError naming cuda:0, cpu, the "
        "argument mat1 (the input of its linear layer's matrix product) and the kernel that checked it.",
        _WRAPPER_ADDMM_DIFFERS,
    ),
    R(
        "07-model-input",
        _ERRORS_VERSION + f"{CUT}\n"
        '# Send model_6 to the target device ("cuda")\n'
        "model_6.to(device)\n"
        f"{CUT}\n"
        "Model is on device: cuda:0\n"
        f"{CUT}\n"
        "    y_pred = model_6(X) # model is on GPU, data is on CPU (will error)\n"
        f"{CUT}\n"
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
        "(when checking argument for argument mat1 in method wrapper_addmm)\n"
        f"{CUT}\n"
        "    X, y = X.to(device), y.to(device) # <-- NEW: send data to target device\n"
        f"{CUT}\n"
        "Epoch: 0 | Training loss: 134.76",
        _ERRORS_URL,
        "2022-11-18",
        "1.12.1+cu113",
        _CU113_GPU,
        "The model on cuda:0 given batches left on the CPU raises, naming mat1, cuda:0 and cpu; given its batches on the "
        "GPU it trains (the report prints a loss, not the output's device).",
        _WRAPPER_ADDMM_DIFFERS,
    ),
    R(
        "03-module-cuda",
        _ERRORS_VERSION + f"{CUT}\n"
        "# All models and tensors are created on the CPU by default (unless explicitly set otherwise)\n"
        'print(f"Model is on device: {next(model_6.parameters()).device}")\n'
        "Model is on device: cpu\n"
        f"{CUT}\n"
        '# Send model_6 to the target device ("cuda")\n'
        "model_6.to(device)\n"
        "\n"
        "# Print out what device the model is on\n"
        'print(f"Model is on device: {next(model_6.parameters()).device}")\n'
        "Model is on device: cuda:0",
        _ERRORS_URL,
        "2022-11-18",
        "1.12.1+cu113",
        _CU113_GPU,
        "model_6.to(device), its result not assigned, moves the model's parameters from cpu to cuda:0: the module moves "
        "in place; the report does not show .cpu() or that .to() returns the module itself.",
        _MOVED_IN_PLACE_DIFFERS,
    ),
    R(
        "07-net-cuda",
        "# Check PyTorch version\n"
        "torch.__version__\n"
        "'1.12.1+cu113'\n"
        f"{CUT}\n"
        "# Check model device\n"
        "next(model_1.parameters()).device\n"
        "device(type='cpu')\n"
        f"{CUT}\n"
        'model_1.to(device) # the device variable was set above to be "cuda" if available or "cpu" if not\n'
        "next(model_1.parameters()).device\n"
        "device(type='cuda', index=0)",
        _WORKFLOW_URL,
        "2022-11-10",
        "1.12.1+cu113",
        _CU113_GPU,
        "After model_1.to(device) with device 'cuda', its result not assigned, the first parameter is on cuda:0: the "
        "module moved in place (the call is .to('cuda'), not .cuda(), and the report does not compare the objects).",
        _MOVED_IN_PLACE_DIFFERS,
    ),
    R(
        "07-cuda0-device",
        "# Check PyTorch version\n"
        "torch.__version__\n"
        "'1.12.1+cu113'\n"
        f"{CUT}\n"
        'model_1.to(device) # the device variable was set above to be "cuda" if available or "cpu" if not\n'
        "next(model_1.parameters()).device\n"
        "device(type='cuda', index=0)",
        _WORKFLOW_URL,
        "2022-11-10",
        "1.12.1+cu113",
        _CU113_GPU,
        "A device on the first GPU prints as device(type='cuda', index=0), the form the cell prints for x.cuda(0).device "
        "(here the device of a parameter moved with .to('cuda'), not a tensor moved with .cuda(0)).",
        "The cell's quote (the .cuda() docstring in torch/_tensor_docs.py) is read in 2.7.1 and later; torch 1.12.1 "
        "prints a device in the same device(type=..., index=...) form, which the test checks.",
    ),
    R(
        "02-round-trip",
        "# Set device type\n"
        'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
        "device\n"
        "'cuda'\n"
        f"{CUT}\n"
        "# Create tensor (default on CPU)\n"
        "tensor = torch.tensor([1, 2, 3])\n"
        "\n"
        "# Tensor not on GPU\n"
        "print(tensor, tensor.device)\n"
        "\n"
        "# Move tensor to GPU (if available)\n"
        "tensor_on_gpu = tensor.to(device)\n"
        "tensor_on_gpu\n"
        "tensor([1, 2, 3]) cpu\n"
        "tensor([1, 2, 3], device='cuda:0')\n"
        f"{CUT}\n"
        "# Instead, copy the tensor back to cpu\n"
        "tensor_back_on_cpu = tensor_on_gpu.cpu().numpy()\n"
        "tensor_back_on_cpu\n"
        "array([1, 2, 3])\n"
        f"{CUT}\n"
        "tensor_on_gpu\n"
        "tensor([1, 2, 3], device='cuda:0')",
        _FUNDAMENTALS_URL,
        "2023-03-09",
        "1.13.1+cu116",
        _TITAN,
        "t.to('cuda') makes a copy on cuda:0 and .cpu() copies it back with the same values, while the GPU tensor stays "
        "on cuda:0 (the version is the notebook's torch.__version__ output; the report does not test `back is t`).",
        "The cell's quotes (the .cuda() and .cpu() docstrings in torch/_tensor_docs.py) are read in 2.7.1 and later; "
        "torch 1.13.1 prints the copies the way the test checks, device='cuda:0' and then a CPU copy.",
    ),
    R(
        "02-tensor-on-gpu",
        "[INFO] Current PyTorch version: 2.0.0+cu118 (should be 2.x+)\n"
        f"{CUT}\n"
        "GPU name: NVIDIA_TITAN_RTX\n"
        f"{CUT}\n"
        "# Set the device\n"
        'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
        "\n"
        "# Set the device globally\n"
        "torch.set_default_device(device)\n"
        "\n"
        "# All tensors created will be on the global device by default\n"
        "layer = torch.nn.Linear(20, 30)\n"
        'print(f"Layer weights are on device: {layer.weight.device}")\n'
        'print(f"Layer creating data on device: {layer(torch.randn(128, 20)).device}")\n'
        "Layer weights are on device: cuda:0\n"
        "Layer creating data on device: cuda:0",
        _PT2_URL,
        "2023-04-15",
        "2.0.0+cu118",
        _TITAN,
        "Factory functions given the device 'cuda', without an index, make their tensors on cuda:0 (here the device "
        "comes from torch.set_default_device('cuda'), not from device='cuda' in the call, and the current-device index "
        "is not printed).",
        "The cell's quote (the device docstring in torch/_torch_docs.py) is read in 2.7.1 and later; in torch 2.0.0 "
        "the notebook's factory calls under set_default_device('cuda') land on cuda:0, which the test checks.",
    ),
    R(
        "07-cuda0-cuda1",
        "X = torch.ones(2, 3, device=try_gpu())\n"
        "X\n"
        "tensor([[1., 1., 1.],\n"
        "        [1., 1., 1.]], device='cuda:0')\n"
        f"{CUT}\n"
        "Z = X.cuda(1)\n"
        "print(X)\n"
        "print(Z)\n"
        "tensor([[1., 1., 1.],\n"
        "        [1., 1., 1.]], device='cuda:0')\n"
        "tensor([[1., 1., 1.],\n"
        "        [1., 1., 1.]], device='cuda:1')",
        _D2L + "chapter_builders-guide/use-gpu.ipynb",
        "2023-08-18",
        _D2L_TORCH,
        _D2L_GPU,
        "On two GPUs, X.cuda(1) copies a tensor from cuda:0 to cuda:1: an index names the device; the report moves "
        "tensors only, not a module, and X itself was made with device=cuda:0 (try_gpu()), not with .cuda(0).",
        "The cell's quotes (the .cuda() docstring and 'This method modifies the module in-place.') are read in 2.7.1 "
        "and later; in torch 2.0.0 .cuda(1) lands on cuda:1, which the test checks.",
    ),
    R(
        "07-two-gpu-transfer",
        "def allreduce(data):\n"
        "    for i in range(1, len(data)):\n"
        "        data[0][:] += data[i].to(data[0].device)\n"
        "    for i in range(1, len(data)):\n"
        "        data[i][:] = data[0].to(data[i].device)\n"
        f"{CUT}\n"
        "data = [torch.ones((1, 2), device=d2l.try_gpu(i)) * (i + 1) for i in range(2)]\n"
        "print('before allreduce:\\n', data[0], '\\n', data[1])\n"
        "allreduce(data)\n"
        "print('after allreduce:\\n', data[0], '\\n', data[1])\n"
        "before allreduce:\n"
        " tensor([[1., 1.]], device='cuda:0') \n"
        " tensor([[2., 2.]], device='cuda:1')\n"
        "after allreduce:\n"
        " tensor([[3., 3.]], device='cuda:0') \n"
        " tensor([[3., 3.]], device='cuda:1')",
        _D2L + "chapter_computational-performance/multiple-gpus.ipynb",
        "2023-08-18",
        _D2L_TORCH,
        _D2L_GPU,
        "On two GPUs, t.to(other.device) moves a tensor to the other tensor's GPU, cuda:1 to cuda:0 and back (the sums "
        "come out right on both); the report does not try .to(torch.cuda.device_of(...)), the cell's TypeError.",
        "The cell's quote (the .to() docstring in torch/_tensor_docs.py) is read in 2.7.1 and later; in torch 2.0.0 "
        ".to(other.device) moves between GPUs, which the test checks.",
    ),
    R(
        "06-sync-timing",
        "with d2l.Benchmark('torch'):\n"
        "    for _ in range(10):\n"
        "        a = torch.randn(size=(1000, 1000), device=device)\n"
        "        b = torch.mm(a, a)\n"
        "numpy: 1.4693 sec\n"
        "torch: 0.0022 sec\n"
        f"{CUT}\n"
        "with d2l.Benchmark():\n"
        "    for _ in range(10):\n"
        "        a = torch.randn(size=(1000, 1000), device=device)\n"
        "        b = torch.mm(a, a)\n"
        "    torch.cuda.synchronize(device)\n"
        "Done: 0.0058 sec",
        _D2L + "chapter_computational-performance/async-computation.ipynb",
        "2023-08-18",
        _D2L_TORCH,
        _D2L_GPU,
        "Ten 1000x1000 matrix products timed without torch.cuda.synchronize() take 0.0022 s, the same loop with it "
        "0.0058 s: without it the host times the launches, not the work (one run each on the book's machine; the "
        "numpy line is the cell's CPU comparison, printed by the same cell).",
        "The cell's quote (torch.cuda.synchronize's docstring) is read in 2.7.1 and later; the book's release names "
        "torch 2.0.0, whose kernels queue and return the same way, which the two figures show.",
    ),
    R(
        "02-cross-device-error",
        _APPENDIX_A_EXCERPT,
        _APPENDIX_A_URL,
        "2024-07-24",
        "2.4.0+cu121",
        _APPENDIX_A_GPU,
        "Two tensors added on the GPU give a result on cuda:0; once one of them is moved back to the CPU the same sum "
        "raises, naming cuda:0 and cpu (the same report backs cells 05-elementwise and 07-add-cpu).",
        _APPENDIX_A_DIFFERS,
    ),
    R(
        "05-elementwise",
        _APPENDIX_A_EXCERPT,
        _APPENDIX_A_URL,
        "2024-07-24",
        "2.4.0+cu121",
        _APPENDIX_A_GPU,
        "An elementwise sum of a CPU tensor and a GPU tensor raises, naming cuda:0 and cpu, where the same sum of two "
        "GPU tensors runs (the same report backs cells 02-cross-device-error and 07-add-cpu).",
        _APPENDIX_A_DIFFERS,
    ),
    R(
        "07-add-cpu",
        _APPENDIX_A_EXCERPT,
        _APPENDIX_A_URL,
        "2024-07-24",
        "2.4.0+cu121",
        _APPENDIX_A_GPU,
        "A sum with one operand moved to the CPU and one on the GPU raises, naming cuda:0 and cpu (the operand is moved "
        "with .to('cpu'), the cell's .cpu() in another spelling).",
        _APPENDIX_A_DIFFERS,
    ),
    R(
        "09-step-memory",
        "torch version: 2.9.1+cu130\n"
        f"{CUT}\n"
        "def print_memory_usage():\n"
        "    max_gpu_memory = torch.cuda.max_memory_allocated() / (1024 ** 3)  # Convert bytes to GB\n"
        '    print(f"Maximum GPU memory allocated: {max_gpu_memory:.1f} GB")\n'
        f"{CUT}\n"
        "model = GPTModel(BASE_CONFIG)\n"
        'device = torch.device("cuda")\n'
        "model.to(device)\n"
        "\n"
        "print_memory_usage()\n"
        f"{CUT}\n"
        "    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
        f"{CUT}\n"
        "Maximum GPU memory allocated: 6.4 GB\n"
        f"{CUT}\n"
        "model.load_state_dict(\n"
        '    torch.load("model.pth", map_location=device, weights_only=True)\n'
        ")\n"
        "model.to(device)\n"
        "model.eval();\n"
        "\n"
        "print_memory_usage()\n"
        "Maximum GPU memory allocated: 12.8 GB",
        _RASBT + "1cea30f9b177e0395ee6fa63d61af5239899dfe8/ch05/08_memory_efficient_weight_loading/memory-efficient-state-dict.ipynb",
        "2025-12-20",
        "2.9.1+cu130",
        "an NVIDIA GB10 (as torch's capability warning in the notebook names it)",
        "max_memory_allocated(), after reset_peak_memory_stats(), reports the peak the caching allocator counted for "
        "tensors: 6.4 GB for the model's weights, 12.8 GB while a second copy (the state dict loaded onto the GPU) was "
        "alive; the report does not print memory_allocated() beside it. Its warning says this torch build supports "
        "capabilities 8.0 to 12.0, the GB10 being 12.1.",
    ),
    R(
        "06-d2h-non-blocking",
        "Now let’s demonstrate that CUDA to CPU also fails to produce reliable outputs without synchronization:\n"
        f"{CUT}\n"
        "    for i in range(100):\n"
        '        cpu_tensor = tensor.to("cpu", non_blocking=True)\n'
        "        torch.testing.assert_close(\n"
        "            cpu_tensor.mean(), torch.tensor(500_000, dtype=torch.double)\n"
        "        )\n"
        f"{CUT}\n"
        "    for i in range(100):\n"
        '        cpu_tensor = tensor.to("cpu", non_blocking=True)\n'
        "        torch.cuda.synchronize()\n"
        "        torch.testing.assert_close(\n"
        "            cpu_tensor.mean(), torch.tensor(500_000, dtype=torch.double)\n"
        "        )\n"
        f"{CUT}\n"
        "0th test failed with non_blocking. Skipping remaining tests\n"
        "No test failed with synchronize",
        _PINMEM_URL,
        _PINMEM_DATE,
        _PINMEM_TORCH,
        _PINMEM_GPU,
        "A device-to-host .to('cpu', non_blocking=True) read at once gives the wrong mean on the first try, and the same "
        "copy read after torch.cuda.synchronize() passes all 100 tries: the result must not be read before the copy is "
        "known to be done (the report waits with synchronize, not an event, and does not print is_pinned()).",
    ),
)
del R

# Published measurements shown beside a lesson's stand-in (issue 37, item 4): where this machine can only imitate a
# GPU's figures (lesson 06 times host-to-host copies), a real GPU's figures as published, each with its GPU, its link
# where the report states one, and its torch version; shown beside the stand-in's output, never merged into it.
# ``STANDINS[key]`` says what the stand-in imitates (what a report must contain to match it: course_authoring.field_record_rules).
STANDINS: dict[str, str] = {
    "06-copy-variants": "lesson 06's host-to-device copy variants: pageable or pinned, blocking or non_blocking",
}
TIMINGS: tuple[FieldRecord, ...] = (
    FieldRecord(
        "06-copy-variants",
        "# A tensor in pageable memory\n"
        "pageable_tensor = torch.randn(1_000_000)\n"
        "\n"
        "# A tensor in page-locked (pinned) memory\n"
        "pinned_tensor = torch.randn(1_000_000, pin_memory=True)\n"
        f"{CUT}\n"
        "pageable_tensor.to('cuda:0'):  0.3698 ms\n"
        "pinned_tensor.to('cuda:0'):  0.3164 ms\n"
        "pageable_tensor.pin_memory():  0.1111 ms\n"
        "pageable_tensor.pin_memory().to('cuda:0'):  0.4324 ms\n"
        f"{CUT}\n"
        "tensors = [torch.randn(1_000_000) for _ in range(1000)]\n"
        f"{CUT}\n"
        "copy_to_device(*tensors):  390.4990 ms\n"
        "copy_to_device_nonblocking(*tensors):  310.4001 ms\n"
        "copy_to_device(*tensors_pinned):  316.7277 ms\n"
        "copy_to_device_nonblocking(*tensors_pinned):  299.7295 ms\n"
        "pin_copy_to_device(*tensors):  564.1277 ms\n"
        "pin_copy_to_device_nonblocking(*tensors):  330.1684 ms",
        _PINMEM_URL,
        _PINMEM_DATE,
        _PINMEM_TORCH,
        _PINMEM_GPU,
        "Medians of torch.utils.benchmark: one 4 MB float32 tensor reaches the GPU in 0.32 ms from pinned memory and "
        "0.37 ms from pageable memory, 0.43 ms when pinned first; a thousand such tensors take 390 ms pageable and "
        "blocking, 310 ms with non_blocking, about 300 ms from pinned memory either way, 564 ms pinning each first.",
    ),
)


def published_timings(key: str) -> tuple[FieldRecord, ...]:
    """The published measurements shown beside stand-in ``key`` (``STANDINS``), newest report first."""
    if key not in STANDINS:
        raise ValueError(
            f"No stand-in {key!r} in STANDINS (course_utils/evidence/field_records.py); its stand-ins are: {', '.join(sorted(STANDINS))}."
        )
    return tuple(sorted((t for t in TIMINGS if t.key == key), key=lambda t: t.date, reverse=True))


def field_records(key: str) -> tuple[FieldRecord, ...]:
    """Every field record of cell ``key``, newest report first."""
    return tuple(sorted((r for r in RECORDS if r.key == key), key=lambda r: r.date, reverse=True))


def field_record(key: str) -> FieldRecord | None:
    """The field record ``recorded(key)`` shows: the newest report for cell ``key``, or None."""
    found = field_records(key)
    return found[0] if found else None
