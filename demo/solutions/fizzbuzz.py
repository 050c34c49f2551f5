import sys

if len(sys.argv) != 2:
    print("usage: fizzbuzz N", file=sys.stderr)
    sys.exit(2)
for i in range(1, int(sys.argv[1]) + 1):
    if i % 15 == 0:
        print("FizzBuzz")
    elif i % 3 == 0:
        print("Fizz")
    elif i % 5 == 0:
        print("Buzz")
    else:
        print(i)
