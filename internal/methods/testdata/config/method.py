print("fake method")
