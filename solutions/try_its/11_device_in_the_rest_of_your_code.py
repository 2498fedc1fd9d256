# The answers to the try-it cells of notebooks/11_device_in_the_rest_of_your_code.ipynb: `check("11.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 11.a
def autocast_for(device):
    return torch.autocast(device_type=device.type)

# %% try-it 11.b
loader = DataLoader(range(10), shuffle=True, generator=torch.Generator(device="cpu").manual_seed(11))
