print("expense: not built yet")
