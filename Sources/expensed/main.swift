print("expensed: not built yet")
