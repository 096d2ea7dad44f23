print("ferry-fixture: not built yet")
