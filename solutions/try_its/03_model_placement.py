# The answers to the try-it cells of notebooks/03_model_placement.ipynb: `check("03.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 03.a
layer.register_buffer("scale", torch.ones(3))
moved = layer.to("meta")

# %% try-it 03.b
def run(model, x):
    return model(x.to(next(model.parameters()).device))
