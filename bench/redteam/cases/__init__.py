"""One module per bench/realworld base, each defining `CASES`, a tuple of `RedCase`s."""
