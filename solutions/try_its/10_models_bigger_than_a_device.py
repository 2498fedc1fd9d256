# The answers to the try-it cells of notebooks/10_models_bigger_than_a_device.ipynb: `check("10.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 10.a
layer = nn.Linear(4096, 4096, device="meta", dtype=torch.bfloat16)

# %% try-it 10.b
def restore(model, state):
    model.load_state_dict(state, assign=True)
    return model
