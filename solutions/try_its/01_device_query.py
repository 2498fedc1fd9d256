# The answers to the try-it cells of notebooks/01_device_query.ipynb: `check("01.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 01.a
def usable_device():
    acc = torch.accelerator.current_accelerator(check_available=True)
    return acc if acc is not None else torch.device("cpu")

# %% try-it 01.b
mask = "3,1"
