"""`python -m mnemo` is the installed `mnemo` command (the README's and API.md's `mnemo serve`)."""

from mnemo.cli import main

raise SystemExit(main())
