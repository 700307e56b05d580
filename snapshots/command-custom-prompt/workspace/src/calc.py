def ratio(done, total):
    """Returns the share of work done, from 0 to 1."""
    return done / total
