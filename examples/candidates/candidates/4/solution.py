from numerals import SYMBOLS


def to_roman(n):
    result = ""
    for value, symbol in SYMBOLS:
        while n >= value:
            result += symbol
            n -= value
    return result
