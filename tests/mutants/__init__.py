"""The corpus of mutants: realistic bugs planted in the solutions, one module per notebook.

Each module defines MUTANTS, a list of tests.grading.Mutant. tests/test_mutants.py grades every
mutant and asserts it loses its task's points and keeps all others.
"""
import importlib
import pkgutil


def all_mutants() -> list:
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        found += importlib.import_module(f"{__name__}.{info.name}").MUTANTS
    return found
