# The answers to the try-it cells of notebooks/08_one_process_per_device.ipynb: `check("08.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 08.a
def device_from_env(env):
    return torch.device("cuda", int(env["LOCAL_RANK"]))

# %% try-it 08.b
second = "torchrun --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29500 scripts/two_machines.py"
