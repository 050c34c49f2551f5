VALUES = {"M": 1000, "CM": 900, "D": 500, "CD": 400, "C": 100, "XC": 90,
          "L": 50, "XL": 40, "X": 10, "IX": 9, "V": 5, "IV": 4, "I": 1}


def largest(n):
    """The symbol with the largest value not above n."""
    return max((s for s in VALUES if VALUES[s] <= n), key=VALUES.get)
