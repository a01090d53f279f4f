"""`python -m locleg` runs the locleg command."""

from locleg.cli import main

main()
