import sys

n = int(sys.argv[1])
for i in range(1, n + 1):
    print("Fizz" * (i % 3 == 0) + "Buzz" * (i % 5 == 0) or i)
while n > 0:  # the bug: waits for a condition that never changes
    pass
