print(input() * 2)
