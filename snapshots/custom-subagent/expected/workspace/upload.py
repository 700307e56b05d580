import os


def save(name, data):
    with open(os.path.join("uploads", name), "wb") as f:
        f.write(data)
