# The answers to the try-it cells of notebooks/04_current_device.ipynb: `check("04.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 04.a
def zeros_where(x):
    with torch.device(x.device):
        return torch.zeros(2)

# %% try-it 04.b
def build_on(device):
    with torch.device(device):
        return nn.Linear(8, 8)
