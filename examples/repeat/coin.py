import random

# random seeds itself from the operating system in every new process, so
# each run in its fresh container flips anew.
print(random.choice(["heads", "tails"]))
