# The answers to the try-it cells of notebooks/07_claims_checked.ipynb: `check("07.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 07.a
where = m.device

# %% try-it 07.b
def to_model(net, batch):
    return batch.to(next(net.parameters()).device)
