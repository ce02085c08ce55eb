"""Binary formats: ar archives and ELF symbol tables (read and written here only)."""
