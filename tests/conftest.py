import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _forget_a_reset_default_device():
    """Leave torch's global default-device context as the test found it.

    ``torch.set_default_device(None)`` leaves ``device_context = None`` behind, and on PyTorch 2.7.1
    to 2.9.1 ``torch.get_default_device()`` then raises AttributeError (issue 34, W1). A test that
    resets the default device must not break a later test in the same worker that asks PyTorch.
    """
    import torch

    context = torch._GLOBAL_DEVICE_CONTEXT
    had = hasattr(context, "device_context")
    yield
    if not had and getattr(context, "device_context", "kept") is None:
        del context.device_context
