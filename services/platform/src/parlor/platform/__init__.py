"""The all-in-one development platform (``make run``)."""
