// fake CANN header for analysis tests
