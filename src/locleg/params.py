"""Checks of the values people type (explorer parameters, CLI options): one message each that
names what would be valid, the same on the command line, in HTML and in JSON."""

from __future__ import annotations

import re
from functools import lru_cache

from .enrich.types import NORM_TYPES, normalize_type
from .errors import UserError
from .extract.result import TEXT_METHODS

# Extraction methods a norm's documents can carry ('none': no text yet); see extract/result.
METHODS = ("ocr", "mixed", *TEXT_METHODS, "zip", "none")
_DIGITS = re.compile(r"[0-9]{1,12}")  # ASCII digits only: "²".isdigit() is True


class BadParameter(UserError):
    """A parameter value the explorer or the CLI cannot use: 400, or exit 2."""


def _shown(value: str, limit: int = 40) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "…")


@lru_cache(maxsize=1)
def _ibge_codes() -> frozenset[int]:
    from .jurisdictions import load_ibge

    return frozenset(j.ibge_code for j in load_ibge())


def ibge_code_problem(value: str) -> str | None:
    """Why a typed IBGE code names no jurisdiction, or None when it names one."""
    text = value.strip()
    if not _DIGITS.fullmatch(text):
        return f"not an IBGE code: {_shown(text)} (e.g. 2918407 for Juazeiro-BA)"
    if len(text) not in (2, 7):
        return (f"IBGE codes have 7 digits for a municipality (2918407, Juazeiro-BA) or 2 for "
                f"a state (29, Bahia); {_shown(text)} has {len(text)}")
    if int(text) not in _ibge_codes():
        return f"no jurisdiction with IBGE code {text}"
    return None


def check_ibge_code(value: str | int) -> int:
    """The IBGE code of a known jurisdiction, or BadParameter saying what is wrong."""
    problem = ibge_code_problem(str(value))
    if problem:
        raise BadParameter(problem)
    return int(str(value).strip())


def type_problem(value: str) -> str | None:
    """Why a typed norm type is not one of the normalized types (listing them), or None."""
    if value in NORM_TYPES:
        return None
    guess = normalize_type(value[:64]) if value.strip() else None
    hint = f" (did you mean {guess}?)" if guess and guess != "outro" else ""
    return f"unknown type {_shown(value)}{hint}: types are " + ", ".join(sorted(NORM_TYPES))


def method_problem(value: str) -> str | None:
    """Why a typed extraction method is not one (listing them), or None."""
    if value in METHODS:
        return None
    return f"unknown extraction method {_shown(value)}: methods are " + ", ".join(METHODS)


def check_type(value: str) -> str:
    """A normalized norm type (LexML's vocabulary), or BadParameter listing them."""
    problem = type_problem(value)
    if problem:
        raise BadParameter(problem)
    return value


def check_method(value: str) -> str:
    """An extraction method, or BadParameter listing them."""
    problem = method_problem(value)
    if problem:
        raise BadParameter(problem)
    return value
