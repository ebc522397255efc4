"""Reader of the golden files in unittests/Numerics/goldens.

Those files were written once from real PyTorch (scripts/goldens) so that the
tests need no torch: `case <name>` starts a case, each further line is
`<key> <values...>`, `end` closes a case, `#` starts a comment. The C++ unit
tests read them with unittests/Numerics/Golden.h; the Python tests use this.
"""


def read_cases(path):
    """The cases of a golden file: dicts with 'name' and each key's tokens."""
    cases, current = [], None
    with open(path) as f:
        for line in f:
            tokens = line.split()
            if not tokens or tokens[0].startswith("#"):
                continue
            if tokens[0] == "case":
                current = {"name": tokens[1]}
                cases.append(current)
            elif tokens[0] == "end":
                current = None
            else:
                current[tokens[0]] = tokens[1:]
    return cases
