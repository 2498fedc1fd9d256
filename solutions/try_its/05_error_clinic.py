# The answers to the try-it cells of notebooks/05_error_clinic.ipynb: `check("05.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 05.a
def call_model(model, x):
    return model(x.to(next(model.parameters()).device))

# %% try-it 05.b
state = torch.load(io.BytesIO(checkpoint), map_location="cpu")
