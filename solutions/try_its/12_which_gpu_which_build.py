# The answers to the try-it cells of notebooks/12_which_gpu_which_build.ipynb: `check("12.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 12.a
def has_kernels(arch_list, capability):
    major, minor = capability
    for arch in arch_list:
        kind, _, number = arch.partition("_")
        built = (int(number[:-1]), int(number[-1]))
        if kind == "sm" and built[0] == major and built[1] <= minor:
            return True
        if kind == "compute" and built <= (major, minor):
            return True
    return False

# %% try-it 12.b
env = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1"}
