"""One module per real repository; each defines `CASE` (realworld.case.Case)."""
