// Second source of the two-srcs failure test; only analysed, never compiled.
