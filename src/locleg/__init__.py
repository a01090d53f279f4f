"""br-locleg: the open corpus of Brazilian local legislation."""

__version__ = "0.1.0"
