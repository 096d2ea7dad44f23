print("ferry: not built yet")
