# The answers to the try-it cells of notebooks/02_tensor_placement.ipynb: `check("02.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 02.a
def ones_beside(x):
    return torch.ones(3, device=x.device)

# %% try-it 02.b
def match(x, weight):
    return x.to(weight)
