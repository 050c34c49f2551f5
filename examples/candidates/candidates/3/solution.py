from symbols import VALUES, largest


def to_roman(n):
    if n == 0:
        return ""
    s = largest(n)
    return s + to_roman(n - VALUES[s])
