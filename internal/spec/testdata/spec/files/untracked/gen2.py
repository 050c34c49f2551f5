print("generated 2")
