"""Lowest layer: the user-error type, JSON text in and out, running tools and writing outputs atomically."""
