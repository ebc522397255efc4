"""Spelling float32 values in MLIR test files, shared by the generators."""
import struct


def short_float(value):
    """The shortest decimal that round-trips float32, as Quanta prints
    statistics (with a dot: MLIR reads "1" and "1e-05" as integers)."""
    v = struct.unpack("<f", struct.pack("<f", value))[0]
    for precision in range(1, 18):
        text = "%.*g" % (precision, v)
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == v:
            break
    if "." not in text and "n" not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


def float_bits(values):
    """The float32 bit patterns of `values` as signed 32-bit integers."""
    return [struct.unpack("<i", struct.pack("<f", float(v)))[0] for v in values]


def nested(tokens, shape):
    """A row-major list of literal tokens as a nested MLIR dense literal."""
    if len(shape) == 1:
        return "[" + ", ".join(tokens) + "]"
    step = len(tokens) // shape[0]
    return "[" + ", ".join(nested(tokens[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"
