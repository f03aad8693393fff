// STUB
print("linkparse")
