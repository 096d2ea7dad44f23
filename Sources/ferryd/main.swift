print("ferryd: not built yet")
