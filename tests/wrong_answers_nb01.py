"""The try-it cells of lesson 01 (device query): each check passes a right answer and fails plausible
wrong ones, naming the mistake, on any machine (01.a runs the answer on simulated machines).
Lesson: notebooks/01_device_query."""

from try_it_support import Case

RIGHT_01A = """
def usable_device():
    acc = torch.accelerator.current_accelerator(check_available=True)
    return acc if acc is not None else torch.device("cpu")
"""

TRY_ITS = [
    Case("01.a", RIGHT_01A, "pass"),
    Case("01.a", "def usable_device():\n    return torch.accelerator.current_accelerator(check_available=True)",
         "fail", "no accelerator works here"),
    Case("01.a", "def usable_device():\n"
                 "    acc = torch.accelerator.current_accelerator()\n"
                 "    return acc if acc is not None else torch.device('cpu')",
         "fail", "names the accelerator the build is for"),
    Case("01.a", "def usable_device():\n"
                 "    return torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
         "fail", "a Mac's GPU"),
    Case("01.a", "def usable_device():\n    return 'cuda' if torch.accelerator.is_available() else 'cpu'",
         "fail", "not the string"),
    Case("01.a", "def usable_device():\n    return torch.device('cpu')", "fail", "never hard-code"),
    Case("01.a", "def usable_device():\n"
                 "    if torch.accelerator.is_available():\n"
                 "        return torch.accelerator.current_accelerator()\n"
                 "    return torch.device('cpu')", "pass"),
    Case("01.b", 'mask = "3,1"', "pass"),
    Case("01.b", 'mask = "1,3"', "fail", "first index listed becomes cuda:0"),
    Case("01.b", 'mask = "cuda:3,cuda:1"', "fail", "bare physical indices"),
    Case("01.b", "mask = [3, 1]", "fail", "is a string"),
    Case("01.b", 'mask = "3,1,0"', "fail", "only the two"),
    Case("01.b", 'mask = "3"', "fail", "physical GPU 3 as cuda:0;"),
]

