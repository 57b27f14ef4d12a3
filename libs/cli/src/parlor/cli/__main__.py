"""``python -m parlor.cli``: the same as the ``parlor`` script."""

from parlor.cli.main import main

main()
