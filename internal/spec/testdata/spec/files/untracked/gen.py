print("generated")
