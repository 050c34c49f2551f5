from digits import digit


def to_roman(n):
    parts = []
    for place in range(4):
        parts.append(digit(place, n % 10))
        n //= 10
    return "".join(reversed(parts))
