ONES = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII"]
TENS = ["", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"]
HUNDREDS = ["", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"]


def ones(d):
    return ONES[d]
