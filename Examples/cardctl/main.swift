print("cardctl")
