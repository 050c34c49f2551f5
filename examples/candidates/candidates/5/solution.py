from tables import HUNDREDS, TENS, ones


def to_roman(n):
    thousands, rest = divmod(n, 1000)
    return "M" * thousands + HUNDREDS[rest // 100] + TENS[rest // 10 % 10] + ones(rest % 10)
