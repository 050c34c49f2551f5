import sys

n = int(sys.argv[1])
for i in range(1, n):
    print("Fizz" * (i % 3 == 0) + "Buzz" * (i % 5 == 0) or i)
