# The answers to the try-it cells of notebooks/06_transfers_and_timing.ipynb: `check("06.a", show_answer=True)` shows one.
# Each starts at its `# %% try-it NN.x` line (course_utils/checks/answers.py reads them); they are kept
# out of the installed package so that no notebook, a graded one included, can import them.

# %% try-it 06.a
def time_once(op, clock, synchronize):
    synchronize()
    start = clock()
    op()
    synchronize()
    return clock() - start

# %% try-it 06.b
def copy_into(dst, src):
    dst.copy_(src)
    return dst
