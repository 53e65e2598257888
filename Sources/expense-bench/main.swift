print("expense-bench: not built yet")
